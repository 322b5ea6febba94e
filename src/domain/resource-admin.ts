import { AppError } from '../errors.ts'
import type { FakerFactory } from '../engine/generators.ts'
import type { Project, Resource } from '../model.ts'
import { endpointView, resourceView } from '../views.ts'
import type { Context } from './context.ts'
import { parseId } from './endpoints.ts'
import { checkResourcePath, pathField, type PathCheck } from './path-rules.ts'
import { checkOnDelete, createResource, resourceConflict } from './resources.ts'
import { MAX_SEED_COUNT, seedNewResource } from './seeding.ts'
import { writeTransaction } from './transaction.ts'

/** What the management API does with resources: list, check a path, create with seeding, delete. */

function invalidField(field: string, message: string, extra: Record<string, unknown> = {}): never {
  throw new AppError('INVALID_INPUT', `"${field}" ${message}`, { details: [{ field, message, ...extra }] })
}

/** The resource with its record count and the ids of its endpoints. */
export function describeResource(context: Context, resource: Resource, endpointIds?: number[]) {
  const ids = endpointIds ?? context.repos.endpoints.listByProject(resource.projectId).filter((e) => e.resourceId === resource.id).map((e) => e.id)
  return resourceView(resource, context.repos.records.count(resource.collectionId), ids)
}

/** The project's resources by path. */
export function listResources(context: Context, projectId: number) {
  const endpointIds = new Map<number, number[]>()
  for (const endpoint of context.repos.endpoints.listByProject(projectId)) {
    if (endpoint.resourceId === null) continue
    endpointIds.set(endpoint.resourceId, [...(endpointIds.get(endpoint.resourceId) ?? []), endpoint.id])
  }
  return context.repos.resources.listByProject(projectId)
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((resource) => describeResource(context, resource, (endpointIds.get(resource.id) ?? []).sort((a, b) => a - b)))
}

/** The path rules of `add-resource`, as the project's `pathRules` say; a refusal is INVALID_INPUT naming the path and its rule. */
function checkPath(path: unknown, project: Project): PathCheck {
  if (typeof path !== 'string' || path === '') invalidField('path', 'must be a path such as /api/posts')
  return pathField(() => checkResourcePath(path, project.pathRules))
}

/** Whether `add-resource` would take this path: its normalized form and warnings, or why not. */
export function checkNewResource(context: Context, project: Project, path: string | null): { ok: true; path: string; warnings: string[] } | { ok: false; message: string } {
  if (!path) return { ok: false, message: 'give a path such as /api/posts' }
  try {
    const checked = checkPath(path, project)
    const conflict = resourceConflict(context, project, checked.path)
    return conflict ? { ok: false, message: conflict } : { ok: true, path: checked.path, warnings: checked.warnings }
  } catch (error) {
    if (error instanceof AppError && error.status === 400) return { ok: false, message: error.message }
    throw error
  }
}

const CREATE_FIELDS = ['path', 'fields', 'seed', 'onDelete']

/** `add-resource --fields --seed --on-delete` from a JSON body `{path, fields?, seed?, onDelete?}`, in one transaction. */
export function addResource(context: Context, project: Project, input: unknown, makeFaker: FakerFactory) {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new AppError('INVALID_BODY', 'request body must be a JSON object: {path, fields?, seed?, onDelete?}')
  }
  const body = input as Record<string, unknown>
  const unknown = Object.keys(body).find((key) => !CREATE_FIELDS.includes(key))
  if (unknown !== undefined) invalidField(unknown, `is not a resource field; send path, fields, seed and onDelete`)
  const { path, warnings } = checkPath(body.path, project)
  const fields = body.fields ?? {}
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) invalidField('fields', 'must be an object of field names to generators, e.g. {"title": "lorem.sentence"}')
  const seedCount = body.seed ?? 0
  if (typeof seedCount !== 'number' || !Number.isInteger(seedCount) || seedCount < 0 || seedCount > MAX_SEED_COUNT) {
    invalidField('seed', `must be a whole number of records from 0 to ${MAX_SEED_COUNT}`)
  }
  if (seedCount > 0 && Object.keys(fields).length === 0) invalidField('fields', 'must name at least one field generator to generate records')
  const onDelete = body.onDelete === undefined ? 'keep' : checkOnDelete(body.onDelete)
  const seed = { fields: fields as Record<string, string>, seedCount, seedValue: null, seedRecords: [] }
  return writeTransaction(context.db, () => {
    const conflict = resourceConflict(context, project, path)
    if (conflict) throw new AppError('CONFLICT', conflict)
    const created = createResource(context, { project: project.slug, path, onDelete })
    try {
      seedNewResource(context, created.resource, seed, makeFaker)
    } catch (error) {
      // An unknown generator: the transaction is undone, nothing stays.
      if (error instanceof AppError && error.code === 'INVALID_INPUT') invalidField('fields', `is not valid: ${error.message}`)
      throw error
    }
    const resource = context.repos.resources.byId(created.resource.id)!
    return {
      resource: describeResource(context, resource, created.endpoints.map((e) => e.id)),
      endpoints: created.endpoints.map(endpointView),
      warnings,
    }
  })
}

/** A resource whose records the management API works on; a singular one has its object instead, at its own path. */
export function requireRecords(resource: Resource): Resource {
  if (resource.singular) throw new AppError('CONFLICT', `resource ${resource.path} is singular: its one object is answered at ${resource.path} (GET, PUT, PATCH), it has no records`)
  return resource
}

/** A resource of the project by id; unknown (or another project's) → 404. */
export function requireResource(context: Context, project: Project, idText: string): Resource {
  const id = parseId(idText)
  const resource = id === null ? undefined : context.repos.resources.byId(id)
  if (!resource || resource.projectId !== project.id) throw new AppError('NOT_FOUND', `no resource with id "${idText}" in project ${project.id}`)
  return resource
}

/** Deletes the resource with its endpoints, and its records unless another resource shares them. */
export function deleteResource(context: Context, resource: Resource): void {
  writeTransaction(context.db, () => {
    context.repos.resources.remove(resource.id)
    context.repos.collections.removeIfUnused(resource.collectionId)
    context.repos.specs.removeUnused(resource.projectId)
    context.repos.files.removeUnused(resource.projectId)
  })
}
