import type { MockAnswer } from '../../engine/exchange.ts'
import type { BuiltResponse, Responder } from './responder.ts'
import type { SpecDocument } from './types.ts'

// One responder (compiled validators, cached samples) per parsed spec document, for answers and
// refusals alike; the catalog keeps a document (and so its responder) until that spec is imported again.
const responders = new WeakMap<SpecDocument, Responder>()

/** ajv and openapi-sampler load with the first imported endpoint that answers or refuses. */
export async function responderFor(document: SpecDocument): Promise<Responder> {
  let responder = responders.get(document)
  if (!responder) {
    const { createResponder } = await import('./responder.ts')
    responder = createResponder(document)
    responders.set(document, responder)
  }
  return responder
}

/**
 * The built response as the server sends it, its Content-Type named as the other answerers name it;
 * no body is an empty one, sent with `Content-Length: 0` as an endpoint's empty body is (not as an
 * empty chunked body).
 */
export function toAnswer(built: BuiltResponse): MockAnswer {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(built.headers)) headers[name.toLowerCase() === 'content-type' ? 'Content-Type' : name] = value
  return { status: built.status, headers, body: built.body ?? '' }
}
