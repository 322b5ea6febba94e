import { AppError } from '../errors.ts'
import type { Endpoint, HttpMethod, OpenApiOperation, Project, Resource, ResourceAction, SpecFormat } from '../model.ts'
import type { ExampleSource } from '../kinds/kind.ts'
import type { Context } from './context.ts'
import { ON_ITEM, resourceActionFor, routeShape, servedRoute, servedRoutes } from './endpoints.ts'
import { collectionName } from './resources.ts'
import { reseedCollection } from './seeding.ts'
import { writeTransaction } from './transaction.ts'
import type { FakerFactory } from '../engine/generators.ts'
import { countProgress, type OnProgress } from '../engine/progress.ts'
import { kindOf } from '../kinds/registry.ts'
import { derefPointer, isObj, resolvePointer } from '../kinds/openapi/pointer.ts'
import { configureEndpoint, settingsFromJson } from './endpoint-config.ts'
import { SETTINGS_EXTENSION } from './export-openapi.ts'

export interface RouteImportOptions {
  /** Drop this spec's endpoints that the new version no longer has. */
  replace: boolean
  /**
   * Collection + item paths behave like a resource, seeded with the records the collection GET's
   * example lists, then `seedCount` generated items (5 when not given and there is no such example).
   */
  stateful: boolean
  /** null: not given. */
  seedCount: number | null
  onProgress?: OnProgress | undefined
}

export interface RouteImportResult {
  project: Project
  specId: number
  created: Endpoint[]
  updated: Endpoint[]
  /** Endpoints of an earlier import the spec no longer has: removed with `replace`, else kept as custom endpoints. */
  removed: Endpoint[]
  kept: Endpoint[]
  resources: Resource[]
}

/** One route of the spec: a method and path (`{petId}` already `:petId`) with its operation. */
export interface RouteOperation {
  method: HttpMethod
  path: string
  operation: OpenApiOperation
}

/** A spec whose operations are routes (OpenAPI), parsed and ready to store. */
export interface RouteImportInput {
  format: SpecFormat
  title: string
  version: string
  source: string
  /** The document as stored. */
  document: string
  operations: RouteOperation[]
}

export type ExamplesOf = (stored: { title: string; version: string; document: string }) => ExampleSource

/** The parsed value, or undefined when the text is missing or not JSON (an XML or text example). */
function parseJsonText(text: string | null | undefined): unknown {
  if (!text) return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

function parsedExample(examples: ExampleSource, op: RouteOperation | undefined): unknown {
  return (op && parseJsonText(examples.buildResponse(op.operation, { status: 200 })?.body)) ?? null
}

function jsonOrNull(text: string | null): string | null {
  return parseJsonText(text) === undefined ? null : text
}

/** An item for a stateful collection: the item GET's example, else the first of the list's. */
function sampleItem(examples: ExampleSource, group: RouteOperation[]): Record<string, unknown> | null {
  const read = group.find((op) => op.method === 'GET' && op.path.split('/').at(-1)!.startsWith(':'))
  const listed = parsedExample(examples, group.find((op) => op.method === 'GET' && op !== read))
  const item = parsedExample(examples, read) ?? (Array.isArray(listed) ? listed[0] : null)
  return item && typeof item === 'object' && !Array.isArray(item) ? (item as Record<string, unknown>) : null
}

const key = (method: string, path: string) => `${method} ${routeShape(path)}`

/** Generated items a stateful collection starts with when `--seed` is not given and its spec lists no records. */
const DEFAULT_SEED_COUNT = 5

type IdKind = 'string' | 'number'

const idKindOf = (id: unknown): IdKind | null => (typeof id === 'string' ? 'string' : typeof id === 'number' && Number.isFinite(id) ? 'number' : null)

/** The 200 response's JSON media of an operation. */
function jsonMedia(op: RouteOperation | undefined) {
  return op?.operation.responses.find((response) => response.code === '200')?.media.find((media) => /json/i.test(media.type))
}

/** The type the item GET's schema gives `id` (`integer` and `number` are numbers); null when it says none. */
function schemaIdKind(document: unknown, read: RouteOperation | undefined): IdKind | null {
  const schemaPointer = jsonMedia(read)?.schema
  const schema = schemaPointer ? derefPointer(document, schemaPointer) : null
  const properties = schema === null ? null : derefPointer(document, `${schema}/properties`)
  const id = properties === null ? null : derefPointer(document, `${properties}/id`)
  const type = id === null ? undefined : (resolvePointer(document, id) as { type?: unknown }).type
  const named = (Array.isArray(type) ? type : [type]).filter((t) => t !== 'null')
  if (named.length !== 1) return null
  return named[0] === 'string' ? 'string' : named[0] === 'integer' || named[0] === 'number' ? 'number' : null
}

/**
 * The records a collection GET's 200 JSON example lists (an export writes a resource's records
 * there): every element an object with a distinct id of the item schema's type (of one type, when
 * the schema says none). null when the spec has no such example: the collection is seeded as
 * generated items instead.
 */
function listedRecords(document: unknown, group: RouteOperation[]): Record<string, unknown>[] | null {
  const read = group.find((op) => op.method === 'GET' && op.path.split('/').at(-1)!.startsWith(':'))
  const media = jsonMedia(group.find((op) => op.method === 'GET' && op !== read))
  const pointer = media ? (media.example ?? Object.values(media.examples)[0] ?? null) : null
  const listed = pointer === null ? undefined : resolvePointer(document, pointer)
  if (!Array.isArray(listed) || !listed.every((record) => isObj(record))) return null
  const expected = schemaIdKind(document, read) ?? idKindOf((listed[0] as Record<string, unknown> | undefined)?.id)
  const ids = new Set(listed.map((record) => String(record.id)))
  if (ids.size !== listed.length || !listed.every((record) => idKindOf(record.id) !== null && idKindOf(record.id) === expected)) return null
  return listed
}

/**
 * The endpoint configured as its operation's SETTINGS_EXTENSION says (an export writes it: the
 * endpoint's body, templates, files, responses and rules), laid over what it has; a setting that
 * does not check is refused, naming the operation, and the whole import with it.
 */
function configureFromDocument(context: Context, endpoint: Endpoint, settings: unknown, makeFaker: FakerFactory): Endpoint {
  try {
    return configureEndpoint(context, endpoint, settingsFromJson(settings), makeFaker)
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    throw new AppError(error.code, `${endpoint.method} ${endpoint.path}: ${SETTINGS_EXTENSION}: ${error.message}`, error.details === undefined ? {} : { details: error.details })
  }
}

interface StatefulGroup {
  path: string
  actions: Map<string, ResourceAction>
  operations: RouteOperation[]
}

/** `/pets` (GET/POST) with `/pets/{id}` (GET/PUT/PATCH/DELETE) → one resource at `/pets`. */
function statefulGroups(operations: RouteOperation[]): StatefulGroup[] {
  const byPath = new Map<string, RouteOperation[]>()
  for (const op of operations) {
    const list = byPath.get(op.path)
    if (list) list.push(op)
    else byPath.set(op.path, [op])
  }
  // Item paths by their collection path: `/pets/:petId` under `/pets`.
  const itemPaths = new Map<string, string>()
  for (const path of byPath.keys()) {
    const cut = path.lastIndexOf('/')
    if (path.slice(cut + 1).startsWith(':') && !itemPaths.has(path.slice(0, cut))) itemPaths.set(path.slice(0, cut), path)
  }
  const groups: StatefulGroup[] = []
  for (const [path, collectionOps] of byPath) {
    if (path.split('/').at(-1)?.startsWith(':')) continue
    const itemPath = itemPaths.get(path)
    const itemOps = itemPath ? byPath.get(itemPath)! : []
    const actions = new Map<string, ResourceAction>()
    for (const [ops, onItem] of [[collectionOps, false], [itemOps, true]] as const) {
      for (const op of ops) {
        const action = resourceActionFor(op.method, onItem)
        if (action) actions.set(key(op.method, op.path), action)
      }
    }
    const hasItem = [...actions.values()].some((a) => ON_ITEM.has(a))
    const hasCollection = [...actions.values()].some((a) => !ON_ITEM.has(a))
    if (hasItem && hasCollection) groups.push({ path, actions, operations: [...collectionOps, ...itemOps] })
  }
  return groups
}

/**
 * Creates or updates one endpoint per route of the spec, in one transaction: a spec whose
 * routes clash with endpoints of another kind changes nothing.
 */
export function storeRoutes(
  context: Context,
  project: Project,
  input: RouteImportInput,
  options: RouteImportOptions,
  tools: { examplesOf: ExamplesOf; makeFaker: FakerFactory },
): RouteImportResult {
  const { defaultStatus } = kindOf(input.format)
  const { endpoints, specs, resources, collections } = context.repos
  return writeTransaction(context.db, () => {
    const current = endpoints.listByProject(project.id)
    const existing = new Map(current.map((e) => [key(e.method, e.path), e]))
    // `/posts` and `/api/posts` are both served at `/api/{slug}/posts`: they clash.
    const mounted = new Map(current.flatMap((e) => servedRoutes(e).map((route) => [route, e] as const)))
    // An imported route may update an imported endpoint at the same path; anything else served at the same URL clashes.
    const clashes = input.operations.flatMap((op) => {
      const taken = mounted.get(servedRoute(op.method, op.path))
      return taken && (taken.kind !== input.format || key(taken.method, taken.path) !== key(op.method, op.path)) ? [taken] : []
    })
    if (clashes.length > 0) {
      const listed = clashes.slice(0, 5).map((e) => `${e.method} ${e.path} (${e.kind})`).join(', ')
      throw new AppError('CONFLICT', `the spec's routes clash with endpoints of project "${project.slug}": ${listed}${clashes.length > 5 ? ` and ${clashes.length - 5} more` : ''}; import into another project (--project) or remove them`)
    }
    const now = context.clock.now().toISOString()
    const previous = specs.listByProject(project.id).find((stored) => stored.title === input.title)
    if (previous && previous.format !== input.format) {
      throw new AppError('CONFLICT', `project "${project.slug}" already has a ${previous.format} import titled "${input.title}"; import into another project (--project)`)
    }
    const specId = specs.save({
      projectId: project.id,
      format: input.format,
      title: input.title,
      version: input.version,
      source: input.source,
      document: input.document,
      importedAt: now,
    })

    const result: RouteImportResult = { project, specId, created: [], updated: [], removed: [], kept: [], resources: [] }
    const bound = new Map<string, { resourceId: number; action: ResourceAction }>()
    const seeded: { resource: Resource; group: StatefulGroup }[] = []
    if (options.stateful) {
      for (const group of statefulGroups(input.operations)) {
        let resource = resources.byPath(project.id, group.path)
        if (!resource) {
          // Only a new collection is seeded: a re-import keeps the records stored since.
          resource = resources.insert({ projectId: project.id, collectionId: collections.ensure(project.id, collectionName(group.path)), path: group.path, onDelete: 'keep', createdAt: now })
          seeded.push({ resource, group })
        }
        for (const [routeKey, action] of group.actions) bound.set(routeKey, { resourceId: resource.id, action })
        result.resources.push(resource)
      }
    }

    const imported = new Set<string>()
    // Parsed only for a document that names the extension: most specs are not exports.
    const carriesSettings = input.document.includes(`"${SETTINGS_EXTENSION}"`)
    let parsed: unknown
    const settingsOf = (op: RouteOperation): unknown => {
      if (!carriesSettings) return undefined
      parsed ??= JSON.parse(input.document) as unknown
      const operation = resolvePointer(parsed, op.operation.pointer)
      return isObj(operation) ? operation[SETTINGS_EXTENSION] : undefined
    }
    const progress = countProgress(options.onProgress, 'importing endpoints', input.operations.length)
    for (const op of input.operations) {
      progress.add()
      const routeKey = key(op.method, op.path)
      imported.add(routeKey)
      const binding = bound.get(routeKey)
      const before = existing.get(routeKey)
      // A status the user configured (not the one the spec implied) survives a re-import.
      const configured = before?.operation && before.status !== defaultStatus(before) ? before.status : null
      const wiring = {
        kind: input.format,
        path: op.path,
        status: configured ?? defaultStatus({ action: null, operation: op.operation }),
        resourceId: binding?.resourceId ?? null,
        action: binding?.action ?? null,
        specId,
        operation: op.operation,
      }
      const stored = before ? endpoints.reimport(before.id, wiring) : endpoints.insert({ projectId: project.id, method: op.method, createdAt: now, ...wiring })
      const settings = settingsOf(op)
      const endpoint = settings === undefined ? stored : configureFromDocument(context, stored, settings, tools.makeFaker)
      if (before) result.updated.push(endpoint)
      else result.created.push(endpoint)
    }
    progress.finish()
    // The previous document is replaced: what it alone described keeps answering its last example.
    const previousExamples = previous ? tools.examplesOf(previous) : null
    for (const endpoint of endpoints.listBySpec(specId)) {
      if (imported.has(key(endpoint.method, endpoint.path))) continue
      if (options.replace) {
        endpoints.remove(endpoint.id)
        result.removed.push(endpoint)
        continue
      }
      const built = previousExamples && endpoint.operation ? previousExamples.buildResponse(endpoint.operation, { status: endpoint.status }) : null
      result.kept.push(endpoints.detach(endpoint.id, { status: built?.status ?? endpoint.status, body: jsonOrNull(built?.body ?? null) }))
    }
    specs.removeUnused(project.id)
    context.repos.files.removeUnused(project.id)

    const responder = tools.examplesOf(input)
    const document = seeded.length > 0 ? (JSON.parse(input.document) as unknown) : null
    // Each collection is seeded with a few records: counted by collection, not by record.
    const seeding = countProgress(options.onProgress, 'seeding collections', seeded.length)
    for (const { resource, group } of seeded) {
      seeding.add()
      const listed = listedRecords(document, group.operations)
      // Two resources of one collection (`/comments`, `/posts/{postId}/comments`) list the same records: each is seeded once.
      const taken = new Set(resources.listByCollection(resource.collectionId).flatMap((other) => other.seedRecords.flatMap((record) => (record.id === undefined ? [] : [String(record.id)]))))
      const records = (listed ?? []).filter((record) => !taken.has(String(record.id)))
      const item = sampleItem(responder, group.operations)
      const { id, ...fields } = item ?? {}
      // An example's string id means the schema's ids are strings: generated ones are too ("1", "2", …).
      if (typeof id === 'string') collections.setIdType(resource.collectionId, 'string')
      // Seeded items get generated ids: a sampled one would be the same on each.
      const count = options.seedCount ?? (listed ? 0 : DEFAULT_SEED_COUNT)
      const generated = item ? Array.from({ length: count }, () => ({ ...fields })) : []
      resources.setSeed(resource.id, { fields: {}, seedCount: 0, seedValue: null, seedRecords: [...records, ...generated] })
      reseedCollection(context, resource.collectionId, tools.makeFaker)
    }
    seeding.finish()
    return result
  })
}
