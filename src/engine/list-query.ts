import { AppError } from '../errors.ts'
import type { FieldFilter } from '../model.ts'

/** The list parameters (docs/mocking.md, "Resources"), read from a query string; every other key is a filter. */
export interface ListParams {
  filters: FieldFilter[]
  sort: { field: string; descending: boolean } | null
  page: number | null
  limit: number | null
  /** Records skipped before the page: (page - 1) × limit. */
  offset: number
}

// The relations' parameters (domain/relations.ts) are read there, never filters.
const CONTROL = new Set(['sort', 'order', 'page', 'limit', '_embed', '_expand', '_dependent'])
const POSITIVE_INT = /^[1-9][0-9]*$/
const DEFAULT_LIMIT = 10
const MAX_FILTER_FIELDS = 32

function invalid(parameter: string, message: string): never {
  throw new AppError('INVALID_QUERY', `query parameter "${parameter}" ${message}`, { details: [{ parameter, message }] })
}

function single(query: URLSearchParams, name: string): string | null {
  const values = query.getAll(name)
  if (values.length > 1) invalid(name, 'must be given once')
  return values[0] ?? null
}

function positiveInt(query: URLSearchParams, name: string): number | null {
  const raw = single(query, name)
  if (raw === null) return null
  const value = Number(raw)
  if (!POSITIVE_INT.test(raw) || !Number.isSafeInteger(value)) invalid(name, `must be an integer of at least 1, got "${raw}"`)
  return value
}

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
function offsetOf(page: number | null, limit: number | null): number {
  if (page === null || limit === null) return 0
  const offset = (page - 1) * limit
  if (!Number.isSafeInteger(offset)) invalid('page', `is ${page} with limit ${limit}: that page starts past the last record any list can hold ((page - 1) × limit must stay under 2^53)`)
  return offset
}

/** `page`/`limit` alone (the inbox and other management lists). */
export function parsePaging(query: URLSearchParams): { limit: number | null; offset: number } {
  const page = positiveInt(query, 'page')
  const limit = positiveInt(query, 'limit') ?? (page !== null ? DEFAULT_LIMIT : null)
  return { limit, offset: offsetOf(page, limit) }
}

export function parseListParams(query: URLSearchParams): ListParams {
  const sortField = single(query, 'sort')
  const order = single(query, 'order')
  if (order !== null && order !== 'asc' && order !== 'desc') invalid('order', `must be "asc" or "desc", got "${order}"`)
  if (sortField === '') invalid('sort', 'must name a field')

  const page = positiveInt(query, 'page')
  const limit = positiveInt(query, 'limit')

  const byField = new Map<string, string[]>()
  for (const [key, value] of query) {
    if (CONTROL.has(key)) continue
    const values = byField.get(key)
    if (values) values.push(value)
    else byField.set(checkFieldName(key, key), [value])
  }
  if (byField.size > MAX_FILTER_FIELDS) invalid([...byField.keys()][MAX_FILTER_FIELDS]!, `is one filter too many (at most ${MAX_FILTER_FIELDS} fields)`)

  const pageOrFirst = page ?? (limit !== null ? 1 : null)
  const limitOrDefault = limit ?? (page !== null ? DEFAULT_LIMIT : null)
  return {
    filters: [...byField].map(([field, values]) => ({ field, values })),
    sort: sortField === null ? null : { field: checkFieldName('sort', sortField), descending: order === 'desc' },
    page: pageOrFirst,
    limit: limitOrDefault,
    offset: offsetOf(pageOrFirst, limitOrDefault),
  }
}
