import type { Difference, JournalFilter } from '../events.ts'
import type { RequestFacts } from '../engine/conditions.ts'
import { journalFacts } from '../engine/journal-facts.ts'
import { compileFilter, type CompiledFilter, type JournalSubject } from '../engine/journal-filter.ts'
import { headerPairs, type JournalRecord } from './journal.ts'

/** How many of the requests that did not match a query are shown as the closest: WireMock shows 3. */
export const CLOSEST_SHOWN = 3

/** A kept record as a filter reads it: its facts are built only when a `when` asks, once. */
export function subjectOf(record: JournalRecord): JournalSubject & { factsBuilt(): boolean } {
  let facts: RequestFacts | null = null
  let withBody = false
  // The kept body's length, taken when the facts are built: its bytes are read once per build.
  let kept: number | null = null
  const keptLength = () => kept ?? record.body?.byteLength ?? 0
  return {
    id: record.id,
    at: record.at,
    method: record.method,
    path: record.path,
    status: record.status,
    matched: record.matched,
    endpointId: record.endpointId,
    get bodyCut() {
      const length = keptLength()
      return record.bodySize > length ? { kept: length, size: record.bodySize } : null
    },
    facts(needsBody) {
      if (facts === null || (needsBody && !withBody)) {
        const { body } = record
        kept = body?.byteLength ?? 0
        facts = journalFacts({ method: record.method, path: record.path, search: record.search, headers: headerPairs(record.headerLines), body, contentType: record.contentType, params: record.params }, needsBody)
        withBody = needsBody
      }
      return facts
    },
    factsBuilt: () => facts !== null,
  }
}

export interface JournalAnswerToQuery {
  /** Every record the filter holds for, oldest first (the limit not applied). */
  matching: JournalRecord[]
}

/** The records of a journal a filter holds for; `now` is what `since` counts back from. */
export function queryJournal(records: readonly JournalRecord[], filter: JournalFilter, now: number): JournalAnswerToQuery {
  const compiled = compileFilter(filter, now)
  return { matching: records.filter((record) => compiled.matches(subjectOf(record))) }
}

/**
 * What `limit` keeps of the matching records (oldest first), in their order: the newest that many;
 * with `after`, the oldest that many after it, so that a poller moving its cursor to the largest
 * id it got sees every entry once (`X-Total-Count` telling it more are waiting).
 */
export function pageOf<T>(matching: readonly T[], page: { limit?: number | undefined; after?: number | undefined }): T[] {
  if (page.limit === undefined) return [...matching]
  return page.after === undefined ? matching.slice(-page.limit) : matching.slice(0, page.limit)
}

export interface Closest {
  record: JournalRecord
  differences: Difference[]
}

export interface JournalSearch extends JournalAnswerToQuery {
  /**
   * The records that came closest to the filter, closest first: fewest differences, then the
   * newest (the request a test just made is the likeliest meant).
   */
  closest(): Closest[]
}

/**
 * A query whose closest records may be shown (find, verify), reading each record once. A record
 * whose facts the filter read (its head matched, its `when` did not) is explained at once, while
 * they are built, as long as none matched: a find shows the closest only then. A verify wanting
 * more than matched explains the records after the first match afresh.
 */
export function searchJournal(records: readonly JournalRecord[], filter: JournalFilter, now: number): JournalSearch {
  const compiled = compileFilter(filter, now)
  const matching: JournalRecord[] = []
  const explained = new Map<JournalRecord, Difference[]>()
  for (const record of records) {
    const subject = subjectOf(record)
    if (compiled.matches(subject)) {
      matching.push(record)
      explained.set(record, [])
    } else if (matching.length === 0 && subject.factsBuilt()) {
      explained.set(record, compiled.explain(subject))
    }
  }
  return { matching, closest: () => closestOf(records, compiled, explained) }
}

/**
 * The CLOSEST_SHOWN closest records, read newest first: a record kept is newer than any still to
 * read, so a later one must differ in fewer things to come before it. Once the last kept differs
 * in one thing only, none can: the rest is not explained (nor its bodies read).
 */
function closestOf(records: readonly JournalRecord[], compiled: CompiledFilter, explained: ReadonlyMap<JournalRecord, Difference[]>): Closest[] {
  const closest: Closest[] = []
  for (let index = records.length - 1; index >= 0; index -= 1) {
    const last = closest.length === CLOSEST_SHOWN ? closest[CLOSEST_SHOWN - 1]!.differences.length : Number.POSITIVE_INFINITY
    if (last <= 1) break
    const record = records[index]!
    const differences = explained.get(record) ?? compiled.explain(subjectOf(record))
    // None: it matched, or a test was skipped for cost; neither is a near miss.
    if (differences.length === 0 || differences.length >= last) continue
    const at = closest.findIndex((kept) => kept.differences.length > differences.length)
    closest.splice(at < 0 ? closest.length : at, 0, { record, differences })
    closest.length = Math.min(closest.length, CLOSEST_SHOWN)
  }
  return closest
}
