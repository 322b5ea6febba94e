import { isTextual } from '../engine/media-type.ts'
import { parseCookies } from '../engine/request-facts.ts'
import type { Difference, ExchangeSide, JournalEntry } from '../events.ts'
import type { AuthScheme, EndpointAuth } from '../model.ts'
import type { Context } from './context.ts'
import { headerPairs, MAX_JOURNAL_BODY, type JournalRecord } from './journal.ts'
import { createVersionedCache } from './versioned-cache.ts'

/** Which names hold secrets beyond the usual ones: the `name` of every apiKey scheme a project or its endpoints configure. */
export interface Masking {
  names: ReadonlySet<string>
}

/** Always secret, whatever a project configures: cookies, and names that say they carry a credential (`X-Authorization`, `X-Session-Id`, `access_token`). */
const SECRET_NAMES = new Set(['cookie', 'set-cookie'])
// `author`, `authorId` and `:authority` name no secret (`/api/posts?author=ada` is common): `authorization` does.
const SECRET_PATTERN = /auth(?!or(?!i[sz]ation))|token|secret|password|passwd|session|api-?key|credential/i
/** A credential, whatever header carries it. */
const CREDENTIAL_VALUE = /^(?:bearer|basic) /i
/** A challenge names a scheme and a realm, never a secret: it is what tells a user why a 401 came. */
const CHALLENGES = new Set(['www-authenticate', 'proxy-authenticate'])

function isSecret(name: string, masking: Masking): boolean {
  const lower = name.toLowerCase()
  return SECRET_NAMES.has(lower) || SECRET_PATTERN.test(lower) || masking.names.has(lower)
}

function isSecretHeader(name: string, value: string, masking: Masking): boolean {
  const lower = name.toLowerCase()
  return masking.names.has(lower) || (!CHALLENGES.has(lower) && (isSecret(lower, masking) || CREDENTIAL_VALUE.test(value)))
}

/** `Bearer eyJhbGciOi…` → `Bearer eyJh… (212 chars)`: the scheme, a few characters to tell two apart, the length. */
export function maskValue(value: string): string {
  const scheme = /^([A-Za-z][\w-]*) +(?=\S)/.exec(value)
  const prefix = scheme && /^(bearer|basic|digest|token|apikey|negotiate)$/i.test(scheme[1]!) ? scheme[0] : ''
  const secret = value.slice(prefix.length)
  // A short secret shows none of itself: four characters of eight would be half of it.
  const shown = secret.length >= 12 ? secret.slice(0, 4) : ''
  return `${prefix}${shown}… (${secret.length} chars)`
}

/** `a=1; sid=abc…`: every cookie's value masked, its name kept. */
function maskCookieLine(line: string, separator: string): string {
  return line.split(separator).map((part) => {
    const equals = part.indexOf('=')
    return equals <= 0 ? part : `${part.slice(0, equals)}=${maskValue(part.slice(equals + 1).trim())}`
  }).join(separator)
}

/** A Set-Cookie's attributes (Path, HttpOnly) are no secret: only its value, before the first `;`. */
function maskSetCookie(line: string): string {
  const semi = line.indexOf(';')
  return semi < 0 ? maskCookieLine(line, ';') : maskCookieLine(line.slice(0, semi), ';') + line.slice(semi)
}

/** Headers holding URLs: a paged list's `Link` repeats the query it was asked with, a secret parameter included. */
const URL_HEADERS = new Set(['link', 'location', 'content-location'])

/** `…?access_token=abcd&page=2#top`: the value of each secret parameter masked as the entry's `query` shows it, the rest as it was. */
function maskUrl(url: string, masking: Masking): string {
  const start = url.indexOf('?')
  if (start < 0) return url
  const hash = url.indexOf('#', start)
  const end = hash < 0 ? url.length : hash
  const query = url.slice(start + 1, end).split('&').map((pair) => {
    const equals = pair.indexOf('=')
    // Decoded as the entry's `query` is, so that a name means the same in both.
    const [name, value] = new URLSearchParams(pair).entries().next().value ?? ['', '']
    return equals > 0 && isSecret(name, masking) ? `${pair.slice(0, equals + 1)}${maskValue(value)}` : pair
  })
  return `${url.slice(0, start + 1)}${query.join('&')}${url.slice(end)}`
}

/** `<url>; rel="next", <url>; rel="last"` holds several URLs, each between angle brackets; `Location` is one. */
function maskUrlHeader(name: string, value: string, masking: Masking): string {
  return name === 'link' ? value.replace(/<([^>]*)>/g, (_, url: string) => `<${maskUrl(url, masking)}>`) : maskUrl(value, masking)
}

function maskHeaders(headers: Record<string, string>, masking: Masking): Record<string, string> {
  const masked: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'cookie') masked[name] = maskCookieLine(value, ';')
    else if (name === 'set-cookie') masked[name] = value.split('\n').map(maskSetCookie).join('\n')
    else if (isSecretHeader(name, value, masking)) masked[name] = maskValue(value)
    else masked[name] = URL_HEADERS.has(name) ? maskUrlHeader(name, value, masking) : value
  }
  return masked
}

/**
 * The one place secrets leave masked: the API, the live stream, the CLI, the dashboard and the
 * verify message all show an entry through this. Bodies are shown as sent.
 */
export function maskEntry(entry: JournalEntry, masking: Masking): JournalEntry {
  const query: JournalEntry['query'] = {}
  for (const [name, value] of Object.entries(entry.query)) {
    query[name] = isSecret(name, masking) ? (Array.isArray(value) ? value.map(maskValue) : maskValue(value)) : value
  }
  const cookies: Record<string, string> = {}
  for (const [name, value] of Object.entries(entry.cookies)) cookies[name] = maskValue(value)
  return {
    ...entry,
    query,
    headers: maskHeaders(entry.headers, masking),
    cookies,
    ...(entry.ruleMisses ? { ruleMisses: entry.ruleMisses.map((miss) => ({ ...miss, failed: miss.failed.map((text) => maskFailedCondition(text, masking)) })) } : {}),
    answer: { headers: maskHeaders(entry.answer.headers, masking), body: entry.answer.body },
  }
}

/**
 * The received value a `when` showed for a header, query parameter or cookie (`"Bearer eyJ…"`,
 * JSON as conditions show it), masked as the entry's own value would be; null when not a secret.
 */
function maskedReceived(target: string, name: string, received: string, masking: Masking): string | null {
  const value = received.replace(/^"|"$/g, '')
  const secret = target === 'cookies' || (target === 'headers' ? isSecretHeader(name, value, masking) : isSecret(name, masking))
  return secret ? JSON.stringify(maskValue(value)) : null
}

/** `headers.authorization = Bearer admin (received "Bearer eyJ…")`: a failed condition in words, as a rule miss keeps it. */
const FAILED_CONDITION = /^(headers|query|cookies)\.(\S+) [\s\S]*\(received ("[\s\S]*")\)$/

function maskFailedCondition(text: string, masking: Masking): string {
  const failed = FAILED_CONDITION.exec(text)
  const received = failed && maskedReceived(failed[1]!, failed[2]!, failed[3]!, masking)
  return received ? `${text.slice(0, text.length - failed![3]!.length - 1)}${received})` : text
}

/**
 * A difference a `when` found in a header, query parameter or cookie (`headers.authorization`),
 * with the received value masked as the entry's own is: a verify's message shows it.
 */
export function maskDifference(difference: Difference, masking: Masking): Difference {
  const target = typeof difference.at === 'string' ? /^(headers|query|cookies)\.(.+)$/.exec(difference.at) : null
  const received = target && difference.received !== null ? maskedReceived(target[1]!, target[2]!, difference.received, masking) : null
  if (received === null) return difference
  return { ...difference, received, text: difference.text.replace(`(received ${difference.received})`, `(received ${received})`) }
}

function apiKeyNames(schemes: AuthScheme[] | EndpointAuth | undefined, into: Set<string>): void {
  if (!Array.isArray(schemes)) return
  for (const scheme of schemes) if (scheme.type === 'apiKey') into.add(scheme.name.toLowerCase())
}

/** The project's own secret names: those of the apiKey schemes it and its endpoints configure. */
export function projectMasking(context: Context, projectId: number): Masking {
  const names = new Set<string>()
  apiKeyNames(context.repos.projects.byId(projectId)?.auth, names)
  for (const endpoint of context.repos.endpoints.listByProject(projectId)) apiKeyNames(endpoint.auth, names)
  return { names }
}

/**
 * A project's masking as a live stream needs it, for each entry it sends: the apiKey names as they
 * are then, not when the stream opened (a dashboard keeps one open for hours). Built again only
 * when the configuration may have changed, another process's commit looked for every time.
 */
export function liveMasking(context: Context, projectId: number): () => Masking {
  const cache = createVersionedCache(context.db, () => projectMasking(context, projectId), { recheckMs: 0 })
  return () => cache.get()
}

/** `?a=1&a=2&b=` → `{ a: ['1', '2'], b: '' }`. */
export function queryObject(query: URLSearchParams): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {}
  for (const key of new Set(query.keys())) {
    const values = query.getAll(key)
    result[key] = values.length === 1 ? values[0]! : values
  }
  return result
}

/** Names in lower case; a header sent on several lines as one, joined as HTTP joins them (`; ` for cookies). */
function headerObject(headerLines: string): Record<string, string> {
  const headers = new Map<string, string>()
  for (const [name, value] of headerPairs(headerLines)) {
    const lower = name.toLowerCase()
    const earlier = headers.get(lower)
    headers.set(lower, earlier === undefined ? value : `${earlier}${lower === 'cookie' ? '; ' : lower === 'set-cookie' ? '\n' : ', '}${value}`)
  }
  return Object.fromEntries(headers)
}

// Not fatal: a cut body may end inside a character; it shows a replacement character there.
const decoder = new TextDecoder()

/** Body bytes as text; a body whose Content-Type is not text as what it is, `(binary, 1234 bytes, image/png)`. */
export function bodyText(body: string | Uint8Array | null, size: number, contentType: string | null): string | null {
  if (body === null || size === 0) return null
  if (!isTextual(contentType)) return `(binary, ${size} bytes, ${contentType!.split(';', 1)[0]!.trim()})`
  if (typeof body === 'string') return body
  return decoder.decode(body.byteLength > MAX_JOURNAL_BODY ? body.subarray(0, MAX_JOURNAL_BODY) : body)
}

function answerOf(record: JournalRecord): ExchangeSide {
  const answer = record.answer
  if (!answer) return { headers: {}, body: null }
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(answer.headers)) headers[name.toLowerCase()] = value
  return { headers, body: bodyText(answer.body, answer.bodySize, headers['content-type'] ?? null) }
}

/**
 * A record as the API, the live stream and the test API show it; `mask` (the project's secret
 * names) for whatever leaves the process, none for a test reading its own requests in process.
 */
export function entryOf(record: JournalRecord, options: { mask: Masking | null }): JournalEntry {
  const headers = headerObject(record.headerLines)
  const entry: JournalEntry = {
    id: record.id,
    projectId: record.projectId,
    time: new Date(record.at).toISOString(),
    protocol: record.protocol,
    method: record.method,
    path: record.path,
    query: queryObject(new URLSearchParams(record.search)),
    headers,
    cookies: parseCookies(headers['cookie'] ?? null),
    body: bodyText(record.body, record.bodySize, record.contentType),
    bodySize: record.bodySize,
    bodyCut: record.bodySize > (record.body?.byteLength ?? 0),
    status: record.status,
    durationMs: record.durationMs,
    endpointId: record.endpointId,
    response: record.answeredBy,
    matched: record.matched,
    ...(record.fault ? { fault: record.fault } : {}),
    ...(record.note ? { note: record.note } : {}),
    ...(record.proxied ? { proxied: true as const } : {}),
    ...(record.nearMisses ? { nearMisses: record.nearMisses } : {}),
    ...(record.ruleMisses ? { ruleMisses: record.ruleMisses } : {}),
    answer: answerOf(record),
  }
  return options.mask ? maskEntry(entry, options.mask) : entry
}
