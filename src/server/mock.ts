import type { H3Event } from 'h3'
import { FastResponse } from 'srvx'
import type { Catalog } from '../domain/catalog.ts'
import type { Context } from '../domain/context.ts'
import { answerEndpoint, checkBodyDepth, checkEndpointSchema, readEndpointBody, configuredHeaders } from '../domain/pipeline/answer-endpoint.ts'
import { simulatedErrorAnswer, WITH_BODY, type MockAnswer, type MockRequest, type MountAnswerer, type RouteStageInput, type RouteStages } from '../engine/exchange.ts'
import { decidePolicy, type PolicyDecision, type Random } from '../engine/policy.ts'
import { parsePrefer, type Preferences } from '../engine/prefer.ts'
import type { MockEvents } from '../events.ts'
import { kindOf } from '../kinds/registry.ts'
import type { EndpointKind } from '../model.ts'
import { DELIVERY_HEADER } from '../queue/worker.ts'
import { holdResponse } from './delay.ts'
import { AUTH_CHALLENGE, errorResponse, textResponse } from './http-response.ts'
import { matchRequest, type Match } from './pipeline/match.ts'
import { recordServed } from './pipeline/record.ts'
import { toMockRequest } from './pipeline/request.ts'
import { capturedExchange, startCapture } from './request-capture.ts'

export interface MockDeps {
  context: Context
  catalog: Catalog
  events: MockEvents
  bodyLimit: number
  debug: boolean
  /** Draws the error-rate dice: Math.random, or seeded (`serve --seed`). */
  random: Random
}

/*
 * One request through the stages: match → policy → validate → answer → record. Each stage is a
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

/** What every stage after the match reads. */
interface StageInput {
  deps: MockDeps
  request: MockRequest
  match: EndpointMatch
  policy: Policy
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

/** policy: the endpoint's settings and the request's `Prefer` decide the delay and a simulated error. */
function policyStage(request: MockRequest, match: EndpointMatch, random: Random): Policy {
  const prefer = parsePrefer(request.headers.get('prefer'))
  return { prefer, decision: decidePolicy({ settings: match.route.endpoint, prefer }, random) }
}

/** What the answer stage hands to the record stage. */
interface Answered {
  response: Response
  endpointId: number | null
  failed: boolean
}

function toResponse(answer: MockAnswer): Response {
  return textResponse(answer.status, answer.body, answer.headers)
}

async function answerEndpointMatch(event: H3Event, deps: MockDeps, request: MockRequest, match: EndpointMatch): Promise<Response> {
  const policy = policyStage(request, match, deps.random)
  await holdResponse(event, policy.decision.delayMs)
  const known = stagesOf(match.route.endpoint.kind)
  const stages = known instanceof Promise ? await known : known
  const input = routeStageInput({ deps, request, match, policy })
  const validated = await stages.validate(input)
  return toResponse('answer' in validated ? validated.answer : await stages.answer({ ...input, body: validated.body }))
}

async function answerOperationsMatch(event: H3Event, deps: MockDeps, request: MockRequest, match: OperationsMatch): Promise<Answered> {
  const operation = await (await mountAnswerer(match.route.protocol))({ request, route: match.route, random: deps.random })
  await holdResponse(event, operation.delayMs)
  return { response: toResponse(operation.answer), endpointId: operation.endpointId, failed: operation.failed }
}

/** Every 401 names an authentication scheme (RFC 9110), whether simulated, configured or documented. */
function withChallenge(response: Response): Response {
  if (response.status !== 401 || response.headers.has('www-authenticate')) return response
  const headers = new Headers(response.headers)
  headers.set('WWW-Authenticate', AUTH_CHALLENGE)
  return new FastResponse(response.body, { status: 401, statusText: response.statusText, headers })
}

/** The catch-all handler: the stages for one request, its answer or error as HTTP, and the record stage once. */
export function createMockHandler(deps: MockDeps) {
  return async (event: H3Event): Promise<Response> => {
    const started = performance.now()
    // Headers and bodies are kept only while the request log listens (the dashboard asked for it).
    const capture = deps.events.listenerCount('request.captured') > 0 ? startCapture(event, deps.context.clock) : null
    const request = toMockRequest(event, deps.bodyLimit)
    let match: Match | null = null
    let answered: Answered
    try {
      match = matchRequest(deps.catalog, request)
      if (match.kind === 'unmatched') throw match.error
      answered = match.kind === 'endpoint'
        ? { response: await answerEndpointMatch(event, deps, request, match), endpointId: match.route.endpoint.id, failed: false }
        : await answerOperationsMatch(event, deps, request, match)
    } catch (error) {
      answered = { response: errorResponse(error, { debug: deps.debug }), endpointId: match?.kind === 'endpoint' ? match.route.endpoint.id : null, failed: false }
    }
    const response = withChallenge(answered.response)
    const served = {
      projectId: match?.project?.id ?? null,
      endpointId: answered.endpointId,
      failed: answered.failed,
      method: request.method,
      path: request.url.pathname,
      query: request.url.searchParams,
      status: response.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      fromDelivery: request.headers.has(DELIVERY_HEADER),
    }
    const recording = recordServed(deps.events, served, capture && (() => capturedExchange(event, capture, deps.bodyLimit, response)))
    if (recording) await recording
    return response
  }
}
