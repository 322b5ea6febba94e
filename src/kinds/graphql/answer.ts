import type { MockAnswer, MockRequest, OperationAnswer, OperationsRoute } from '../../engine/exchange.ts'
import { loadFaker } from '../../engine/generators.ts'
import { decidePolicy, faultOf, NO_PREFERENCES, operationOverride, type Random } from '../../engine/policy.ts'
import { createSpecCache } from '../../engine/spec-cache.ts'
import { createGraphqlExecutor, type GraphqlExecutor, type GraphqlRequest } from './execute.ts'
import { GRAPHQL_LIMITS } from './limits.ts'
import { graphqlPlayground } from './playground.ts'

const GRAPHQL_RESPONSE = 'application/graphql-response+json'
const executors = createSpecCache<Promise<GraphqlExecutor>>()

function executorFor(route: OperationsRoute): Promise<GraphqlExecutor> {
  return executors(route, async () => createGraphqlExecutor(route.loadSpec().document, await loadFaker()))
}

/**
 * GraphQL over HTTP: a client asking for `application/graphql-response+json` gets 4xx for a
 * request that could not run; others get the classic `application/json`, 200 for any GraphQL error.
 */
function mediaType(request: MockRequest): string {
  const accept = request.headers.get('accept') ?? ''
  return accept.includes(GRAPHQL_RESPONSE) ? GRAPHQL_RESPONSE : 'application/json'
}

function jsonAnswer(status: number, type: string, body: unknown, headers: Record<string, string> = {}): MockAnswer {
  return { status, headers: { 'Content-Type': `${type}; charset=utf-8`, ...headers }, body: JSON.stringify(body) }
}

/** What is answered without running an operation: no endpoint, no delay. */
function served(answer: MockAnswer, failed: boolean): OperationAnswer {
  return { answer, endpointId: null, failed, delayMs: 0 }
}

/** The answer as JSON text, or null past GRAPHQL_LIMITS.answerBytes (configured values can be large). */
function answerText(result: unknown): string | null {
  const text = JSON.stringify(result)
  return Buffer.byteLength(text) > GRAPHQL_LIMITS.answerBytes ? null : text
}

/** A request error (no GraphQL execution): 400 whatever the media type, as the spec allows for malformed requests. */
function requestError(type: string, message: string, status = 400, headers: Record<string, string> = {}): OperationAnswer {
  return served(jsonAnswer(status, type, { errors: [{ message }] }, headers), true)
}

function parseVariables(value: unknown): Record<string, unknown> | null | string {
  if (value === undefined || value === null || value === '') return null
  if (typeof value === 'string') {
    try {
      return parseVariables(JSON.parse(value) as unknown)
    } catch {
      return 'variables must be a JSON object'
    }
  }
  return typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : 'variables must be a JSON object'
}

/** The GraphQL request in a POST body: JSON `{query, variables, operationName}`, or a bare `application/graphql` query. */
async function readPost(request: MockRequest): Promise<GraphqlRequest | string> {
  const contentType = (request.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase()
  const text = await request.text()
  if (contentType === 'application/graphql') return { query: text }
  if (contentType !== 'application/json' && contentType !== '') return `Content-Type ${contentType} is not supported: send application/json`
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (error) {
    return `request body is not valid JSON: ${(error as Error).message}`
  }
  if (Array.isArray(body)) return 'batched requests are not supported: send one operation per request'
  if (!body || typeof body !== 'object') return 'request body must be a JSON object with a "query"'
  const { query, variables, operationName } = body as Record<string, unknown>
  if (typeof query !== 'string' || !query.trim()) return 'request body must have a "query" string'
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return '"operationName" must be a string'
  const parsed = parseVariables(variables)
  if (typeof parsed === 'string') return parsed
  return { query, variables: parsed, operationName: (operationName as string | null | undefined) ?? null }
}

function readGet(request: MockRequest): GraphqlRequest | string {
  const params = request.url.searchParams
  const variables = parseVariables(params.get('variables'))
  if (typeof variables === 'string') return variables
  return { query: params.get('query')!, variables, operationName: params.get('operationName') }
}

const operationKey = (type: 'query' | 'mutation' | 'subscription', field: string) => `${type === 'query' ? 'Query' : 'Mutation'}.${field}`

export interface GraphqlAnswerInput {
  request: MockRequest
  route: OperationsRoute
  /** The policy's draws for each root field's error rate. */
  random: Random
}

/** Executes one GraphQL request against the schema's mocks, with the settings of each root field selected. */
export async function answerGraphql({ request, route, random }: GraphqlAnswerInput): Promise<OperationAnswer> {
  // HEAD answers as GET (Node sends no body for it).
  const method = request.method === 'HEAD' ? 'GET' : request.method
  const type = mediaType(request)
  const params = request.url.searchParams
  if (method === 'GET' && params.has('sdl')) {
    return served({ status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: route.loadSpec().document }, false)
  }
  if (method === 'GET' && !params.has('query')) {
    return served({ status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: graphqlPlayground(request.url.pathname) }, false)
  }
  const parsed = method === 'GET' ? readGet(request) : await readPost(request)
  if (typeof parsed === 'string') return requestError(type, parsed, parsed.startsWith('Content-Type') ? 415 : 400)
  const prepared = (await executorFor(route)).prepare(parsed)
  if (!prepared.ok) return served(jsonAnswer(type === GRAPHQL_RESPONSE ? 400 : 200, type, { errors: prepared.errors }), true)
  if (method === 'GET' && prepared.operationType !== 'query') {
    return requestError(type, `a ${prepared.operationType} cannot be sent with GET: use POST`, 405, { Allow: 'POST' })
  }
  if (prepared.operationType === 'subscription') return requestError(type, 'subscriptions are not served over plain HTTP')
  const endpoints = prepared.rootFields.map((field) => route.operations.get(operationKey(prepared.operationType, field)))
  // One decision per root field; the answer is held for the longest delay among them.
  const decisions = endpoints.map((endpoint) => endpoint && decidePolicy({ settings: endpoint, prefer: NO_PREFERENCES }, random))
  const result = prepared.execute((field) => {
    const index = prepared.rootFields.indexOf(field)
    const endpoint = endpoints[index]
    // A root field whose endpoint was removed is no longer mocked, as a removed gRPC method or REST route.
    if (!endpoint) return { error: `${operationKey(prepared.operationType, field)} is not mocked: its endpoint was removed` }
    return operationOverride(endpoint, decisions[index]!)
  })
  const delayMs = Math.max(0, ...decisions.map((decision) => decision?.delayMs ?? 0))
  // A fault on any field answered drops the whole exchange: HTTP has one connection to break.
  const fault = decisions.map(faultOf).find((f) => f !== null) ?? null
  const text = answerText(result)
  if (text === null) {
    const message = `the answer is larger than ${GRAPHQL_LIMITS.answerBytes / 1024 / 1024} MiB: select fewer fields`
    return { ...served(jsonAnswer(type === GRAPHQL_RESPONSE ? 400 : 200, type, { errors: [{ message }] }), true), delayMs, fault }
  }
  const status = type === GRAPHQL_RESPONSE && !('data' in result) ? 400 : 200
  const headers = Object.assign({}, ...endpoints.map((e) => e?.headers ?? {})) as Record<string, string>
  return {
    answer: { status, headers: { 'Content-Type': `${type}; charset=utf-8`, ...headers }, body: text },
    endpointId: endpoints.find((e) => e !== undefined)?.id ?? null,
    failed: (result.errors?.length ?? 0) > 0,
    delayMs,
    fault,
  }
}
