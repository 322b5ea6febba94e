import { AppError } from '../errors.ts'
import type { Endpoint, HttpMethod, OpenApiOperation, Project, Resource, ResourceAction, SpecFormat } from '../model.ts'
import type { ExampleSource } from '../kinds/kind.ts'
import type { Context } from './context.ts'
import { ON_ITEM, resourceActionFor, routeShape, servedRoute, servedRoutes } from './endpoints.ts'
import { collectionName } from './resources.ts'
import { normalizeId } from './records.ts'
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
  /** Collections seeded with generated items rather than the records the document lists, and why. */
  warnings: string[]
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

/** The JSON media of an operation's 200 response, else of its lowest 2xx (an export writes the status the endpoint answered: a list may answer 206). */
function jsonMedia(op: RouteOperation | undefined) {
  const success = op?.operation.responses.filter((response) => /^2\d\d$/.test(response.code)).sort((a, b) => (a.code === '200' ? -1 : b.code === '200' ? 1 : Number(a.code) - Number(b.code)))[0]
  return success?.media.find((media) => /json/i.test(media.type))
}

const KIND_OF_TYPE: Record<string, IdKind> = { string: 'string', integer: 'number', number: 'number' }

/**
 * The id types a schema allows: its `type` (one or a list; `integer` and `number` are numbers), or
 * every branch of its `anyOf`/`oneOf` (an export writes `["integer", "string"]`, or `anyOf` when a
 * string has a format, for ids of both types); null when it says none.
 */
function idKindsAt(document: unknown, pointer: string, depth = 0): Set<IdKind> | null {
  const at = derefPointer(document, pointer)
  const schema = at === null ? undefined : resolvePointer(document, at)
  // A branch may name the schema it is in (`anyOf: [{$ref: itself}]`): past a few levels it says nothing.
  if (at === null || !isObj(schema) || depth > 8) return null
  if (schema.type !== undefined) {
    const named = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((type) => type !== 'null')
    const kinds = new Set(named.flatMap((type) => (typeof type === 'string' && KIND_OF_TYPE[type] ? [KIND_OF_TYPE[type]] : [])))
    return kinds.size > 0 ? kinds : null
  }
  const branches = Array.isArray(schema.anyOf) ? 'anyOf' : Array.isArray(schema.oneOf) ? 'oneOf' : null
  if (branches === null) return null
  const kinds = new Set<IdKind>()
  for (let index = 0; index < (schema[branches] as unknown[]).length; index++) {
    const branch = idKindsAt(document, `${at}/${branches}/${index}`, depth + 1)
    // A branch that says nothing allows any id.
    if (branch === null) return null
    for (const kind of branch) kinds.add(kind)
  }
  return kinds.size > 0 ? kinds : null
}

/** The id types the item GET's schema allows; null when it says none. */
function schemaIdKinds(document: unknown, read: RouteOperation | undefined): Set<IdKind> | null {
  const schemaPointer = jsonMedia(read)?.schema
  const schema = schemaPointer ? derefPointer(document, schemaPointer) : null
  const properties = schema === null ? null : derefPointer(document, `${schema}/properties`)
  return properties === null || !isObj(resolvePointer(document, `${properties}/id`)) ? null : idKindsAt(document, `${properties}/id`)
}

const KIND_NAMES: Record<IdKind, string> = { string: 'a string', number: 'a number' }

/** Why one record of a list example cannot be seeded as it is; null when it can. */
function refusedRecord(record: unknown, index: number, allowed: Set<IdKind> | null, keys: Set<string>): string | null {
  const which = `its element ${index + 1}`
  if (!isObj(record)) return `${which} is not an object`
  if (record.id === undefined) return `${which} has no id`
  const kind = idKindOf(record.id)
  if (kind === null) return `${which} has an id that is neither a string nor a number (${JSON.stringify(record.id)})`
  if (allowed !== null && !allowed.has(kind)) return `${which} has ${KIND_NAMES[kind]} id (${JSON.stringify(record.id)}) where the item schema's id is ${[...allowed].map((k) => KIND_NAMES[k]).join(' or ')}`
  let key: string
  try {
    key = normalizeId(record.id).key
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    return `${which}: ${error.message}`
  }
  if (keys.has(key)) return `${which} repeats the id ${JSON.stringify(record.id)}`
  keys.add(key)
  return null
}

/**
 * The records a collection GET's success JSON example lists (an export writes a resource's records
 * there): every element an object whose id is a string or a number the item schema allows (any,
 * when it says none), no two ids the same as the store keys them (`1` and `"1"` are one). Else
 * why not, for the warning: the collection is seeded with generated items instead.
 */
function listedRecords(document: unknown, group: RouteOperation[]): { records: Record<string, unknown>[] } | { missing: string } | { refused: string } {
  const read = group.find((op) => op.method === 'GET' && op.path.split('/').at(-1)!.startsWith(':'))
  const media = jsonMedia(group.find((op) => op.method === 'GET' && op !== read))
  const pointer = media ? (media.example ?? Object.values(media.examples)[0] ?? null) : null
  if (pointer === null) return { missing: 'its list GET has no JSON example of its success response' }
  const listed = resolvePointer(document, pointer)
  if (!Array.isArray(listed)) return { refused: 'its list GET\'s example is not a list' }
  const allowed = schemaIdKinds(document, read)
  const keys = new Set<string>()
  for (const [index, record] of listed.entries()) {
    const why = refusedRecord(record, index, allowed, keys)
    if (why !== null) return { refused: `its list GET's example is not records: ${why}` }
  }
  return { records: listed as Record<string, unknown>[] }
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

    const result: RouteImportResult = { project, specId, created: [], updated: [], removed: [], kept: [], resources: [], warnings: [] }
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
      const records = 'records' in listed ? listed.records : []
      // Two resources of one collection (`/comments`, `/posts/{postId}/comments`) list the same records: each is seeded once.
      const taken = new Set(resources.listByCollection(resource.collectionId).flatMap((other) => other.seedRecords.flatMap((record) => (record.id === undefined ? [] : [normalizeId(record.id).key]))))
      const item = sampleItem(responder, group.operations)
      const { id, ...fields } = item ?? {}
      // An example's string id means the schema's ids are strings: generated ones are too ("1", "2", …).
      if (typeof id === 'string') collections.setIdType(resource.collectionId, 'string')
      // Seeded items get generated ids: a sampled one would be the same on each.
      const count = options.seedCount ?? ('records' in listed ? 0 : DEFAULT_SEED_COUNT)
      const generated = item ? Array.from({ length: count }, () => ({ ...fields })) : []
      // Generated items the user did not ask for (--seed) stand in for records: never silently.
      if ('refused' in listed || ('missing' in listed && options.seedCount === null)) {
        const why = 'refused' in listed ? listed.refused : listed.missing
        const instead = generated.length > 0 ? `seeded with ${generated.length} generated item(s)${options.seedCount === null ? ' (--seed N sets how many)' : ''}` : 'starts empty'
        result.warnings.push(`${group.path}: ${why}; ${instead}`)
      }
      resources.setSeed(resource.id, { fields: {}, seedCount: 0, seedValue: null, seedRecords: [...records.filter((record) => !taken.has(normalizeId(record.id).key)), ...generated] })
      reseedCollection(context, resource.collectionId, tools.makeFaker)
    }
    seeding.finish()
    return result
  })
}
