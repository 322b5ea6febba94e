import { AppError } from '../errors.ts'
import type { JournalEntry, JournalFilter, VerifyCount } from '../events.ts'
import { parseFilter } from '../engine/journal-filter.ts'
import type { JournalRecord } from './journal.ts'
import { pageOf, queryJournal, searchJournal } from './journal-query.ts'
import { entryOf, maskDifference, type Masking } from './journal-view.ts'
import { formatUnmatchedFailure, formatVerifyFailure } from './verify-report.ts'

/*
 * The journal as a test suite reads it in process (`startMockApi`: requests, count, verify,
 * verifyNoUnmatched): the same filters as the management API, entries raw for the test's own
 * eyes, and a failure message masked, since it ends up in CI logs.
 */

/** One project's journal. */
export interface ProjectJournal {
  records: readonly JournalRecord[]
  /** The project's secret names, read only when a message must mask them. */
  masking(): Masking
}

export interface JournalScope extends ProjectJournal {
  slug: string
}

export interface JournalAccess {
  /** What `since` counts back from. */
  now(): number
  /** A project's journal by slug; without one, the test's project. */
  project(slug: string | undefined): JournalScope
  /** Every project's journal that kept anything. */
  all(): ProjectJournal[]
}

function parsed(filter: JournalFilter | undefined, access: JournalAccess): { filter: JournalFilter; scope: JournalScope; now: number } {
  const now = access.now()
  const checked = parseFilter(filter ?? {}, now)
  return { filter: checked, scope: access.project(checked.project), now }
}

/** A count of every match: `limit` only bounds what `requests()` lists, so here it is a mistake. */
function refuseLimit(filter: JournalFilter, what: string): void {
  if (filter.limit !== undefined) {
    throw new AppError('INVALID_INPUT', `"limit" bounds what requests() lists; ${what} counts every matching request`, { details: [{ field: 'limit', message: 'not taken here' }] })
  }
}

/** The matching requests, oldest first (the order they were sent), raw; `limit` keeps what pageOf says. */
export function listRequests(access: JournalAccess, filter?: JournalFilter): JournalEntry[] {
  const { filter: checked, scope, now } = parsed(filter, access)
  return pageOf(queryJournal(scope.records, checked, now).matching, checked).map((record) => entryOf(record, { mask: null }))
}

export function countRequests(access: JournalAccess, filter?: JournalFilter): number {
  const { filter: checked, scope, now } = parsed(filter, access)
  refuseLimit(checked, 'count()')
  return queryJournal(scope.records, checked, now).matching.length
}

const COUNT_FIELDS = ['times', 'atLeast', 'atMost'] as const

/** A verify's count checked: non-negative integers, `times` alone or a range; none given means at least 1. */
export function checkVerifyCount(count: unknown): VerifyCount {
  const refuse = (field: string, message: string): never => {
    throw new AppError('INVALID_INPUT', `verify count: "${field}" ${message}`, { details: [{ field, message }] })
  }
  if (count === undefined) return { atLeast: 1 }
  if (count === null || typeof count !== 'object' || Array.isArray(count)) return refuse('count', `must be an object of ${COUNT_FIELDS.join(', ')}, got ${JSON.stringify(count)}`)
  const checked: VerifyCount = {}
  for (const [field, value] of Object.entries(count)) {
    if (!(COUNT_FIELDS as readonly string[]).includes(field)) refuse(field, `is not a count; use ${COUNT_FIELDS.join(', ')}`)
    if (value === undefined) continue
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) refuse(field, `must be an integer of 0 or more, got ${JSON.stringify(value)}`)
    checked[field as keyof VerifyCount] = value
  }
  if (checked.times !== undefined && (checked.atLeast !== undefined || checked.atMost !== undefined)) {
    refuse('times', 'is an exact count: give it alone, or atLeast and atMost without it')
  }
  if (checked.atLeast !== undefined && checked.atMost !== undefined && checked.atLeast > checked.atMost) {
    refuse('atLeast', `(${checked.atLeast}) is more than atMost (${checked.atMost})`)
  }
  return Object.keys(checked).length === 0 ? { atLeast: 1 } : checked
}

function accepts(count: VerifyCount, matched: number): boolean {
  if (count.times !== undefined) return matched === count.times
  return matched >= (count.atLeast ?? 0) && matched <= (count.atMost ?? Number.POSITIVE_INFINITY)
}

/**
 * Throws AppError VERIFICATION_FAILED unless the number of requests matching `filter` is what
 * `count` accepts. The message shows, masked, the closest requests and what differed when too few
 * matched, the matching ones when too many, and the requests no endpoint matched.
 */
export function verifyRequests(access: JournalAccess, filter: JournalFilter, count?: VerifyCount): void {
  const expected = checkVerifyCount(count)
  const { filter: checked, scope, now } = parsed(filter, access)
  refuseLimit(checked, 'verify()')
  const search = searchJournal(scope.records, checked, now)
  const { matching } = search
  if (accepts(expected, matching.length)) return
  const mask = scope.masking()
  const tooFew = matching.length < (expected.times ?? expected.atLeast ?? 0)
  const shown = tooFew
    ? search.closest().map(({ record, differences }) => ({ entry: entryOf(record, { mask }), differences: differences.map((difference) => maskDifference(difference, mask)) }))
    : matching.map((record) => ({ entry: entryOf(record, { mask }), differences: [] }))
  const message = formatVerifyFailure({
    filter: checked,
    count: expected,
    matched: matching.length,
    total: scope.records.length,
    project: scope.slug,
    entries: shown,
    unmatched: scope.records.filter((record) => !record.matched).map((record) => record.id),
  })
  throw new AppError('VERIFICATION_FAILED', message, { details: { expected, received: matching.length, requests: shown.map(({ entry }) => entry) } })
}

/** Throws AppError VERIFICATION_FAILED listing, masked and with their near misses, the requests of any project that no endpoint matched. */
export function verifyNoUnmatched(access: JournalAccess): void {
  const scopes = access.all()
  const unmatched = scopes
    .flatMap((scope) => scope.records.filter((record) => !record.matched).map((record) => ({ record, scope })))
    .sort((a, b) => a.record.id - b.record.id)
  if (unmatched.length === 0) return
  const masks = new Map<ProjectJournal, Masking>()
  const maskOf = (scope: ProjectJournal) => masks.get(scope) ?? masks.set(scope, scope.masking()).get(scope)!
  const shown = unmatched.map(({ record, scope }) => entryOf(record, { mask: maskOf(scope) }))
  const total = scopes.reduce((sum, scope) => sum + scope.records.length, 0)
  throw new AppError('VERIFICATION_FAILED', formatUnmatchedFailure(shown, total), { details: { expected: { times: 0 }, received: unmatched.length, requests: shown } })
}
