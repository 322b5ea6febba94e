import { AppError } from '../../errors.ts'
import { finalStatus, hasConfiguredBody, simulatedErrorAnswer, WITH_BODY, type MockAnswer, type MockRequest, type RouteStages, type Validated } from '../../engine/exchange.ts'
import { FORM_TYPE, formFields, MULTIPART_TYPE, multipartFields } from '../../engine/form-fields.ts'
import { isJsonContentType } from '../../engine/media-type.ts'
import type { AnswerDecision } from '../../engine/policy.ts'
import type { Preferences } from '../../engine/prefer.ts'
import type { Endpoint, Negotiation } from '../../model.ts'
import { defaultStatus } from './default-status.ts'
import { isJsonish } from './media.ts'
import type { Responder } from './responder.ts'
import { responderFor, toAnswer } from './responders.ts'
import type { OpenApiOperation } from './types.ts'

/** JSON and form bodies (urlencoded and multipart) are parsed for validation; others (XML, binary) pass as raw bytes, unchecked. */
async function readOperationBody(request: MockRequest): Promise<unknown> {
  const bytes = await request.body()
  if (bytes.byteLength === 0) return undefined
  const contentType = request.headers.get('content-type')
  if (isJsonContentType(contentType)) return request.json()
  const mime = contentType?.split(';', 1)[0]!.trim().toLowerCase()
  if (mime === FORM_TYPE) return formFields(new URLSearchParams(Buffer.from(bytes).toString('utf8')))
  if (mime === MULTIPART_TYPE) {
    const fields = await multipartFields(bytes, contentType!)
    if (!fields) throw new AppError('INVALID_BODY', 'request body is not valid multipart/form-data')
    return fields
  }
  return bytes
}

/**
 * A request that breaks the operation's parameters or body schema: the operation's documented 422
 * (else 400, `4XX`, `default`) with its body, as Prism picks it; without one, 422 `VALIDATION_FAILED`
 * with each problem.
 */
function checkOperationRequest(responder: Responder, operation: OpenApiOperation, request: MockRequest, params: Record<string, string>, body: unknown, form: string | null): MockAnswer | null {
  const problems = responder.validateRequest(operation, {
    params,
    query: request.url.searchParams,
    raw: { query: request.url.search.slice(1), form },
    headers: request.headers,
    contentType: request.headers.get('content-type'),
    body,
  })
  if (problems.length === 0) return null
  const documented = responder.buildRejection(operation, request.headers.get('accept'))
  if (documented) return toAnswer(documented)
  throw new AppError('VALIDATION_FAILED', `request does not match the OpenAPI operation${operation.operationId ? ` ${operation.operationId}` : ''}`, { details: problems })
}

/**
 * The documented response: `Prefer: code=` and `example=` pick one as Prism does; null when the
 * preferred code is not documented (the caller answers as for any endpoint).
 */
function documentedAnswer(responder: Responder, operation: OpenApiOperation, status: number, prefer: Pick<Preferences, 'code' | 'example'>, accept: string | null, negotiation: Negotiation): MockAnswer | null {
  const built = responder.buildResponse(operation, {
    status,
    ...(prefer.code === undefined ? {} : { preferCode: prefer.code }),
    ...(prefer.example === undefined ? {} : { preferExample: prefer.example }),
    accept,
    negotiation,
  })
  return built && toAnswer(built)
}

interface OperationAnswerInput {
  request: MockRequest
  endpoint: Endpoint
  operation: OpenApiOperation
  responder: Responder
  prefer: Preferences
  decision: AnswerDecision
  /** The request body, as validated. */
  body: unknown
  /** The imported endpoint keeps records (`import --stateful`). */
  stateful: boolean
  negotiation: Negotiation
  /** What any endpoint answers: its configured body, its records, or `{}`; the domain's, given here. */
  answerConfigured(status: number): Promise<MockAnswer>
  /** The endpoint's configured headers, their templates rendered for this request. */
  configuredHeaders(): Promise<Record<string, string>>
}

/**
 * An imported operation, its request validated: what the spec documents (or the records, for a
 * stateful import; or a body configured on the endpoint).
 */
async function answerOperation(input: OperationAnswerInput): Promise<MockAnswer> {
  const { request, endpoint, operation, responder, prefer, decision, body, stateful } = input
  // A preferred error code picks its documented response below; only the error rate fails outright.
  const { outcome } = decision
  if (outcome.kind === 'simulated-error' && outcome.cause === 'error-rate') return simulatedErrorAnswer(outcome.status, outcome.reason)
  if (prefer.code === undefined && hasConfiguredBody(endpoint)) return input.answerConfigured(endpoint.status)
  if (prefer.code === undefined && stateful) {
    if (body instanceof Uint8Array) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `a stateful endpoint stores JSON or form bodies, not ${request.headers.get('content-type')}`)
    return answerRecords(input)
  }
  // A status configured on the endpoint is chosen like a preferred one: its documented response if any.
  // A 1xx stored by an import made before 1xx stopped being a default is not one anybody chose.
  const configured = endpoint.status !== defaultStatus(operation) && endpoint.status >= 200 ? endpoint.status : undefined
  const code = prefer.code ?? configured
  const documented = documentedAnswer(responder, operation, endpoint.status, { ...prefer, code }, request.headers.get('accept'), input.negotiation)
  if (documented) return { ...documented, status: finalStatus(documented.status), headers: { ...documented.headers, ...(await input.configuredHeaders()) } }
  // A code the spec does not document (or none at all but 1xx): as for any endpoint.
  if (code !== undefined && code >= 400) return simulatedErrorAnswer(code, prefer.code === undefined ? 'configured status' : 'Prefer: code')
  return input.answerConfigured(finalStatus(code ?? endpoint.status))
}

/**
 * Records (JSON) as the `Accept` header asks among the types the operation documents: XML written
 * from the response schema's hints, text, or JSON as stored. Negotiated before the records are
 * touched, so a 406 leaves them as they were; an error answer (a record not found) stays JSON.
 */
async function answerRecords(input: OperationAnswerInput): Promise<MockAnswer> {
  const { request, endpoint, operation, responder } = input
  const chosen = responder.negotiateRecords(operation, endpoint.status, request.headers.get('accept'), input.negotiation)
  const answer = await input.answerConfigured(endpoint.status)
  const contentType = Object.entries(answer.headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? null
  if (!chosen || isJsonish(chosen.type) || answer.status >= 300 || typeof answer.body !== 'string' || !isJsonContentType(contentType)) return answer
  const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => name.toLowerCase() !== 'content-type'))
  const written = responder.writeRecords(chosen, JSON.parse(answer.body))
  return written === null ? { ...answer, headers, body: null } : { ...answer, headers: { ...headers, 'Content-Type': chosen.type }, body: written }
}

/**
 * An imported operation: the request is checked against the spec (then against a schema set on
 * the endpoint) before a simulated error is drawn; an endpoint without an operation (a route a
 * newer version dropped, kept as custom) is answered as one configured by hand.
 */
export const openapiStages: RouteStages = {
  async validate(input) {
    const { request, endpoint, spec, params, configured } = input
    if (!endpoint.operation || !spec) return configured.validate()
    const body = WITH_BODY.has(request.method) || endpoint.operation.requestBody ? await readOperationBody(request) : undefined
    configured.checkDepth(body)
    // A form body as sent: `allowReserved` fields are read from it with a `+` kept as itself.
    const form = body !== undefined && request.headers.get('content-type')?.split(';', 1)[0]!.trim().toLowerCase() === FORM_TYPE ? Buffer.from(await request.body()).toString('utf8') : null
    const rejected = checkOperationRequest(await responderFor(spec()), endpoint.operation, request, params, body, form)
    if (rejected) return { answer: rejected } satisfies Validated
    // A schema set on the endpoint checks on top of the spec's.
    await configured.checkSchema(body)
    return { body }
  },
  async answer(input) {
    const { request, endpoint, spec, prefer, decision, body, stateful, negotiation, configured, params } = input
    if (!endpoint.operation || !spec) return configured.answer(decision.outcome.status, body)
    const responder = await responderFor(spec())
    const answer = await answerOperation({
      request,
      endpoint,
      operation: endpoint.operation,
      responder,
      prefer,
      decision,
      body,
      stateful,
      negotiation,
      answerConfigured: (status) => configured.answer(status, body),
      configuredHeaders: () => configured.headers(body),
    })
    // Only a success sets callbacks off: an error answer means the operation did not happen. A HEAD
    // answered by its path's GET only asks for the GET's headers: the GET's callbacks are not its own.
    if (answer.status < 200 || answer.status >= 300 || request.method !== endpoint.method) return answer
    const callbacks = responder.callbacks(endpoint.operation, {
      url: request.url,
      method: request.method,
      params,
      query: request.url.searchParams,
      headers: request.headers,
      body,
      status: answer.status,
      responseHeaders: answer.headers,
      responseBody: answer.body,
    })
    return callbacks.requests.length + callbacks.skipped.length > 0 ? { ...answer, callbacks } : answer
  },
}
