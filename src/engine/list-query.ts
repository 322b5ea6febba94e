import { AppError } from '../errors.ts'
import type { FieldCondition, FilterOperator, ResourceAction, SortKey } from '../model.ts'
import { compileSafeRegex, UnsafePatternError } from './safe-regex.ts'

/**
 * The list parameters (docs/mocking.md, "Resources"), read from a query string: today's spelling and
 * json-server's two dialects (1.x `field:op=`, `_page`/`_per_page`; 0.17 `field_gte`, `_sort`/`_order`,
 * `_start`/`_end`/`_limit`). Every other plain key is an equality filter.
 */
export interface ListParams {
  /** Filters; a 0.17 suffix (`views_gte`) still waits on `resolveSuffixes` to know the collection's fields. */
  conditions: PendingCondition[]
  /** `q`, lower-cased: a substring of some string value of the record. */
  q: string | null
  sort: SortKey[]
  limit: number | null
  /** Records skipped before the page: (page - 1) × limit, or `_start`. */
  offset: number
  /** Set when the client paged (rather than sliced): the Link header and envelope use it, in the client's own spelling. */
  paging: Paging | null
  envelope: boolean
  fields: string[] | null
}

export interface Paging {
  page: number
  limit: number
  pageName: string
  limitName: string
}

/** A filter as read; `suffixOf` names the whole key when it may be a 0.17 suffix rather than a field. */
export interface PendingCondition extends FieldCondition {
  suffixOf?: string
}

/**
 * The underscored names each action reads: `_embed`, `_expand` and `_dependent` belong to relations
 * (domain/relations.ts), the others to this file. `_` is jQuery's cache buster, ignored as json-server does.
 */
const UNDERSCORED: Record<ResourceAction, readonly string[]> = {
  list: ['_sort', '_order', '_page', '_per_page', '_limit', '_start', '_end', '_envelope', '_fields', '_embed', '_expand'],
  read: ['_fields', '_embed', '_expand'],
  create: [],
  replace: [],
  patch: [],
  delete: ['_dependent'],
}
const METHODS: Record<ResourceAction, string> = { list: 'GET', read: 'GET', create: 'POST', replace: 'PUT', patch: 'PATCH', delete: 'DELETE' }
const PLAIN_CONTROL = new Set(['sort', 'order', 'page', 'limit', 'q', 'fields'])

const OPERATORS = new Set<FilterOperator>(['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'startsWith', 'endsWith'])
const SUFFIX = /^(.+)_(gte|lte|gt|lt|ne|like)$/
const POSITIVE_INT = /^[1-9][0-9]*$/
const NATURAL = /^(0|[1-9][0-9]*)$/
const DEFAULT_LIMIT = 10
const MAX_FILTER_FIELDS = 32
const MAX_SORT_FIELDS = 4
const MAX_FIELDS = 64
const MAX_PATTERN_LENGTH = 1_000
// `_like` runs on every record of the collection: its cost is about this times the value's length.
const MAX_PATTERN_PROGRAM = 1_000

function invalid(parameter: string, message: string): never {
  throw new AppError('INVALID_QUERY', `query parameter "${parameter}" ${message}`, { details: [{ parameter, message }] })
}

function single(query: URLSearchParams, name: string): string | null {
  const values = query.getAll(name)
  if (values.length > 1) invalid(name, 'must be given once')
  return values[0] ?? null
}

/** The value of whichever of `names` was given (at most one of them). */
function oneOf(query: URLSearchParams, names: string[]): { name: string; value: string } | null {
  const given = names.filter((name) => query.has(name))
  if (given.length > 1) invalid(given[1]!, `cannot be given with "${given[0]}" (they mean the same)`)
  const name = given[0]
  return name === undefined ? null : { name, value: single(query, name)! }
}

function integer(parameter: string, raw: string, pattern: RegExp, what: string): number {
  const value = Number(raw)
  if (!pattern.test(raw) || !Number.isSafeInteger(value)) invalid(parameter, `must be ${what}, got "${raw}"`)
  return value
}

const positive = (given: { name: string; value: string } | null) =>
  given === null ? null : integer(given.name, given.value, POSITIVE_INT, 'an integer of at least 1')

/**
 * Field names address JSON keys; dots nest (`author.name`). A JSON path quotes each key, and
 * SQLite reads a backslash there as an escape and stops at NUL: neither can name a key as written.
 */
export function checkFieldName(parameter: string, field: string): string {
  if (field.split('.').some((key) => key === '' || /["\\\0]/.test(key))) {
    invalid(parameter, `names the field ${JSON.stringify(field)}, which is not a usable field name (an empty part, a double quote, a backslash or NUL)`)
  }
  return field
}

/** `(page - 1) × limit`, refused when it passes what SQLite's 64-bit OFFSET (and a double) holds exactly. */
function offsetOf(page: number | null, limit: number | null, pageName = 'page'): number {
  if (page === null || limit === null) return 0
  const offset = (page - 1) * limit
  if (!Number.isSafeInteger(offset)) invalid(pageName, `is ${page} with limit ${limit}: that page starts past the last record any list can hold ((page - 1) × limit must stay under 2^53)`)
  return offset
}

/** `page`/`limit` alone (the inbox and other management lists). */
export function parsePaging(query: URLSearchParams): { limit: number | null; offset: number } {
  const page = positive(oneOf(query, ['page']))
  const limit = positive(oneOf(query, ['limit'])) ?? (page !== null ? DEFAULT_LIMIT : null)
  return { limit, offset: offsetOf(page, limit) }
}

/** What each action's refusal of an unknown underscored name adds: what that request does take. */
function takes(action: ResourceAction, known: readonly string[]): string {
  if (action === 'list') return `a list's GET takes ${known.join(', ')}; a field starting with "_" is filtered with an operator, e.g. "_private:eq"`
  if (action === 'read') return `one record's GET takes ${known.join(', ')}; filters and paging belong to the list`
  if (known.length === 0) return `a ${METHODS[action]} takes none`
  return `a ${METHODS[action]} takes ${known.join(', ')}`
}

/**
 * Underscored names nobody defined are mistakes (`_sorts`, `_dependant`), refused before the
 * request reads or writes anything rather than read as filters on a field nobody has, or ignored.
 */
export function refuseUnknownParameters(action: ResourceAction, query: URLSearchParams): void {
  const known = UNDERSCORED[action]
  for (const key of query.keys()) {
    if (key.startsWith('_') && key !== '_' && !key.includes(':') && !known.includes(key)) {
      invalid(key, `is not a parameter of this request (${takes(action, known)})`)
    }
  }
}

function commaList(parameter: string, raw: string): string[] {
  const items = raw.split(',').map((item) => item.trim())
  if (items.some((item) => item === '')) invalid(parameter, `must be a comma-separated list without empty items, got "${raw}"`)
  return items
}

function parseSort(query: URLSearchParams): SortKey[] {
  const given = oneOf(query, ['sort', '_sort'])
  const orderName = given?.name === '_sort' ? '_order' : 'order'
  const otherOrder = orderName === '_order' ? 'order' : '_order'
  if (query.has(otherOrder)) invalid(otherOrder, given ? `goes with "${otherOrder === 'order' ? 'sort' : '_sort'}", not "${given.name}"` : 'needs a sort field')
  const orderRaw = single(query, orderName)
  if (given === null) {
    if (orderRaw !== null && !['asc', 'desc'].includes(orderRaw)) invalid(orderName, `must be "asc" or "desc", got "${orderRaw}"`)
    return []
  }
  const keys = commaList(given.name, given.value).map((item) => {
    const descending = item.startsWith('-')
    return { field: checkFieldName(given.name, descending ? item.slice(1) : item), descending }
  })
  if (keys.length > MAX_SORT_FIELDS) invalid(given.name, `names ${keys.length} fields: at most ${MAX_SORT_FIELDS}`)
  if (orderRaw !== null) {
    const orders = commaList(orderName, orderRaw)
    for (const order of orders) if (order !== 'asc' && order !== 'desc') invalid(orderName, `must be "asc" or "desc" (comma-separated for several fields), got "${order}"`)
    if (orders.length > keys.length) invalid(orderName, `gives ${orders.length} orders for ${keys.length} sort fields`)
    if (orderName === 'order' && keys.length > 1) invalid('order', 'applies to a single sort field; write "-field" for a descending one')
    orders.forEach((order, at) => {
      if (keys[at]!.descending && order === 'asc') invalid(orderName, `says "asc" for "-${keys[at]!.field}"`)
      keys[at]!.descending = keys[at]!.descending || order === 'desc'
    })
  }
  return keys
}

interface Slice {
  limit: number | null
  offset: number
  paging: Paging | null
}

function parseSlice(query: URLSearchParams, envelope: boolean): Slice {
  const start = oneOf(query, ['_start'])
  const end = oneOf(query, ['_end'])
  const pageGiven = oneOf(query, ['page', '_page'])
  if (start !== null || end !== null) {
    const slicer = (start ?? end)!.name
    for (const name of ['page', '_page', 'limit', '_per_page']) if (query.has(name)) invalid(name, `cannot be given with "${slicer}" (a slice is _start with _end or _limit)`)
    if (envelope) invalid('_envelope', `pages the list, which cannot be given with "${slicer}"`)
    const offset = start === null ? 0 : integer('_start', start.value, NATURAL, 'an integer of at least 0')
    const limitGiven = oneOf(query, ['_limit'])
    if (end !== null && limitGiven !== null) invalid('_limit', 'cannot be given with "_end"')
    if (end !== null) return { offset, limit: Math.max(0, integer('_end', end.value, NATURAL, 'an integer of at least 0') - offset), paging: null }
    return { offset, limit: positive(limitGiven), paging: null }
  }
  const limitGiven = oneOf(query, ['limit', '_limit', '_per_page'])
  let page = positive(pageGiven)
  let limit = positive(limitGiven)
  if (page === null && limit === null && !envelope) return { limit: null, offset: 0, paging: null }
  page ??= 1
  limit ??= DEFAULT_LIMIT
  // Unnamed, the spelling follows the other name given, else the dialect asked for: the envelope is 1.x's
  // (`_per_page`), and `_page` alone is 0.17's, whose `_limit` defaults to 10 with it.
  const pageName = pageGiven?.name ?? (limitGiven === null ? (envelope ? '_page' : 'page') : limitGiven.name === 'limit' ? 'page' : '_page')
  const limitName = limitGiven?.name ?? (pageName === 'page' ? 'limit' : envelope ? '_per_page' : '_limit')
  return { limit, offset: offsetOf(page, limit, pageName), paging: { page, limit, pageName, limitName } }
}

/** The `_like` patterns of one key, any of which a value must match; together they cost at most one pattern's budget. */
function likeMatcher(parameter: string, patterns: string[]): (text: string) => boolean {
  const regexes = patterns.map((pattern) => {
    if (pattern.length > MAX_PATTERN_LENGTH) invalid(parameter, `is a pattern of ${pattern.length} characters, at most ${MAX_PATTERN_LENGTH}`)
    try {
      return compileSafeRegex(pattern, { ignoreCase: true })
    } catch (error) {
      if (error instanceof UnsafePatternError) invalid(parameter, `holds the pattern ${JSON.stringify(pattern)}, which cannot be used: ${error.reason}`)
      throw error
    }
  })
  const size = regexes.reduce((sum, regex) => sum + regex.programSize, 0)
  if (size > MAX_PATTERN_PROGRAM) {
    invalid(parameter, `${patterns.length > 1 ? 'holds patterns' : 'is a pattern'} too costly to run on every record (${size} RE2 instructions, at most ${MAX_PATTERN_PROGRAM})`)
  }
  return (text) => regexes.some((regex) => regex.test(text))
}

/** Operators a repeated key ORs, as a repeated equality does (json-server 0.17 reads `title_like=a&title_like=b` so); the comparisons would be ambiguous. */
const REPEATABLE = new Set<FilterOperator>(['eq', 'ne', 'in', 'like', 'contains', 'startsWith', 'endsWith'])

function condition(key: string, field: string, op: FilterOperator, values: string[]): PendingCondition {
  checkFieldName(key, field)
  if (op === 'in') return { field, op, values: values.flatMap((value) => value.split(',')) }
  if (!REPEATABLE.has(op) && values.length > 1) invalid(key, `must be given once (a repeated "${op}" would be ambiguous: write the range with two operators, e.g. "gte" and "lte")`)
  if (op === 'like') return { field, op, values, matches: likeMatcher(key, values) }
  return { field, op, values }
}

function parseConditions(query: URLSearchParams): PendingCondition[] {
  const byKey = new Map<string, string[]>()
  for (const [key, value] of query) {
    if (PLAIN_CONTROL.has(key) || (key.startsWith('_') && !key.includes(':'))) continue
    const values = byKey.get(key)
    if (values) values.push(value)
    else byKey.set(key, [value])
  }
  if (byKey.size > MAX_FILTER_FIELDS) invalid([...byKey.keys()][MAX_FILTER_FIELDS]!, `is one filter too many (at most ${MAX_FILTER_FIELDS} fields)`)
  return [...byKey].map(([key, values]) => {
    const colon = key.lastIndexOf(':')
    if (colon > 0) {
      const op = key.slice(colon + 1)
      if (!OPERATORS.has(op as FilterOperator)) invalid(key, `uses the operator "${op}", which is not one of ${[...OPERATORS].join(', ')}`)
      return condition(key, key.slice(0, colon), op as FilterOperator, values)
    }
    const suffix = SUFFIX.exec(key)
    if (suffix) {
      // Compiling now refuses a bad `_like` pattern even when the key turns out to be a field of its own: the one 400 is clearer than a filter that never matches.
      return { ...condition(key, suffix[1]!, suffix[2] as FilterOperator, values), suffixOf: checkFieldName(key, key) }
    }
    return condition(key, key, 'eq', values)
  })
}

function parseFields(query: URLSearchParams): string[] | null {
  const given = oneOf(query, ['fields', '_fields'])
  if (given === null) return null
  const fields = commaList(given.name, given.value).map((field) => checkFieldName(given.name, field))
  if (fields.length > MAX_FIELDS) invalid(given.name, `names ${fields.length} fields: at most ${MAX_FIELDS}`)
  return fields
}

function parseEnvelope(query: URLSearchParams): boolean {
  const raw = single(query, '_envelope')
  if (raw !== null && raw !== 'true' && raw !== 'false') invalid('_envelope', `must be "true" or "false", got "${raw}"`)
  return raw === 'true'
}

/** A list's parameters; `refuseUnknownParameters('list', …)` has run. */
export function parseListParams(query: URLSearchParams): ListParams {
  const q = oneOf(query, ['q'])
  const envelope = parseEnvelope(query)
  return {
    conditions: parseConditions(query),
    q: q === null || q.value === '' ? null : q.value.toLowerCase(),
    sort: parseSort(query),
    ...parseSlice(query, envelope),
    envelope,
    fields: parseFields(query),
  }
}

/** What a single record's GET reads from its query: `_fields`; other plain names are ignored, as before. `refuseUnknownParameters('read', …)` has run. */
export function parseItemParams(query: URLSearchParams): { fields: string[] | null } {
  return { fields: parseFields(query) }
}

/**
 * A 0.17 suffix is an operator unless the collection has a field with that whole name
 * (`price_gte` of a price list stays an equality filter); `hasField` says.
 */
export function resolveSuffixes(conditions: PendingCondition[], hasField: (field: string) => boolean): FieldCondition[] {
  return conditions.map(({ suffixOf, ...condition }) =>
    suffixOf !== undefined && hasField(suffixOf) ? { field: suffixOf, op: 'eq', values: condition.values } : condition)
}
