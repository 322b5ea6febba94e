import pluralize from 'pluralize'
import { AppError } from '../errors.ts'
import { keptNumber, parseKeepingNumbers, stringifyKeepingNumbers } from '../engine/exact-numbers.ts'
import type { FieldFilter, Resource } from '../model.ts'
import type { Context } from './context.ts'

/**
 * Relations between a project's collections, by json-server's convention (docs/mocking.md,
 * "Relations"): a record of `comments` belongs to the `posts` record its `postId` names. Singular
 * and plural come from `pluralize`, the library json-server itself uses, so the names resolve as
 * its users expect (`categories` → `categoryId`, `user` → `users`).
 */

/** What relations read of a record request (records.ts's RecordRequest has it). */
export interface RelationRequest {
  resource: Resource
  collectionId: number
  parents: FieldFilter[]
  query: URLSearchParams
}

type JsonObject = Record<string, unknown>

/** Collections one request may embed and expand together. */
export const MAX_RELATIONS = 10
/** Records one relation may add to one answer; past it, the client pages the list. */
export const MAX_EMBEDDED = 10_000

const EMBED = '_embed'
const EXPAND = '_expand'
const DEPENDENT = '_dependent'

/** The field a child holds its parent's id in: `posts` → `postId`. */
function foreignKey(collection: string): string {
  return `${pluralize.singular(collection)}Id`
}

function invalid(parameter: string, message: string): never {
  throw new AppError('INVALID_QUERY', `query parameter "${parameter}" ${message}`, { details: [{ parameter, message }] })
}

/** A parameter's names, repeated or comma-separated, each once. */
function namesOf(query: URLSearchParams, parameter: string): string[] {
  // Absent from nearly every request: no set built to say so.
  if (!query.has(parameter)) return []
  const names = new Set<string>()
  for (const value of query.getAll(parameter)) {
    for (const part of value.split(',')) {
      const name = part.trim()
      if (name === '') invalid(parameter, 'must name a collection, e.g. comments')
      names.add(name)
    }
  }
  return [...names]
}

/** The collections of singular resources: their one object is not a record that relates to others. */
function singularCollections(context: Context, projectId: number): Set<number> {
  return new Set(context.repos.resources.listByProject(projectId).filter((r) => r.singular).map((r) => r.collectionId))
}

/** The collection a name stands for: the first of its candidates the project has. */
function collectionNamed(context: Context, projectId: number, parameter: string, name: string, candidates: string[]): number {
  const { relations } = context.repos
  const singular = singularCollections(context, projectId)
  for (const candidate of candidates) {
    const id = relations.collectionByName(projectId, candidate)
    if (id !== undefined && !singular.has(id)) return id
  }
  const known = relations.collectionNames(projectId).filter((collection) => !singular.has(relations.collectionByName(projectId, collection)!))
  return invalid(parameter, `names "${name}", which is not a collection of this project (${known.length ? `its collections: ${known.join(', ')}` : 'it has none'})`)
}

/** An id as the text records are stored under; null for anything that cannot be one. */
function idText(value: unknown): string | null {
  if (typeof value === 'string') return keptNumber(value) ?? value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return null
}

function ownName(context: Context, request: RelationRequest): string {
  const collection = context.repos.relations.collection(request.collectionId)
  if (!collection) throw new AppError('NOT_FOUND', 'the resource this endpoint stored records in has been deleted')
  return collection.name
}

interface Relation {
  kind: 'embed' | 'expand'
  /** The key the related records go under: the name as the client wrote it. */
  key: string
  collectionId: number
  /** embed: the field of the children naming this record; expand: the field of this record naming the parent. */
  field: string
}

/** A singular name with a plural of its own (`post`, not `posts`, nor `news`, which is both). */
function namesParent(name: string): boolean {
  return pluralize.singular(name) === name && pluralize.plural(name) !== name
}

function relationsOf(context: Context, request: RelationRequest, embeds: string[], expands: string[]): Relation[] {
  const projectId = request.resource.projectId
  const name = ownName(context, request)
  if (embeds.length + expands.length > MAX_RELATIONS) {
    invalid(embeds.length > 0 ? EMBED : EXPAND, `names ${embeds.length + expands.length} collections; at most ${MAX_RELATIONS} may be embedded and expanded at once`)
  }
  return [
    // json-server 1.x: a singular name embeds the parent (`_embed=post` on a comment), a plural one the children.
    ...embeds.map((key): Relation => (namesParent(key)
      ? { kind: 'expand', key, field: foreignKey(key), collectionId: collectionNamed(context, projectId, EMBED, key, [pluralize.plural(key)]) }
      : { kind: 'embed', key, field: foreignKey(name), collectionId: collectionNamed(context, projectId, EMBED, key, [key]) })),
    ...expands.map((key): Relation => ({
      kind: 'expand', key, field: foreignKey(key),
      collectionId: collectionNamed(context, projectId, EXPAND, key, [pluralize.plural(key), key]),
    })),
  ]
}

/** Sets an own key even when it is `__proto__`, which plain assignment would take as the prototype. */
function setKey(record: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true })
}

function parseRecords(texts: string[]): JsonObject[] {
  return texts.map((text) => parseKeepingNumbers(text) as JsonObject)
}

/** Children by the id they name, in stored order; `one` when the answer is a single record, which cannot be paged. */
function embed(context: Context, records: JsonObject[], relation: Relation, one: boolean): void {
  const ids = [...new Set(records.map((r) => idText(r.id)).filter((id) => id !== null))]
  const rows = context.repos.relations.children(relation.collectionId, relation.field, ids, MAX_EMBEDDED + 1)
  if (rows.length > MAX_EMBEDDED) {
    const instead = one
      ? `this record has more; list them from their own collection instead, filtered by ${relation.field} and paged (e.g. ?${relation.field}=${encodeURIComponent(idText(records[0]!.id) ?? '')}&_page=1)`
      : 'ask for fewer records (limit) or filter the list'
    invalid(EMBED, `would embed more than ${MAX_EMBEDDED} ${relation.key} records in one answer; ${instead}`)
  }
  const byParent = new Map<string, JsonObject[]>()
  for (const child of parseRecords(rows)) {
    const parent = idText(child[relation.field])
    if (parent === null) continue
    const list = byParent.get(parent)
    if (list) list.push(child)
    else byParent.set(parent, [child])
  }
  for (const record of records) setKey(record, relation.key, byParent.get(idText(record.id) ?? '') ?? [])
}

/** The parent each record names; a record naming none that exists gets no key, as in json-server. */
function expand(context: Context, records: JsonObject[], relation: Relation): void {
  const ids = [...new Set(records.map((r) => idText(r[relation.field])).filter((id) => id !== null))]
  const parents = new Map<string, JsonObject>()
  for (const parent of parseRecords(context.repos.relations.byIds(relation.collectionId, ids))) {
    const id = idText(parent.id)
    if (id !== null) parents.set(id, parent)
  }
  for (const record of records) {
    const parent = parents.get(idText(record[relation.field]) ?? '')
    if (parent) setKey(record, relation.key, parent)
  }
}

/**
 * A list page or one record with `_embed` and `_expand` applied: one query per relation for the
 * whole page. Without either parameter the stored JSON text goes back untouched, never parsed.
 */
export function withRelations(context: Context, request: RelationRequest, json: string): string {
  const embeds = namesOf(request.query, EMBED)
  const expands = namesOf(request.query, EXPAND)
  if (embeds.length === 0 && expands.length === 0) return json
  const relations = relationsOf(context, request, embeds, expands)
  const parsed = parseKeepingNumbers(json) as JsonObject | JsonObject[]
  const records = Array.isArray(parsed) ? parsed : [parsed]
  if (records.length === 0) return json
  for (const relation of relations) {
    if (relation.kind === 'embed') embed(context, records, relation, !Array.isArray(parsed))
    else expand(context, records, relation)
  }
  return stringifyKeepingNumbers(parsed)
}

/** Parent collections of a nested resource path by the field naming them: `/api/users/:userId/posts` → userId → users. */
function parentCollections(path: string): Map<string, string> {
  const segments = path.split('/').filter(Boolean)
  const parents = new Map<string, string>()
  segments.forEach((segment, at) => {
    const before = segments[at - 1]
    if (segment.startsWith(':') && before !== undefined && !before.startsWith(':')) parents.set(segment.slice(1), before)
  })
  return parents
}

/**
 * The body of a nested POST with each parent field set to its parent's id, typed as the parent
 * stores it (`userId: 9` under a user whose id is the number 9). A parent of a collection the
 * project has must exist: else NOT_FOUND, and nothing is stored. Runs inside the create transaction.
 */
export function withParentIds(context: Context, request: RelationRequest, body: JsonObject): JsonObject {
  if (request.parents.length === 0) return body
  const named = parentCollections(request.resource.path)
  let typed = body
  for (const parent of request.parents) {
    const id = parent.values[0]!
    const name = named.get(parent.field)
    const collectionId = name === undefined ? undefined : context.repos.relations.collectionByName(request.resource.projectId, name)
    if (collectionId === undefined) continue
    const stored = context.repos.records.get(collectionId, id)
    if (stored === undefined) throw new AppError('NOT_FOUND', `no ${name} record with id "${id}"`)
    const storedId = (parseKeepingNumbers(stored) as JsonObject).id
    typed = { ...typed, [parent.field]: typeof storedId === 'number' ? storedId : id }
  }
  return typed
}

interface Dependents {
  collectionId: number
  field: string
}

/** Where a record of `collectionId` has dependents when its resources cascade: every collection by the foreign key, and their nested resources by the path's parameter. */
function cascadeTargets(context: Context, projectId: number, collectionName: string, cascading: readonly Resource[]): Dependents[] {
  const targets = new Map<string, Dependents>()
  const add = (target: Dependents) => targets.set(`${target.collectionId}|${target.field}`, target)
  const field = foreignKey(collectionName)
  const all = context.repos.resources.listByProject(projectId)
  // A singular resource's object is not a record that belongs to another: a `userId` in it is a field like any.
  const singular = singularCollections(context, projectId)
  for (const collectionId of context.repos.collections.listIds(projectId)) if (!singular.has(collectionId)) add({ collectionId, field })
  for (const resource of cascading) {
    for (const nested of all) {
      const rest = nested.path.startsWith(`${resource.path}/:`) ? nested.path.slice(resource.path.length + 2) : null
      const slash = rest?.indexOf('/') ?? -1
      if (rest && slash > 0) add({ collectionId: nested.collectionId, field: rest.slice(0, slash) })
    }
  }
  return [...targets.values()]
}

/**
 * What a DELETE takes with it: the collections `_dependent` names (refused when unknown) and,
 * when the resource cascades, every record that belongs to the deleted one, and theirs in turn
 * while their own resources cascade. `remove` runs in the delete's transaction, after the record
 * itself is gone, so no child created meanwhile is left behind: it answers the header telling how
 * many records went with it, or none when nothing was asked to cascade.
 */
export function dependentsOf(context: Context, request: RelationRequest): { remove(id: string): Record<string, string> } {
  const projectId = request.resource.projectId
  const name = ownName(context, request)
  const named = new Set(namesOf(request.query, DEPENDENT).map((dependent) =>
    collectionNamed(context, projectId, DEPENDENT, dependent, [dependent, pluralize.plural(dependent)])))
  const cascades = request.resource.onDelete === 'cascade'
  if (named.size === 0 && !cascades) return { remove: () => ({}) }
  // A named collection's records belong by the foreign key, or by the parameter of a resource nested under this one.
  const targets = cascadeTargets(context, projectId, name, [request.resource])
  const first = cascades ? targets : targets.filter((target) => named.has(target.collectionId))
  return {
    remove(id) {
      const { relations, records, resources } = context.repos
      const gone = new Set([`${request.collectionId}|${id}`])
      let removed = 0
      // Breadth first, each record once: a tree of categories (categoryId) ends however deep it is.
      const pending: { targets: Dependents[]; ids: string[] }[] = [{ targets: first, ids: [id] }]
      for (let step = pending.shift(); step; step = pending.shift()) {
        for (const target of step.targets) {
          const children = relations.childIds(target.collectionId, target.field, step.ids).filter((child) => !gone.has(`${target.collectionId}|${child}`))
          if (children.length === 0) continue
          for (const child of children) {
            records.remove(target.collectionId, child)
            gone.add(`${target.collectionId}|${child}`)
          }
          removed += children.length
          const cascading = resources.listByCollection(target.collectionId).filter((r) => r.onDelete === 'cascade')
          const childName = relations.collection(target.collectionId)?.name
          if (cascading.length > 0 && childName !== undefined) pending.push({ targets: cascadeTargets(context, projectId, childName, cascading), ids: children })
        }
      }
      return { 'X-Deleted-Dependents': String(removed) }
    },
  }
}
