import type { MockRequest, OperationAnswer, OperationsRoute } from '../../engine/exchange.ts'
import { loadFaker } from '../../engine/generators.ts'
import { decidePolicy, faultOf, NO_PREFERENCES, operationOverride, type PolicyDecision, type Random } from '../../engine/policy.ts'
import { createSpecCache } from '../../engine/spec-cache.ts'
import { createSoapResponder, type SoapResponder } from './responder.ts'

const responders = createSpecCache<Promise<SoapResponder>>()

function responderFor(route: OperationsRoute): Promise<SoapResponder> {
  return responders(route, async () => createSoapResponder(route.loadSpec().document, await loadFaker()))
}

/** `/api/shop/soap/Calculator` → the URL each service of the WSDL is served at, on the host the client used. */
function serviceUrls(request: MockRequest, route: OperationsRoute): (service: string) => string {
  const { pathname, origin } = request.url
  const base = pathname.slice(0, pathname.length - route.mount.length)
  return (service) => `${origin}${base}/soap/${encodeURIComponent(service)}`
}

export interface SoapAnswerInput {
  request: MockRequest
  route: OperationsRoute
  /** The policy's draws for each operation's error rate. */
  random: Random
}

/**
 * `GET` gives the WSDL, its addresses pointing here, so a SOAP client built from `?wsdl` calls
 * the mock; `POST` answers the operation the envelope asks for.
 */
export async function answerSoap({ request, route, random }: SoapAnswerInput): Promise<OperationAnswer> {
  const responder = await responderFor(route)
  if (request.method === 'GET' || request.method === 'HEAD') {
    return { answer: { status: 200, headers: { 'Content-Type': 'text/xml; charset=utf-8' }, body: responder.wsdl(serviceUrls(request, route)) }, endpointId: null, failed: false, delayMs: 0 }
  }
  const { headers } = request
  let decision: PolicyDecision | null = null
  const answer = responder.answer(
    {
      service: route.mount.slice(route.mount.lastIndexOf('/') + 1),
      soapAction: headers.get('soapaction'),
      contentType: headers.get('content-type'),
      body: await request.text(),
    },
    (operation) => {
      const endpoint = route.operations.get(operation)
      // An operation whose endpoint was removed is no longer mocked: the client asked for something not served.
      if (!endpoint) return { fault: { code: 'Client', message: `operation ${operation} is not mocked: its endpoint was removed` } }
      decision = decidePolicy({ settings: endpoint, prefer: NO_PREFERENCES }, random)
      const override = operationOverride(endpoint, decision)
      if (!override) return undefined
      return override.error === undefined ? { value: override.value } : { fault: { message: override.error } }
    },
  )
  const endpoint = answer.operation === null ? undefined : route.operations.get(answer.operation)
  return {
    answer: { status: answer.status, headers: { 'Content-Type': answer.contentType, ...endpoint?.headers }, body: answer.body },
    endpointId: endpoint?.id ?? null,
    failed: answer.status >= 400,
    delayMs: (decision as PolicyDecision | null)?.delayMs ?? 0,
    fault: faultOf(decision as PolicyDecision | null),
  }
}
