import { readFileSync } from 'node:fs'
import { LineCounter, parseDocument, isNode, type Document } from 'yaml'
import { AppError } from '../errors.ts'
import { EVENT_TYPES, HTTP_METHODS, SPEC_FORMATS, type EventType, type SpecFormat } from '../model.ts'
import { OPERATION_PATH_SHAPES } from './protocol-paths.ts'

/** The YAML format of `mockapi export`, `mockapi apply` and `templates/*.yaml`. */
export interface ProjectFile {
  name: string
  slug: string | null
  description: string
  /** Default seed value for generated data. */
  seed: number | null
  resources: ResourceSpec[]
  endpoints: EndpointSpec[]
  webhooks: WebhookSpec[]
  /** Imported definitions (OpenAPI, GraphQL, gRPC, SOAP) that endpoints answer from. */
  imports: ImportSpec[]
}

export interface ImportSpec {
  /** Absent in the file: openapi. */
  format: SpecFormat
  title: string
  version: string
  source: string
  /**
   * So the file is complete without the original: the bundled OpenAPI document or the gRPC
   * descriptor (mappings), the GraphQL SDL or the WSDL (text).
   */
  document: Record<string, unknown> | string
}

/** The document's shape in a project file, by format. */
const DOCUMENT_SHAPES: Record<SpecFormat, { text: boolean; what: string }> = {
  openapi: { text: false, what: 'the OpenAPI document (a mapping)' },
  grpc: { text: false, what: 'the protobuf descriptor (a mapping, as `mockapi export` writes it)' },
  graphql: { text: true, what: 'the GraphQL SDL (text)' },
  soap: { text: true, what: 'the WSDL (text)' },
}

export interface ResourceSpec {
  path: string
  fields: Record<string, string>
  /** How many records to generate from `fields`. */
  count: number
  seed: number | null
  records: Record<string, unknown>[]
  /** Endpoints of the resource that do not exist, as "METHOD path". */
  without: string[]
}

export interface EndpointSpec {
  method: string
  path: string
  status?: number
  headers?: Record<string, string>
  delay?: number
  body?: unknown
  schema?: unknown
  errorRate?: number
  errorStatus?: number
  /** Title of the import this endpoint answers from, and the operation's pointer in it. */
  import?: string
  operation?: string
}

export interface WebhookSpec {
  name: string
  targetUrl: string
  events: EventType[]
  enabled: boolean
}

type Path = (string | number)[]

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** Reads and checks a project file; every refusal names the source, the line and the reason. */
export function parseProjectFile(text: string, source: string): ProjectFile {
  const lineCounter = new LineCounter()
  const document: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true })
  if (document.errors.length > 0) {
    const first = document.errors[0]!
    const line = lineCounter.linePos(first.pos[0]).line
    throw new AppError('INVALID_INPUT', `${source}${line ? `, line ${line}` : ''}: ${first.message.split('\n')[0]}`)
  }
  const fail = (path: Path, message: string): never => {
    let node: unknown = document.getIn(path, true)
    for (let cut = path.length; !isNode(node) && cut > 0; cut -= 1) node = document.getIn(path.slice(0, cut - 1), true)
    const offset = isNode(node) ? node.range?.[0] : undefined
    const line = offset === undefined ? undefined : lineCounter.linePos(offset).line
    const where = path.length ? path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').replace(/^\./, '') : 'the file'
    throw new AppError('INVALID_INPUT', `${source}${line ? `, line ${line}` : ''}: ${where} ${message}`)
  }
  const root: unknown = document.toJS()
  if (!isObject(root)) fail([], 'must be a mapping with name, resources and endpoints')
  const file = root as Record<string, unknown>
  const optionalInt = (value: unknown, path: Path): number | null => {
    if (value === undefined || value === null) return null
    if (!Number.isSafeInteger(value)) fail(path, 'must be an integer')
    return value as number
  }
  const list = (value: unknown, path: Path): unknown[] => {
    if (value === undefined || value === null) return []
    if (!Array.isArray(value)) fail(path, 'must be a list')
    return value as unknown[]
  }
  const stringMap = (value: unknown, path: Path): Record<string, string> => {
    if (value === undefined || value === null) return {}
    if (!isObject(value)) fail(path, 'must be a mapping')
    for (const [key, item] of Object.entries(value as object)) if (typeof item !== 'string') fail([...path, key], 'must be a string')
    return value as Record<string, string>
  }

  if (typeof file.name !== 'string' || !file.name.trim()) fail(['name'], 'must be a non-empty string')
  if (file.slug !== undefined && typeof file.slug !== 'string') fail(['slug'], 'must be a string')
  if (file.description !== undefined && typeof file.description !== 'string') fail(['description'], 'must be a string')

  const resources = list(file.resources, ['resources']).map((entry, i): ResourceSpec => {
    const at: Path = ['resources', i]
    if (!isObject(entry)) fail(at, 'must be a mapping with a path')
    const r = entry as Record<string, unknown>
    if (typeof r.path !== 'string') fail([...at, 'path'], 'must be a string such as /api/posts')
    const count = r.count ?? 0
    if (!Number.isSafeInteger(count) || (count as number) < 0) fail([...at, 'count'], 'must be a whole number of records to generate')
    const records = list(r.records, [...at, 'records'])
    records.forEach((record, j) => {
      if (!isObject(record)) fail([...at, 'records', j], 'must be a mapping (one record)')
    })
    const without = list(r.without, [...at, 'without'])
    without.forEach((item, j) => {
      if (typeof item !== 'string' || !/^[A-Z]+ \/\S*$/.test(item)) fail([...at, 'without', j], 'must be "METHOD path", e.g. "DELETE /api/posts/:id"')
    })
    return {
      path: r.path as string,
      fields: stringMap(r.fields, [...at, 'fields']),
      count: count as number,
      seed: optionalInt(r.seed, [...at, 'seed']),
      records: records as Record<string, unknown>[],
      without: without as string[],
    }
  })

  const imports = list(file.imports, ['imports']).map((entry, i): ImportSpec => {
    const at: Path = ['imports', i]
    if (!isObject(entry)) fail(at, 'must be a mapping with title, version, source and document')
    const m = entry as Record<string, unknown>
    const format = (m.format ?? 'openapi') as SpecFormat
    if (!SPEC_FORMATS.includes(format)) fail([...at, 'format'], `must be one of ${SPEC_FORMATS.join(', ')}`)
    if (typeof m.title !== 'string' || !m.title) fail([...at, 'title'], 'must be a non-empty string')
    if (format === 'openapi' && !['2.0', '3.0', '3.1'].includes(m.version as string)) fail([...at, 'version'], 'must be "2.0", "3.0" or "3.1"')
    const shape = DOCUMENT_SHAPES[format]
    if (shape.text ? typeof m.document !== 'string' || !m.document.trim() : !isObject(m.document)) fail([...at, 'document'], `must be ${shape.what}`)
    return { format, title: m.title as string, version: String(m.version ?? ''), source: typeof m.source === 'string' ? m.source : '', document: m.document as ImportSpec['document'] }
  })
  const importFormats = new Map(imports.map((m) => [m.title, m.format]))

  const endpoints = list(file.endpoints, ['endpoints']).map((entry, i): EndpointSpec => {
    const at: Path = ['endpoints', i]
    if (!isObject(entry)) fail(at, 'must be a mapping with method and path')
    const e = entry as Record<string, unknown>
    if (typeof e.method !== 'string' || !(HTTP_METHODS as readonly string[]).includes(e.method.toUpperCase())) {
      fail([...at, 'method'], `must be one of ${HTTP_METHODS.join(', ')}`)
    }
    if (typeof e.path !== 'string') fail([...at, 'path'], 'must be a string')
    for (const key of ['status', 'delay', 'errorStatus'] as const) {
      if (e[key] !== undefined && !Number.isInteger(e[key])) fail([...at, key], 'must be a whole number')
    }
    if (e.errorRate !== undefined && typeof e.errorRate !== 'number') fail([...at, 'errorRate'], 'must be a number from 0 to 100')
    if (e.schema !== undefined && !isObject(e.schema) && typeof e.schema !== 'boolean') fail([...at, 'schema'], 'must be a JSON Schema object')
    const spec: EndpointSpec = { method: (e.method as string).toUpperCase(), path: e.path as string }
    if (e.status !== undefined) spec.status = e.status as number
    if (e.headers !== undefined) spec.headers = stringMap(e.headers, [...at, 'headers'])
    if (e.delay !== undefined) spec.delay = e.delay as number
    if (e.body !== undefined) spec.body = e.body
    if (e.schema !== undefined) spec.schema = e.schema
    if (e.errorRate !== undefined) spec.errorRate = e.errorRate as number
    if (e.errorStatus !== undefined) spec.errorStatus = e.errorStatus as number
    if (e.import !== undefined || e.operation !== undefined) {
      if (typeof e.import !== 'string' || !importFormats.has(e.import)) fail([...at, 'import'], 'must be the title of an entry under imports')
      spec.import = e.import as string
      // GraphQL, gRPC and SOAP endpoints name their operation in the path.
      const format = importFormats.get(e.import as string)!
      if (format === 'openapi') {
        if (typeof e.operation !== 'string' || !e.operation.startsWith('/paths/')) fail([...at, 'operation'], 'must be the operation\'s pointer, e.g. /paths/~1pets/get')
        spec.operation = e.operation as string
      } else if (!OPERATION_PATH_SHAPES[format].pattern.test(spec.path)) {
        // Else the endpoint would be stored under a kind that never serves it (a format edited by hand).
        fail([...at, 'path'], `must name an operation of the ${format} import "${spec.import}", e.g. ${OPERATION_PATH_SHAPES[format].example}`)
      }
    } else if (spec.path.includes('#')) {
      // Else it would become a custom endpoint no URL reaches.
      fail([...at, 'path'], 'names an operation (after "#"): give the import it belongs to (import: title)')
    }
    return spec
  })

  const webhooks = list(file.webhooks, ['webhooks']).map((entry, i): WebhookSpec => {
    const at: Path = ['webhooks', i]
    if (!isObject(entry)) fail(at, 'must be a mapping with name, targetUrl and events')
    const w = entry as Record<string, unknown>
    if (typeof w.name !== 'string' || !w.name.trim()) fail([...at, 'name'], 'must be a non-empty string')
    if (typeof w.targetUrl !== 'string') fail([...at, 'targetUrl'], 'must be an absolute http(s) URL')
    const events = w.events ?? [...EVENT_TYPES]
    if (!Array.isArray(events) || events.length === 0 || events.some((e) => !(EVENT_TYPES as readonly unknown[]).includes(e))) {
      fail([...at, 'events'], `must be a non-empty list of ${EVENT_TYPES.join(', ')}`)
    }
    if (w.enabled !== undefined && typeof w.enabled !== 'boolean') fail([...at, 'enabled'], 'must be true or false')
    return { name: w.name as string, targetUrl: w.targetUrl as string, events: events as EventType[], enabled: (w.enabled as boolean | undefined) ?? true }
  })

  return {
    name: (file.name as string).trim(),
    slug: (file.slug as string | undefined) ?? null,
    description: (file.description as string | undefined) ?? '',
    seed: optionalInt(file.seed, ['seed']),
    resources,
    endpoints,
    webhooks,
    imports,
  }
}

export function readProjectFile(path: string): ProjectFile {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new AppError('INVALID_INPUT', `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  return parseProjectFile(text, path)
}
