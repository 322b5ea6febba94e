import type { MockAnswer } from '../../engine/exchange.ts'
import { responderFor, toAnswer } from './responders.ts'
import type { OpenApiOperation, SpecDocument } from './types.ts'

/**
 * What an operation documents for a request its security refused, as Prism answers it: the
 * documented 401 (or 403) with its example, else a body generated from its schema, and its headers;
 * null when the operation documents no response with that exact status.
 */
export async function documentedAuthRefusal(spec: SpecDocument, operation: OpenApiOperation, status: 401 | 403, accept: string | null): Promise<MockAnswer | null> {
  if (!operation.responses.some((response) => response.code === String(status))) return null
  const built = (await responderFor(spec)).buildResponse(operation, { status, preferCode: status, accept, negotiation: 'lenient' })
  return built ? toAnswer(built) : null
}
