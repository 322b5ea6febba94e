import { isObject, parseJson, refuseInput } from '../../engine/json-input.ts'
import type { RecordedExchange, ExchangeKind, ExchangeSet } from '../kind.ts'

const parsedLog = (text: string): unknown => (text.trimStart().startsWith('{') ? parseJson(text) : undefined)

/** HAR 1.1 and 1.2 hold entries the same way; browsers write 1.2. */
const VERSIONS = new Set(['1.1', '1.2'])

/** A HAR's headers as pairs; HTTP/2 pseudo-headers (`:status`) are not headers of the answer. */
function headersOf(value: unknown): [string, string][] {
  if (!Array.isArray(value)) return []
  return value.filter(isObject)
    .filter((h) => typeof h.name === 'string' && typeof h.value === 'string' && !h.name.startsWith(':'))
    .map((h) => [h.name as string, h.value as string])
}

/** A response's content: `text`, base64 when `encoding` says so; absent text (of an empty answer) is an empty body. */
function contentOf(content: unknown, where: string, file: string): Uint8Array {
  if (!isObject(content) || typeof content.text !== 'string') return new Uint8Array()
  if (content.encoding === 'base64') {
    const base64 = content.text.replace(/\s+/g, '')
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) refuseInput(file, `${where}.content.text`, `${where}.content.text is not base64, as its encoding says`)
    return new Uint8Array(Buffer.from(base64, 'base64'))
  }
  return new TextEncoder().encode(content.text)
}

function entryExchange(entry: unknown, at: number, file: string, warnings: string[]): RecordedExchange | null {
  const where = `log.entries[${at}]`
  if (!isObject(entry)) refuseInput(file, where, `${where} is not an object`)
  const { request, response } = entry
  if (!isObject(request) || typeof request.method !== 'string' || typeof request.url !== 'string') {
    refuseInput(file, `${where}.request`, `${where} has no request with a method and a url`)
  }
  if (!isObject(response)) refuseInput(file, `${where}.response`, `${where} (${request.method} ${request.url}) has no response`)
  if (typeof response.status !== 'number') refuseInput(file, `${where}.response.status`, `${where}.response.status must be a number`)
  const url = URL.canParse(request.url) ? new URL(request.url) : null
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    warnings.push(`${where}: ${request.url.slice(0, 80)} is not an http(s) URL: not recorded`)
    return null
  }
  // What a browser writes for a request that got no answer (blocked, cancelled, offline).
  if (response.status === 0) {
    warnings.push(`${where}: ${request.method} ${url.pathname} got no answer (status 0): not recorded`)
    return null
  }
  // Browsers leave a body out of a HAR (too large, a sanitized export) and keep its size: an empty answer would not be the real one.
  const content = response.content
  if (isObject(content) && typeof content.text !== 'string' && typeof content.size === 'number' && content.size > 0) {
    warnings.push(`${where}: ${request.method} ${url.pathname} has no body in the HAR (its content.size is ${content.size}, its content.text is missing): not recorded; save the HAR with its content`)
    return null
  }
  const postData = request.postData
  const requestBody = isObject(postData) && typeof postData.text === 'string' ? new TextEncoder().encode(postData.text) : null
  return {
    method: request.method.toUpperCase(),
    path: url.pathname,
    query: url.search,
    requestHeaders: headersOf(request.headers),
    requestBody,
    status: response.status,
    // The content is stored decoded (HAR 1.2, "content"): the Content-Encoding it came with no longer applies.
    responseHeaders: headersOf(response.headers).filter(([name]) => name.toLowerCase() !== 'content-encoding'),
    responseBody: contentOf(response.content, `${where}.response`, file),
    startedAt: typeof entry.startedDateTime === 'string' ? entry.startedDateTime : '',
    durationMs: typeof entry.time === 'number' ? entry.time : 0,
  }
}

/** A HAR 1.2 file, as browsers' devtools save it ("Save all as HAR"): each entry a recorded exchange. */
export const harKind: ExchangeKind = {
  name: 'har',
  label: 'HAR file',
  detect: {
    extensions: ['.har'],
    looksLike: (text) => {
      const value = parsedLog(text)
      return isObject(value) && isObject(value.log) && Array.isArray(value.log.entries)
    },
    described: 'HAR 1.2 (browser devtools, "Save all as HAR")',
    claims: (text) => {
      const value = parsedLog(text)
      return isObject(value) && isObject(value.log)
    },
  },
  load(text, file): ExchangeSet {
    const har = parseJson(text)
    if (har === undefined) refuseInput(file, null, 'is not JSON; a HAR file is a JSON object {"log": {"version": "1.2", "entries": […]}}')
    if (!isObject(har) || !isObject(har.log)) refuseInput(file, 'log', 'has no "log" object; a HAR file is a JSON object {"log": {"version": "1.2", "entries": […]}}')
    const { log } = har
    if (log.version !== undefined && !VERSIONS.has(String(log.version))) refuseInput(file, 'log.version', `is HAR ${String(log.version)}; mockapi reads HAR 1.2 (and 1.1)`)
    if (!Array.isArray(log.entries)) refuseInput(file, 'log.entries', 'log.entries must be an array of requests and their responses')
    const warnings: string[] = []
    const exchanges = log.entries.map((entry, at) => entryExchange(entry, at, file, warnings)).filter((e): e is RecordedExchange => e !== null)
    const hosts = [...new Set(log.entries.filter(isObject).map((e) => (isObject(e.request) && typeof e.request.url === 'string' && URL.canParse(e.request.url) ? new URL(e.request.url).host : '')).filter(Boolean))]
    if (hosts.length > 1) warnings.push(`entries from ${hosts.length} hosts (${hosts.join(', ')}) are all served at their own paths in one project`)
    const pages = Array.isArray(log.pages) ? log.pages.filter(isObject) : []
    const title = typeof pages[0]?.title === 'string' && pages[0].title.trim() && !URL.canParse(pages[0].title) ? pages[0].title.trim() : null
    return { title, version: `HAR ${log.version === undefined ? '1.2' : String(log.version)}`, exchanges, warnings }
  },
}
