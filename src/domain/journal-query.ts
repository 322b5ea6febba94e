import type { Difference, JournalFilter } from '../events.ts'
import type { RequestFacts } from '../engine/conditions.ts'
import { journalFacts } from '../engine/journal-facts.ts'
import { compileFilter, type CompiledFilter, type JournalSubject } from '../engine/journal-filter.ts'
import { headerPairs, type JournalRecord } from './journal.ts'

/** How many of the requests that did not match a query are shown as the closest: WireMock shows 3. */
export const CLOSEST_SHOWN = 3

/** A kept record as a filter reads it: its facts are built only when a `when` asks, once. */
export function subjectOf(record: JournalRecord): JournalSubject {
  let facts: RequestFacts | null = null
  let withBody = false
  return {
    id: record.id,
    at: record.at,
    method: record.method,
    path: record.path,
    status: record.status,
    matched: record.matched,
    endpointId: record.endpointId,
    bodyCut: record.bodySize > (record.body?.byteLength ?? 0) ? { kept: record.body?.byteLength ?? 0, size: record.bodySize } : null,
    facts(needsBody) {
      if (facts === null || (needsBody && !withBody)) {
        facts = journalFacts({ ...record, headers: headerPairs(record.rawHeaders) }, needsBody)
        withBody = needsBody
      }
      return facts
    },
  }
}

export interface JournalAnswerToQuery {
  compiled: CompiledFilter
  /** Every record the filter holds for, oldest first (the limit not applied). */
  matching: JournalRecord[]
}

/** The records of a journal a filter holds for; `now` is what `since` counts back from. */
export function queryJournal(records: readonly JournalRecord[], filter: JournalFilter, now: number): JournalAnswerToQuery {
  const compiled = compileFilter(filter, now)
  return { compiled, matching: records.filter((record) => compiled.matches(subjectOf(record))) }
}

/** The newest `limit` of the matching records, newest first (as the API and the CLI list them). */
export function newestFirst<T>(matching: readonly T[], limit: number): T[] {
  return matching.slice(-limit).reverse()
}

/**
 * The records that came closest to a filter none of them matched, closest first: fewest
 * differences, then the newest (the request a test just made is the likeliest meant).
 */
export function closestRecords(records: readonly JournalRecord[], compiled: CompiledFilter, shown = CLOSEST_SHOWN): { record: JournalRecord; differences: Difference[] }[] {
  return records
    .map((record, index) => ({ record, index, differences: compiled.explain(subjectOf(record)) }))
    .filter(({ differences }) => differences.length > 0)
    .sort((a, b) => a.differences.length - b.differences.length || b.index - a.index)
    .slice(0, shown)
    .map(({ record, differences }) => ({ record, differences }))
}
