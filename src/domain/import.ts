/**
 * The import service: a spec from a file, an http(s) URL or pasted text becomes a stored spec and
 * endpoints. The CLI's `import`, the management API's `POST /api/projects/{id}/imports` and
 * `startMockApi({ imports })` all go through `importSpec`; each kind (src/kinds/) detects, loads and
 * names its own documents, and this module only orders the steps and stores the result.
 */
import { statSync } from 'node:fs'
import { basename, dirname, extname, resolve } from 'node:path'
import type { DataKind, DataSet, ExchangeKind, ExchangeSet, SpecKind, SpecOperation } from '../kinds/kind.ts'
import type { FakerFactory } from '../engine/generators.ts'
import { LONG_READ_BYTES, type ProgressOptions } from '../engine/progress.ts'
import { DATA_KINDS, EXCHANGE_KINDS, importKindOf, isDataKind, isExchangeKind, parseFormat, SPEC_KINDS } from '../kinds/registry.ts'
import { AppError } from '../errors.ts'
import type { DataFormat, Endpoint, ExchangeFormat, Project, Resource, SpecFormat } from '../model.ts'
import type { Context } from './context.ts'
import { checkPrefix, storeData, type StoredData } from './import-data.ts'
import { storeOperations } from './import-operations.ts'
import { storeRoutes, type ExamplesOf, type RouteOperation } from './import-routes.ts'
import { recordExchanges, type RecordSummary } from './recording.ts'
import { createProject, RESERVED_SLUGS, selectProject, slugify, updateProjectSettings } from './projects.ts'
import { writeTransaction } from './transaction.ts'

/**
 * A spec as a project file holds it (`imports:`), stored by title as `apply` does: the document is
 * already normalised (exported), so it is not parsed again. Only a document that changed gets a new
 * stamp (and is parsed again by `serve`); `changed` when anything of it did.
 */
export function storeSpecDocument(context: Context, project: Project, spec: { format: SpecFormat; title: string; version: string; source: string; document: string | Record<string, unknown> }): { specId: number; changed: boolean } {
  const document = typeof spec.document === 'string' ? spec.document : JSON.stringify(spec.document)
  const stored = context.repos.specs.listByProject(project.id).find((s) => s.title === spec.title)
  const changed = stored?.document !== document || stored.version !== spec.version || stored.format !== spec.format
  const importedAt = stored?.document === document ? stored.importedAt : context.clock.now().toISOString()
  const specId = context.repos.specs.save({ projectId: project.id, format: spec.format, title: spec.title, version: spec.version, source: spec.source, document, importedAt })
  return { specId, changed }
}

/** Where the document is: exactly one of them. */
export type ImportSource =
  /** A file (relative to `cwd`) or an http(s) URL, as the CLI takes it. */
  | { source: string; cwd: string }
  /** An http(s) URL only: what a caller over the network may name (never a file of this machine). */
  | { url: string }
  /** The document itself; `filename`, the name of the file it came from (a browser's file picker), says its format by extension and titles it as a file would. */
  | { text: string; filename?: string | undefined }

export interface ImportOptions {
  /** Absent: detected from the extension, else the content. */
  format?: string | undefined
  /** Absent: from the document, else its file or URL. */
  title?: string | undefined
  /** OpenAPI: remove the endpoints of an earlier import of this spec that it no longer has. */
  replace?: boolean | undefined
  /** OpenAPI: collection and item paths store what is POSTed, like a resource. */
  stateful?: boolean | undefined
  /**
   * With `stateful`: generated items each new collection starts with, after the records its
   * collection GET's example lists (absent: none after such records, else 5).
   */
  seed?: number | undefined
  /** gRPC: more folders to resolve a .proto's imports from (relative to `cwd`). */
  protoPaths?: string[] | undefined
  /** OpenAPI: a local spec may `$ref` files outside its own folder. */
  allowRefsOutside?: boolean | undefined
  /** OpenAPI: refuse a spec swagger-parser calls invalid (as `--strict`), rather than import it with warnings. */
  strict?: boolean | undefined
  /** A json-server database: where its resources go (`/api` → `/api/posts`); absent, at `/posts` as json-server serves them. */
  prefix?: string | undefined
}

export type ImportRequest = ImportSource & ImportOptions

export type ImportResult = SpecImportResult | DataImportResult | ExchangeImportResult

export interface SpecImportResult {
  project: Project
  spec: {
    id: number
    title: string
    format: SpecFormat
    version: string
    /** How the CLI names it: `"Petstore" (OpenAPI 3.0)`, `WSDL "Calculator"`. */
    description: string
  }
  /** How the spec's operations became endpoints (src/kinds/kind.ts, OperationNaming). */
  naming: 'routes' | 'named'
  created: Endpoint[]
  /** Routes imported before, updated in place. */
  updated: Endpoint[]
  /** Routes: the ones the new version no longer has, kept as custom endpoints. Named: operations already there, settings kept. */
  kept: Endpoint[]
  removed: Endpoint[]
  /** Stateful collections. */
  resources: Resource[]
  warnings: string[]
}

/** A json-server database: resources with their records, and a singular resource per object; nothing stored as a spec. */
export interface DataImportResult extends StoredData {
  spec: { id: null; title: string; format: DataFormat; version: string; description: string }
  naming: 'records'
}

/** A HAR file or a Postman collection: its exchanges recorded as `serve --proxy --record` records them (recording.ts). */
export interface ExchangeImportResult extends RecordSummary {
  spec: { id: null; title: string; format: ExchangeFormat; version: string; description: string }
  naming: 'recorded'
  kept: Endpoint[]
  removed: Endpoint[]
}

/** The project to import into, or how to pick it once the spec's title is known. */
export type ImportTarget = Project | ((title: string) => Project)

const MAX_SEED = 10_000

const isUrl = (source: string) => /^https?:\/\//i.test(source)

/** A spec is a document, not a request, but not an endless one: the Slack spec alone is 1.2 MB. */
export const MAX_SPEC_BYTES = 16 * 1024 * 1024
/** A server that never answers (or trickles) must not hold an import, and its caller, forever. */
const FETCH_TIMEOUT_MS = 30_000

/** An http(s) URL that parses, else a refusal naming it. */
function checkUrl(url: string): string {
  if (!isUrl(url) || !URL.canParse(url)) throw new AppError('INVALID_INPUT', `url "${url}" must be an http(s) URL`)
  return url
}

/** A URL's text (a local tool: specs served on localhost are the common case), within the time and size a spec may take. */
async function fetchText(url: string): Promise<string> {
  const refuse = (why: string): never => {
    throw new AppError('INVALID_INPUT', `cannot fetch ${url}: ${why}`)
  }
  const reason = (error: Error) => error.name === 'TimeoutError' ? `no answer within ${FETCH_TIMEOUT_MS / 1000} s` : (error.cause as Error | undefined)?.message ?? error.message
  const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS)
  const response = await fetch(url, { signal }).catch((error: Error) => refuse(reason(error)))
  if (!response.ok) refuse(`HTTP ${response.status}`)
  if (Number(response.headers.get('content-length') ?? 0) > MAX_SPEC_BYTES) refuse(`larger than ${MAX_SPEC_BYTES / 1024 / 1024} MiB`)
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength
      if (size > MAX_SPEC_BYTES) {
        await response.body?.cancel().catch(() => {})
        refuse(`larger than ${MAX_SPEC_BYTES / 1024 / 1024} MiB`)
      }
      chunks.push(chunk)
    }
  } catch (error) {
    if (error instanceof AppError) throw error
    refuse(reason(error as Error))
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** The file's size in bytes; 0 when it cannot be read, which reading it then says. */
function sizeOf(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

async function readFileText(path: string, name: string): Promise<string> {
  const { readFile } = await import('node:fs/promises')
  return readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new AppError('INVALID_INPUT', error.code === 'ENOENT' ? `no such file: ${name}` : `cannot read ${name}: ${error.message}`)
  })
}

interface Located {
  /** As messages name it. */
  name: string
  file?: string
  url?: string
  /** A pasted document's file name, given by the caller. */
  fileName?: string
  read(): Promise<string>
}

function locate(request: ImportSource): Located {
  let text: Promise<string> | undefined
  const once = (reader: () => Promise<string>) => () => (text ??= reader())
  if ('text' in request) {
    if (typeof request.text !== 'string' || !request.text.trim()) throw new AppError('INVALID_INPUT', 'the document is empty')
    const fileName = request.filename?.trim() ? basename(request.filename.trim()) : undefined
    return fileName === undefined
      ? { name: 'the pasted document', read: () => Promise.resolve(request.text) }
      : { name: fileName, fileName, read: () => Promise.resolve(request.text) }
  }
  if ('url' in request) {
    const url = checkUrl(request.url)
    return { name: url, url, read: once(() => fetchText(url)) }
  }
  if (isUrl(request.source)) {
    const url = checkUrl(request.source)
    return { name: url, url, read: once(() => fetchText(url)) }
  }
  const file = resolve(request.cwd, request.source)
  return { name: request.source, file, read: once(() => readFileText(file, request.source)) }
}

const TRIED = [...SPEC_KINDS, ...DATA_KINDS, ...EXCHANGE_KINDS].map((kind) => kind.detect.described).join(', ')

/**
 * By extension, else by what the document looks like: the exchange kinds (a HAR file, a Postman
 * collection: their JSON structure says them exactly, whatever text their bodies hold), the spec
 * kinds in registry order, then the data kinds (a spec is never taken for data); `formatOption` is
 * how the caller names the way to say the format.
 */
async function detect(located: Located, formatOption: string): Promise<SpecKind | DataKind | ExchangeKind> {
  // A URL's query and fragment are not part of its file name; a file path's `#` or `?` are.
  const extension = extname(located.url !== undefined ? new URL(located.url).pathname : located.file ?? located.fileName ?? '').toLowerCase()
  const byExtension = [...EXCHANGE_KINDS, ...SPEC_KINDS, ...DATA_KINDS].find((kind) => kind.detect.extensions.includes(extension))
  if (byExtension) return byExtension
  const text = await located.read()
  const found = EXCHANGE_KINDS.find((kind) => kind.detect.looksLike(text))
    // A HAR or Postman collection it does not read (a v2.0 collection) gets its loader's refusal, not a json-server reading.
    ?? EXCHANGE_KINDS.find((kind) => kind.detect.claims?.(text))
    ?? SPEC_KINDS.find((kind) => kind.detect.looksLike.test(text))
    ?? DATA_KINDS.find((kind) => kind.detect.looksLike(text))
    // A document that only claims a format gets that format's loader's own, exact complaint. A
    // database's claim comes first: it is never made for a document with a spec's top-level key.
    ?? DATA_KINDS.find((kind) => kind.detect.claims?.(text))
    ?? SPEC_KINDS.find((kind) => kind.detect.claims?.(extension, text))
  if (found) return found
  const named = located.file ?? located.url ?? located.fileName ? basename(located.name) : located.name
  throw new AppError('INVALID_INPUT', `${named} is none of the formats mockapi imports; tried ${TRIED}. If it is one of them, say which with ${formatOption}`)
}

const GENERIC_NAMES = new Set(['schema', 'service', 'services', 'api', 'index', 'main', 'definition'])

/** `route_guide.proto` → `route_guide`; `swapi/schema.graphql` → `swapi` (the folder says more than "schema"). */
function titleFromLocation(located: Located): string | null {
  const path = located.url !== undefined ? new URL(located.url).pathname : located.file ?? located.fileName
  if (path === undefined) return null
  const name = basename(path, extname(path))
  const folder = basename(dirname(path))
  return GENERIC_NAMES.has(name.toLowerCase()) && folder ? folder : name || 'api'
}

/** The spec's title as a slug, unless it is reserved or has no latin letters or digits. */
function firstSlug(title: string): string {
  const slug = slugify(title)
  if (!slug) return 'api'
  return RESERVED_SLUGS.has(slug) ? `${slug}-api` : slug
}

/**
 * The CLI's target: the project `slug` (or the only or default one); in an empty database the
 * import makes the first project, named after the spec, so `import x && serve` serves it.
 */
export function importTarget(context: Context, slug: string | undefined): ImportTarget {
  return (title) => context.repos.projects.list().length === 0
    ? createProject(context, { name: title, slug: slug ?? firstSlug(title) })
    : selectProject(context, slug)
}

function checkSeed(seed: number): number {
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) throw new AppError('INVALID_INPUT', `seed ${seed} must be an integer from 0 to ${MAX_SEED}`)
  return seed
}

/** How the source is written in the stored spec (`source:` in a project file). */
function sourceOf(request: ImportSource): string {
  return 'source' in request ? request.source : 'url' in request ? request.url : ''
}

export type LoadedImport = LoadedSpecImport | LoadedDataImport | LoadedExchangeImport

/** A HAR file or Postman collection read and checked: what `storeImport` records. */
export interface LoadedExchangeImport {
  kind: ExchangeKind
  title: string
  name: string
  set: ExchangeSet
  makeFaker: FakerFactory
}

/** A data document read and checked: what `storeImport` writes. */
export interface LoadedDataImport {
  kind: DataKind
  title: string
  name: string
  set: DataSet
  prefix: string
  replace: boolean
  makeFaker: FakerFactory
}

/** A spec fetched, parsed and checked: what `storeImport` writes, with nothing left to wait for. */
export interface LoadedSpecImport {
  kind: SpecKind
  title: string
  version: string
  source: string
  document: string
  operations: SpecOperation[]
  description: string
  options: { replace: boolean; stateful: boolean; seedCount: number | null }
  /** What storing routes needs, loaded here: example bodies and faker (for stateful seeds). */
  routeTools: { examplesOf: ExamplesOf; makeFaker: FakerFactory } | null
  warnings: string[]
}

/**
 * The first half of an import, before anything is stored: reads the file or fetches the URL,
 * detects the format, parses and checks the document, and titles it. Refuses (unknown format, a
 * document that does not parse, a fetch that fails) with nothing changed.
 */
export async function loadImport(request: ImportRequest, { onProgress }: ProgressOptions = {}): Promise<LoadedImport> {
  const seedCount = request.seed === undefined ? null : checkSeed(request.seed)
  const located = locate(request)
  // Fetching and parsing count nothing: the step only says what is being waited for.
  // A big file is parsed and checked in calls that let nothing be drawn while they run: its line is drawn before them.
  onProgress?.({ label: `reading ${located.name}`, done: 0, total: null, long: located.file !== undefined && sizeOf(located.file) >= LONG_READ_BYTES })
  // The CLI takes a path or URL (and a --format flag); the API and startMockApi a "format" field.
  const formatOption = 'source' in request ? '--format' : '"format"'
  const kind = request.format === undefined ? await detect(located, formatOption) : importKindOf(parseFormat(request.format))
  if (isDataKind(kind)) {
    const named = located.file ?? located.url ?? located.fileName ? basename(located.name) : located.name
    // Not named by the caller: a refusal says which format the document was read as.
    const set = kind.load(await located.read(), request.format === undefined ? `${named} (read as a ${kind.label})` : named)
    return {
      kind,
      title: request.title?.trim() || titleFromLocation(located) || kind.name,
      name: located.name,
      set,
      prefix: checkPrefix(request.prefix ?? ''),
      replace: request.replace ?? false,
      makeFaker: await import('../engine/generators.ts').then((m) => m.loadFaker()),
    }
  }
  if (request.prefix !== undefined) {
    throw new AppError('INVALID_INPUT', `${'source' in request ? '--prefix' : '"prefix"'} goes with a json-server database; a ${kind.label} keeps the paths it defines`)
  }
  if (isExchangeKind(kind)) {
    const flag = (name: string) => ('source' in request ? `--${name}` : `"${name}"`)
    const unused = (['replace', 'stateful', 'seed'] as const).find((name) => request[name] !== undefined && request[name] !== false)
    // A recording makes resources where its answers show collections, and only adds or updates.
    if (unused !== undefined) throw new AppError('INVALID_INPUT', `${flag(unused)} does not go with a ${kind.label}: a recording makes resources where its answers show collections, and only adds or updates`)
    const named = located.file ?? located.url ?? located.fileName ? basename(located.name) : located.name
    const set = kind.load(await located.read(), request.format === undefined ? `${named} (read as a ${kind.label})` : named)
    return {
      kind,
      title: request.title?.trim() || set.title || titleFromLocation(located) || kind.name,
      name: located.name,
      set,
      makeFaker: await import('../engine/generators.ts').then((m) => m.loadFaker()),
    }
  }
  if (located.url !== undefined && kind.urlRefusal) throw new AppError('INVALID_INPUT', kind.urlRefusal)
  const cwd = 'cwd' in request ? request.cwd : process.cwd()
  const loaded = await kind.load({
    name: located.name,
    file: located.file,
    url: located.url,
    read: located.read,
    protoPaths: (request.protoPaths ?? []).map((path) => resolve(cwd, path)),
    allowRefsOutside: request.allowRefsOutside ?? false,
    strict: request.strict ?? false,
  })
  const title = request.title?.trim() || loaded.title || titleFromLocation(located) || kind.name
  const routeTools = kind.operations.by === 'routes'
    ? await Promise.all([kind.operations.examples(), import('../engine/generators.ts').then((m) => m.loadFaker())]).then(([examplesOf, makeFaker]) => ({ examplesOf, makeFaker }))
    : null
  return {
    kind,
    title,
    version: loaded.version,
    source: sourceOf(request),
    document: loaded.document,
    operations: loaded.operations,
    description: loaded.describe(title),
    options: { replace: request.replace ?? false, stateful: request.stateful ?? false, seedCount },
    routeTools,
    warnings: loaded.warnings ?? [],
  }
}

function stillThere(context: Context, project: Project): Project {
  const current = context.repos.projects.byId(project.id)
  if (!current) throw new AppError('PROJECT_NOT_FOUND', `project "${project.slug}" was deleted`)
  return current
}

/**
 * The second half: stores the spec and its endpoints in one transaction (synchronous, so a caller
 * may retry it while another process holds the write lock). A clash changes nothing.
 */
export function storeImport(context: Context, target: ImportTarget, loaded: LoadedImport, progress: ProgressOptions = {}): ImportResult {
  if (isExchangeKind(loaded.kind)) return storeExchangeImport(context, target, loaded as LoadedExchangeImport, progress)
  if (!('document' in loaded)) return storeDataImport(context, target, loaded as LoadedDataImport, progress)
  const { kind, title, version, source, document } = loaded
  // Read again in the transaction: a project deleted while the spec was fetched and parsed is gone, not a foreign-key failure.
  const pickProject = (): Project => (typeof target === 'function' ? target(title) : stillThere(context, target))
  const spec = { title, format: kind.name, version, description: loaded.description }
  const warnings: string[] = [...loaded.warnings]
  if (loaded.routeTools) {
    const operations = loaded.operations.filter((op): op is RouteOperation => op.operation !== null)
    const result = writeTransaction(context.db, () => storeRoutes(context, pickProject(), { format: kind.name, title, version, source, document, operations }, { ...loaded.options, ...progress }, loaded.routeTools!))
    warnings.push(...result.warnings)
    if (result.kept.length > 0) {
      warnings.push(`${result.kept.length} endpoint(s) from an earlier import are no longer in the spec: kept as custom endpoints answering their last example (--replace removes them): ${result.kept.map((e) => `${e.method} ${e.path}`).join(', ')}`)
    }
    if (operations.length === 0) warnings.push(kind.nothingToServe)
    return { project: result.project, spec: { id: result.specId, ...spec }, naming: 'routes', ...pick(result), resources: result.resources, warnings }
  }
  const result = writeTransaction(context.db, () => storeOperations(context, pickProject(), {
    format: kind.name, title, version, source, document, operations: loaded.operations.map((op) => op.path),
  }, progress))
  if (loaded.operations.length === 0) warnings.push(kind.nothingToServe)
  return { project: result.project, spec: { id: result.specId, ...spec }, naming: 'named', ...pick(result), resources: [], warnings }
}

function storeDataImport(context: Context, target: ImportTarget, loaded: LoadedDataImport, { onProgress }: ProgressOptions): DataImportResult {
  const { kind, title, set, prefix } = loaded
  const result = writeTransaction(context.db, () => {
    const made = typeof target === 'function' && context.repos.projects.list().length === 0
    const project = typeof target === 'function' ? target(title) : stillThere(context, target)
    // The project made for the file takes json-server's paths (`/posts`) as they are, and its export applies again.
    const ready = made ? updateProjectSettings(context, project, { pathRules: 'off' }) : project
    return storeData(context, ready, { set, prefix, replace: loaded.replace, name: loaded.name, onProgress }, loaded.makeFaker)
  })
  const warnings: string[] = [...result.warnings]
  if (result.kept.length > 0) {
    const paths = [...new Set(result.kept.map((e) => e.path.replace(/\/:id$/, '')))]
    warnings.push(`${paths.length} resource(s) under ${prefix || '/'} that ${loaded.name} does not name are kept (--replace removes them): ${paths.join(', ')}`)
  }
  const count = `${set.collections.length} resource${set.collections.length === 1 ? '' : 's'}, ${set.singulars.length} singular`
  return {
    ...result,
    spec: { id: null, title, format: kind.name, version: 'db.json', description: `${kind.label} ${loaded.name} (${count})` },
    naming: 'records',
    warnings,
  }
}

function storeExchangeImport(context: Context, target: ImportTarget, loaded: LoadedExchangeImport, { onProgress }: ProgressOptions): ExchangeImportResult {
  const { kind, title, set } = loaded
  const summary = writeTransaction(context.db, () => {
    const made = typeof target === 'function' && context.repos.projects.list().length === 0
    const project = typeof target === 'function' ? target(title) : stillThere(context, target)
    // The project made for the file takes the real API's paths as they are, and its export applies again.
    const ready = made ? updateProjectSettings(context, project, { pathRules: 'off' }) : project
    return recordExchanges(context, ready, set.exchanges, { source: loaded.name, makeFaker: loaded.makeFaker, onProgress })
  })
  const warnings = [...set.warnings, ...summary.warnings]
  if (set.exchanges.length === 0) warnings.push(`${loaded.name} holds no answer to record: nothing to serve`)
  if (summary.skipped.length > 0) {
    warnings.push(`${summary.skipped.length} exchange(s) not recorded: ${summary.skipped.map((s) => `${s.method} ${s.path} (${s.reason})`).join('; ')}`)
  }
  const count = `${set.exchanges.length} exchange${set.exchanges.length === 1 ? '' : 's'}`
  return {
    ...summary,
    kept: [],
    removed: [],
    warnings,
    spec: { id: null, title, format: kind.name, version: set.version, description: `${kind.label} ${loaded.name} (${set.version}, ${count})` },
    naming: 'recorded',
  }
}

/**
 * Imports a spec into a project: `loadImport`, then `storeImport`. Parsing and fetching happen
 * first, so a refusal (unknown format, a document that does not parse, a fetch that fails, a
 * clash) changes nothing.
 */
export async function importSpec(context: Context, target: ImportTarget, request: ImportRequest, progress: ProgressOptions = {}): Promise<ImportResult> {
  return storeImport(context, target, await loadImport(request, progress), progress)
}

function pick(result: { created: Endpoint[]; updated?: Endpoint[]; kept: Endpoint[]; removed: Endpoint[] }) {
  return { created: result.created, updated: result.updated ?? [], kept: result.kept, removed: result.removed }
}

const REQUEST_FIELDS = ['text', 'filename', 'url', 'format', 'title', 'stateful', 'seed', 'replace', 'strict', 'prefix'] as const

function invalidField(field: string, message: string): never {
  throw new AppError('INVALID_INPUT', `"${field}" ${message}`, { details: [{ field, message }] })
}

/**
 * An import as the management API receives it: `{text}` or `{url}` (an http(s) URL; never a file
 * of this machine), with `format`, `title`, `stateful`, `seed`, `replace`, `strict` and `prefix` as the CLI's flags.
 */
export function importRequestFromJson(input: unknown): ImportRequest {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new AppError('INVALID_BODY', 'request body must be a JSON object with the document as "text", or its "url"')
  }
  const fields = input as Record<string, unknown>
  const unknown = Object.keys(fields).find((key) => !(REQUEST_FIELDS as readonly string[]).includes(key))
  if (unknown !== undefined) invalidField(unknown, `is not an import field; send any of ${REQUEST_FIELDS.join(', ')}`)
  const stringOf = (field: string): string | undefined => {
    const value = fields[field]
    if (value !== undefined && typeof value !== 'string') invalidField(field, `must be a string, got ${JSON.stringify(value)}`)
    return value as string | undefined
  }
  const booleanOf = (field: string): boolean | undefined => {
    const value = fields[field]
    if (value !== undefined && typeof value !== 'boolean') invalidField(field, `must be true or false, got ${JSON.stringify(value)}`)
    return value as boolean | undefined
  }
  const seed = fields.seed
  if (seed !== undefined && (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > MAX_SEED)) {
    invalidField('seed', `must be an integer from 0 to ${MAX_SEED}, got ${JSON.stringify(seed)}`)
  }
  const text = stringOf('text')
  const url = stringOf('url')
  if ((text === undefined) === (url === undefined)) {
    throw new AppError('INVALID_INPUT', text === undefined ? 'send the document as "text", or its "url"' : 'send either "text" or "url", not both')
  }
  const options: ImportOptions = {
    format: stringOf('format'),
    title: stringOf('title'),
    stateful: booleanOf('stateful'),
    replace: booleanOf('replace'),
    strict: booleanOf('strict'),
    prefix: stringOf('prefix'),
    seed: seed as number | undefined,
  }
  const filename = stringOf('filename')
  if (filename !== undefined && text === undefined) invalidField('filename', 'goes with "text": a URL names its own file')
  return text !== undefined ? { text, filename, ...options } : { url: url!, ...options }
}
