import { readFileSync, statSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { LineCounter, parseDocument, isMap, isNode, isScalar, type Document } from 'yaml'
import { AppError } from '../errors.ts'
import { parseDelay } from '../engine/delay.ts'
import { countProgress, LONG_READ_BYTES, type OnProgress, type ProgressCounter, type ProgressOptions } from '../engine/progress.ts'
import { EVENT_TYPES, type AuthScheme, type EventType, type Fault, type Negotiation, type OnDelete, type PathRules, type ProxySetting, type ResponsePick, type SpecFormat } from '../model.ts'
import { checkProxySetting } from './proxy-setting.ts'
import type { FakerFactory } from '../engine/generators.ts'
import { checkTemplate, checkTextTemplate, hasPlaceholders } from '../engine/template.ts'
import { checkAuthSetting, checkEndpointAuth } from './auth-settings.ts'
import { checkContentType, checkText, decodeBase64, MAX_FILE_BYTES } from './bodies.ts'
import { checkHeaders } from './endpoint-config.ts'
import { checkResponseList, responsesFromJson, type ResponseJson } from './responses.ts'
import { closestName, schemaProblems } from './project-file-schema.ts'
import { specKindOf, UNNAMED_FORMAT } from '../kinds/registry.ts'

/** The YAML format of `mockapi export`, `mockapi apply` and `templates/*.yaml`. */
export interface ProjectFile {
  name: string
  slug: string | null
  description: string
  /** Default seed value for generated data. */
  seed: number | null
  /** How new paths are judged; absent: strict. Applied before the resources and endpoints. */
  pathRules?: PathRules
  /** What every mock route demands; absent: nothing. */
  auth?: AuthScheme[]
  /** Absent: true (imported OpenAPI operations enforce their security). */
  openapiSecurity?: boolean
  /** Absent: strict (an Accept an imported OpenAPI operation cannot satisfy answers 406). */
  negotiation?: Negotiation
  /** Where what none of its endpoints matches is forwarded; absent: nowhere. */
  proxy?: ProxySetting
  resources: ResourceSpec[]
  endpoints: EndpointSpec[]
  webhooks: WebhookSpec[]
  /** Imported specs (OpenAPI, GraphQL, gRPC, SOAP) that endpoints answer from. */
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

export interface ResourceSpec {
  path: string
  fields: Record<string, string>
  /** How many records to generate from `fields`. */
  count: number
  seed: number | null
  records: Record<string, unknown>[]
  /** Endpoints of the resource that do not exist, as "METHOD path". */
  without: string[]
  /** What deleting one of its records does to the records that belong to it. */
  onDelete: OnDelete
  /** A singular resource (`object:` in the file): `records` holds its one object. */
  singular: boolean
}

export interface EndpointSpec {
  method: string
  path: string
  status?: number
  headers?: Record<string, string>
  /** Milliseconds, or a range `"100-300"` (checked when the file is read). */
  delay?: number | string
  fault?: Fault
  /** `none`, or schemes; absent: the project's. */
  auth?: 'none' | AuthScheme[]
  pick?: ResponsePick
  /** Checked when the file is read (templates too, when `makeFaker` is given; else when applied). */
  responses?: ResponseJson[]
  body?: unknown
  /** A text body (a template). */
  text?: string
  /** A file answered as it is, with its bytes: a path in the file is read when it is parsed. */
  file?: { name: string; base64: string }
  contentType?: string
  schema?: unknown
  errorRate?: number
  errorStatus?: number
  /** Forwarded to the project's proxy target instead of answered; absent: false. */
  proxy?: boolean
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

/**
 * Reads and checks a project file; every refusal names the source, the line and the reason. The
 * schema (schema/mockapi.schema.json) checks the shape; what follows it checks what a schema
 * cannot say: references between entries and the paths operations may have.
 */
export interface ParseOptions {
  /** Where `file: ./avatar.png` paths start: the project file's folder (default: the working directory). */
  baseDir?: string
  /** Given, templates (headers, text, body) are checked here and refused at their line; else only when applied, unlocated. */
  makeFaker?: FakerFactory
  onProgress?: OnProgress | undefined
}

export function parseProjectFile(text: string, source: string, options: ParseOptions = {}): ProjectFile {
  const lineCounter = new LineCounter()
  const reading = countLines(lineCounter, text, source, options.onProgress)
  const document: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true })
  reading?.finish()
  if (document.errors.length > 0) {
    const first = document.errors[0]!
    const line = lineCounter.linePos(first.pos[0]).line
    throw new AppError('INVALID_INPUT', `${source}${line ? `, line ${line}` : ''}: ${first.message.split('\n')[0]}`)
  }
  const where = (path: Path) => (path.length ? path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').replace(/^\./, '') : 'the file')
  /** Where the value at `path` starts, or else the nearest mapping or list around it. */
  const offsetOf = (path: Path): number | undefined => {
    let node: unknown = document.getIn(path, true)
    for (let cut = path.length; !isNode(node) && cut > 0; cut -= 1) node = document.getIn(path.slice(0, cut - 1), true)
    return isNode(node) ? node.range?.[0] : undefined
  }
  /** Where the key itself is written, for a key that should not be there. */
  const keyOffsetOf = (path: Path, key: string): number | undefined => {
    const mapping: unknown = path.length ? document.getIn(path, true) : document.contents
    const pair = isMap(mapping) ? mapping.items.find((item) => isScalar(item.key) && String(item.key.value) === key) : undefined
    return isScalar(pair?.key) ? pair.key.range?.[0] : offsetOf(path)
  }
  const refusal = (offset: number | undefined, message: string, column = false): AppError => {
    const position = offset === undefined ? undefined : lineCounter.linePos(offset)
    const at = position?.line ? `, line ${position.line}${column ? `, column ${position.col}` : ''}` : ''
    return new AppError('INVALID_INPUT', `${source}${at}: ${message}`)
  }
  const fail = (path: Path, message: string): never => {
    throw refusal(offsetOf(path), `${where(path)} ${message}`)
  }
  /** A check of the settings' own, refused at the value's line. */
  const checkAt = (path: Path, check: () => unknown): void => {
    try {
      check()
    } catch (error) {
      if (error instanceof AppError) fail(path, `is not valid: ${error.message}`)
      throw error
    }
  }

  // Reading counted the lines; what follows (the values, the schema) reports nothing until it ends.
  options.onProgress?.({ label: `checking ${basename(source)}`, done: 0, total: null, long: text.length >= LONG_READ_BYTES })
  const checked = schemaProblems(document.toJS())
  if (!checked.valid) {
    // The first problem in the file, as a reader would meet it.
    const located = checked.problems.map((problem) => ({
      problem,
      offset: (problem.kind === 'unknown-key' ? keyOffsetOf(problem.path, problem.key) : offsetOf(problem.path)) ?? 0,
    }))
    const { problem, offset } = located.reduce((first, next) => (next.offset < first.offset ? next : first))
    if (problem.kind === 'value') throw refusal(offset, `${where(problem.path)} ${problem.message}`)
    const suggestion = closestName(problem.key, problem.known)
    const hint = suggestion ? `did you mean "${suggestion}"?` : `expected one of ${problem.known.join(', ')}`
    throw refusal(offset, `unknown key "${problem.key}" ${problem.path.length ? `in ${where(problem.path)}` : 'at the top level'}; ${hint}`, true)
  }
  const file = checked.file
  /** An auth setting checked as the API checks it, its refusal placed at the line of the field it names (`auth[0].tokens`). */
  const authAt = <T>(at: Path, check: (field: string) => T): T => {
    try {
      return check('auth')
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      const detail = (error.details as { field: string; message: string }[] | undefined)?.[0]
      if (!detail) fail([...at, 'auth'], error.message)
      const path = detail!.field.split(/[.[\]]+/).filter(Boolean).map((part) => (/^\d+$/.test(part) ? Number(part) : part))
      return fail([...at, ...path], detail!.message)
    }
  }
  const projectAuth = file.auth === undefined ? undefined : authAt([], (field) => checkAuthSetting(file.auth, field) ?? undefined)
  let proxy: ProxySetting | null = null
  if (file.proxy !== undefined) checkAt(['proxy'], () => (proxy = checkProxySetting(file.proxy)))

  const resources = (file.resources ?? []).map((r, i): ResourceSpec => {
    if (r.object !== undefined) {
      const other = (['fields', 'count', 'seed', 'records', 'onDelete'] as const).find((key) => r[key] !== undefined && r[key] !== null)
      if (other) fail(['resources', i, other], 'cannot be given with object: a singular resource is its one object')
    }
    return {
      path: r.path,
      fields: r.fields ?? {},
      count: r.count ?? 0,
      seed: r.seed ?? null,
      records: r.object === undefined ? (r.records ?? []) : [r.object],
      without: r.without ?? [],
      onDelete: r.onDelete ?? 'keep',
      singular: r.object !== undefined,
    }
  })

  const imports = (file.imports ?? []).map((m): ImportSpec => ({
    format: m.format ?? UNNAMED_FORMAT,
    title: m.title,
    version: String(m.version ?? ''),
    source: m.source ?? '',
    // The schema holds the document to its format: a mapping for openapi and grpc, text for the others.
    document: m.document as ImportSpec['document'],
  }))
  const importFormats = new Map(imports.map((m) => [m.title, m.format]))

  const endpoints = (file.endpoints ?? []).map((e, i): EndpointSpec => {
    const at: Path = ['endpoints', i]
    const spec: EndpointSpec = { method: e.method.toUpperCase(), path: e.path }
    if (e.status !== undefined) spec.status = e.status
    if (e.headers !== undefined) spec.headers = e.headers ?? {}
    const { makeFaker } = options
    if (makeFaker) {
      for (const [name, value] of Object.entries(spec.headers ?? {})) {
        if (hasPlaceholders(value)) checkAt([...at, 'headers', name], () => checkTextTemplate(value, makeFaker()))
      }
      if (e.text !== undefined && hasPlaceholders(e.text)) checkAt([...at, 'text'], () => checkTextTemplate(e.text!, makeFaker()))
      const json = e.body === undefined ? '' : JSON.stringify(e.body)
      if (hasPlaceholders(json)) checkAt([...at, 'body'], () => checkTemplate(json, makeFaker()))
    }
    if (e.text !== undefined) checkAt([...at, 'text'], () => checkText(e.text))
    if (e.delay !== undefined) {
      try {
        parseDelay(e.delay)
      } catch (error) {
        // "delay range 300-100 must go…" → "endpoints[0].delay must go…"
        fail([...at, 'delay'], (error as Error).message.replace(/^delay (?:range )?\S+ /, ''))
      }
      spec.delay = e.delay
    }
    if (e.fault !== undefined) spec.fault = e.fault
    if (e.auth !== undefined) spec.auth = authAt(at, (field) => checkEndpointAuth(e.auth, field) as 'none' | AuthScheme[])
    if ([e.body, e.text, e.file].filter((value) => value !== undefined).length > 1) {
      fail(at, 'has more than one of body, text and file: an endpoint answers one body')
    }
    if (e.pick !== undefined) spec.pick = e.pick
    if (e.responses !== undefined) {
      // A response's `file: ./x.png` is read now, as an endpoint's, relative to the project file.
      const responses = e.responses.map((response, r) => {
        const file = (response as { file?: unknown } | null)?.file
        return typeof file === 'string' ? { ...response, file: readBodyFile(file, options.baseDir ?? process.cwd(), (message) => fail([...at, 'responses', r, 'file'], message)) } : response
      })
      try {
        checkResponseList(responsesFromJson(responses, { checkHeaders, makeFaker: null }), e.pick ?? 'rules')
      } catch (error) {
        const detail = error instanceof AppError ? (error.details as { field: string; message: string }[] | undefined)?.[0] : undefined
        if (!detail) throw error
        const path: Path = [...detail.field.matchAll(/\[(\d+)\]|([^.[\]]+)/g)].map(([, index, key]) => (index !== undefined ? Number(index) : key!))
        fail([...at, ...path], detail.message)
      }
      // Their templates as the endpoint's own: refused at their line, with the endpoint's position.
      if (makeFaker) {
        e.responses.forEach((response, r) => {
          const there: Path = [...at, 'responses', r]
          for (const [name, value] of Object.entries(response.headers ?? {})) {
            if (hasPlaceholders(value)) checkAt([...there, 'headers', name], () => checkTextTemplate(value, makeFaker()))
          }
          if (response.text !== undefined && hasPlaceholders(response.text)) checkAt([...there, 'text'], () => checkTextTemplate(response.text!, makeFaker()))
          const json = response.body === undefined ? '' : JSON.stringify(response.body)
          if (hasPlaceholders(json)) checkAt([...there, 'body'], () => checkTemplate(json, makeFaker()))
        })
      }
      spec.responses = responses
    }
    if (e.body !== undefined) spec.body = e.body
    if (e.text !== undefined) spec.text = e.text
    if (e.file !== undefined) spec.file = typeof e.file === 'string' ? readBodyFile(e.file, options.baseDir ?? process.cwd(), (message) => fail([...at, 'file'], message)) : checkBase64File(e.file, (message) => fail([...at, 'file', 'base64'], message))
    if (e.contentType !== undefined) {
      checkAt([...at, 'contentType'], () => checkContentType(e.contentType))
      spec.contentType = e.contentType
    }
    if (e.schema !== undefined) spec.schema = e.schema
    if (e.errorRate !== undefined) spec.errorRate = e.errorRate
    if (e.errorStatus !== undefined) spec.errorStatus = e.errorStatus
    if (e.proxy !== undefined) spec.proxy = e.proxy
    if (e.import !== undefined || e.operation !== undefined) {
      const format = e.import === undefined ? undefined : importFormats.get(e.import)
      if (format === undefined) fail([...at, 'import'], 'must be the title of an entry under imports')
      spec.import = e.import!
      if (spec.auth !== undefined && specKindOf(format!).routing !== 'route') {
        fail([...at, 'auth'], 'applies to HTTP routes; a GraphQL, SOAP or gRPC operation follows the project\'s auth')
      }
      const naming = specKindOf(format!).operations
      // A route names its operation by pointer; other kinds name it in the path.
      if (naming.by === 'routes') {
        if (e.operation === undefined) fail([...at, 'operation'], 'must be the operation\'s pointer, e.g. /paths/~1pets/get')
        spec.operation = e.operation
      } else if (!naming.pattern.test(spec.path)) {
        // Else the endpoint would be stored under a kind that never serves it (a format edited by hand).
        fail([...at, 'path'], `must name an operation of the ${format} import "${spec.import}", e.g. ${naming.example}`)
      }
    } else if (spec.path.includes('#')) {
      // Else it would become a custom endpoint no URL reaches.
      fail([...at, 'path'], 'names an operation (after "#"): give the import it belongs to (import: title)')
    }
    return spec
  })

  const webhooks = (file.webhooks ?? []).map((w): WebhookSpec => ({
    name: w.name,
    targetUrl: w.targetUrl,
    events: w.events ?? [...EVENT_TYPES],
    enabled: w.enabled ?? true,
  }))

  return {
    name: file.name.trim(),
    slug: file.slug ?? null,
    description: file.description ?? '',
    seed: file.seed ?? null,
    ...(file.pathRules !== undefined ? { pathRules: file.pathRules } : {}),
    ...(projectAuth !== undefined ? { auth: projectAuth } : {}),
    ...(file.openapiSecurity !== undefined ? { openapiSecurity: file.openapiSecurity } : {}),
    ...(file.negotiation !== undefined ? { negotiation: file.negotiation } : {}),
    ...(proxy ? { proxy } : {}),
    resources,
    endpoints,
    webhooks,
    imports,
  }
}

/** A `file:` path, read now (relative to the project file) so the database keeps the bytes. */
function readBodyFile(path: string, baseDir: string, fail: (message: string) => never): { name: string; base64: string } {
  const file = resolve(baseDir, path)
  try {
    const size = statSync(file).size
    if (size > MAX_FILE_BYTES) fail(`${path} is ${size} bytes; a response file may be at most ${MAX_FILE_BYTES / 1024 / 1024} MiB (${MAX_FILE_BYTES} bytes)`)
    return { name: basename(file), base64: readFileSync(file).toString('base64') }
  } catch (error) {
    if (error instanceof AppError) throw error
    return fail(`cannot read ${path} (from ${baseDir}): ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
}

function checkBase64File(file: { name: string; base64: string }, fail: (message: string) => never): { name: string; base64: string } {
  const bytes = decodeBase64(file.base64)
  if (!bytes) return fail('is not base64')
  if (bytes.byteLength > MAX_FILE_BYTES) fail(`holds ${bytes.byteLength} bytes; a response file may be at most ${MAX_FILE_BYTES / 1024 / 1024} MiB (${MAX_FILE_BYTES} bytes)`)
  return { name: file.name, base64: bytes.toString('base64') }
}

/**
 * yaml parses a document in one synchronous call, which takes seconds for a file of many literal
 * records (a db.json's export): its line counter hears of each line as it is read, so the lines are
 * counted there.
 */
function countLines(lineCounter: LineCounter, text: string, source: string, onProgress: OnProgress | undefined): ProgressCounter | undefined {
  if (onProgress === undefined) return undefined
  let lines = 1
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines += 1
  const progress = countProgress(onProgress, `reading the lines of ${basename(source)}`, lines)
  const addNewLine = lineCounter.addNewLine
  lineCounter.addNewLine = (offset) => {
    progress.add()
    return addNewLine(offset)
  }
  return progress
}

export function readProjectFile(path: string, makeFaker?: FakerFactory, { onProgress }: ProgressOptions = {}): ProjectFile {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new AppError('INVALID_INPUT', `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  return parseProjectFile(text, path, { baseDir: dirname(resolve(path)), makeFaker, onProgress })
}
