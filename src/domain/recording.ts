/**
 * Recording: exchanges with a real API (proxied by `serve --proxy URL --record`, or read from a HAR
 * file or a Postman collection) become a project that answers the same offline. JSON collections
 * become resources with their records; every other exchange a custom endpoint answering its status,
 * headers and body as recorded (docs/imports.md, "Recordings").
 */
import { isDeepStrictEqual } from 'node:util'
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib'
import type { FakerFactory } from '../engine/generators.ts'
import type { OnProgress } from '../engine/progress.ts'
import { isTextual } from '../engine/media-type.ts'
import { hasPlaceholders } from '../engine/template.ts'
import { AppError } from '../errors.ts'
import { HTTP_METHODS, type Endpoint, type HttpMethod, type Project, type Resource } from '../model.ts'
import { checkContentType, MAX_FILE_BYTES, MAX_TEXT_BYTES } from './bodies.ts'
import type { Context } from './context.ts'
import { currentSettings } from './endpoint-config.ts'
import { deleteEndpoint, routeShape, servedRoute, servedRoutes } from './endpoints.ts'
import { checkEndpointPath, checkResourcePath } from './path-rules.ts'
import type { RecordedExchange } from './recorded-exchange.ts'
import { collectionName, createResource, standardEndpoints } from './resources.ts'
import { reseedCollection } from './seeding.ts'
import { writeTransaction } from './transaction.ts'
import { isObject } from '../engine/json-input.ts'
import { recordedResponses, recordedUrl, type RecordedResponse, type RecordedUrlAnswer } from './recorded-rules.ts'
import { isSecretName, withoutSecrets } from './recording-secrets.ts'

export interface RecordOptions {
  /** Where the exchanges come from, for messages: the proxy's target, the HAR file. */
  source: string
  /** Reseeding a recorded resource whose collection also has generated records draws them again. */
  makeFaker: FakerFactory
  onProgress?: OnProgress | undefined
}

/** An exchange not kept, and why. */
export interface SkippedExchange {
  method: string
  path: string
  reason: string
}

export interface RecordSummary {
  project: Project
  /** Endpoints made: custom ones, and the standard six of each new resource. */
  created: Endpoint[]
  /** Custom endpoints recorded before, answering what was recorded now. */
  updated: Endpoint[]
  /** Resources whose records the exchanges set. */
  resources: Resource[]
  /** How many records those resources hold now. */
  records: number
  skipped: SkippedExchange[]
  warnings: string[]
}

// ---- Headers and bodies ----------------------------------------------------------------------

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-connection', 'te', 'trailer', 'trailers', 'transfer-encoding', 'upgrade'])
// The mock writes these itself for the body it sends (its length, its date); Content-Type is the endpoint's own setting.
const WRITTEN_BY_THE_MOCK = new Set(['content-length', 'content-encoding', 'date', 'content-type'])
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/

function headerValue(headers: [string, string][], name: string): string | null {
  const values = headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v)
  return values.length === 0 ? null : values.join(', ')
}

/** The body as the client read it: content codings undone (a mock answers identity). */
function decodedBody(exchange: RecordedExchange): { bytes: Uint8Array; failed: string | null } {
  const coding = headerValue(exchange.responseHeaders, 'content-encoding')
  if (coding === null || exchange.responseBody.byteLength === 0) return { bytes: exchange.responseBody, failed: null }
  let bytes: Uint8Array = exchange.responseBody
  // Codings apply in the order listed, so they come off in reverse.
  for (const name of coding.toLowerCase().split(',').map((c) => c.trim()).filter(Boolean).reverse()) {
    try {
      if (name === 'gzip' || name === 'x-gzip') bytes = gunzipSync(bytes)
      else if (name === 'br') bytes = brotliDecompressSync(bytes)
      else if (name === 'deflate') bytes = inflateOrRaw(bytes)
      else if (name !== 'identity') return { bytes: exchange.responseBody, failed: `content coding "${name}" is not one mockapi decodes` }
    } catch {
      return { bytes: exchange.responseBody, failed: `its body is not ${name} as its Content-Encoding says` }
    }
  }
  return { bytes, failed: null }
}

// "deflate" is meant to be zlib-wrapped, but servers have sent raw deflate for as long as it exists.
function inflateOrRaw(bytes: Uint8Array): Uint8Array {
  try {
    return inflateSync(bytes)
  } catch {
    return inflateRawSync(bytes)
  }
}

/** The recorded response headers the endpoint answers: no secret, hop-by-hop, or what the mock writes itself. */
function keptHeaders(exchange: RecordedExchange, warnings: string[]): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of exchange.responseHeaders) {
    const lower = name.toLowerCase()
    if (HOP_BY_HOP.has(lower) || WRITTEN_BY_THE_MOCK.has(lower) || isSecretName(lower) || !HEADER_NAME.test(name) || /[\r\n\0]/.test(value)) continue
    // An endpoint's header values are templates: one that reads as a template would not be answered as recorded.
    if (hasPlaceholders(value)) {
      warnings.push(`${exchange.method} ${exchange.path}: header ${name} left out (its value holds "{{", which an endpoint renders as a template)`)
      continue
    }
    const key = Object.keys(headers).find((n) => n.toLowerCase() === lower) ?? name
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`
  }
  return headers
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

function asText(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes)
  } catch {
    return null
  }
}

function checkedContentType(value: string | null): string | null {
  if (value === null) return null
  try {
    return checkContentType(value)
  } catch {
    return null
  }
}

/** A file name that says what the body is: the path's own (`logo.png`), else `body`. */
function fileNameOf(path: string): string {
  const last = decodeURIComponentSafe(path.split('/').at(-1) ?? '')
  return /^[\w.-]{1,200}\.[A-Za-z0-9]{1,10}$/.test(last) ? last : 'body'
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

interface RecordedAnswer {
  status: number
  headers: Record<string, string>
  contentType: string | null
  /** Text answered as it is (no `{{`), or a file's bytes. */
  body: { text: string } | { file: { name: string; bytes: Uint8Array } }
}

/** What a custom endpoint answers for the exchange, byte for byte; a reason when it cannot. */
function answerOf(exchange: RecordedExchange, warnings: string[]): RecordedAnswer | string {
  const decoded = decodedBody(exchange)
  if (decoded.failed !== null) warnings.push(`${exchange.method} ${exchange.path}: ${decoded.failed}; its bytes are answered as received, without a Content-Encoding`)
  const bytes = decoded.bytes
  const contentType = checkedContentType(headerValue(exchange.responseHeaders, 'content-type'))
  const headers = keptHeaders(exchange, warnings)
  const text = isTextual(contentType) && bytes.byteLength <= MAX_TEXT_BYTES ? asText(bytes) : null
  if (text !== null && !hasPlaceholders(text)) return { status: exchange.status, headers, contentType, body: { text } }
  if (bytes.byteLength > MAX_FILE_BYTES) return `its body is ${bytes.byteLength} bytes; a recorded body may be at most ${MAX_FILE_BYTES} bytes`
  return { status: exchange.status, headers, contentType, body: { file: { name: fileNameOf(exchange.path), bytes } } }
}

// ---- Path shapes -----------------------------------------------------------------------------

const ID_LIKE = [
  /^\d+$/,
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  // Long hex (MongoDB's ObjectId, hashes) with a digit, so a long word of a-f letters is not one.
  /^(?=[a-f]*\d)[0-9a-f]{16,}$/i,
  // Opaque ids (Stripe's cus_9s6XKzkNRiz8i3, ULIDs): long, with digits and letters.
  /^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9_-]{20,}$/,
]

export function isIdLike(segment: string): boolean {
  return ID_LIKE.some((pattern) => pattern.test(segment))
}

const isParam = (segment: string) => segment.startsWith(':') || segment === '*' || segment === '**'

function segmentsOf(path: string): string[] {
  return path.split('/').slice(1)
}

/** `:id` at the end; before it, named after the segment it follows (`/users/:userId/posts`). */
function paramName(segments: string[], at: number, taken: Set<string>): string {
  if (at === segments.length - 1 && !taken.has('id')) return 'id'
  const before = at > 0 && !isParam(segments[at - 1]!) ? segments[at - 1]!.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase()) : ''
  const stem = before.endsWith('ies') ? `${before.slice(0, -3)}y` : before.replace(/s$/, '')
  let name = /^[A-Za-z]\w*$/.test(stem) ? `${stem}Id` : `param${at}`
  while (taken.has(name)) name = `${name}_`
  return name
}

/**
 * Each recorded path as a route: a segment that looks like an id becomes a parameter, and so does
 * a word among ids (`/users/me` beside `/users/1`, or beside an endpoint `/users/:id` recorded
 * before); the same route for the same path shape, so `/users/1` and `/users/2` are `/users/:id`.
 */
function templatePaths(paths: string[], known: string[]): Map<string, string> {
  const split = paths.map(segmentsOf)
  const knownSplit = known.map(segmentsOf)
  // Positions that are parameters, decided left to right: later positions group by the route so far.
  const params = split.map((segments) => segments.map((s) => isIdLike(s) || s.startsWith(':')))
  const length = Math.max(0, ...split.map((s) => s.length))
  const siblingKey = (segments: string[], flags: boolean[], at: number) =>
    `${segments.length}|${segments.map((s, i) => (i === at ? '' : flags[i] || isParam(s) ? ':' : s)).join('/')}`
  for (let at = 0; at < length; at += 1) {
    const withId = new Set<string>()
    split.forEach((segments, n) => {
      if (at < segments.length && params[n]![at]) withId.add(siblingKey(segments, params[n]!, at))
    })
    knownSplit.forEach((segments) => {
      if (at < segments.length && isParam(segments[at]!)) withId.add(siblingKey(segments, segments.map(isParam), at))
    })
    split.forEach((segments, n) => {
      if (at < segments.length && segments[at] !== '' && withId.has(siblingKey(segments, params[n]!, at))) params[n]![at] = true
    })
  }
  const routes = new Map<string, string>()
  split.forEach((segments, n) => {
    const taken = new Set<string>()
    const route = segments.map((segment, at) => {
      if (!params[n]![at]) return segment
      const name = paramName(segments, at, taken)
      taken.add(name)
      return `:${name}`
    })
    routes.set(paths[n]!, `/${route.join('/')}`)
  })
  return routes
}

/** `/users/` → `/users`; an empty path is `/`. */
function normalPath(path: string): string {
  const bare = path.split(/[?#]/, 1)[0]!
  const withSlash = bare.startsWith('/') ? bare : `/${bare}`
  return withSlash.replace(/\/+$/, '') || '/'
}

// ---- Resources -------------------------------------------------------------------------------

type JsonObject = Record<string, unknown>

function parseJson(bytes: Uint8Array | null): unknown {
  if (bytes === null || bytes.byteLength === 0) return undefined
  const text = asText(bytes)
  if (text === null) return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

const hasId = (value: unknown): value is JsonObject & { id: string | number } =>
  isObject(value) && ((typeof value.id === 'string' && value.id !== '' && value.id !== '.' && value.id !== '..') || (typeof value.id === 'number' && Number.isFinite(value.id)))
const ok = (status: number) => status >= 200 && status < 300

/** A JSON list of records with ids, each id once: a list whose ids repeat is not a collection records can keep. */
const isRecordList = (value: unknown): value is (JsonObject & { id: string | number })[] =>
  Array.isArray(value) && value.every(hasId) && new Set(value.map((record) => String(record.id))).size === value.length

interface Routed {
  exchange: RecordedExchange
  method: HttpMethod
  path: string
  route: string
  /** The decoded response body as JSON, when it is. */
  json: unknown
}

/** The collection path an exchange's route acts on, and the item's id in the path if any. */
function collectionOf(routed: Routed): { collection: string; id: string | null } | null {
  const segments = segmentsOf(routed.route)
  const last = segments.at(-1)
  if (last === ':id') {
    const collection = `/${segments.slice(0, -1).join('/')}`
    return segments.slice(0, -1).some(isParam) || segments.length < 2 ? null : { collection, id: decodeURIComponentSafe(segmentsOf(routed.path).at(-1)!) }
  }
  return segments.some(isParam) || routed.route === '/' ? null : { collection: routed.route, id: null }
}

/** Whether the exchange shows the route is a JSON collection of records with ids. */
function showsCollection(routed: Routed, id: string | null): boolean {
  if (!ok(routed.exchange.status)) return false
  if (routed.method === 'GET' && id === null) return isRecordList(routed.json) && routed.json.length > 0
  if (routed.method === 'GET' && id !== null) return hasId(routed.json) && String(routed.json.id) === id
  if (routed.method === 'POST' && id === null) return hasId(routed.json)
  return false
}

/** The id of a record named only by its path: a number when the path's integer says so. */
function idFromPath(id: string, existing: JsonObject | undefined): unknown {
  if (existing) return existing.id
  return /^[1-9][0-9]{0,14}$/.test(id) ? Number(id) : id
}

/** A resource's records as recorded so far: by id, in order, and those without an id (put there by hand). */
interface RecordState {
  records: Map<string, JsonObject>
  unkeyed: JsonObject[]
}

/**
 * What the exchange does to the records, in the order recorded; whether the records answer it as
 * recorded. The last list read without a query is the collection: records it does not show are
 * gone, and its order is theirs. A read with a query (a page, a filter) shows some of them, merged
 * in; its own answer is a rule of its own (`queried`), so it is never the records'.
 */
function applyEffect(state: RecordState, routed: Routed, id: string | null, queried: boolean): boolean {
  const { records } = state
  const { method, json, exchange } = routed
  const put = (record: JsonObject) => records.set(String(record.id), record)
  const merge = (record: JsonObject) => records.set(String(record.id), { ...records.get(String(record.id)), ...record })
  if (method === 'GET' && queried) {
    if (ok(exchange.status) && id === null && isRecordList(json)) json.forEach(merge)
    if (ok(exchange.status) && id !== null && hasId(json) && String(json.id) === id) merge(json)
    return false
  }
  if (method === 'GET' && id === null) {
    if (!ok(exchange.status) || !isRecordList(json)) return false
    records.clear()
    state.unkeyed = []
    json.forEach(put)
    return true
  }
  if (id === null) {
    if (method === 'POST' && ok(exchange.status) && hasId(json)) put(json)
    return method === 'POST' && ok(exchange.status) && hasId(json)
  }
  // The real API says the record is not there (any more): the resource's own 404 answers it from
  // then on, so a record made there later (offline, or recorded) is not hidden by the recorded one.
  if (method === 'GET' && (exchange.status === 404 || exchange.status === 410)) {
    records.delete(id)
    return true
  }
  if (method === 'DELETE' && (exchange.status === 404 || exchange.status === 410)) return records.delete(id)
  if (!ok(exchange.status)) return false
  if (method === 'DELETE') return records.delete(id) || true
  if (method === 'GET') {
    if (!hasId(json) || String(json.id) !== id) return false
    put(json)
    return true
  }
  if (method !== 'PUT' && method !== 'PATCH') return false
  if (hasId(json) && String(json.id) === id) {
    put(json)
    return true
  }
  // An answer without the record (204): what was sent, put or merged.
  const sent = parseJson(exchange.requestBody)
  if (!isObject(sent)) return false
  const existing = records.get(id)
  const base = method === 'PATCH' && existing ? existing : {}
  records.set(id, { ...base, ...sent, id: idFromPath(id, existing) })
  return true
}

// ---- The recording ---------------------------------------------------------------------------

/**
 * Turns exchanges into the project's resources and endpoints, in one write transaction: recording
 * the same method and path shape again updates the endpoint, the same URL its rule, the same record
 * id the record. Request headers and bodies are never stored, a query only as its URL's rule;
 * headers and query parameters named like secrets are dropped.
 */
export function recordExchanges(context: Context, project: Project, exchanges: readonly RecordedExchange[], options: RecordOptions): RecordSummary {
  return writeTransaction(context.db, () => {
    const current = context.repos.projects.byId(project.id)
    if (!current) throw new AppError('PROJECT_NOT_FOUND', `project "${project.slug}" was deleted`)
    const summary: RecordSummary = { project: current, created: [], updated: [], resources: [], records: 0, skipped: [], warnings: [] }
    const skip = (exchange: RecordedExchange, reason: string) => summary.skipped.push({ method: exchange.method, path: exchange.path, reason })

    const usable: { exchange: RecordedExchange; method: HttpMethod; path: string }[] = []
    for (const exchange of exchanges) {
      const method = exchange.method.toUpperCase()
      if (!(HTTP_METHODS as readonly string[]).includes(method)) skip(exchange, `method ${exchange.method} is not one mockapi answers`)
      else if (!Number.isInteger(exchange.status) || exchange.status < 200 || exchange.status > 599) skip(exchange, `status ${exchange.status} is not a final HTTP status`)
      else if (method === 'OPTIONS' && headerValue(exchange.requestHeaders, 'access-control-request-method') !== null) skip(exchange, 'a CORS preflight: mockapi answers those itself')
      else usable.push({ exchange, method: method as HttpMethod, path: normalPath(exchange.path) })
    }
    const endpoints = context.repos.endpoints.listByProject(current.id)
    const parsed = usable.map((u) => ({ ...u, json: parseJson(decodedBody(u.exchange).bytes) }))
    const routes = templatePaths(usable.map((u) => u.path), [...endpoints.map((e) => e.path), ...shownItemRoutes(parsed)])
    const routed: Routed[] = parsed.map((u) => ({ ...u, route: routes.get(u.path)! }))

    const consumed = recordResources(context, current, routed, options, summary)
    recordEndpoints(context, current, routed.filter((r) => !consumed.has(r)), summary)
    context.repos.files.removeUnused(current.id)
    const judged = judgedPaths(current, summary)
    if (judged.length > 0) {
      summary.warnings.push(`the path rules of project "${current.slug}" (${current.pathRules}) would refuse ${judged.length} recorded path(s) when its export is applied: ${judged.join(', ')}; recorded paths are the real API's: mockapi project set ${current.slug} --path-rules off`)
    }
    return summary
  })
}

/**
 * `/products/:id` for each collection the exchanges show (a list of records, a created record):
 * its items' paths are then that route whatever their ids look like (`/products/p1`), as they are
 * once the proxy has recorded the list, so a HAR gives the project a proxy recording gives.
 */
function shownItemRoutes(exchanges: readonly Omit<Routed, 'route'>[]): string[] {
  const routes = new Set<string>()
  for (const { exchange, method, path, json } of exchanges) {
    if (path === '/' || segmentsOf(path).some(isIdLike) || !ok(exchange.status) || (method !== 'GET' && method !== 'POST')) continue
    if (method === 'GET' ? isRecordList(json) && json.length > 0 : hasId(json)) routes.add(`${path}/:id`)
  }
  return [...routes]
}

/** The paths made now that the project's path rules refuse: recorded as they are, but its export would not apply. */
function judgedPaths(project: Project, summary: RecordSummary): string[] {
  if (project.pathRules !== 'strict') return []
  const refused = (check: () => unknown) => {
    try {
      check()
      return false
    } catch {
      return true
    }
  }
  const made = summary.resources.filter((r) => summary.created.some((e) => e.resourceId === r.id))
  const resources = made.filter((r) => refused(() => checkResourcePath(r.path, project.pathRules))).map((r) => r.path)
  const endpoints = summary.created.filter((e) => e.kind === 'custom' && refused(() => checkEndpointPath(e.path, project.pathRules))).map((e) => e.path)
  return [...new Set([...resources, ...endpoints])]
}

const COLLECTION_METHODS = new Set<HttpMethod>(['GET', 'HEAD', 'POST'])
const ITEM_METHODS = new Set<HttpMethod>(['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE'])

/** The JSON collections among the exchanges, stored as resources; the exchanges they took. */
function recordResources(context: Context, project: Project, routed: Routed[], options: RecordOptions, summary: RecordSummary): Set<Routed> {
  const byCollection = new Map<string, { routed: Routed; id: string | null }[]>()
  for (const r of routed) {
    const at = collectionOf(r)
    if (!at) continue
    const list = byCollection.get(at.collection)
    if (list) list.push({ routed: r, id: at.id })
    else byCollection.set(at.collection, [{ routed: r, id: at.id }])
  }
  const consumed = new Set<Routed>()
  for (const [path, group] of byCollection) {
    let resource = context.repos.resources.listByProject(project.id).find((r) => r.path === path)
    if (resource?.singular) continue
    if (!resource) {
      // A list whose ids repeat would lose rows as records: its route stays endpoints answering the recorded bytes.
      const repeats = group.some(({ routed: r, id }) => id === null && r.method === 'GET' && ok(r.exchange.status) && Array.isArray(r.json) && r.json.every(hasId) && !isRecordList(r.json))
      if (repeats || !group.some(({ routed: r, id }) => showsCollection(r, id)) || !canBeResource(context, project, path, summary)) continue
      const created = createResource(context, { project: project.slug, path, rules: false })
      resource = created.resource
      summary.created.push(...created.endpoints)
    }
    const state: RecordState = { records: new Map(), unkeyed: [] }
    for (const record of resource.seedRecords) {
      if (hasId(record)) state.records.set(String(record.id), record)
      else state.unkeyed.push(record)
    }
    const reads = resourceReads(context, resource)
    const own = resourceEndpoints(context, resource)
    const answered = new Map<number, Routed[]>()
    let touched = false
    for (const { routed: r, id } of group) {
      // HEAD is answered by the resource's GET; other methods on its paths stay endpoints of their own.
      if (!(id === null ? COLLECTION_METHODS : ITEM_METHODS).has(r.method)) continue
      consumed.add(r)
      if (r.method === 'HEAD') continue
      const read = r.method === 'GET' ? reads.get(id === null ? 'list' : 'read') : undefined
      const url = read ? recordedUrl(read.endpoint.path, r.path, r.exchange.query) : null
      const kept = applyEffect(state, r, id, url !== null && url.query.length > 0)
      touched ||= kept
      if (kept && ok(r.exchange.status)) {
        const endpoint = own.get(`${r.method} ${id !== null}`)
        if (endpoint) answered.set(endpoint.id, [...(answered.get(endpoint.id) ?? []), r])
      }
      if (read && url && kept) read.recorded.push({ url, answer: null })
      else if (read && url && (id !== null || url.query.length > 0)) {
        const answer = answerOf(r.exchange, summary.warnings)
        if (typeof answer === 'string') summary.skipped.push({ method: r.method, path: r.path, reason: answer })
        else read.recorded.push({ url, answer: storedResponse(context, project, answer) })
      } else if (!kept) summary.skipped.push({ method: r.method, path: r.path, reason: `${r.exchange.status} answer not kept: resource ${path} answers it from its records` })
    }
    const records = [...state.unkeyed, ...state.records.values()]
    // Compared as text: a record whose keys came in another order answers in that order.
    const changed = JSON.stringify(records) !== JSON.stringify(resource.seedRecords)
    if (changed) context.repos.resources.setSeed(resource.id, { fields: resource.fields, seedCount: resource.seedCount, seedValue: resource.seedValue, seedRecords: records })
    // What the real API answered is what the records are now, even where it equals the seed: records
    // changed offline since (a local create, a delete) would otherwise outlive a list recorded again.
    if (changed || touched) reseedCollection(context, resource.collectionId, options.makeFaker, options)
    for (const { endpoint, recorded } of reads.values()) {
      if (recorded.length > 0) recordRules(context, endpoint, recorded, summary)
    }
    for (const [endpointId, routes] of answered) recordResourceHeaders(context, context.repos.endpoints.byId(endpointId)!, routes, summary)
    summary.records += records.length
    summary.resources.push(context.repos.resources.byId(resource.id)!)
  }
  return consumed
}

/** The resource's list and item GET endpoints, and the URLs recorded on each that answer as recorded. */
function resourceReads(context: Context, resource: Resource): Map<'list' | 'read', { endpoint: Endpoint; recorded: RecordedUrlAnswer[] }> {
  const reads = new Map<'list' | 'read', { endpoint: Endpoint; recorded: RecordedUrlAnswer[] }>()
  for (const endpoint of context.repos.endpoints.listByProject(resource.projectId)) {
    if (endpoint.resourceId === resource.id && endpoint.method === 'GET' && (endpoint.action === 'list' || endpoint.action === 'read')) reads.set(endpoint.action, { endpoint, recorded: [] })
  }
  return reads
}

/** The resource's endpoints by method and whether they answer an item: `GET true` is its item read. */
function resourceEndpoints(context: Context, resource: Resource): Map<string, Endpoint> {
  const own = context.repos.endpoints.listByProject(resource.projectId).filter((e) => e.resourceId === resource.id && e.action !== null)
  return new Map(own.map((e) => [`${e.method} ${e.path.endsWith('/:id')}`, e]))
}

// A resource's answer writes these itself (a list's count and paging links), or they name one request
// (an id for tracing it, the time it took) or one state of the records (their version and age).
const NOT_RESOURCE_HEADERS = new Set([
  'x-total-count', 'link', 'etag', 'last-modified', 'age', 'expires',
  'x-request-id', 'request-id', 'x-correlation-id', 'correlation-id', 'x-amzn-requestid', 'x-amzn-trace-id', 'x-amz-request-id',
  'x-amz-id-2', 'x-amz-cf-id', 'cf-ray', 'traceparent', 'tracestate', 'x-trace-id', 'x-cloud-trace-context', 'x-runtime',
  'x-response-time', 'server-timing',
])
const PER_REQUEST_PREFIXES = ['x-b3-', 'x-ratelimit-', 'ratelimit-']

/** Whether a header value names the record (`Location: /users/4`): it would be wrong for every other record. */
function namesRecord(value: string, id: string | null): boolean {
  return id !== null && value.split(/[/?#=;,\s"<>]+/).includes(id)
}

/**
 * The recorded headers a resource's endpoint answers with its records' answer: those of its last
 * answer recorded now that every answer of the route carries with the same value (its recorded
 * URLs' rules too), but for what the records write, what names one request, and what names one record.
 */
function recordResourceHeaders(context: Context, endpoint: Endpoint, routes: Routed[], summary: RecordSummary): void {
  const quiet: string[] = []
  const perAnswer = routes.map((r) => {
    const id = hasId(r.json) ? String(r.json.id) : collectionOf(r)?.id ?? null
    return Object.entries(keptHeaders(r.exchange, quiet)).filter(([name, value]) => {
      const lower = name.toLowerCase()
      return !NOT_RESOURCE_HEADERS.has(lower) && !PER_REQUEST_PREFIXES.some((prefix) => lower.startsWith(prefix)) && !namesRecord(value, id)
    })
  })
  const others = [...perAnswer.slice(0, -1).map((pairs) => Object.fromEntries(pairs.map(([n, v]) => [n.toLowerCase(), v]))),
    ...endpoint.responses.filter((r) => r.when !== null && r.name?.startsWith('/')).map((r) => Object.fromEntries(Object.entries(r.headers).map(([n, v]) => [n.toLowerCase(), v])))]
  const headers = Object.fromEntries(perAnswer.at(-1)!.filter(([name, value]) => others.every((o) => o[name.toLowerCase()] === value)))
  if (isDeepStrictEqual(headers, endpoint.headers)) return
  const updated = context.repos.endpoints.configure(endpoint.id, { ...currentSettings(endpoint), headers })
  const made = summary.created.findIndex((e) => e.id === updated.id)
  if (made >= 0) summary.created[made] = updated
  else if (!summary.updated.some((e) => e.id === updated.id)) summary.updated.push(updated)
}

/** A recorded answer as a response answers it: a text, or a file stored in the project. */
function storedResponse(context: Context, project: Project, answer: RecordedAnswer): RecordedResponse & { status: number; bodyType: 'text' | 'file' } {
  const body = 'text' in answer.body
    ? { bodyType: 'text' as const, body: answer.body.text, fileId: null, file: null }
    : { bodyType: 'file' as const, body: null, fileId: context.repos.files.put(project.id, answer.body.file.name, answer.body.file.bytes), file: { name: answer.body.file.name, size: answer.body.file.bytes.byteLength } }
  return { status: answer.status, headers: answer.headers, contentType: answer.contentType, ...body, delayMs: null, delayMaxMs: null, fault: null }
}

/** A resource's read endpoint with the recorded URLs' rules laid in (the records answer the rest); said as updated when they changed. */
function recordRules(context: Context, endpoint: Endpoint, recorded: readonly RecordedUrlAnswer[], summary: RecordSummary): void {
  const result = recordedResponses(endpoint, recorded, { fallback: null, ownIsPlain: false })
  summary.warnings.push(...result.warnings)
  if (!isDeepStrictEqual(result.responses, endpoint.responses)) {
    const updated = context.repos.endpoints.configure(endpoint.id, { ...currentSettings(endpoint), responses: result.responses })
    if (!summary.created.some((e) => e.id === updated.id) && !summary.updated.some((e) => e.id === updated.id)) summary.updated.push(updated)
  }
}

/**
 * A new resource at `path` would take no route, nor records, that something else holds; but for
 * recorded 404s at the same URL under another spelling (`/api/users` for `/users`), which the real
 * path's answers replace.
 */
function canBeResource(context: Context, project: Project, path: string, summary: RecordSummary): boolean {
  try {
    checkResourcePath(path, 'off')
  } catch {
    return false
  }
  const endpoints = context.repos.endpoints.listByProject(project.id)
  const wanted = standardEndpoints(path)
  const clashes = endpoints.filter((x) => wanted.some((e) => servedRoutes(x).includes(servedRoute(e.method, e.path)) || (x.method === e.method && routeShape(x.path) === routeShape(e.path))))
  if (!clashes.every(isRecordedMiss)) return false
  if (context.repos.resources.listByProject(project.id).some((r) => collectionName(r.path) === collectionName(path))) return false
  for (const clash of clashes) replaceMiss(context, clash, path, summary)
  return true
}

const MISSING = new Set([404, 410])

/**
 * A custom endpoint that answers only "not found" (what recording a guessed path, `/api/users`,
 * makes): the real path served at the same URL (`/users`) takes its place, as the real API has it.
 */
function isRecordedMiss(endpoint: Endpoint): boolean {
  return endpoint.kind === 'custom' && MISSING.has(endpoint.status) && endpoint.responses.every((r) => MISSING.has(r.status ?? endpoint.status))
}

function replaceMiss(context: Context, miss: Endpoint, by: string, summary: RecordSummary): void {
  deleteEndpoint(context, miss)
  summary.created = summary.created.filter((e) => e.id !== miss.id)
  summary.updated = summary.updated.filter((e) => e.id !== miss.id)
  summary.warnings.push(`${miss.method} ${miss.path} (a recorded ${miss.status}) removed: ${by} answers at the same URL, as the real API does`)
}

const PATTERN_CHARACTERS = /[:*{}]/

/**
 * One custom endpoint per method and route shape: each URL recorded answers its own last answer (a
 * rule of its own), any other the last answer recorded.
 */
function recordEndpoints(context: Context, project: Project, routed: Routed[], summary: RecordSummary): void {
  const groups = new Map<string, Routed[]>()
  for (const r of routed) {
    const key = `${r.method} ${routeShape(r.route)}`
    groups.set(key, [...(groups.get(key) ?? []), r])
  }
  const now = context.clock.now().toISOString()
  // Read once and kept current: a HAR of thousands of routes must not read the project's endpoints per route.
  const endpoints = context.repos.endpoints.listByProject(project.id)
  const byRoute = new Map(endpoints.map((e) => [`${e.method} ${routeShape(e.path)}`, e]))
  const served = new Map(endpoints.flatMap((e) => servedRoutes(e).map((route) => [route, e] as const)))
  for (const [key, group] of groups) {
    const r = group.at(-1)!
    const skip = (reason: string, which: readonly Routed[] = group) => {
      for (const g of which) summary.skipped.push({ method: g.method, path: g.path, reason })
    }
    const literal = segmentsOf(r.route).find((segment) => !segment.startsWith(':') && PATTERN_CHARACTERS.test(segment))
    if (literal !== undefined) {
      skip(`segment "${literal}" holds ":", "*", "{" or "}", which a route reads as a pattern`)
      continue
    }
    try {
      checkEndpointPath(r.route, 'off')
    } catch (error) {
      skip(error instanceof AppError ? error.message : String(error))
      continue
    }
    const existing = byRoute.get(key)
    if (existing && existing.kind !== 'custom') {
      skip(`${existing.method} ${existing.path} is a ${existing.kind} endpoint; recording changes custom endpoints only`)
      continue
    }
    let clash = existing ? undefined : served.get(servedRoute(r.method, r.route))
    if (clash && isRecordedMiss(clash) && !MISSING.has(group.at(-1)!.exchange.status)) {
      replaceMiss(context, clash, r.route, summary)
      for (const route of servedRoutes(clash)) served.delete(route)
      byRoute.delete(`${clash.method} ${routeShape(clash.path)}`)
      clash = undefined
    }
    if (clash) {
      skip(`it would be served at the same URL as ${clash.method} ${clash.path}`)
      continue
    }
    const answered = group.flatMap((g) => {
      const answer = answerOf(g.exchange, summary.warnings)
      if (typeof answer !== 'string') return [{ routed: g, response: storedResponse(context, project, answer) }]
      skip(answer, [g])
      return []
    })
    const last = answered.at(-1)?.response
    if (!last) continue
    const own = { status: last.status, contentType: last.contentType, body: last.body, bodyType: last.bodyType, fileId: last.fileId }
    const endpoint = existing ?? context.repos.endpoints.insert({
      projectId: project.id, resourceId: null, method: r.method, path: r.route, kind: 'custom', action: null, headers: last.headers, ...own, createdAt: now,
    })
    if (!existing) {
      byRoute.set(key, endpoint)
      for (const route of servedRoutes(endpoint)) served.set(route, endpoint)
    }
    const recorded = answered.flatMap(({ routed: g, response }) => {
      const url = recordedUrl(endpoint.path, g.path, g.exchange.query)
      return url ? [{ url, answer: response }] : []
    })
    if (recorded.length < answered.length) summary.warnings.push(`${endpoint.method} ${endpoint.path}: answers the last URL recorded for every URL: its path has patterns other than :name parameters`)
    const result = recordedResponses(endpoint, recorded, { fallback: last, ownIsPlain: existing !== undefined })
    summary.warnings.push(...result.warnings)
    // With rules, every answer carries its own headers: the endpoint's would go under each of them.
    const configured = context.repos.endpoints.configure(endpoint.id, { ...currentSettings(endpoint), ...own, headers: result.ruled ? {} : last.headers, responses: result.responses })
    ;(existing ? summary.updated : summary.created).push(configured)
  }
}

/** What `recordExchanges` needs besides the exchanges, faker loaded (once per process): for serve's recorder. */
export async function recordOptions(source: string): Promise<RecordOptions> {
  const { loadFaker } = await import('../engine/generators.ts')
  return { source: withoutSecrets(source), makeFaker: await loadFaker() }
}

// ---- Recording state -------------------------------------------------------------------------

/** Starts (or restarts) the project's recording of what is proxied to `target`. */
export function startRecording(context: Context, project: Project, target: string): void {
  writeTransaction(context.db, () => context.repos.recordings.start(project.id, withoutSecrets(target), context.clock.now().toISOString()))
}

/** Ends the project's recording; whether one was running. A serve recording it stops keeping exchanges. */
export function stopRecording(context: Context, project: Project): boolean {
  return writeTransaction(context.db, () => context.repos.recordings.stop(project.id))
}

/**
 * Ends the recordings a serve that died without closing (killed, its terminal gone) left marked:
 * one serve per database, so at its start no other one records. Returns the projects' slugs.
 */
export function endStaleRecordings(context: Context): string[] {
  return context.repos.projects.list().filter((project) => isRecording(context, project.id) && stopRecording(context, project)).map((project) => project.slug)
}

/** Asked by serve for every proxied exchange: one indexed lookup. */
export function isRecording(context: Context, projectId: number): boolean {
  return context.repos.recordings.isOn(projectId)
}

/**
 * What serve's recorder does with one proxied exchange: records it into the project while the
 * project is recording (another process may have stopped it since the last one); null when it is
 * not, or the project is gone.
 */
export function recordProxied(context: Context, projectId: number, exchange: RecordedExchange, options: RecordOptions): RecordSummary | null {
  if (!isRecording(context, projectId)) return null
  const project = context.repos.projects.byId(projectId)
  return project ? recordExchanges(context, project, [exchange], options) : null
}

/** The project's running recording, if any. */
export function recordingOf(context: Context, project: Project): { target: string; startedAt: string } | null {
  const row = context.repos.recordings.get(project.id)
  return row ? { target: row.target, startedAt: row.startedAt } : null
}
