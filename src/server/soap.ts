import type { H3Event } from 'h3'
import type { ProtocolRoute } from '../domain/catalog.ts'
import { loadFaker } from '../engine/generators.ts'
import { createSoapResponder, type SoapResponder } from '../kinds/soap/respond.ts'
import { readRawBody, utf8Text } from './body.ts'
import { createSpecCache, operationOverride, type ProtocolAnswer, type ProtocolContext } from './protocol.ts'
import { textResponse } from './respond.ts'
import { holdResponse } from './delay.ts'
import { decidePolicy, NO_PREFERENCES, type PolicyDecision } from './pipeline/policy.ts'

const responders = createSpecCache<Promise<SoapResponder>>()

function responderFor(route: ProtocolRoute): Promise<SoapResponder> {
  return responders(route, async () => createSoapResponder(route.loadSpec().document, await loadFaker()))
}

/** `/api/shop/soap/Calculator` → the URL each service of the WSDL is served at, on the host the client used. */
function serviceUrls(event: H3Event, route: ProtocolRoute): (service: string) => string {
  const base = event.url.pathname.slice(0, event.url.pathname.length - route.mount.length)
  return (service) => `${event.url.origin}${base}/soap/${encodeURIComponent(service)}`
}

/**
 * `GET` gives the WSDL, its addresses pointing here, so a SOAP client built from `?wsdl` calls
 * the mock; `POST` answers the operation the envelope asks for.
 */
export async function answerSoap(event: H3Event, route: ProtocolRoute, context: ProtocolContext): Promise<ProtocolAnswer> {
  const responder = await responderFor(route)
  if (event.req.method === 'GET' || event.req.method === 'HEAD') {
    return { response: textResponse(200, responder.wsdl(serviceUrls(event, route)), { 'Content-Type': 'text/xml; charset=utf-8' }), endpointId: null, failed: false }
  }
  const headers = event.req.headers
  let decision: PolicyDecision | null = null
  const answer = responder.answer(
    {
      service: route.mount.slice(route.mount.lastIndexOf('/') + 1),
      soapAction: headers.get('soapaction'),
      contentType: headers.get('content-type'),
      body: utf8Text(await readRawBody(event, context.bodyLimit)),
    },
    (operation) => {
      const endpoint = route.operations.get(operation)
      // An operation whose endpoint was removed is no longer mocked: the client asked for something not served.
      if (!endpoint) return { fault: { code: 'Client', message: `operation ${operation} is not mocked: its endpoint was removed` } }
      decision = decidePolicy({ settings: endpoint, prefer: NO_PREFERENCES }, context.random)
      const override = operationOverride(endpoint, decision)
      if (!override) return undefined
      return override.error === undefined ? { value: override.value } : { fault: { message: override.error } }
    },
  )
  const endpoint = answer.operation === null ? undefined : route.operations.get(answer.operation)
  await holdResponse(event, (decision as PolicyDecision | null)?.delayMs ?? 0)
  return {
    response: textResponse(answer.status, answer.body, { 'Content-Type': answer.contentType, ...endpoint?.headers }),
    endpointId: endpoint?.id ?? null,
    failed: answer.status >= 400,
  }
}
