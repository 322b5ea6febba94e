import type { H3Event } from 'h3'
import { AppError, errorBody } from '../errors.ts'
import type { Catalog, Resolution } from '../domain/catalog.ts'
import type { Context } from '../domain/context.ts'
import { MAX_RECORD_DEPTH, deeperThan, runRecordAction } from '../domain/records.ts'
import { whenStoreFree } from '../domain/transaction.ts'
import { loadFaker } from '../engine/generators.ts'
import { parsePrefer, type Preferences } from '../engine/prefer.ts'
import { hasPlaceholders, renderTemplate, usesFaker } from '../engine/template.ts'
import type { MockEvents } from '../events.ts'
import type { Endpoint } from '../model.ts'
import type { OpenApiOperation } from '../kinds/openapi/types.ts'
import { checkRequest, readOperationBody, responderFor, specAnswer } from './openapi.ts'
import { defaultStatus } from '../kinds/openapi/default-status.ts'
import { readJsonBody, readRawBody, isJsonContentType, parseJson } from './body.ts'
import { AUTH_CHALLENGE, errorResponse, jsonResponse, textResponse } from './respond.ts'
import { FastResponse } from 'srvx'
import { DELIVERY_HEADER } from '../queue/worker.ts'
import type { ProtocolAnswer } from './protocol.ts'
import { finishCapture, startCapture } from './request-capture.ts'
import { holdResponse } from './delay.ts'
import { decidePolicy, type PolicyDecision, type Random } from './pipeline/policy.ts'

export interface MockDeps {
  context: Context
  catalog: Catalog
  events: MockEvents
  bodyLimit: number
  debug: boolean
  /** Draws the error-rate dice: Math.random, or seeded (`serve --seed`). */
  random: Random
}

function decodeSegments(pathname: string): string[] {
  const segments = pathname.split('/').filter(Boolean)
  if (!pathname.includes('%')) return segments
  try {
    return segments.map(decodeURIComponent)
  } catch {
    throw new AppError('BAD_REQUEST', `path "${pathname}" has a malformed percent-encoding`)
  }
}

const WRITES = new Set(['create', 'replace', 'patch'])
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH'])

// One unseeded faker for response templates, made on first use.
let templateFaker: Promise<import('@faker-js/faker').Faker> | null = null

type Found = Extract<Resolution, { kind: 'found' }>

function simulatedError(status: number, reason: string): Response {
  return jsonResponse(status, errorBody('SIMULATED_ERROR', `simulated ${status} (${reason})`))
}

/** A body that must be JSON for record writes; elsewhere parsed when it is JSON, else ignored. */
async function requestBody(event: H3Event, endpoint: Endpoint, bodyLimit: number): Promise<unknown> {
  if (endpoint.body === null && endpoint.action && WRITES.has(endpoint.action)) return readJsonBody(event, bodyLimit)
  if (!WITH_BODY.has(event.req.method)) return undefined
  if (endpoint.schema !== null) return readJsonBody(event, bodyLimit)
  // A fixed answer still refuses a malformed JSON body, so client bugs show up against the mock.
  const bytes = await readRawBody(event, bodyLimit)
  return bytes.byteLength > 0 && isJsonContentType(event.req.headers.get('content-type')) ? parseJson(bytes) : undefined
}

async function renderFixedBody(event: H3Event, deps: MockDeps, endpoint: Endpoint, params: Record<string, string>, body: unknown): Promise<string> {
  const text = endpoint.body!
  if (!hasPlaceholders(text)) return text
  if (usesFaker(text)) templateFaker ??= loadFaker().then((make) => make())
  return renderTemplate(text, {
    params,
    query: Object.fromEntries(event.url.searchParams),
    body,
    headers: Object.fromEntries(event.req.headers),
    faker: usesFaker(text) ? await templateFaker : null,
    now: deps.context.clock.now(),
  })
}

/** match → delay → simulated errors → validate → answer (fixed body or records). */
async function answer(event: H3Event, deps: MockDeps, resolution: Exclude<Resolution, { kind: 'protocol' }>): Promise<Response> {
  if (resolution.kind === 'not-found') {
    throw new AppError('ROUTE_NOT_MATCHED', `no mock endpoint matches ${event.req.method} ${event.url.pathname}`)
  }
  if (resolution.kind === 'method-not-allowed') {
    throw new AppError('METHOD_NOT_ALLOWED', `${event.req.method} is not allowed on ${event.url.pathname}; allowed: ${resolution.allow.join(', ')}`, {
      headers: { Allow: resolution.allow.join(', ') },
    })
  }
  const route = resolution.route
  const { endpoint } = route
  const prefer = parsePrefer(event.req.headers.get('prefer'))
  const decision = decidePolicy({ settings: endpoint, prefer }, deps.random)
  await holdResponse(event, decision.delayMs)
  if (endpoint.operation && route.spec) return answerFromSpec(event, deps, resolution, endpoint.operation, prefer, decision)
  const { outcome } = decision
  if (outcome.kind === 'simulated-error') return simulatedError(outcome.status, outcome.reason)
  const body = await requestBody(event, endpoint, deps.bodyLimit)
  if (WITH_BODY.has(event.req.method)) await checkEndpointSchema(endpoint, body)
  return answerConfigured(event, deps, resolution, outcome.status, body)
}

/** 422 when the body breaks the JSON Schema configured on the endpoint (if any). */
async function checkEndpointSchema(endpoint: Endpoint, body: unknown): Promise<void> {
  if (endpoint.schema === null) return
  // ajv recurses like JSON.stringify: the same depth limit as records.
  if (deeperThan(body, MAX_RECORD_DEPTH)) throw new AppError('INVALID_BODY', `request body is nested deeper than ${MAX_RECORD_DEPTH} levels`)
  // ajv loads with the first endpoint that has a schema.
  const { schemaProblems } = await import('../engine/validate.ts')
  const problems = schemaProblems(endpoint.schema, body)
  if (problems.length > 0) throw new AppError('VALIDATION_FAILED', 'request body does not match the endpoint schema', { details: problems })
}

/**
 * A 1xx is informational: sent as the final status, no client could read the answer (and a
 * Response cannot even be built with one). Configuring one is refused; one stored before that,
 * or the only code a spec documents (a WebSocket upgrade's 101), is answered as 200.
 */
function finalStatus(status: number): number {
  return status < 200 ? 200 : status
}

/** A configured fixed body, the resource's records, or `{}`. */
async function answerConfigured(event: H3Event, deps: MockDeps, resolution: Found, configured: number, body: unknown): Promise<Response> {
  const status = finalStatus(configured)
  const { endpoint, collectionId, parentFields, idParam } = resolution.route
  if (endpoint.body !== null) {
    return textResponse(status, await renderFixedBody(event, deps, endpoint, resolution.params, body), endpoint.headers)
  }
  if (endpoint.action && collectionId !== null) {
    const result = await whenStoreFree(deps.context.db, () => runRecordAction(deps.context, {
      action: endpoint.action!,
      collectionId,
      parents: parentFields.map((field) => ({ field, values: [resolution.params[field]!] })),
      id: resolution.params[idParam],
      query: event.url.searchParams,
      body,
      url: event.url,
      status,
    }))
    return textResponse(result.status, result.body, { ...result.headers, ...endpoint.headers })
  }
  return textResponse(status, '{}', endpoint.headers)
}

/**
 * An imported operation: validate the request against it, then answer what the spec documents
 * (or the records, for a stateful import; or a body configured on the endpoint).
 */
async function answerFromSpec(event: H3Event, deps: MockDeps, resolution: Found, operation: OpenApiOperation, prefer: Preferences, decision: PolicyDecision): Promise<Response> {
  const { endpoint } = resolution.route
  const body = WITH_BODY.has(event.req.method) || operation.requestBody ? await readOperationBody(event, deps.bodyLimit) : undefined
  const responder = await responderFor(resolution.route)
  checkRequest(responder, operation, event, resolution.params, body)
  // A schema configured on the endpoint checks on top of the spec's.
  await checkEndpointSchema(endpoint, body)
  // A preferred error code picks its documented response below; only the error rate fails outright.
  const { outcome } = decision
  if (outcome.kind === 'simulated-error' && outcome.cause === 'error-rate') return simulatedError(outcome.status, outcome.reason)
  const stateful = endpoint.action !== null && resolution.route.collectionId !== null
  if (prefer.code === undefined && (endpoint.body !== null || stateful)) {
    if (stateful && body instanceof Uint8Array) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', `a stateful endpoint stores JSON or form bodies, not ${event.req.headers.get('content-type')}`)
    }
    return answerConfigured(event, deps, resolution, endpoint.status, body)
  }
  // A status configured on the endpoint is chosen like a preferred one: its documented response if any.
  const configured = endpoint.status !== defaultStatus(operation) ? endpoint.status : undefined
  const code = prefer.code ?? configured
  const documented = specAnswer(responder, operation, endpoint.status, { ...prefer, code }, event.req.headers.get('accept'))
  if (documented) return textResponse(finalStatus(documented.status), documented.body, { ...documented.headers, ...endpoint.headers })
  // A code the spec does not document: as for any endpoint.
  if (code! >= 400) return simulatedError(code!, prefer.code === undefined ? 'configured status' : 'Prefer: code')
  return answerConfigured(event, deps, resolution, code!, body)
}

/** A GraphQL schema or SOAP service; their modules (and libraries) load with the first request. */
async function answerProtocol(event: H3Event, deps: MockDeps, resolution: Extract<Resolution, { kind: 'protocol' }>): Promise<ProtocolAnswer> {
  const protocolContext = { bodyLimit: deps.bodyLimit, random: deps.random }
  if (resolution.route.protocol === 'graphql') return (await import('./graphql.ts')).answerGraphql(event, resolution.route, protocolContext)
  return (await import('./soap.ts')).answerSoap(event, resolution.route, protocolContext)
}

/** Every 401 names an authentication scheme (RFC 9110), whether simulated, configured or documented. */
function withChallenge(response: Response): Response {
  if (response.status !== 401 || response.headers.has('www-authenticate')) return response
  const headers = new Headers(response.headers)
  headers.set('WWW-Authenticate', AUTH_CHALLENGE)
  return new FastResponse(response.body, { status: 401, statusText: response.statusText, headers })
}

/** The catch-all handler: resolve, answer, and report every request (success or error) once. */
export function createMockHandler(deps: MockDeps) {
  return async (event: H3Event): Promise<Response> => {
    const started = performance.now()
    // Headers and bodies are kept only while the request log listens (the dashboard asked for it).
    const capture = deps.events.listenerCount('request.captured') > 0 ? startCapture(event, deps.context.clock) : null
    let resolution: Resolution = { kind: 'not-found', project: null }
    let response: Response
    let operation: ProtocolAnswer | null = null
    try {
      resolution = deps.catalog.resolve(event.req.method, decodeSegments(event.url.pathname))
      if (resolution.kind === 'protocol') {
        operation = await answerProtocol(event, deps, resolution)
        response = operation.response
      } else {
        response = await answer(event, deps, resolution)
      }
    } catch (error) {
      response = errorResponse(error, { debug: deps.debug })
    }
    response = withChallenge(response)
    const durationMs = Math.round((performance.now() - started) * 100) / 100
    const endpointId = resolution.kind === 'found' ? resolution.route.endpoint.id : (operation?.endpointId ?? null)
    if (deps.events.listenerCount('request.served') > 0) {
      deps.events.emit('request.served', {
        projectId: resolution.project?.id ?? null,
        endpointId,
        failed: operation?.failed ?? false,
        method: event.req.method,
        path: event.url.pathname,
        query: event.url.searchParams,
        status: response.status,
        durationMs,
        fromDelivery: event.req.headers.has(DELIVERY_HEADER),
      })
    }
    if (capture && resolution.project) {
      await finishCapture(event, { events: deps.events, bodyLimit: deps.bodyLimit, capture, projectId: resolution.project.id, endpointId, durationMs, response })
    }
    return response
  }
}
