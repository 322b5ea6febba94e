import { AppError } from '../errors.ts'
import { ON_DELETE, type Endpoint, type HttpMethod, type OnDelete, type Project, type Resource, type ResourceAction } from '../model.ts'
import type { Context } from './context.ts'
import { findEndpoint } from './endpoints.ts'
import { checkEndpointPath, checkResourcePath } from './path-rules.ts'
import { selectProject } from './projects.ts'
import { writeTransaction } from './transaction.ts'

type EndpointSpec = { method: HttpMethod; onItem: boolean; action: ResourceAction; status: number }

/** The endpoints every resource gets (docs/mocking.md, "Resources"). */
const RESOURCE_ENDPOINTS: EndpointSpec[] = [
  { method: 'GET', onItem: false, action: 'list', status: 200 },
  { method: 'POST', onItem: false, action: 'create', status: 201 },
  { method: 'GET', onItem: true, action: 'read', status: 200 },
  { method: 'PUT', onItem: true, action: 'replace', status: 200 },
  { method: 'PATCH', onItem: true, action: 'patch', status: 200 },
  { method: 'DELETE', onItem: true, action: 'delete', status: 200 },
]

/** A singular resource's: its one object read, replaced and merged at its own path (docs/json-server.md). */
const SINGULAR_ENDPOINTS: EndpointSpec[] = [
  { method: 'GET', onItem: false, action: 'read', status: 200 },
  { method: 'PUT', onItem: false, action: 'replace', status: 200 },
  { method: 'PATCH', onItem: false, action: 'patch', status: 200 },
]

const endpointSpecs = (singular: boolean) => (singular ? SINGULAR_ENDPOINTS : RESOURCE_ENDPOINTS)

/** The standard endpoints of a resource path (six, or a singular's three), as method and path. */
export function standardEndpoints(path: string, singular = false): { method: HttpMethod; path: string; action: ResourceAction }[] {
  return endpointSpecs(singular).map((spec) => ({ method: spec.method, path: spec.onItem ? `${path}/:id` : path, action: spec.action }))
}

export interface CreatedResource {
  resource: Resource
  endpoints: Endpoint[]
  warnings: string[]
}

/**
 * `rules: false` for paths an imported spec defines (`/pets`), which the path rules do not judge;
 * else the project's `pathRules` say how (a singular's path as a custom endpoint's: `/api/profile`
 * may be singular). A singular resource starts without its object: its seed sets it.
 */
export function createResource(context: Context, input: { project?: string | undefined; path: string; rules?: boolean; onDelete?: OnDelete; singular?: boolean }): CreatedResource {
  const singular = input.singular ?? false
  return writeTransaction(context.db, () => {
    const project = selectProject(context, input.project)
    const check = singular ? checkEndpointPath : checkResourcePath
    const { path, warnings } = input.rules === false ? { path: input.path, warnings: [] } : check(input.path, project.pathRules)
    const conflict = resourceConflict(context, project, path, singular)
    if (conflict) throw new AppError('CONFLICT', conflict)
    const createdAt = context.clock.now().toISOString()
    const collectionId = context.repos.collections.ensure(project.id, collectionName(path))
    // A singular's one record is its object: it shares its collection with no other resource.
    const sharing = context.repos.resources.listByCollection(collectionId)
    if (sharing.length > 0 && (singular || sharing.some((r) => r.singular))) {
      throw new AppError('CONFLICT', `project "${project.slug}" already keeps "${collectionName(path)}" records for ${sharing[0]!.path}`)
    }
    const resource = context.repos.resources.insert({ projectId: project.id, collectionId, path, onDelete: input.onDelete ?? 'keep', singular, createdAt })
    const endpoints = endpointSpecs(singular).map((spec) =>
      context.repos.endpoints.insert({
        projectId: project.id,
        resourceId: resource.id,
        method: spec.method,
        path: spec.onItem ? `${path}/:id` : path,
        kind: 'resource',
        action: spec.action,
        status: spec.status,
        createdAt,
      }))
    return { resource, endpoints, warnings }
  })
}

/** Why a resource cannot be created at `path` (already there, or one of its endpoints taken); null if it can. */
export function resourceConflict(context: Context, project: Project, path: string, singular = false): string | null {
  if (context.repos.resources.byPath(project.id, path)) return `resource ${path} already exists in project "${project.slug}"`
  for (const spec of endpointSpecs(singular)) {
    const taken = findEndpoint(context, project.id, spec.method, spec.onItem ? `${path}/:id` : path)
    if (taken) return `${spec.method} ${taken.path} already exists in project "${project.slug}"`
  }
  return null
}

/** The last resource name of a path: `/api/users/:userId/posts` keeps its records in "posts". */
export function collectionName(resourcePath: string): string {
  return resourcePath.split('/').filter((s) => s && !s.startsWith(':')).at(-1)!
}

/** Parameter names of a resource path that tie its records to a parent (`:userId` → `userId`). */
export function parentFields(resourcePath: string): string[] {
  return resourcePath.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1))
}

/** A resource's onDelete setting as given (CLI flag, API field); anything else is INVALID_INPUT. */
export function checkOnDelete(value: unknown): OnDelete {
  if (typeof value !== 'string' || !(ON_DELETE as readonly string[]).includes(value)) {
    const given = typeof value === 'string' ? `"${value}"` : JSON.stringify(value) ?? String(value)
    const message = `must be one of ${ON_DELETE.join(', ')}`
    throw new AppError('INVALID_INPUT', `onDelete ${given} ${message}`, { details: [{ field: 'onDelete', message }] })
  }
  return value as OnDelete
}
