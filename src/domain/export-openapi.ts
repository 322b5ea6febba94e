import { Document, isScalar, isSeq, visit, type YAMLSeq } from 'yaml'
import { AppError } from '../errors.ts'
import { describeWhen } from '../engine/conditions.ts'
import { countProgress, type ProgressOptions } from '../engine/progress.ts'
import { hasConfiguredBody } from '../engine/exchange.ts'
import { contentTypeOf, isJsonContentType, isTextual, TEXT_TYPE } from '../engine/media-type.ts'
import { keptNumber, parseKeepingNumbers } from '../engine/exact-numbers.ts'
import { parseRoutePath, type SegmentPattern } from '../engine/path-pattern.ts'
import { inferSchema, type JsonSchema } from '../engine/schema-inference.ts'
import { resolvePointer } from '../kinds/openapi/pointer.ts'
import { HTTP_METHODS, type AuthScheme, type Endpoint, type EndpointAuth, type EndpointResponse, type Project, type Resource } from '../model.ts'
import type { StoredSpec } from '../store/specs.ts'
import { fileContent } from './bodies.ts'
import type { Context } from './context.ts'
import { currentSettings } from './endpoint-config.ts'
import { countItemWrites, endpointSettingsSpec } from './export.ts'
import { routeShape } from './endpoints.ts'
import { responseExampleName } from './responses.ts'
import { standardEndpoints } from './resources.ts'

/** What `mockapi export --format` takes: a project file, or an OpenAPI document. */
export const EXPORT_FORMATS = ['project', 'openapi'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

export function parseExportFormat(format: string): ExportFormat {
  const found = EXPORT_FORMATS.find((known) => known === format.toLowerCase())
  if (!found) throw new AppError('INVALID_INPUT', `unknown export format "${format}": use ${EXPORT_FORMATS.join(' or ')}`)
  return found
}

/** What `export --format openapi` writes, with what it had to leave out. */
export interface OpenApiExport {
  document: Record<string, unknown>
  warnings: string[]
}

type Obj = Record<string, unknown>

/**
 * Records a resource's schema is inferred from and its list's example carries (what `import
 * --stateful` seeds it with again): all of them, bounded for huge collections.
 */
const EXPORTED_RECORDS = 1000

const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] } },
  required: ['error'],
}

/**
 * The list parameters every resource list reads (docs/mocking.md, "Resources"); json-server's
 * dialects are named in the description rather than listed one by one.
 */
const LIST_PARAMETERS: Obj[] = [
  { name: 'page', in: 'query', required: false, description: 'page number (from 1); json-server spells it `_page`', schema: { type: 'integer', minimum: 1 } },
  { name: 'limit', in: 'query', required: false, description: 'items per page (page 1 alone); json-server spells it `_per_page` (1.x) or `_limit` (0.17), and 0.17 slices with `_start`/`_end`', schema: { type: 'integer', minimum: 1 } },
  { name: 'sort', in: 'query', required: false, description: 'fields to sort by, comma-separated, `-` for descending (`sort=-views,title`); json-server 0.17 spells it `_sort` with `_order`', schema: { type: 'string' } },
  { name: 'order', in: 'query', required: false, description: 'order of a single sort field', schema: { type: 'string', enum: ['asc', 'desc'] } },
  { name: 'q', in: 'query', required: false, description: 'full-text search over string values, case-insensitive', schema: { type: 'string' } },
]

const LIST_DESCRIPTION = 'Any other `field=value` filters by equality; `field:op=` (json-server 1.x: eq, ne, lt, lte, gt, gte) and `field_op=` (0.17: gte, lte, ne, like) compare; `_fields` keeps some keys; `_envelope=true` wraps the page in json-server 1.x\'s envelope.'

/**
 * `:id` → `{id}`; null for what an OpenAPI path cannot say: a wildcard (`*`, `**`, `*.png`, whose
 * parameter has no name) or literal text with a brace or a decoded `/`.
 */
function openApiPath(path: string): string | null {
  const literal = (text: string) => (/[{}/]/.test(text) ? null : text)
  const param = (name: string) => (/^\d/.test(name) ? null : `{${name}}`)
  const text = (pattern: SegmentPattern): string | null => {
    switch (pattern.kind) {
      case 'literal': return literal(pattern.text)
      case 'param': return param(pattern.name)
      case 'mixed': {
        const parts = pattern.parts.map((part) => (part.kind === 'param' ? param(part.name) : literal(part.text)))
        return parts.includes(null) ? null : parts.join('')
      }
      default: return null
    }
  }
  const written = parseRoutePath(path).map(text)
  return written.includes(null) ? null : `/${written.join('/')}`
}

function pathParameters(path: string): Obj[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => ({ name: match[1], in: 'path', required: true, schema: { type: 'string' } }))
}

/**
 * The extension `mockapi import` configures an operation's endpoint from (docs/imports.md, "Round
 * trip"): the endpoint's settings as a project file writes them (templates, files with their bytes,
 * responses with their rules, names and order), so the import answers as the endpoint did where the
 * examples alone cannot say it. Auth is left out (its tokens and keys are secrets: the security
 * schemes say it), and so are the schema (the request body says it) and the proxy (the document has
 * no target).
 */
export const SETTINGS_EXTENSION = 'x-mockapi-endpoint'

/** The statuses an answer goes out without a body for, whatever the endpoint holds. */
const NO_BODY_STATUSES = new Set([204, 205, 304])

/**
 * The endpoint's settings for SETTINGS_EXTENSION, with its status (the import's default is the
 * document's first 2xx, not always the endpoint's); undefined when it has none to say, unless
 * `always`.
 */
function settingsExtension(context: Context, endpoint: Endpoint, always: boolean): Obj | undefined {
  const { auth: _auth, schema: _schema, proxy: _proxy, ...settings } = endpointSettingsSpec(context, endpoint)
  if (!always && Object.keys(settings).length === 0) return undefined
  // A custom endpoint without a body answers `{}`; an imported one would answer its documented response, which has none.
  const answersEmptyObject = endpoint.kind === 'custom' && !hasConfiguredBody(endpoint) && !NO_BODY_STATUSES.has(endpoint.status)
  return { status: endpoint.status, ...settings, ...(answersEmptyObject ? { body: {} } : {}) }
}

/** A schema's name in `components`: the resource path's last literal, in PascalCase, singular-ish. */
function schemaName(resource: Resource, taken: Set<string>): string {
  const literal = resource.path.split('/').filter((s) => s && !s.startsWith(':')).at(-1) ?? 'Item'
  const words = literal.split(/[^A-Za-z0-9]+/).filter(Boolean)
  let base = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('') || 'Item'
  if (!resource.singular && base.length > 3 && base.endsWith('s') && !base.endsWith('ss')) base = base.slice(0, -1)
  if (!/^[A-Za-z]/.test(base)) base = `R${base}`
  let name = base
  for (let n = 2; taken.has(name); n++) name = `${base}${n}`
  taken.add(name)
  return name
}

/**
 * The schema without `required` at any depth: what a POST, PUT or PATCH may send, since a resource
 * takes any object (a property named `required` is a property, and stays).
 */
function withoutRequired(schema: JsonSchema): JsonSchema {
  const { required: _required, properties, items, anyOf, ...rest } = schema
  return {
    ...rest,
    ...(properties ? { properties: Object.fromEntries(Object.entries(properties as Record<string, JsonSchema>).map(([name, property]) => [name, withoutRequired(property)])) } : {}),
    ...(items ? { items: withoutRequired(items as JsonSchema) } : {}),
    ...(anyOf ? { anyOf: (anyOf as JsonSchema[]).map(withoutRequired) } : {}),
  }
}

/** securitySchemes names, one per distinct scheme (tokens, keys and users are secrets: never written). */
class SecuritySchemes {
  readonly schemes: Record<string, Obj> = {}
  private readonly names = new Map<string, string>()

  nameOf(scheme: AuthScheme): string {
    const written: Obj = scheme.type === 'bearer' ? { type: 'http', scheme: 'bearer' } : scheme.type === 'basic' ? { type: 'http', scheme: 'basic' } : { type: 'apiKey', in: scheme.in, name: scheme.name }
    const key = JSON.stringify(written)
    let name = this.names.get(key)
    if (!name) {
      const base = scheme.type === 'apiKey' ? `apiKey_${scheme.in}_${scheme.name.replace(/[^A-Za-z0-9_.-]/g, '_')}` : `${scheme.type}Auth`
      name = base
      for (let n = 2; this.schemes[name]; n++) name = `${base}${n}`
      this.names.set(key, name)
      this.schemes[name] = written
    }
    return name
  }

  /**
   * An imported spec's scheme under its own name, or under another when this document already
   * gives that name to a different scheme; the name it is written under.
   */
  adopt(name: string, scheme: Obj): string {
    const key = JSON.stringify(scheme)
    const known = this.names.get(key)
    if (known) return known
    let written = name
    for (let n = 2; this.schemes[written]; n++) written = `${name}${n}`
    this.names.set(key, written)
    this.schemes[written] = scheme
    return written
  }

  /** Any one scheme passes: one requirement object each. */
  requirements(schemes: AuthScheme[]): Obj[] {
    return schemes.map((scheme) => ({ [this.nameOf(scheme)]: [] }))
  }
}

/** An endpoint's own `security`, when it differs from the project's: `[]` for a public one. */
function endpointSecurity(auth: EndpointAuth, security: SecuritySchemes): Obj[] | undefined {
  if (auth === 'none') return []
  if (auth === null) return undefined
  return security.requirements(auth)
}

/** What a custom endpoint or response answers: the Content-Type its body goes out with. */
function mediaTypeOf(headers: Record<string, string>, answer: Pick<Endpoint, 'bodyType' | 'contentType' | 'file'>): string {
  const header = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1]
  if (header) return header
  if (answer.contentType !== null) return answer.contentType
  if (answer.bodyType === 'text') return TEXT_TYPE
  if (answer.bodyType === 'file') return contentTypeOf(answer.file?.name ?? '')
  return 'application/json'
}

/** One answer of a custom endpoint, as its response would be effective. */
interface Answer {
  name: string
  description: string | null
  status: number
  headers: Record<string, string>
  /** null: no body. */
  media: { type: string; value: unknown; binary: boolean } | null
}

/**
 * A text body sent as JSON (a recording keeps what the real API answered as text, byte for byte) is
 * JSON in the document: written as a string, the import would answer the string itself, quoted.
 */
function textValue(text: string, type: string): unknown {
  if (!isJsonContentType(type)) return text
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/** A file's bytes as text, when its type is textual and they are UTF-8; else null (its bytes are binary). */
function fileText(context: Context, fileId: number, type: string): string | null {
  if (!isTextual(type)) return null
  const bytes = fileContent(context, fileId)?.bytes
  try {
    return bytes ? new TextDecoder('utf-8', { fatal: true }).decode(bytes) : null
  } catch {
    return null
  }
}

function answerOf(context: Context, endpoint: Endpoint, response: EndpointResponse | null, name: string, description: string | null): Answer {
  const headers = response ? { ...endpoint.headers, ...response.headers } : endpoint.headers
  const answer = response
    ? { bodyType: response.bodyType, body: response.body, contentType: response.contentType, fileId: response.fileId, file: response.file }
    : { bodyType: endpoint.bodyType, body: endpoint.body, contentType: endpoint.contentType, fileId: endpoint.fileId, file: endpoint.file }
  const hasBody = answer.bodyType === 'file' ? answer.fileId !== null : answer.body !== null && answer.bodyType !== null
  if (!hasBody) return { name, description, status: response?.status ?? endpoint.status, headers, media: null }
  const type = mediaTypeOf(headers, { bodyType: answer.bodyType ?? 'json', contentType: answer.contentType, file: answer.file })
  // A text file is its text, as a text body is (what a tool reading the examples answers); other files are bytes the examples cannot hold.
  const text = answer.bodyType === 'file' ? fileText(context, answer.fileId!, type) : answer.bodyType === 'text' ? answer.body! : null
  const media = {
    type,
    value: answer.bodyType === 'json' ? (JSON.parse(answer.body!) as unknown) : text === null ? null : textValue(text, type),
    binary: answer.bodyType === 'file' && text === null,
  }
  return { name, description, status: response?.status ?? endpoint.status, headers, media }
}

/**
 * A custom endpoint's answers: its own body, or its responses in order, the one a plain request gets
 * first (the first without conditions under `rules`; the first of a sequence), since a tool that
 * reads the examples alone (Prism) answers the first.
 */
function answersOf(context: Context, endpoint: Endpoint): Answer[] {
  const settings = currentSettings(endpoint)
  if (settings.responses.length === 0) return [answerOf(context, endpoint, null, 'default', null)]
  const named = settings.responses.map((response, index) => {
    const pick = settings.pick === 'rules' ? (response.when === null ? 'the fallback: answered when no rule before it holds' : `answered when ${describeWhen(response.when)}`) : settings.pick === 'sequence' ? `answer ${index + 1} of the sequence` : 'one of the answers picked at random'
    return answerOf(context, endpoint, response, responseExampleName(response, index), pick)
  })
  const first = settings.pick === 'rules' ? named.findIndex((_, index) => settings.responses[index]!.when === null) : 0
  return first > 0 ? [named[first]!, ...named.filter((_, index) => index !== first)] : named
}

function headerObjects(answers: Answer[]): Obj | undefined {
  const headers: Record<string, Obj> = {}
  for (const answer of answers) {
    for (const [name, value] of Object.entries(answer.headers)) {
      if (/^content-(type|length)$/i.test(name) || headers[name]) continue
      headers[name] = { schema: { type: 'string' }, example: value }
    }
  }
  return Object.keys(headers).length > 0 ? headers : undefined
}

/** The responses object of a custom endpoint: one per status, each media with its examples. */
function customResponses(context: Context, endpoint: Endpoint): Obj {
  const byStatus = new Map<number, Answer[]>()
  for (const answer of answersOf(context, endpoint)) {
    const list = byStatus.get(answer.status)
    if (list) list.push(answer)
    else byStatus.set(answer.status, [answer])
  }
  const responses: Obj = {}
  for (const [status, answers] of byStatus) {
    const content: Record<string, Obj> = {}
    const byType = new Map<string, Answer[]>()
    for (const answer of answers) {
      if (!answer.media) continue
      const list = byType.get(answer.media.type)
      if (list) list.push(answer)
      else byType.set(answer.media.type, [answer])
    }
    for (const [type, typed] of byType) {
      if (typed[0]!.media!.binary) {
        content[type] = { schema: { type: 'string', format: 'binary' } }
        continue
      }
      const values = typed.map((answer) => answer.media!.value)
      const schema = inferSchema(values)
      content[type] = typed.length === 1 && typed[0]!.description === null
        ? { schema, example: values[0] }
        : { schema, examples: Object.fromEntries(typed.map((answer) => [answer.name, { ...(answer.description ? { description: answer.description } : {}), value: answer.media!.value }])) }
    }
    const headers = headerObjects(answers)
    responses[String(status)] = {
      description: answers.map((answer) => answer.description ?? `status ${status}`).filter((text, index, all) => all.indexOf(text) === index).join('; '),
      ...(headers ? { headers } : {}),
      ...(Object.keys(content).length > 0 ? { content } : {}),
    }
  }
  return responses
}

/** The first number in a value that a double cannot hold as written (a record keeps its digits), if any. */
function firstKeptNumber(value: unknown): string | undefined {
  if (typeof value === 'string') return keptNumber(value)
  if (value === null || typeof value !== 'object') return undefined
  for (const inner of Object.values(value)) {
    const kept = firstKeptNumber(inner)
    if (kept !== undefined) return kept
  }
  return undefined
}

function records(context: Context, resource: Resource, warnings: string[]): Obj[] {
  const page = context.repos.records.page(resource.collectionId, { filters: [], q: null, sort: [], limit: EXPORTED_RECORDS, offset: 0 })
  if (page.total > EXPORTED_RECORDS) warnings.push(`${resource.path}: its first ${EXPORTED_RECORDS} of ${page.total} records are written, the rest left out`)
  const kept = firstKeptNumber(parseKeepingNumbers(page.json))
  // The document is JSON or YAML read as doubles (by swagger-parser, and by the import): such digits cannot survive it.
  if (kept !== undefined) warnings.push(`${resource.path}: its records hold numbers a double cannot hold as written (${kept}): the document writes them rounded, and an import seeds them so`)
  return JSON.parse(page.json) as Obj[]
}

const json = (schema: unknown, example?: unknown): Obj => ({ 'application/json': { schema, ...(example !== undefined ? { example } : {}) } })
const notFound = { description: 'no record with that id', content: json({ $ref: '#/components/schemas/Error' }) }

/**
 * The JSON Schema an endpoint checks request bodies against, as a request body; one with a `$ref`
 * is left out (with a warning), since its references would point into the OpenAPI document.
 */
function configuredRequestBody(endpoint: Endpoint, warnings: string[]): Obj | undefined {
  if (endpoint.schema === null) return undefined
  if (endpoint.schema.includes('"$ref"')) {
    warnings.push(`${endpoint.method} ${endpoint.path}: its request body schema uses $ref and is left out`)
    return undefined
  }
  return { required: true, content: json(JSON.parse(endpoint.schema) as unknown) }
}

/** One operation to write: where, and which endpoint it describes. */
interface Written {
  path: string
  method: string
  operation: Obj
  endpointId: number
}

/**
 * The operations of a resource's standard endpoints that exist (at their own paths: a stateful
 * import's item path keeps its `{petId}`), each answering its records.
 */
function resourceOperations(resource: Resource, schemaRef: Obj, input: JsonSchema, sample: Obj[], endpoints: Map<string, Endpoint>, own: { securityOf: (endpoint: Endpoint) => Obj[] | undefined; settingsOf: (endpoint: Endpoint) => Obj | undefined }, warnings: string[]): Written[] {
  const operations: Written[] = []
  for (const { method, path, action } of standardEndpoints(resource.path, resource.singular)) {
    const endpoint = endpoints.get(`${method} ${routeShape(path)}`)
    const written = endpoint && openApiPath(endpoint.path)
    if (!endpoint || !written) continue
    const answer = action === 'list'
      ? { description: 'the records, filtered, sorted and paged', content: json({ type: 'array', items: schemaRef }, sample) }
      : { description: action === 'delete' ? 'the deleted record' : 'the record', content: json(schemaRef, sample[0]) }
    const parameters = [...pathParameters(written), ...(action === 'list' ? LIST_PARAMETERS : [])]
    const security = own.securityOf(endpoint)
    const settings = own.settingsOf(endpoint)
    const writes = action === 'create' || action === 'replace' || action === 'patch'
    const requestBody = configuredRequestBody(endpoint, warnings) ?? (writes ? { required: true, content: json(input) } : undefined)
    const operation: Obj = {
      operationId: `${action}${resource.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
      ...(action === 'list' ? { description: LIST_DESCRIPTION } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses: { [String(endpoint.status)]: answer, ...(action !== 'list' && action !== 'create' ? { '404': notFound } : {}) },
      ...(security ? { security } : {}),
      ...(settings ? { [SETTINGS_EXTENSION]: settings } : {}),
    }
    operations.push({ path: written, method: method.toLowerCase(), operation, endpointId: endpoint.id })
  }
  return operations
}

/**
 * An imported operation as its spec has it, when it stands alone (no `$ref` in it): with its path
 * item's parameters, the spec's own `security` and schemes where it takes them from the spec, and
 * the endpoint's settings as they are now (`settings`), not as the spec's extension had them.
 */
function importedOperation(spec: StoredSpec, document: Obj, endpoint: Endpoint, security: SecuritySchemes, settings: Obj | undefined): Obj | null {
  if (!endpoint.operation || spec.version === '2.0') return null
  const pointer = endpoint.operation.pointer
  const operation = resolvePointer(document, pointer)
  const pathItem = resolvePointer(document, pointer.slice(0, pointer.lastIndexOf('/')))
  if (!operation || typeof operation !== 'object' || !pathItem || typeof pathItem !== 'object') return null
  const shared = (pathItem as Obj).parameters
  const copied = JSON.parse(JSON.stringify(operation)) as Obj
  if (Array.isArray(shared) && shared.length > 0) {
    const own = Array.isArray(copied.parameters) ? (copied.parameters as Obj[]) : []
    const key = (p: Obj) => `${String(p.in)} ${String(p.name)}`
    const owned = new Set(own.map(key))
    copied.parameters = [...(shared as Obj[]).filter((p) => !owned.has(key(p))), ...own]
  }
  if (JSON.stringify(copied).includes('"$ref"')) return null
  const requirements = importedSecurity(document, copied, security)
  if (requirements === null) return null
  if (requirements !== undefined) copied.security = requirements
  delete copied[SETTINGS_EXTENSION]
  if (settings) copied[SETTINGS_EXTENSION] = settings
  return copied
}

/**
 * An imported operation's `security` (its own, else its spec's top level, which here is the
 * project's), its schemes adopted into this document; undefined when it has none, null when it names
 * a scheme its spec does not define plainly.
 */
function importedSecurity(document: Obj, operation: Obj, security: SecuritySchemes): Obj[] | undefined | null {
  const requirements = (operation.security ?? document.security) as unknown
  if (requirements === undefined) return undefined
  const schemes = ((document.components as Obj | undefined)?.securitySchemes ?? {}) as Record<string, Obj | undefined>
  const plain = (name: string) => schemes[name] !== undefined && !JSON.stringify(schemes[name]).includes('"$ref"')
  if (!Array.isArray(requirements) || !requirements.every((requirement: Obj) => Object.keys(requirement).every(plain))) return null
  return requirements.map((requirement: Obj) => Object.fromEntries(Object.entries(requirement).map(([name, scopes]) => [security.adopt(name, schemes[name]!), scopes])))
}

const METHOD_ORDER = HTTP_METHODS.map((method) => method.toLowerCase())

/**
 * Paths in code-unit order, their operations in method order: the same project writes the same
 * document from any database, whatever order its endpoints were made in.
 */
function sortedPaths(paths: Record<string, Obj>): Record<string, Obj> {
  const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  return Object.fromEntries(Object.keys(paths).sort(byText).map((path) => [path, Object.fromEntries(METHOD_ORDER.filter((method) => paths[path]![method]).map((method) => [method, paths[path]![method]]))]))
}

const SPEC_LABELS: Record<string, string> = { graphql: 'GraphQL', soap: 'SOAP', grpc: 'gRPC' }

/**
 * The project as an OpenAPI 3.1 document (docs/imports.md, "Round trip"): resources as collection
 * and item paths with schemas inferred from their records, custom endpoints with their answers as
 * examples, auth as security schemes, and the imported OpenAPI operations that stand alone.
 */
export function exportOpenApi(context: Context, project: Project, { onProgress }: ProgressOptions = {}): OpenApiExport {
  const warnings: string[] = []
  const security = new SecuritySchemes()
  const endpoints = context.repos.endpoints.listByProject(project.id)
  const specs = new Map(context.repos.specs.listByProject(project.id).map((spec) => [spec.id, spec]))
  const documents = new Map<number, Obj>()
  const documentOf = (spec: StoredSpec): Obj => {
    if (!documents.has(spec.id)) documents.set(spec.id, JSON.parse(spec.document) as Obj)
    return documents.get(spec.id)!
  }

  const paths: Record<string, Obj> = {}
  const done = new Set<number>()
  const operationIds = new Set<string>()
  const put = ({ path, method, operation, endpointId }: Written) => {
    done.add(endpointId)
    const item = (paths[path] ??= {})
    if (item[method]) {
      warnings.push(`${method.toUpperCase()} ${path} left out: that operation is already written`)
      return
    }
    // A document's operationIds are unique: one that two imports (or an import and a resource) share gets a number.
    if (typeof operation.operationId === 'string') {
      let id = operation.operationId
      for (let n = 2; operationIds.has(id); n++) id = `${operation.operationId}${n}`
      operationIds.add(id)
      operation.operationId = id
    }
    item[method] = operation
  }

  // Imported operations that stand alone are written as imported, even where a stateful import made a resource of them.
  for (const endpoint of endpoints) {
    const spec = endpoint.specId === null ? undefined : specs.get(endpoint.specId)
    const written = openApiPath(endpoint.path)
    if (endpoint.kind !== 'openapi' || !spec || !written) continue
    const operation = importedOperation(spec, documentOf(spec), endpoint, security, settingsExtension(context, endpoint, false))
    if (operation) put({ path: written, method: endpoint.method.toLowerCase(), operation, endpointId: endpoint.id })
  }

  // A stateful import's operation described as its resource's keeps the security its spec gave it.
  const securityOf = (endpoint: Endpoint): Obj[] | undefined => {
    const own = endpointSecurity(endpoint.auth, security)
    const spec = endpoint.specId === null ? undefined : specs.get(endpoint.specId)
    if (own || endpoint.kind !== 'openapi' || !endpoint.operation || !spec || spec.version === '2.0') return own
    const document = documentOf(spec)
    const operation = resolvePointer(document, endpoint.operation.pointer)
    if (!operation || typeof operation !== 'object') return undefined
    return importedSecurity(document, operation as Obj, security) ?? undefined
  }
  const byShape = new Map(endpoints.filter((e) => !done.has(e.id)).map((e) => [`${e.method} ${routeShape(e.path)}`, e]))
  const schemas: Record<string, JsonSchema> = {}
  const names = new Set<string>(['Error'])
  const resources = context.repos.resources.listByProject(project.id).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  // Each reads up to EXPORTED_RECORDS records and infers their schema: a second or so for a hundred resources.
  const progress = countProgress(onProgress, 'describing resources', resources.length)
  for (const resource of resources) {
    const sample = records(context, resource, warnings)
    const name = schemaName(resource, names)
    const inferred = { ...inferSchema(sample), type: 'object' }
    schemas[name] = { ...inferred, ...(sample[0] ? { example: sample[0] } : {}) }
    const own = { securityOf, settingsOf: (endpoint: Endpoint) => settingsExtension(context, endpoint, false) }
    for (const written of resourceOperations(resource, { $ref: `#/components/schemas/${name}` }, withoutRequired(inferred), sample, byShape, own, warnings)) put(written)
    progress.add()
  }
  progress.finish()

  const leftOut = new Map<string, string[]>()
  for (const endpoint of endpoints) {
    if (done.has(endpoint.id)) continue
    const written = openApiPath(endpoint.path)
    if ((endpoint.kind === 'custom' || endpoint.kind === 'resource') && written) {
      const own = endpointSecurity(endpoint.auth, security)
      const parameters = pathParameters(written)
      const requestBody = configuredRequestBody(endpoint, warnings)
      const operation = { ...(parameters.length ? { parameters } : {}), ...(requestBody ? { requestBody } : {}), responses: customResponses(context, endpoint), ...(own ? { security: own } : {}), [SETTINGS_EXTENSION]: settingsExtension(context, endpoint, true) }
      put({ path: written, method: endpoint.method.toLowerCase(), operation, endpointId: endpoint.id })
      continue
    }
    if (endpoint.kind === 'custom' || endpoint.kind === 'resource') {
      warnings.push(`${endpoint.method} ${endpoint.path} left out: an OpenAPI path has no wildcards (nor braces in its text)`)
      continue
    }
    const spec = endpoint.specId === null ? undefined : specs.get(endpoint.specId)
    const label = endpoint.kind === 'openapi' ? `OpenAPI operations of "${spec?.title ?? '?'}" that use $ref or come from Swagger 2.0` : `${SPEC_LABELS[endpoint.kind] ?? endpoint.kind} operations of "${spec?.title ?? '?'}"`
    const list = leftOut.get(label) ?? []
    list.push(endpoint.kind === 'openapi' ? `${endpoint.method} ${endpoint.path}` : endpoint.path)
    leftOut.set(label, list)
  }
  for (const [label, list] of leftOut) warnings.push(`left out ${list.length} ${label}: ${list.slice(0, 5).join(', ')}${list.length > 5 ? ` and ${list.length - 5} more` : ''}`)
  if (Object.keys(paths).length === 0) warnings.push(`project "${project.slug}" has nothing OpenAPI can describe: the document has no paths`)

  const projectSecurity = project.auth && project.auth.length > 0 ? security.requirements(project.auth) : null
  const needsError = Object.values(paths).some((item) => JSON.stringify(item).includes('#/components/schemas/Error'))
  const components: Obj = {
    ...(Object.keys(schemas).length > 0 || needsError ? { schemas: { ...schemas, ...(needsError ? { Error: ERROR_SCHEMA } : {}) } } : {}),
    ...(Object.keys(security.schemes).length > 0 ? { securitySchemes: security.schemes } : {}),
  }
  const document: Obj = {
    openapi: '3.1.0',
    info: { title: project.name, version: '1.0.0', ...(project.description ? { description: project.description } : {}) },
    ...(projectSecurity ? { security: projectSecurity } : {}),
    paths: sortedPaths(paths),
    ...(Object.keys(components).length > 0 ? { components } : {}),
  }
  return { document, warnings }
}

/**
 * JSON, or YAML for a file named `.yaml`/`.yml`. yaml takes seconds over the records of a large
 * project's examples (JSON a tenth of that): their writing is counted, as `export`'s is.
 */
export function openApiText(document: Obj, fileName: string | null, { onProgress }: ProgressOptions = {}): string {
  if (fileName === null || !/\.ya?ml$/i.test(fileName)) return `${JSON.stringify(document, null, 2)}\n`
  const yaml = new Document(document)
  const examples = onProgress ? listExamples(yaml) : []
  const progress = countProgress(onProgress, 'writing records', examples.reduce((n, list) => n + list.items.length, 0))
  for (const list of examples) countItemWrites(list, progress)
  const text = yaml.toString({ lineWidth: 0 })
  progress.finish()
  return text
}

/** Every `example` that is a list: a resource's records, or a custom endpoint's array. */
function listExamples(yaml: Document): YAMLSeq[] {
  const lists: YAMLSeq[] = []
  visit(yaml, {
    Pair(_key, pair) {
      if (!isScalar(pair.key) || pair.key.value !== 'example') return undefined
      if (isSeq(pair.value)) lists.push(pair.value)
      // An example is data: nothing inside it is an OpenAPI `example`.
      return visit.SKIP
    },
  })
  return lists
}
