import type { H3Event } from 'h3'
import { FastResponse } from 'srvx'
import type { Catalog } from '../domain/catalog.ts'
import { epochMs, type Context } from '../domain/context.ts'
import { answerEndpoint, answerPlainRead, readsPlainly, checkBodyDepth, checkEndpointSchema, readEndpointBody, configuredHeaders, faultHeaders } from '../domain/pipeline/answer-endpoint.ts'
import { simulatedErrorAnswer, WITH_BODY, type MockAnswer, type MockRequest, type MountAnswerer, type RouteStageInput, type RouteStages } from '../engine/exchange.ts'
import { drawDelay, NO_DELAY, type DelaySpec } from '../engine/delay.ts'
import { decidePolicy, type AnswerDecision, type PolicyDecision, type Random } from '../engine/policy.ts'
import { parsePrefer, preferredFault, type Preferences } from '../engine/prefer.ts'
import { answerBodySize, headerLinesOf, keptAnswerBody, type Journal, type JournalAnswer, type JournalRecord } from '../domain/journal.ts'
import { AppError } from '../errors.ts'
import { callbacksOffNote } from '../domain/subscriptions.ts'
import type { AnsweredBy, MockEvents, NearMiss, RuleMiss } from '../events.ts'
import { nearMisses } from '../engine/near-miss.ts'
import { kindOf } from '../kinds/registry.ts'
import type { EndpointKind, Fault, Project } from '../model.ts'
import { DELIVERY_HEADER } from '../queue/worker.ts'
import { preflightResponse } from './cors.ts'
import { holdResponse } from './delay.ts'
import { answerFault } from './faults.ts'
import { answerResponse, AUTH_CHALLENGE, errorAnswer } from './http-response.ts'
import { authStage, documentedRefusal, endpointAuth, mountAuth } from './pipeline/auth.ts'
import { matchRequest, type Match } from './pipeline/match.ts'
import { recordServed, type Served } from './pipeline/record.ts'
import { createSelector, type Selected } from './pipeline/select.ts'
import { toMockRequest } from './pipeline/request.ts'
import { capturedBody, contentTypeOf, rawHeadersOf, readUnread, sentHeader, startCapture } from './request-capture.ts'
import type { RecordedExchange } from '../domain/recorded-exchange.ts'
import { DEFAULT_PROXY_TIMEOUT_MS, forwardRequest, isManagementPath, type ForwardEnd, type Forwarded, type ProxySettings } from './proxy.ts'

export interface MockDeps {
  context: Context
  catalog: Catalog
  events: MockEvents
  bodyLimit: number
  debug: boolean
  /** Draws the error-rate dice and delay ranges: Math.random, or seeded (`serve --seed`). */
  random: Random
  /** `serve --delay`: no mock answer comes sooner than this; null: none. */
  delayFloor: DelaySpec | null
  /** How long a `hang` fault holds a client that never gives up (default 60 s). */
  hangMs?: number | undefined
  /** Every mock request, kept per project; null: off (`serve --journal 0`). */
  journal: Journal | null
  /** Whose journal keeps a request no project's path names (`/favicon.ico`, `/api/typo/…`): the project served at its own paths. */
  ownPathsProject: () => Project | null
  /**
   * `serve --proxy`: where the project served at its own paths forwards what none of its endpoints
   * matches (null: where its `proxy` setting says, if anywhere), and how long any target may stay silent.
   */
  proxy?: { target: URL | null; timeoutMs: number }
  /** Handed each proxied exchange after its answer has gone (`serve --record`); it must not throw. Null: none is kept. */
  recorder?: ((projectId: number, exchange: RecordedExchange) => void) | null
  /** Whether a project records now (`serve --record`): then its every request goes to its target, the routes recorded so far included. */
  recording?: ((projectId: number) => boolean) | null
  /** Told of a proxied exchange the recorder never gets, and why (a timeout, an answer broken off); it must not throw. */
  unrecorded?: ((projectId: number, method: string, path: string, reason: string) => void) | null
}

/** What `recorder` gets of a body at most: a larger one is proxied but not recorded. */
export const MAX_RECORDED_BODY = 32 * 1024 * 1024

/*
 * One request through the stages: match → auth → select → policy → (delay) → fault → validate → answer → record. Each stage is a
 * function with a named input and output, so a new stage (rule selection, faults, auth, proxying)
 * goes between two of them without touching the others.
 */

type EndpointMatch = Extract<Match, { kind: 'endpoint' }>
type OperationsMatch = Extract<Match, { kind: 'operations' }>

/** The policy stage's output. */
interface Policy {
  prefer: Preferences
  decision: PolicyDecision
}

/** What the validate and answer stages read of the policy: a fault has been answered before them. */
interface AnsweringPolicy {
  prefer: Preferences
  decision: AnswerDecision
}

/** What every stage after the match reads. */
interface StageInput {
  deps: MockDeps
  request: MockRequest
  match: EndpointMatch
  policy: AnsweringPolicy
}

/** Resource and custom endpoints (and any kind without stages of its own): a simulated error answers before the body is even read. */
const CONFIGURED_STAGES: RouteStages = {
  validate: ({ configured }) => configured.validate(),
  // validate has answered a simulated error already: the status here is the one to answer.
  answer: ({ configured, decision, body }) => configured.answer(decision.outcome.status, body),
}

/** What a kind's stages read of the request, with the domain's stages for an endpoint configured by hand. */
function routeStageInput({ deps, request, match, policy }: StageInput): RouteStageInput {
  const { endpoint, spec, collectionId } = match.route
  return {
    request,
    endpoint,
    params: match.params,
    prefer: policy.prefer,
    decision: policy.decision,
    spec,
    stateful: endpoint.action !== null && collectionId !== null,
    negotiation: match.project.negotiation,
    configured: {
      async validate() {
        const { outcome } = policy.decision
        if (outcome.kind === 'simulated-error') return { answer: simulatedErrorAnswer(outcome.status, outcome.reason) }
        const body = await readEndpointBody(request, endpoint)
        if (WITH_BODY.has(request.method)) await checkEndpointSchema(endpoint, body)
        return { body }
      },
      answer: (status, body) => answerEndpoint({ context: deps.context, request, route: match.route, params: match.params, status, body }),
      headers: (body) => configuredHeaders({ context: deps.context, request, route: match.route, params: match.params, status: endpoint.status, body }),
      checkDepth: checkBodyDepth,
      checkSchema: (body) => checkEndpointSchema(endpoint, body),
    },
  }
}

const stagesByKind = new Map<EndpointKind, RouteStages | Promise<RouteStages>>()

/**
 * The kind's own stages (loaded with its first request), else those of an endpoint configured by
 * hand; looked up once per kind, not per request.
 */
function stagesOf(kind: EndpointKind): RouteStages | Promise<RouteStages> {
  let stages = stagesByKind.get(kind)
  if (stages === undefined) {
    const loading = kindOf(kind).routeStages?.()
    stages = loading ?? CONFIGURED_STAGES
    stagesByKind.set(kind, stages)
    void loading?.then((loaded) => stagesByKind.set(kind, loaded), () => stagesByKind.delete(kind))
  }
  return stages
}

/** A GraphQL schema or SOAP service: its kind's answerer, loaded (with its libraries) on the first request. */
function mountAnswerer(kind: EndpointKind): Promise<MountAnswerer> {
  const answerer = kindOf(kind).answerAtMount
  if (!answerer) throw new Error(`the ${kind} kind is routed by mount but has no answerer`)
  return answerer()
}

/** policy: the endpoint's settings, the request's `Prefer` and the delay floor decide the delay, a fault or a simulated error. */
function policyStage(request: MockRequest, match: EndpointMatch, random: Random, floor: DelaySpec | null, codeAnswered = false): Policy {
  const asked = parsePrefer(request.headers.get('prefer'))
  // A preferred code a chosen response answers is that response, not a simulated error.
  const prefer = codeAnswered ? { ...asked, code: undefined } : asked
  return { prefer, decision: decidePolicy({ settings: match.route.endpoint, prefer, floor }, random) }
}

/** What the answer stage hands to the record stage. */
interface Answered {
  response: Response
  /** What went out, for the journal: headers and body as sent; none after a fault but `malformed`'s headers. */
  sent: Sent
  endpointId: number | null
  failed: boolean
  /** The connection faulted instead: `response` is a sentinel nothing reads. */
  fault: Fault | null
  /** The endpoint's response that was chosen; null: the endpoint answered itself. */
  answeredBy?: AnsweredBy | null
  /** For the journal: `pattern skipped: value too long`. */
  note?: string | null
  /** When no rule of the endpoint held: each rule's failed conditions, for the journal. */
  ruleMisses?: RuleMiss[] | null
  /** A CORS preflight (an OPTIONS no endpoint answers): the server answered it itself. */
  preflight?: boolean
  /** The client left before its answer (during a delay, or sending its body): nothing was answered. */
  left?: boolean
  /** OpenAPI callbacks the answer sets off (queued by the event recorder), and those it cannot. */
  callbacks?: MockAnswer['callbacks']
  /** The proxy target answered: its body is still streaming when the handler returns. */
  forwarded?: Forwarded
}

/** `size`: the body's bytes; absent where none was counted (a fault's, a preflight's, a proxied answer's). */
type Sent = Pick<ReturnType<typeof answerResponse>, 'headers' | 'body'> & { size?: number }

/*
 * Objects made once per request are written out field by field: V8 (Node 20) takes a slow path for
 * a literal that spreads an object and then adds a field (`{ ...a, b }`), some twenty times the cost
 * of the same literal written out, and a hundred times once such objects are kept (the journal's).
 */

/** The answer stage's output for an answer the endpoint (or its chosen response) gave. */
function answeredWith(answer: MockAnswer, endpointId: number | null, fields: Pick<Answered, 'answeredBy' | 'note' | 'ruleMisses' | 'callbacks'>): Answered {
  const { response, headers, body, size } = answerResponse(answer)
  return {
    response,
    sent: { headers, body, size },
    endpointId,
    failed: false,
    fault: null,
    answeredBy: fields.answeredBy,
    note: fields.note,
    ruleMisses: fields.ruleMisses,
    callbacks: fields.callbacks,
  }
}

/**
 * An OPTIONS to the mocks is answered as a preflight, with no delay or policy, unless it is a plain
 * one to a path with an OPTIONS endpoint (an imported `options` operation, or one added by hand): CORS must pass before
 * the real request can fail, so a browser's preflight never reaches an endpoint.
 */
function answersAsPreflight(request: MockRequest, match: Match): boolean {
  return request.method === 'OPTIONS' && (match.kind !== 'endpoint' || request.headers.has('access-control-request-method'))
}

function answerPreflight(event: H3Event): Answered {
  const response = preflightResponse(event.req)
  return { response, sent: { headers: Object.fromEntries(response.headers), body: null }, endpointId: null, failed: false, fault: null, note: 'CORS preflight', preflight: true }
}

/** fault: after the delay (as WireMock orders them), the connection resets, closes, breaks or hangs. */
async function faultStage(event: H3Event, deps: MockDeps, fault: Fault, headers: Record<string, string>): Promise<Response> {
  return answerFault(event, fault, { headers, hangMs: deps.hangMs })
}

/** An auth refusal is held by the delay floor only (a slow network is slow for it too), then thrown. */
async function refuseUnauthorized(event: H3Event, deps: MockDeps, refusal: Error): Promise<never> {
  if (deps.delayFloor) await holdResponse(event, drawDelay(deps.delayFloor, deps.random))
  throw refusal
}

type Select = (request: MockRequest, match: EndpointMatch) => Promise<Selected>

/** A refusal the endpoint's spec documents (an OpenAPI operation's 401 or 403) answers as documented, held as any refusal is. */
async function answerRefusal(event: H3Event, deps: MockDeps, request: MockRequest, matched: EndpointMatch, refusal: AppError): Promise<Answered> {
  const documented = await documentedRefusal(request, matched.route.endpoint, matched.route.spec, refusal)
  if (!documented) return refuseUnauthorized(event, deps, refusal)
  if (deps.delayFloor) await holdResponse(event, drawDelay(deps.delayFloor, deps.random))
  return answeredWith(documented, matched.route.endpoint.id, {})
}

/**
 * A records read of an endpoint configured by hand (a kind's own stages, OpenAPI's, check more)
 * with nothing to decide for this request (no `Prefer`, no delay floor, auth passed), answered
 * without the stages' awaits; null: the stages answer it.
 */
function answerPlainly(deps: MockDeps, event: H3Event, request: MockRequest, match: EndpointMatch): Answered | null {
  const { route } = match
  if (deps.delayFloor || sentHeader(event, 'prefer') || !readsPlainly(route) || stagesOf(route.endpoint.kind) !== CONFIGURED_STAGES) return null
  if (authStage(request, endpointAuth(match.project, route.endpoint, route.spec))) return null
  const answer = answerPlainRead({ context: deps.context, request, route, params: match.params })
  return answer && answeredWith(answer, route.endpoint.id, {})
}

async function answerEndpointMatch(event: H3Event, deps: MockDeps, request: MockRequest, matched: EndpointMatch, select: Select): Promise<Answered> {
  // auth before selection: a refused request neither takes a turn of a sequence nor has its body read.
  const refusal = authStage(request, endpointAuth(matched.project, matched.route.endpoint, matched.route.spec))
  if (refusal) return answerRefusal(event, deps, request, matched, refusal)
  // select: the chosen response laid over the endpoint; every later stage reads that endpoint.
  const { match, answeredBy: chosen, note, preferred, ruleMisses } = await select(request, matched)
  const { endpoint } = match.route
  const { prefer, decision } = policyStage(request, match, deps.random, deps.delayFloor, preferred)
  await holdResponse(event, decision.delayMs)
  const { outcome } = decision
  if (outcome.kind === 'fault') {
    // Only `malformed` writes headers: the others do not render them for nothing.
    const headers = outcome.fault === 'malformed' ? await faultHeaders({ context: deps.context, request, route: match.route, params: match.params }) : {}
    return { response: await faultStage(event, deps, outcome.fault, headers), sent: { headers, body: null }, endpointId: endpoint.id, failed: true, fault: outcome.fault, answeredBy: chosen, note, ruleMisses }
  }
  const known = stagesOf(endpoint.kind)
  const stages = known instanceof Promise ? await known : known
  const input = routeStageInput({ deps, request, match, policy: { prefer, decision: { delayMs: decision.delayMs, outcome } } })
  const validated = await stages.validate(input)
  const answer = 'answer' in validated ? validated.answer : await stages.answer(Object.assign(input, { body: validated.body }))
  const { callbacks, off } = callbacksToSend(deps, matched.project.id, answer.callbacks)
  // What callbacks could not be sent is said where the request is looked at: its journal note.
  const said = [note, ...(callbacks?.skipped ?? []), off].filter((line) => line).join('; ') || null
  return answeredWith(answer, endpoint.id, { answeredBy: chosen, note: said, ruleMisses, callbacks })
}

/** An answer's callbacks, none while the project's callbacks subscription is off: the note says so. */
function callbacksToSend(deps: MockDeps, projectId: number, callbacks: MockAnswer['callbacks']): { callbacks: MockAnswer['callbacks']; off: string | null } {
  const off = callbacks?.requests.length ? callbacksOffNote(deps.context, projectId, callbacks.requests.length) : null
  return { callbacks: off && callbacks ? { ...callbacks, requests: [] } : callbacks, off }
}

async function answerOperationsMatch(event: H3Event, deps: MockDeps, request: MockRequest, match: OperationsMatch): Promise<Answered> {
  const refusal = authStage(request, mountAuth(match.project))
  if (refusal) await refuseUnauthorized(event, deps, refusal)
  const preferred = preferredFault(request.headers.get('prefer'))
  const operation = await (await mountAnswerer(match.route.protocol))({ request, route: match.route, random: deps.random })
  await holdResponse(event, Math.max(drawDelay(deps.delayFloor ?? NO_DELAY, deps.random), operation.delayMs))
  const fault = preferred ?? operation.fault ?? null
  if (fault) return { response: await faultStage(event, deps, fault, operation.answer.headers), sent: { headers: operation.answer.headers, body: null }, endpointId: operation.endpointId, failed: true, fault }
  const answered = answeredWith(operation.answer, operation.endpointId, {})
  answered.failed = operation.failed
  return answered
}

/** Every 401 names an authentication scheme (RFC 9110), whether simulated, configured or documented. */
function withChallenge(answered: Answered): Answered {
  const { response } = answered
  if (response.status !== 401 || response.headers.has('www-authenticate')) return answered
  const headers = new Headers(response.headers)
  headers.set('WWW-Authenticate', AUTH_CHALLENGE)
  return {
    ...answered,
    response: new FastResponse(response.body, { status: 401, statusText: response.statusText, headers }),
    sent: { ...answered.sent, headers: { ...answered.sent.headers, 'WWW-Authenticate': AUTH_CHALLENGE } },
  }
}

/** What went out as sent: a HEAD answer carries no body (Node drops it), so none is kept and its size is 0; its headers still say what a GET would get. */
function journalAnswer(answered: Answered, method: string): JournalAnswer {
  const { headers, body, size } = answered.sent
  if (method === 'HEAD') return { headers, body: null, bodySize: 0 }
  return { headers, body: keptAnswerBody(body), bodySize: size ?? answerBodySize(body) }
}

/**
 * The endpoints an unmatched request came closest to. A request under a project's `/api/{slug}`
 * meant that project's routes there; one elsewhere may have meant any route the project at its own
 * paths serves, or another project under a mistyped slug.
 */
function nearMissesOf(catalog: Catalog, projectId: number, match: Extract<Match, { kind: 'unmatched' }>, method: string): NearMiss[] {
  const routes = catalog.routesOf(projectId)
  return nearMisses(match.project ? routes.filter((route) => route.slug === match.project!.slug) : routes, method, match.segments)
}

/** Where a forwarded request goes (an unmatched one of a proxied project, or one an endpoint set to proxy matched): the project, and the path within it. */
interface ProxyRoute {
  settings: ProxySettings
  /** Null: no project is served at the own paths any more (deleted while serving), and `serve --proxy`'s target takes what arrives there. */
  project: Project | null
  path: string
  /** The endpoint set to `proxy: true` that matched, with its parameters; null: none matched. */
  endpoint: { id: number; params: Record<string, string> } | null
}

/** The project's proxy: `serve --proxy`'s target for the project at its own paths, else its `proxy` setting's; null: none. */
function proxySettingsOf(deps: MockDeps, project: Project, own: Project | null): ProxySettings | null {
  const flagged = deps.proxy?.target && project.id === own?.id ? deps.proxy.target : null
  const setting = project.proxy
  if (!flagged && !setting) return null
  return {
    target: flagged ?? new URL(setting!.target),
    timeoutMs: deps.proxy?.timeoutMs ?? DEFAULT_PROXY_TIMEOUT_MS,
    headers: setting?.headers ?? {},
    pathRewrite: setting?.pathRewrite ?? {},
  }
}

/**
 * A proxied project forwards what it does not match: under its `/api/{slug}` (the slug taken off),
 * and, for the project served at its own paths, there too. Management paths never go.
 */
function proxyRoute(deps: MockDeps, match: Extract<Match, { kind: 'unmatched' }>, pathname: string): ProxyRoute | null {
  if (isManagementPath(pathname)) return null
  const own = deps.ownPathsProject()
  const project = match.project ?? own
  // `serve --proxy` is the server's, not one project's: it outlives the project it was given to.
  if (!project) return deps.proxy?.target ? { settings: { target: deps.proxy.target, timeoutMs: deps.proxy.timeoutMs, headers: {}, pathRewrite: {} }, project: null, path: pathname, endpoint: null } : null
  const settings = proxySettingsOf(deps, project, own)
  if (!settings) return null
  return { settings, project, path: match.project ? pathInProject(project, pathname).path : pathname, endpoint: null }
}

/**
 * While its project records, a matched request goes to the target too, at the path the client
 * asked for (the slug taken off under `/api/{slug}`): what was recorded a moment ago must not
 * answer instead of the real API, whose state the rest of the session changes.
 */
function recordingRoute(deps: MockDeps, match: Match, pathname: string): ProxyRoute | null {
  if (!deps.recording || match.kind === 'unmatched' || isManagementPath(pathname) || !deps.recording(match.project.id)) return null
  const { project } = match
  const settings = proxySettingsOf(deps, project, deps.ownPathsProject())
  if (!settings) return null
  return { settings, project, path: pathInProject(project, pathname).path, endpoint: null }
}

/** The path within the project: under its `/api/{slug}` the slug taken off; at its own paths as it is. */
function pathInProject(project: Project, pathname: string): { path: string; viaSlug: boolean } {
  const mount = `/api/${project.slug}`
  const viaSlug = pathname === mount || pathname.startsWith(`${mount}/`)
  return { path: viaSlug ? pathname.slice(mount.length) || '/' : pathname, viaSlug }
}

/**
 * An endpoint set to `proxy: true` forwards what it matches, before its auth and its settings (the
 * target answers for itself), at its path as written: `/api/shop/orders/7` for `/api/orders/:id`
 * goes as `/api/orders/7`, as at the own paths. Without a target for the project: 502, saying so.
 */
function endpointProxyRoute(deps: MockDeps, match: EndpointMatch, pathname: string): ProxyRoute {
  const { project, route } = match
  const settings = proxySettingsOf(deps, project, deps.ownPathsProject())
  const { endpoint } = route
  if (!settings) {
    throw new AppError('PROXY_FAILED', `${endpoint.method} ${endpoint.path} is set to proxy, but project ${project.slug} has no proxy target: give it one with mockapi project set --proxy URL (or serve --proxy URL)`)
  }
  const { path: rest, viaSlug } = pathInProject(project, pathname)
  const path = viaSlug && /^\/api(\/|$)/.test(endpoint.path) ? `/api${rest === '/' ? '' : rest}` : rest
  return { settings, project, path, endpoint: { id: endpoint.id, params: match.params } }
}

async function answerByProxy(event: H3Event, deps: MockDeps, route: ProxyRoute): Promise<Answered> {
  const forwarded = await forwardRequest(event, route.settings, route.path, deps.recorder ? MAX_RECORDED_BODY : 0)
  return { response: forwarded.response, sent: { headers: headerRecord(forwarded.headers), body: null }, endpointId: route.endpoint?.id ?? null, failed: false, fault: null, forwarded }
}

/** Header pairs as the journal keeps them: a repeated one (`Set-Cookie`) once, its values joined. */
function headerRecord(pairs: readonly [string, string][]): Record<string, string> {
  const record: Record<string, string> = {}
  for (const [name, value] of pairs) record[name] = name in record ? `${record[name]}, ${value}` : value
  return record
}

/** The exchange as the recorder takes it; null when a body was too large to copy. */
function recordedExchange(request: MockRequest, route: ProxyRoute, forwarded: Forwarded, end: ForwardEnd, startedAt: number, durationMs: number): RecordedExchange | null {
  const { requestBody, responseBody } = end
  if (!responseBody.whole || (requestBody.size > 0 && !requestBody.whole)) return null
  return {
    method: request.method.toUpperCase(),
    path: route.path,
    query: request.url.search,
    requestHeaders: forwarded.requestHeaders,
    requestBody: requestBody.size > 0 ? requestBody.whole : null,
    status: forwarded.status,
    responseHeaders: forwarded.targetHeaders,
    responseBody: responseBody.whole,
    startedAt: new Date(startedAt).toISOString(),
    durationMs,
  }
}

/** What the request said of itself, taken while it is served: a forwarded one is journalled after. */
interface SentWith {
  headerLines: string
  contentType: string | null
  /** It is a delivery of our own (a webhook or callback sent to a mock). */
  fromDelivery: boolean
}

function sentWithOf(event: H3Event, fromDelivery: boolean): SentWith {
  return { headerLines: headerLinesOf(rawHeadersOf(event)), contentType: contentTypeOf(event), fromDelivery }
}

/** What the record stage reads of a forwarded request once its answer has gone through. */
interface ForwardedExchange {
  request: MockRequest
  route: ProxyRoute
  forwarded: Forwarded
  end: ForwardEnd
  startedAt: number
  arrival: { epoch: number; at: number } | null
  sentWith: SentWith
  durationMs: number
}

/** The event of an HTTP request, whoever answered it: what it says of the request itself, with how it was answered. */
function servedRequest(request: MockRequest, fromDelivery: boolean, answer: Omit<Served, 'method' | 'path' | 'query' | 'fromDelivery'>): Served {
  return {
    projectId: answer.projectId,
    endpointId: answer.endpointId,
    method: request.method,
    path: request.url.pathname,
    query: request.url.searchParams,
    status: answer.status,
    failed: answer.failed,
    fault: answer.fault,
    answeredBy: answer.answeredBy,
    note: answer.note,
    durationMs: answer.durationMs,
    at: answer.at,
    callbacks: answer.callbacks,
    proxied: answer.proxied,
    fromDelivery,
  }
}

type JournalledAnswer = Omit<JournalRecord, 'id' | 'at' | 'epoch' | 'protocol' | 'method' | 'path' | 'search' | 'headerLines' | 'contentType'>

/** The journal's record of an HTTP request, whoever answered it: what it says of the request itself, with how it was answered. */
function journalledRequest(request: MockRequest, arrival: { epoch: number; at: number }, sentWith: SentWith, answer: JournalledAnswer): JournalRecord {
  return {
    id: 0,
    projectId: answer.projectId,
    at: arrival.at,
    epoch: arrival.epoch,
    protocol: 'http',
    method: request.method,
    path: request.url.pathname,
    search: request.url.search,
    headerLines: sentWith.headerLines,
    params: answer.params,
    body: answer.body,
    bodySize: answer.bodySize,
    contentType: sentWith.contentType,
    status: answer.status,
    durationMs: answer.durationMs,
    endpointId: answer.endpointId,
    answeredBy: answer.answeredBy,
    matched: answer.matched,
    fault: answer.fault,
    note: answer.note,
    answer: answer.answer,
    nearMisses: answer.nearMisses,
    ruleMisses: answer.ruleMisses,
    proxied: answer.proxied,
  }
}

/** The catch-all handler: the stages for one request, its answer or error as HTTP, and the record stage once. */
export function createMockHandler(deps: MockDeps) {
  const select = createSelector(deps.random)
  const { journal } = deps
  return async (event: H3Event): Promise<Response> => {
    const started = performance.now()
    // Taken at arrival: a clear after this drops the record, even if the answer comes later.
    const arrival = journal && { epoch: journal.epoch, at: journal.now(), body: startCapture(event) }
    const request = toMockRequest(event, deps.bodyLimit)
    let match: Match | null = null
    let proxying: ProxyRoute | null = null
    let answered: Answered
    try {
      match = matchRequest(deps.catalog, request)
      proxying = match.kind === 'unmatched'
        ? proxyRoute(deps, match, request.url.pathname)
        : recordingRoute(deps, match, request.url.pathname)
          ?? (match.kind === 'endpoint' && match.route.endpoint.proxy ? endpointProxyRoute(deps, match, request.url.pathname) : null)
      // A browser's preflight is ours to answer, and not marked proxied; a plain OPTIONS goes to the target.
      if (proxying && request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) proxying = null
      if (proxying) {
        answered = await answerByProxy(event, deps, proxying)
      } else if (answersAsPreflight(request, match)) {
        answered = answerPreflight(event)
      } else if (match.kind === 'unmatched') {
        // The floor holds every mock answer, a 404 or 405 too: that is how a slow network looks.
        if (deps.delayFloor) await holdResponse(event, drawDelay(deps.delayFloor, deps.random))
        throw match.error
      } else {
        answered = match.kind === 'endpoint'
          ? answerPlainly(deps, event, request, match) ?? await answerEndpointMatch(event, deps, request, match, select)
          : await answerOperationsMatch(event, deps, request, match)
      }
    } catch (error) {
      if (proxying?.project && error instanceof AppError && error.code.startsWith('PROXY_')) deps.unrecorded?.(proxying.project.id, request.method, proxying.path, error.message)
      answered = answeredWith(errorAnswer(error, { debug: deps.debug }), match?.kind === 'endpoint' ? match.route.endpoint.id : null, {})
      // The error is the client's leaving (during a delay, or sending its body): the refusal reaches nobody, so none is journalled.
      if (event.req.signal.aborted) Object.assign(answered, { failed: true, note: 'client closed the connection', left: true })
    }
    if (!answered.fault && !answered.left) answered = withChallenge(answered)
    const { response } = answered
    // No response reached the client: status 0, as a browser reports a network error.
    const status = answered.fault || answered.left ? 0 : response.status
    const durationMs = Math.round((performance.now() - started) * 100) / 100
    const { forwarded } = answered
    if (forwarded && proxying) {
      // Recorded once the body has gone through (or broken off): only then is it known.
      const route = proxying
      const startedAt = Date.now() - durationMs
      const sentWith = sentWithOf(event, sentHeader(event, DELIVERY_HEADER))
      void forwarded.done.then((end) => recordForwarded({ request, route, forwarded, end, startedAt, arrival, sentWith, durationMs: Math.round((performance.now() - started) * 100) / 100 }))
      return response
    }
    const served = servedRequest(request, sentHeader(event, DELIVERY_HEADER), {
      // A forwarded request is its proxy's project's, at the own paths too: the one its journal entry names.
      projectId: proxying ? proxying.project?.id ?? null : match?.project?.id ?? null,
      endpointId: answered.endpointId,
      failed: answered.failed,
      fault: answered.fault,
      answeredBy: answered.answeredBy || undefined,
      note: answered.note || undefined,
      status,
      durationMs,
      at: epochMs(deps.context.clock),
      // A client that left never saw the success: the operation is not taken as done.
      callbacks: answered.callbacks?.requests.length && !answered.left ? answered.callbacks.requests : undefined,
      // The target could not be reached: still a proxied request, answered 502 or 504 here.
      proxied: proxying ? true : undefined,
    })
    if (!arrival) {
      recordServed(deps.events, served, null, null)
      return response
    }
    // A body the answer never read is read now, before answering: the record exists when the client has its answer.
    // A forwarded body has been read (as far as it went) on its way to the target.
    const reading = answered.left || proxying ? null : readUnread(event, arrival.body, deps.bodyLimit)
    if (reading) await reading
    const project = proxying ? proxying.project : match?.project ?? deps.ownPathsProject()
    const projectId = project?.id ?? null
    // A reset by another process (`mockapi reset`) clears the journal as one through the API does.
    if (project) journal.seenReset(project.id, project.sequenceEpoch)
    const { body, bodySize } = capturedBody(event, arrival.body)
    const entry: JournalRecord | null = projectId === null ? null : journalledRequest(request, arrival, sentWithOf(event, served.fromDelivery), {
      projectId,
      params: match?.kind === 'endpoint' ? match.params : null,
      body,
      bodySize,
      status,
      durationMs,
      endpointId: answered.endpointId,
      answeredBy: answered.answeredBy ?? null,
      matched: answered.preflight === true || (match !== null && match.kind !== 'unmatched'),
      fault: answered.fault,
      note: answered.note ?? null,
      answer: answered.left ? null : journalAnswer(answered, request.method),
      // Only a miss pays for its near misses; routesOf is built on a project's first miss.
      nearMisses: match?.kind === 'unmatched' && !answered.preflight ? nearMissesOf(deps.catalog, projectId, match, request.method) : null,
      ruleMisses: answered.ruleMisses ?? null,
      proxied: proxying ? true : undefined,
    })
    recordServed(deps.events, served, journal, entry)
    return response
  }

  function recordForwarded({ request, route, forwarded, end, startedAt, arrival, sentWith, durationMs }: ForwardedExchange): void {
    const { project } = route
    const keeping = deps.recorder && project && end.complete
    const exchange = keeping ? recordedExchange(request, route, forwarded, end, startedAt, durationMs) : null
    const unrecorded = keeping && !exchange ? `proxied, not recorded: a body is larger than ${MAX_RECORDED_BODY / 1024 / 1024} MiB` : null
    const note = [end.note, unrecorded].filter((line) => line).join('; ') || null
    // A reset by another process (`mockapi reset`) clears the journal as one through the API does.
    if (project) journal?.seenReset(project.id, project.sequenceEpoch)
    recordServed(deps.events, servedRequest(request, sentWith.fromDelivery, {
      projectId: project?.id ?? null,
      endpointId: route.endpoint?.id ?? null,
      failed: !end.complete,
      fault: null,
      note: note ?? undefined,
      status: forwarded.status,
      durationMs,
      at: epochMs(deps.context.clock),
      proxied: true,
    }), journal, arrival && project && journalledRequest(request, arrival, sentWith, {
      projectId: project.id,
      params: route.endpoint?.params ?? null,
      body: end.requestBody.kept,
      bodySize: end.requestBody.size,
      status: forwarded.status,
      durationMs,
      endpointId: route.endpoint?.id ?? null,
      answeredBy: null,
      matched: route.endpoint !== null,
      fault: null,
      note,
      answer: { headers: headerRecord(forwarded.headers), body: request.method === 'HEAD' ? null : end.responseBody.kept, bodySize: end.responseBody.size },
      nearMisses: null,
      ruleMisses: null,
      proxied: true,
    }))
    if (!exchange || !project) {
      if (note && project) deps.unrecorded?.(project.id, request.method, route.path, note)
      return
    }
    // After the answer has gone: the recording never delays the client.
    setImmediate(() => deps.recorder!(project.id, exchange))
  }
}

