import type { MockAnswer } from '../../engine/exchange.ts'
import { createResponder, type Responder } from './responder.ts'
import type { OpenApiOperation, SpecDocument } from './types.ts'

// Built only when a refusal finds a documented 401/403; kept per stored document like the answer stage's.
const responders = new WeakMap<SpecDocument, Responder>()

/**
 * What an operation documents for a request its security refused, as Prism answers it: the
 * documented 401 (or 403) with its example, else a body generated from its schema, and its headers;
 * null when the operation documents no response with that exact status.
 */
export function documentedAuthRefusal(spec: SpecDocument, operation: OpenApiOperation, status: 401 | 403, accept: string | null): MockAnswer | null {
  if (!operation.responses.some((response) => response.code === String(status))) return null
  let responder = responders.get(spec)
  if (!responder) responders.set(spec, (responder = createResponder(spec)))
  const built = responder.buildResponse(operation, { status, preferCode: status, accept, negotiation: 'lenient' })
  if (!built) return null
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(built.headers)) headers[name.toLowerCase() === 'content-type' ? 'Content-Type' : name] = value
  return { status: built.status, headers, body: built.body }
}
