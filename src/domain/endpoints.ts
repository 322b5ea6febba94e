import { routeShape } from '../engine/path-pattern.ts'
import { AppError } from '../errors.ts'
import { kindOf } from '../kinds/registry.ts'
import { HTTP_METHODS, type Endpoint, type EndpointAuth, type HttpMethod, type Project, type Resource, type ResourceAction } from '../model.ts'
import type { DelaySpec } from '../engine/delay.ts'
import { checkEndpointAuth } from './auth-settings.ts'
import type { Context } from './context.ts'
import { checkFault, storedDelay } from './latency.ts'
import { checkEndpointPath } from './path-rules.ts'
import { splitOperationPath } from './operation-paths.ts'
import { selectProject } from './projects.ts'
import { writeTransaction } from './transaction.ts'

export const MAX_DELAY_MS = 120_000

/** Two paths that differ only in parameter names (or `:name` against `*`) are the same route. */
export { routeShape }

export function parseMethod(method: string): HttpMethod {
  const upper = method.toUpperCase()
  if (!(HTTP_METHODS as readonly string[]).includes(upper)) {
    throw new AppError('INVALID_INPUT', `method "${method}" must be one of ${HTTP_METHODS.join(', ')}`)
  }
  return upper as HttpMethod
}

/** 1xx statuses are informational: sent as the final one, no client could read the answer. */
export function checkStatus(status: number): number {
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    throw new AppError('INVALID_INPUT', `status ${status} must be an HTTP status code from 200 to 599 (a 1xx is informational, never a final response)`)
  }
  return status
}

export function checkDelay(delayMs: number): number {
  if (!Number.isInteger(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS) {
    throw new AppError('INVALID_INPUT', `delay ${delayMs} must be a whole number of milliseconds from 0 to ${MAX_DELAY_MS}`)
  }
  return delayMs
}

export function checkJsonBody(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text))
  } catch (error) {
    throw new AppError('INVALID_INPUT', `response body is not valid JSON: ${(error as Error).message}`)
  }
}

/** Where a path is answered under `/api/{slug}/`: `/pets` and `/api/pets` are both `/pets`. */
export function servedPath(path: string): string {
  return path.replace(/^\/api(?=\/|$)/, '') || '/'
}

/** One route as served: two endpoints with the same key answer the same requests. */
export function servedRoute(method: string, path: string): string {
  return `${method} ${routeShape(servedPath(path))}`
}

/** The routes an endpoint answers over HTTP: a GraphQL schema or SOAP service answers GET and POST at its mount. */
export function servedRoutes(endpoint: Pick<Endpoint, 'method' | 'path'>): string[] {
  const mount = splitOperationPath(endpoint.path)?.mount
  return mount ? ['GET', 'POST'].map((method) => servedRoute(method, mount)) : [servedRoute(endpoint.method, endpoint.path)]
}

/**
 * What else of the project is served at the same URL as `path` (an imported `/pets` for
 * `/api/pets`; a GraphQL schema or SOAP service at its mount), described for the refusal: one of
 * the two would shadow the other. Null when nothing is.
 */
function servedClash(endpoints: readonly Endpoint[], method: HttpMethod, path: string): string | null {
  const wanted = servedRoute(method, path)
  const taken = endpoints.find((e) => servedRoutes(e).includes(wanted))
  if (!taken) return null
  const mount = splitOperationPath(taken.path)?.mount
  return mount ? `the ${kindOf(taken.kind).mounted?.noun ?? taken.kind} at ${mount}` : `${taken.method} ${taken.path} (${taken.kind})`
}

export function findEndpoint(context: Context, projectId: number, method: HttpMethod, path: string): Endpoint | undefined {
  const shape = routeShape(path)
  return context.repos.endpoints.listByProject(projectId).find((e) => e.method === method && routeShape(e.path) === shape)
}

/** The resource whose collection or item path `path` is, and what `method` does to its records there. */
export function resourceBinding(resources: readonly Resource[], method: HttpMethod, path: string): { resource: Resource; action: ResourceAction } | null {
  const shape = routeShape(path)
  const collection = resources.find((r) => routeShape(r.path) === shape)
  // A singular resource has no item path: its object is at its own.
  const item = collection ? undefined : resources.find((r) => !r.singular && routeShape(`${r.path}/:id`) === shape)
  const resource = collection ?? item
  const action = !resource ? null : resource.singular ? singularActionFor(method) : resourceActionFor(method, resource === item)
  return resource && action ? { resource, action } : null
}

/** Actions on one record (the item path); the others act on the collection. */
export const ON_ITEM = new Set<ResourceAction>(['read', 'replace', 'patch', 'delete'])

/** What a method does to a singular resource's object. */
function singularActionFor(method: HttpMethod): ResourceAction | null {
  return ({ GET: 'read', HEAD: 'read', PUT: 'replace', PATCH: 'patch' } as const)[method as 'GET'] ?? null
}

/** A resource action a method can take on a resource's collection or item path; HEAD reads as GET does (no body goes out). */
export function resourceActionFor(method: HttpMethod, onItem: boolean): ResourceAction | null {
  if (onItem) return ({ GET: 'read', HEAD: 'read', PUT: 'replace', PATCH: 'patch', DELETE: 'delete' } as const)[method as 'GET'] ?? null
  return ({ GET: 'list', HEAD: 'list', POST: 'create' } as const)[method as 'GET'] ?? null
}

export interface AddEndpointInput {
  project?: string | undefined
  method: string
  path: string
  status?: number | undefined
  body?: string | undefined
  delayMs?: number | undefined
  /** A fixed delay or a range; wins over `delayMs`. */
  delay?: DelaySpec | undefined
  /** A network fault every call gets instead of an answer. */
  fault?: string | undefined
  /** The credentials it demands: schemes or `none`; absent: the project's. */
  auth?: EndpointAuth | undefined
  headers?: Record<string, string> | undefined
  /** false for a project built from an imported spec, whose paths (`/pets`) the path rules do not judge; else the project's `pathRules` say how. */
  rules?: boolean
  /** It answers a body configured next (text, a file), not a resource's records. */
  fixedAnswer?: boolean | undefined
}

/**
 * Adds one endpoint. On a resource's collection or item path without a fixed body it works on
 * the resource's records (so `PATCH /api/posts/:id` merges fields, and a removed resource
 * endpoint can be brought back); anything else answers its configured body.
 */
export function addEndpoint(context: Context, input: AddEndpointInput): { endpoint: Endpoint; warnings: string[] } {
  const method = parseMethod(input.method)
  const status = input.status === undefined ? undefined : checkStatus(input.status)
  const { delayMs, delayMaxMs } = input.delay ? storedDelay(input.delay) : { delayMs: checkDelay(input.delayMs ?? 0), delayMaxMs: null }
  const fault = input.fault === undefined ? null : checkFault(input.fault)
  const auth = input.auth === undefined ? null : checkEndpointAuth(input.auth)
  const body = input.body === undefined ? null : checkJsonBody(input.body)
  return writeTransaction(context.db, () => {
    const project = selectProject(context, input.project)
    const { path, warnings } = input.rules === false ? { path: input.path, warnings: [] } : checkEndpointPath(input.path, project.pathRules)
    const existing = findEndpoint(context, project.id, method, path)
    if (existing) throw new AppError('CONFLICT', `${method} ${existing.path} already exists in project "${project.slug}"`)
    const clash = servedClash(context.repos.endpoints.listByProject(project.id), method, path)
    if (clash) throw new AppError('CONFLICT', `${method} ${path} would be served at the same URL as ${clash} in project "${project.slug}"`)
    const binding = body === null && !input.fixedAnswer ? resourceBinding(context.repos.resources.listByProject(project.id), method, path) : null
    const endpoint = context.repos.endpoints.insert({
      projectId: project.id,
      resourceId: binding?.resource.id ?? null,
      method,
      // A resource endpoint keeps the resource's own parameter names.
      path: binding ? (ON_ITEM.has(binding.action) && !binding.resource.singular ? `${binding.resource.path}/:id` : binding.resource.path) : path,
      kind: binding ? 'resource' : 'custom',
      action: binding?.action ?? null,
      status: status ?? (binding?.action === 'create' ? 201 : 200),
      headers: input.headers ?? {},
      delayMs,
      delayMaxMs,
      fault,
      auth,
      body,
      createdAt: context.clock.now().toISOString(),
    })
    return { endpoint, warnings }
  })
}

export function removeEndpoint(context: Context, input: { project?: string | undefined; method: string; path: string }): Endpoint {
  const method = parseMethod(input.method)
  return writeTransaction(context.db, () => {
    const project = selectProject(context, input.project)
    const endpoint = findEndpoint(context, project.id, method, input.path.replace(/\/+$/, '') || '/')
    if (!endpoint) throw new AppError('NOT_FOUND', `no endpoint ${method} ${input.path} in project "${project.slug}"`)
    deleteEndpoint(context, endpoint)
    return endpoint
  })
}

/** Deletes one endpoint; the others of its resource stay. */
export function deleteEndpoint(context: Context, endpoint: Endpoint): void {
  writeTransaction(context.db, () => {
    context.repos.endpoints.remove(endpoint.id)
    // A spec none of whose endpoints are left is not kept (nor exported) for nothing.
    context.repos.specs.removeUnused(endpoint.projectId)
    context.repos.files.removeUnused(endpoint.projectId)
  })
}

/** An id as the management API takes it in a path: a positive integer, else nothing matches. */
export function parseId(text: string): number | null {
  const id = /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : NaN
  return Number.isSafeInteger(id) ? id : null
}

/** An endpoint of the project by id; unknown (or another project's) → 404. */
export function requireEndpointById(context: Context, project: Project, idText: string): Endpoint {
  const id = parseId(idText)
  const endpoint = id === null ? undefined : context.repos.endpoints.byId(id)
  if (!endpoint || endpoint.projectId !== project.id) throw new AppError('NOT_FOUND', `no endpoint with id "${idText}" in project ${project.id}`)
  return endpoint
}

/** The project's endpoints by path, then method. */
export function endpointsByPath(context: Context, projectId: number): Endpoint[] {
  const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  return context.repos.endpoints.listByProject(projectId).sort((a, b) => byCodePoint(a.path, b.path) || byCodePoint(a.method, b.method))
}

export function listEndpoints(context: Context, projectSlug?: string): Endpoint[] {
  return context.repos.endpoints.listByProject(selectProject(context, projectSlug).id)
}
