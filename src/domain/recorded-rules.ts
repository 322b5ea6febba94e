/**
 * A recorded endpoint answers each recorded URL as the real API answered it, as WireMock keeps one
 * stub per exact URL: one rule per URL (its path parameters and query), named after it, holding
 * only for that URL (docs/imports.md, "What becomes what").
 */
import { createHash } from 'node:crypto'
import { compileWhen, ConditionError } from '../engine/conditions.ts'
import { isObject } from '../engine/json-input.ts'
import { parseRoutePath } from '../engine/path-pattern.ts'
import type { Endpoint, EndpointResponse } from '../model.ts'
import { isSecretName } from './recording-secrets.ts'
import { checkResponseList, MAX_RESPONSE_NAME, MAX_RESPONSES } from './responses.ts'

/** A recorded request as rules tell it apart: the endpoint's path parameters and the query (secrets left out), in order. */
export interface RecordedUrl {
  params: [string, string][]
  query: [string, string][]
}

/** What a rule answers: a response but for its name and `when`. */
export type RecordedResponse = Omit<EndpointResponse, 'name' | 'when'>

/** A recorded URL and its answer; null: the records answer it (a resource's), so it has no rule. */
export interface RecordedUrlAnswer {
  url: RecordedUrl
  answer: RecordedResponse | null
}

/** The name of the response answering what no recorded URL's rule holds for: the last answer recorded. */
const LAST_RECORDED = 'last recorded'

function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * The request's URL as the endpoint's rules read it; null when the endpoint's path is not plain
 * segments and `:name` parameters (a hand-made `*` or `:name.json`), or does not fit the path.
 */
export function recordedUrl(endpointPath: string, path: string, search: string): RecordedUrl | null {
  const patterns = parseRoutePath(endpointPath)
  const segments = path.split('/').filter((segment) => segment !== '').map(decodedSegment)
  if (segments.length !== patterns.length) return null
  const params: [string, string][] = []
  for (const [at, pattern] of patterns.entries()) {
    if (pattern.kind === 'param') params.push([pattern.name, segments[at]!])
    else if (pattern.kind !== 'literal' || pattern.text !== segments[at]) return null
  }
  return { params, query: [...new URLSearchParams(search)].filter(([name]) => !isSecretName(name)) }
}

const byName = (a: [string, string], b: [string, string]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)

/** Equal for URLs no rule can tell apart (the query's order). */
function keyOf(url: RecordedUrl): string {
  return JSON.stringify([[...url.params].sort(byName), [...url.query].sort(byName)])
}

/** Each query name with its values, in the order they first come. */
function valuesByName(query: readonly [string, string][]): Map<string, string[]> {
  const values = new Map<string, string[]>()
  for (const [name, value] of query) values.set(name, [...(values.get(name) ?? []), value])
  return values
}

/**
 * The `when` holding for this URL only: each path parameter and query value as recorded, and each
 * other query name recorded on the endpoint absent. A repeated parameter holds each recorded value:
 * `any` lists of one AND the later values. Null: nothing tells it apart (the only URL, plain).
 */
function whenOf(url: RecordedUrl, queryNames: ReadonlySet<string>): Record<string, unknown> | null {
  const values = valuesByName(url.query)
  const layer = (at: number) => Object.fromEntries([...values].filter(([, list]) => list.length > at).map(([name, list]) => [name, list[at]!]))
  let later: Record<string, unknown> | null = null
  for (let at = Math.max(0, ...[...values.values()].map((list) => list.length)) - 1; at >= 1; at -= 1) later = { query: layer(at), ...(later ? { any: [later] } : {}) }
  const query = Object.fromEntries([...Object.entries(layer(0)), ...[...queryNames].filter((name) => !values.has(name)).map((name) => [name, { absent: true }] as const)])
  const when = {
    ...(url.params.length > 0 ? { params: Object.fromEntries(url.params) } : {}),
    ...(Object.keys(query).length > 0 ? { query } : {}),
    ...(later ? { any: [later] } : {}),
  }
  return Object.keys(when).length > 0 ? when : null
}

const isTextMap = (value: unknown): value is Record<string, string> => isObject(value) && Object.values(value).every((v) => typeof v === 'string')

/** The URL a `when` made by `whenOf` holds for; null for any other `when`. */
function urlOfWhen(when: Record<string, unknown>): RecordedUrl | null {
  const { params = {}, query = {}, any, ...rest } = when
  if (Object.keys(rest).length > 0 || !isTextMap(params) || !isObject(query)) return null
  const pairs: [string, string][] = []
  for (const [name, value] of Object.entries(query)) {
    if (typeof value === 'string') pairs.push([name, value])
    else if (!isObject(value) || Object.keys(value).length !== 1 || value.absent !== true) return null
  }
  for (let later = any; later !== undefined;) {
    if (!Array.isArray(later) || later.length !== 1 || !isObject(later[0])) return null
    const { query: values, any: next, ...other } = later[0]
    if (Object.keys(other).length > 0 || !isTextMap(values)) return null
    pairs.push(...Object.entries(values))
    later = next
  }
  return { params: Object.entries(params), query: pairs }
}

/** `/users/1/posts?page=2`: the URL as a response name (cut, with a hash to stay unique, past a name's length). */
function nameOf(endpointPath: string, url: RecordedUrl): string {
  const params = new Map(url.params)
  const written = endpointPath.split('/').filter((segment) => segment !== '')
  const path = parseRoutePath(endpointPath).map((pattern, at) => (pattern.kind === 'param' ? encodeURIComponent(params.get(pattern.name) ?? '') : written[at]!))
  const query = [...valuesByName(url.query)].flatMap(([name, values]) => values.map((value) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`))
  const name = `/${path.join('/')}${query.length > 0 ? `?${query.join('&')}` : ''}`
  if (name.length <= MAX_RESPONSE_NAME) return name
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8)
  return `${name.slice(0, MAX_RESPONSE_NAME - hash.length - 1)}…${hash}`
}

/** The endpoint's own answer as a response: what a plain URL recorded before rules existed answers. */
function ownAnswer(endpoint: Endpoint): RecordedResponse {
  const { status, headers, bodyType, body, fileId, file, contentType } = endpoint
  return { status, headers, bodyType, body, fileId, file, contentType, delayMs: null, delayMaxMs: null, fault: null }
}

export interface RecordedResponses {
  responses: EndpointResponse[]
  /** Whether recorded URLs have rules: the endpoint's own headers then go under every one of them. */
  ruled: boolean
  warnings: string[]
}

/**
 * The endpoint's responses with `recorded` laid in: first the responses the recorder did not make,
 * as they are (a hand-made rule still comes first); then one rule per URL recorded now or before,
 * its last answer, more query values first (a repeated parameter's); then, when there are rules
 * and `fallback` is given, it, answering every other URL (unless a hand-made fallback does).
 * `ownIsPlain`: the endpoint answered the URL without parameters and query before (a custom
 * endpoint recorded, or made, before); its answer becomes that URL's rule once others come.
 */
export function recordedResponses(endpoint: Endpoint, recorded: readonly RecordedUrlAnswer[], options: { fallback: RecordedResponse | null; ownIsPlain: boolean }): RecordedResponses {
  const warnings: string[] = []
  const others: EndpointResponse[] = []
  const urls = new Map<string, { url: RecordedUrl; answer: RecordedResponse }>()
  for (const response of endpoint.responses) {
    const url = response.when === null ? null : urlOfWhen(response.when)
    if (url && response.name === nameOf(endpoint.path, url)) {
      const { name: _name, when: _when, ...answer } = response
      urls.set(keyOf(url), { url, answer })
    } else if (response.when !== null || response.name !== LAST_RECORDED) others.push(response)
  }
  const plain: RecordedUrl = { params: [], query: [] }
  if (urls.size === 0 && options.ownIsPlain && !parseRoutePath(endpoint.path).some((pattern) => pattern.kind !== 'literal')) urls.set(keyOf(plain), { url: plain, answer: ownAnswer(endpoint) })
  for (const { url, answer } of recorded) {
    // Taken out and put back: the map's order is the order last recorded in.
    urls.delete(keyOf(url))
    if (answer) urls.set(keyOf(url), { url, answer })
  }

  const queryNames = new Set([...urls.values()].flatMap(({ url }) => url.query.map(([name]) => name)))
  const taken = new Set(others.map((response) => response.name))
  const handFallback = others.some((response) => response.when === null)
  let rules: { response: EndpointResponse; values: number }[] = []
  for (const { url, answer } of urls.values()) {
    const when = whenOf(url, queryNames)
    if (!when) continue
    const name = nameOf(endpoint.path, urlOfWhen(when)!)
    try {
      compileWhen(when)
    } catch (error) {
      if (!(error instanceof ConditionError)) throw error
      warnings.push(`${endpoint.method} ${name}: answers as the endpoint does, not as recorded: its rule would be refused (${error.message})`)
      continue
    }
    if (taken.has(name)) {
      warnings.push(`${endpoint.method} ${name}: answers as the endpoint does, not as recorded: another of its responses has that name`)
      continue
    }
    rules.push({ response: { ...answer, name, when }, values: url.query.length })
  }
  const room = MAX_RESPONSES - others.length - (options.fallback && !handFallback ? 1 : 0)
  if (rules.length > room) {
    warnings.push(`${endpoint.method} ${endpoint.path}: the ${rules.length - Math.max(0, room)} URL(s) recorded longest ago answer as the endpoint does: an endpoint has at most ${MAX_RESPONSES} responses`)
    rules = rules.slice(rules.length - Math.max(0, room))
  }
  if (rules.length > 0 && endpoint.pick !== 'rules') {
    warnings.push(`${endpoint.method} ${endpoint.path}: answers the last recorded URL's answer for every URL: it picks its responses by ${endpoint.pick}, not by rules`)
    return { responses: endpoint.responses, ruled: false, warnings }
  }
  rules.sort((a, b) => b.values - a.values)
  const fallback = rules.length > 0 && options.fallback && !handFallback && !taken.has(LAST_RECORDED) ? [{ ...options.fallback, name: LAST_RECORDED, when: null }] : []
  const responses = checkResponseList([...others, ...rules.map((rule) => rule.response), ...fallback], endpoint.pick)
  return { responses, ruled: rules.length > 0, warnings }
}
