import { AppError } from '../errors.ts'
import type { Difference, JournalFilter } from '../events.ts'
import { compileWhen, ConditionError, requestBudget, whenMisses, type CompiledWhen, type CutBody, type RequestFacts } from './conditions.ts'
import { pathDifferences } from './near-miss.ts'
import { createRouter, splitPath } from './router.ts'
import { SINCE_FORMS, sinceTime } from './since.ts'

/*
 * Which journal entries a query, a count or a verify means (docs/testing.md): read from a query
 * string (GET …/requests) or an object (POST …/requests/find, the test API), checked field by
 * field, then compiled once to a test of each entry and an explanation of why one did not match.
 */

/** An entry as a filter reads it: its head at once, its facts (query, headers, cookies, body) only for a `when`. */
export interface JournalSubject {
  id: number
  /** When it came in (epoch ms). */
  at: number
  method: string
  /** As sent, percent-encoded, without the query. */
  path: string
  status: number
  matched: boolean
  endpointId: number | null
  /** Set when the journal kept only the start of the body: a body condition that fails was not tested on what was sent. */
  bodyCut: CutBody | null
  facts(needsBody: boolean): RequestFacts
}

export interface CompiledFilter {
  matches(subject: JournalSubject): boolean
  /** What kept an entry from matching, one difference per failed field or condition; empty when it matches. */
  explain(subject: JournalSubject): Difference[]
  limit?: number
}

export const MAX_LIMIT = 10_000
export const FILTER_FIELDS = ['project', 'method', 'path', 'status', 'matched', 'endpointId', 'since', 'after', 'limit', 'when'] as const
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']
const MAX_PATH_LENGTH = 2_048
const MAX_STATUS_ITEMS = 20
const ID = /^(?:0|[1-9][0-9]{0,15})$/

type Refuse = (field: string, message: string) => never

function refuser(fromQuery: boolean): Refuse {
  return (field, message) => {
    throw new AppError(fromQuery ? 'INVALID_QUERY' : 'INVALID_INPUT', `${fromQuery ? 'query parameter ' : ''}"${field}" ${message}`, { details: [{ field, message }] })
  }
}

function methodsOf(raw: unknown, refuse: Refuse): string[] {
  const items = typeof raw === 'string' ? raw.split(',') : Array.isArray(raw) && raw.every((item) => typeof item === 'string') ? (raw as string[]).flatMap((item) => item.split(',')) : null
  if (items === null) refuse('method', `must be a method or a list of methods, got ${JSON.stringify(raw)}`)
  const methods = new Set<string>()
  for (const item of items) {
    const method = item.trim().toUpperCase()
    if (!METHODS.includes(method)) refuse('method', `"${item.trim()}" is not an HTTP method; use ${METHODS.join(', ')}`)
    methods.add(method)
  }
  if (methods.size === 0) refuse('method', 'must name at least one method')
  return [...methods]
}

function pathOf(raw: unknown, refuse: Refuse): string {
  if (typeof raw !== 'string') refuse('path', `must be a path pattern such as /api/shop/orders/*, got ${JSON.stringify(raw)}`)
  if (!raw.startsWith('/')) refuse('path', `must start with /, got "${raw}"`)
  if (raw.length > MAX_PATH_LENGTH) refuse('path', `is longer than ${MAX_PATH_LENGTH} characters`)
  if (raw.includes('?') || raw.includes('#')) refuse('path', `is matched without the query: test the query with when.query, got "${raw}"`)
  const segments = splitPath(raw)
  if (segments.slice(1, -1).includes('**')) {
    refuse('path', `may start with ** (any prefix: /**/orders) or end with it (the rest: /api/shop/**), not have it in the middle: got "${raw}"`)
  }
  return raw
}

/** Inclusive ranges of statuses; [0, 0] is a fault (no response). */
function statusRanges(raw: unknown, refuse: Refuse): [number, number][] {
  const text = typeof raw === 'number' ? String(raw) : raw
  if (typeof text !== 'string') refuse('status', `must be a status, a class (4xx), a range (400-499) or a comma list of these, got ${JSON.stringify(raw)}`)
  const items = text.split(',').map((item) => item.trim())
  if (items.length > MAX_STATUS_ITEMS) refuse('status', `lists at most ${MAX_STATUS_ITEMS} items`)
  const code = (item: string): number => {
    const value = Number(item)
    if (!/^\d{1,3}$/.test(item) || (value !== 0 && (value < 100 || value > 599))) refuse('status', `"${item}" is not a status (100 to 599, or 0 for a fault); use 201, 4xx, 400-499 or a comma list`)
    return value
  }
  return items.map((item): [number, number] => {
    const kind = /^([1-5])xx$/i.exec(item)
    if (kind) return [Number(kind[1]) * 100, Number(kind[1]) * 100 + 99]
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(item)
    if (range) {
      const [low, high] = [code(range[1]!), code(range[2]!)]
      if (low > high) refuse('status', `range "${item}" runs backwards`)
      return [low, high]
    }
    const single = code(item)
    return [single, single]
  })
}

function sinceOf(raw: unknown, now: number, refuse: Refuse): number {
  return sinceTime(raw, now) ?? refuse('since', `must be ${SINCE_FORMS}, got ${JSON.stringify(raw)}`)
}

function integerOf(field: string, raw: unknown, min: number, max: number, refuse: Refuse): number {
  const value = typeof raw === 'string' && ID.test(raw.trim()) ? Number(raw.trim()) : raw
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    refuse(field, `must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`)
  }
  return value
}

function booleanOf(field: string, raw: unknown, refuse: Refuse): boolean {
  if (raw === true || raw === 'true') return true
  if (raw === false || raw === 'false') return false
  return refuse(field, `must be true or false, got ${JSON.stringify(raw)}`)
}

function compiledWhen(raw: unknown, refuse: Refuse): CompiledWhen {
  try {
    return compileWhen(raw, 'when')
  } catch (error) {
    if (error instanceof ConditionError) refuse(error.path, error.message.slice(error.path.length + 2))
    throw error
  }
}

/** The fields given: a query string's (empty values are not given; method and status may repeat), or an object's. */
function fieldsOf(input: unknown, refuse: Refuse): Map<string, unknown> {
  const fields = new Map<string, unknown>()
  const known = (field: string) => {
    if (!(FILTER_FIELDS as readonly string[]).includes(field)) refuse(field, `is not a filter; use ${FILTER_FIELDS.join(', ')}`)
  }
  if (input instanceof URLSearchParams) {
    for (const [field, value] of input) {
      known(field)
      if (field === 'when') refuse('when', 'is a condition object: send it in the body of POST …/requests/find')
      if (value.trim() === '') continue
      const before = fields.get(field)
      if (before !== undefined && field !== 'method' && field !== 'status') refuse(field, 'must be given once')
      fields.set(field, before === undefined ? value : `${before as string},${value}`)
    }
    return fields
  }
  if (input === undefined || input === null) return fields
  if (typeof input !== 'object' || Array.isArray(input)) refuse('filter', `must be an object of ${FILTER_FIELDS.join(', ')}, got ${JSON.stringify(input)}`)
  for (const [field, value] of Object.entries(input)) {
    known(field)
    if (value !== undefined && value !== null) fields.set(field, value)
  }
  return fields
}

interface Checked {
  filter: JournalFilter
  methods: ReadonlySet<string> | null
  statuses: [number, number][] | null
  since: number | null
  when: CompiledWhen | null
}

function check(input: unknown, now: number): Checked {
  const refuse: Refuse = refuser(input instanceof URLSearchParams)
  const fields = fieldsOf(input, refuse)
  const filter: JournalFilter = {}
  const checked: Checked = { filter, methods: null, statuses: null, since: null, when: null }
  for (const [field, raw] of fields) {
    switch (field) {
      case 'project':
        if (typeof raw !== 'string' || raw.trim() === '') refuse('project', `must be a project's slug, got ${JSON.stringify(raw)}`)
        filter.project = raw.trim()
        break
      case 'method':
        filter.method = methodsOf(raw, refuse)
        checked.methods = new Set(filter.method)
        break
      case 'path':
        filter.path = pathOf(raw, refuse)
        break
      case 'status':
        checked.statuses = statusRanges(raw, refuse)
        filter.status = typeof raw === 'number' ? String(raw) : (raw as string).split(',').map((item) => item.trim().toLowerCase()).join(',')
        break
      case 'matched':
        filter.matched = booleanOf('matched', raw, refuse)
        break
      case 'endpointId':
        filter.endpointId = integerOf('endpointId', raw, 1, Number.MAX_SAFE_INTEGER, refuse)
        break
      case 'since':
        checked.since = sinceOf(raw, now, refuse)
        filter.since = new Date(checked.since).toISOString()
        break
      case 'after':
        filter.after = integerOf('after', raw, 0, Number.MAX_SAFE_INTEGER, refuse)
        break
      case 'limit':
        filter.limit = integerOf('limit', raw, 1, MAX_LIMIT, refuse)
        break
      case 'when':
        checked.when = compiledWhen(raw, refuse)
        filter.when = raw as Record<string, unknown>
        break
    }
  }
  return checked
}

/**
 * A filter checked and written plainly: methods upper case, `since` an ISO time (a span is taken
 * back from `now`). Throws AppError INVALID_QUERY (a query string) or INVALID_INPUT (an object)
 * naming the field, as `details: [{field, message}]`; a `when` as the response rules' are checked.
 */
export function parseFilter(input: URLSearchParams | unknown, now: number): JournalFilter {
  return check(input, now).filter
}

/** A path as sent, in segments as the router reads them (a malformed escape stays as sent). */
function decodedSegments(path: string): string[] {
  return splitPath(path).map((segment) => {
    if (!segment.includes('%')) return segment
    try {
      return decodeURIComponent(segment)
    } catch {
      return segment
    }
  })
}

const inRanges = (ranges: readonly [number, number][], status: number) => ranges.some(([low, high]) => status >= low && status <= high)

/**
 * A test of a path's segments against a filter's `path`, by the router the endpoints use. A first
 * segment `**` (any prefix, none included), which no route has, is matched on the ends of the path:
 * the one as long as the rest of the pattern, or, when that ends with `**` too, every place the
 * rest's fixed segments may start.
 */
function pathTest(path: string): (segments: readonly string[]) => boolean {
  const written = splitPath(path)
  const anyPrefix = written.length > 1 && written[0] === '**'
  const fixed = anyPrefix ? written.slice(1, written.at(-1) === '**' ? -1 : undefined) : written
  const router = createRouter([{ method: 'ANY', segments: fixed, value: true }])
  const found = (segments: readonly string[]) => router.match('ANY', segments).kind === 'found'
  if (!anyPrefix) return found
  if (fixed.length === written.length - 1) return (segments) => segments.length >= fixed.length && found(segments.slice(segments.length - fixed.length))
  return (segments) => {
    for (let start = 0; start + fixed.length <= segments.length; start += 1) if (found(segments.slice(start, start + fixed.length))) return true
    return false
  }
}

/**
 * A filter (checked again, INVALID_INPUT) compiled once. `path` is matched by the router the
 * endpoints use, so `*`, `**`, `:name` and mixed segments mean what they mean there, and a leading
 * `**` any prefix; the request's path is matched as sent, `/api/shop/…` included. A `when` reads an entry's facts only once its
 * head matched, within one request's budget each, as a response rule does.
 */
export function compileFilter(filter: JournalFilter, now: number): CompiledFilter {
  const { filter: checked, methods, statuses, since, when } = check(filter, now)
  const pathFound = checked.path === undefined ? null : pathTest(checked.path)
  const pathMatches = (path: string) => pathFound === null || pathFound(decodedSegments(path))
  const headMatches = (subject: JournalSubject): boolean =>
    (checked.after === undefined || subject.id > checked.after)
    && (since === null || subject.at >= since)
    && (methods === null || methods.has(subject.method))
    && (statuses === null || inRanges(statuses, subject.status))
    && (checked.matched === undefined || subject.matched === checked.matched)
    && (checked.endpointId === undefined || subject.endpointId === checked.endpointId)
    && pathMatches(subject.path)
  const compiled: CompiledFilter = {
    matches: (subject) => headMatches(subject) && (when === null || when.test(subject.facts(when.readsBody), requestBudget())),
    explain(subject) {
      const differences: Difference[] = []
      const differ = (what: Difference['what'], at: string, expected: string, received: string | null, text: string) => differences.push({ what, at, expected, received, text })
      if (methods !== null && !methods.has(subject.method)) differ('method', 'method', [...methods].join(' or '), subject.method, `method ${subject.method}, expected ${[...methods].join(' or ')}`)
      if (checked.path !== undefined && !pathMatches(subject.path)) {
        const segments = pathDifferences(checked.path, decodedSegments(subject.path))
        differences.push(...(segments.length > 0 ? segments : [{ what: 'segment' as const, at: 'path', expected: checked.path, received: subject.path, text: `path ${subject.path}, expected ${checked.path}` }]))
      }
      if (statuses !== null && !inRanges(statuses, subject.status)) differ('status', 'status', String(checked.status), String(subject.status), `status ${subject.status}, expected ${String(checked.status)}`)
      if (checked.matched !== undefined && subject.matched !== checked.matched) {
        differ('matched', 'matched', String(checked.matched), String(subject.matched), checked.matched ? 'no endpoint matched it' : 'an endpoint matched it')
      }
      if (checked.endpointId !== undefined && subject.endpointId !== checked.endpointId) {
        const received = subject.endpointId === null ? null : String(subject.endpointId)
        differ('condition', 'endpointId', String(checked.endpointId), received, `endpoint ${received ?? 'none'}, expected ${checked.endpointId}`)
      }
      if (since !== null && subject.at < since) differ('time', 'since', checked.since!, new Date(subject.at).toISOString(), `came in at ${new Date(subject.at).toISOString()}, before ${checked.since!}`)
      if (checked.after !== undefined && subject.id <= checked.after) differ('time', 'after', `after #${checked.after}`, `#${subject.id}`, `#${subject.id} is not after #${checked.after}`)
      if (checked.when !== undefined) {
        for (const miss of whenMisses(checked.when, subject.facts(when!.readsBody), subject.bodyCut)) differ('condition', miss.at, miss.expected, miss.received, miss.text)
      }
      return differences
    },
  }
  if (checked.limit !== undefined) compiled.limit = checked.limit
  return compiled
}
