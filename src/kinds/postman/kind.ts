import { isObject, parseJson, refuseInput, type JsonObject } from '../../engine/json-input.ts'
import type { RecordedExchange, ExchangeKind, ExchangeSet } from '../kind.ts'

const parsedCollection = (text: string): unknown => (text.trimStart().startsWith('{') ? parseJson(text) : undefined)

const SCHEMA = /getpostman\.com\/json\/(?:draft-\d+\/)?collection\/v(\d+(?:\.\d+)*)/

/** `2.1.0` from the collection's `info.schema`; null when it names none. */
function schemaVersion(collection: JsonObject): string | null {
  const schema = isObject(collection.info) ? collection.info.schema : undefined
  return typeof schema === 'string' ? (SCHEMA.exec(schema)?.[1] ?? null) : null
}

/** Postman's own v1 export: a flat `requests` list beside `order` or `folders`. */
const isV1 = (value: JsonObject) => Array.isArray(value.requests) && (Array.isArray(value.order) || Array.isArray(value.folders) || typeof value.name === 'string')

const EXPORT_AGAIN = 'in Postman, Export the collection as "Collection v2.1"'

interface Variables {
  get(name: string): string | undefined
}

const VARIABLE = /\{\{\s*([^{}]+?)\s*\}\}/g

/** A collection's or a URL's `variable` list as a lookup. */
function variablesOf(list: unknown, outer?: Variables): Variables {
  const own = new Map<string, string>()
  if (Array.isArray(list)) {
    for (const v of list.filter(isObject)) if (typeof v.key === 'string' && (typeof v.value === 'string' || typeof v.value === 'number')) own.set(v.key, String(v.value))
  }
  return { get: (name) => own.get(name) ?? outer?.get(name) }
}

/**
 * The path of a Postman URL: its `path` segments (or its raw text past the host), `{{variables}}`
 * in the host dropped (`{{baseUrl}}/users`) save the path a variable's URL value holds
 * (`https://api.example.com/v1`), path variables (`:id`) given their example value when the URL has one.
 */
function pathOf(url: unknown, variables: Variables): { path: string; query: string } | null {
  const urlVariables = variablesOf(isObject(url) ? url.variable : undefined)
  let prefix = ''
  let segments: string[]
  let query = ''
  if (isObject(url) && (Array.isArray(url.path) || typeof url.path === 'string')) {
    segments = (Array.isArray(url.path) ? url.path : String(url.path).split('/')).map((s) => (isObject(s) ? String(s.value ?? '') : String(s)))
    const host = Array.isArray(url.host) ? url.host.map(String).join('.') : typeof url.host === 'string' ? url.host : ''
    prefix = hostPath(host, variables)
    if (Array.isArray(url.query)) {
      const pairs = url.query.filter(isObject).filter((q) => q.disabled !== true && typeof q.key === 'string')
      query = pairs.length === 0 ? '' : `?${pairs.map((q) => `${encodeURIComponent(q.key as string)}=${encodeURIComponent(String(q.value ?? ''))}`).join('&')}`
    }
  } else {
    const raw = typeof url === 'string' ? url : isObject(url) && typeof url.raw === 'string' ? url.raw : null
    if (raw === null) return null
    const hostEnd = raw.match(/^(?:[a-z][a-z0-9+.-]*:\/\/)?[^/?#]*/i)![0]
    prefix = hostPath(hostEnd, variables)
    const rest = raw.slice(hostEnd.length)
    const cut = rest.search(/[?#]/)
    segments = (cut < 0 ? rest : rest.slice(0, cut)).split('/')
    query = cut >= 0 && rest[cut] === '?' ? rest.slice(cut).split('#')[0]! : ''
  }
  const path = segments.filter((s) => s !== '').map((segment) => {
    if (segment.startsWith(':')) return urlVariables.get(segment.slice(1)) || segment
    // A variable standing for a whole segment is a parameter unless the collection gives it a value.
    const whole = /^\{\{\s*([^{}]+?)\s*\}\}$/.exec(segment)
    if (whole) return variables.get(whole[1]!) ?? `:${whole[1]!.replace(/\W+/g, '_')}`
    return segment.replace(VARIABLE, (_, name: string) => variables.get(name) ?? name)
  })
  return { path: `${prefix}/${path.join('/')}`.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1'), query }
}

/** The path part a host holds: `{{baseUrl}}` whose value is `https://api.example.com/v1` → `/v1`; a plain host → ''. */
function hostPath(host: string, variables: Variables): string {
  const resolved = host.replace(VARIABLE, (_, name: string) => variables.get(name) ?? '')
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(resolved) || !URL.canParse(resolved)) return ''
  return new URL(resolved).pathname.replace(/\/+$/, '')
}

function headersOf(value: unknown): [string, string][] {
  if (!Array.isArray(value)) return []
  return value.filter(isObject).filter((h) => h.disabled !== true && typeof h.key === 'string' && typeof h.value === 'string').map((h) => [h.key as string, h.value as string])
}

const PREVIEW_TYPES: Record<string, string> = { json: 'application/json', xml: 'application/xml', html: 'text/html', text: 'text/plain' }

interface Walk {
  file: string
  variables: Variables
  exchanges: RecordedExchange[]
  withoutExamples: string[]
}

function exampleExchange(request: JsonObject, example: JsonObject, where: string, walk: Walk): RecordedExchange | null {
  const sent = isObject(example.originalRequest) ? example.originalRequest : request
  const method = typeof sent.method === 'string' ? sent.method : typeof request.method === 'string' ? request.method : 'GET'
  const located = pathOf(sent.url ?? request.url, walk.variables) ?? pathOf(request.url, walk.variables)
  if (located === null) refuseInput(walk.file, `${where}.originalRequest.url`, `${where} names no URL`)
  const status = example.code === undefined ? 200 : example.code
  if (typeof status !== 'number') refuseInput(walk.file, `${where}.code`, `${where}.code must be a number (the example's HTTP status)`)
  const headers = headersOf(example.header)
  const preview = typeof example._postman_previewlanguage === 'string' ? PREVIEW_TYPES[example._postman_previewlanguage] : undefined
  if (preview && !headers.some(([name]) => name.toLowerCase() === 'content-type')) headers.push(['Content-Type', preview])
  const body = isObject(sent.body) && sent.body.mode === 'raw' && typeof sent.body.raw === 'string' ? new TextEncoder().encode(sent.body.raw) : null
  return {
    method: method.toUpperCase(),
    path: located.path,
    query: located.query,
    requestHeaders: headersOf(sent.header),
    requestBody: body,
    status,
    responseHeaders: headers.filter(([name]) => name.toLowerCase() !== 'content-encoding'),
    responseBody: new TextEncoder().encode(typeof example.body === 'string' ? example.body : ''),
    startedAt: '',
    durationMs: 0,
  }
}

/** Folders nest; a request's example responses are its exchanges, in order. */
function walkItems(items: unknown[], where: string, trail: string, walk: Walk): void {
  items.forEach((item, at) => {
    const here = `${where}[${at}]`
    if (!isObject(item)) refuseInput(walk.file, here, `${here} is not an object`)
    const name = typeof item.name === 'string' ? item.name : `#${at}`
    const variables = walk.variables
    if (Array.isArray(item.variable)) walk.variables = variablesOf(item.variable, variables)
    if (Array.isArray(item.item)) {
      walkItems(item.item, `${here}.item`, `${trail}${name} / `, walk)
    } else if (isObject(item.request) || typeof item.request === 'string') {
      const request: JsonObject = isObject(item.request) ? item.request : { method: 'GET', url: item.request }
      const examples = Array.isArray(item.response) ? item.response : []
      if (examples.length === 0) walk.withoutExamples.push(`${trail}${name}`)
      examples.forEach((example, n) => {
        if (!isObject(example)) refuseInput(walk.file, `${here}.response[${n}]`, `${here}.response[${n}] is not an object`)
        const exchange = exampleExchange(request, example, `${here}.response[${n}]`, walk)
        if (exchange) walk.exchanges.push(exchange)
      })
    }
    walk.variables = variables
  })
}

/** A Postman collection v2.1: each example response of each request (folders walked) a recorded exchange. */
export const postmanKind: ExchangeKind = {
  name: 'postman',
  label: 'Postman collection',
  detect: {
    extensions: [],
    looksLike: (text) => {
      const value = parsedCollection(text)
      return isObject(value) && Array.isArray(value.item) && schemaVersion(value)?.startsWith('2.1') === true
    },
    described: 'Postman collection v2.1 (with example responses)',
    claims: (text) => {
      const value = parsedCollection(text)
      return isObject(value) && (schemaVersion(value) !== null || isV1(value) || (isObject(value.info) && typeof value.info._postman_id === 'string'))
    },
  },
  load(text, file): ExchangeSet {
    const collection = parseJson(text)
    if (collection === undefined) refuseInput(file, null, `is not JSON; a Postman collection is the JSON file ${EXPORT_AGAIN} writes`)
    if (!isObject(collection)) refuseInput(file, null, 'is not a JSON object, as a Postman collection is')
    const version = schemaVersion(collection)
    if (version === null && isV1(collection)) refuseInput(file, null, `is a Postman collection v1; mockapi reads v2.1: ${EXPORT_AGAIN}`)
    if (version === null) refuseInput(file, 'info.schema', `names no Postman collection schema in info.schema; mockapi reads v2.1: ${EXPORT_AGAIN}`)
    if (!version.startsWith('2.1')) refuseInput(file, 'info.schema', `is a Postman collection v${version}; mockapi reads v2.1: ${EXPORT_AGAIN}`)
    if (!Array.isArray(collection.item)) refuseInput(file, 'item', 'item must be the list of the collection\'s requests and folders')
    const walk: Walk = { file, variables: variablesOf(collection.variable), exchanges: [], withoutExamples: [] }
    walkItems(collection.item, 'item', '', walk)
    const warnings: string[] = []
    if (walk.withoutExamples.length > 0) {
      warnings.push(`${walk.withoutExamples.length} request(s) have no example response, so nothing to answer: not recorded (save a response as an example in Postman): ${walk.withoutExamples.join(', ')}`)
    }
    const info = isObject(collection.info) ? collection.info : {}
    return { title: typeof info.name === 'string' && info.name.trim() ? info.name.trim() : null, version: `Postman v${version}`, exchanges: walk.exchanges, warnings }
  },
}
