import { describeWhen } from '../engine/conditions.ts'
import type { Difference, JournalEntry, JournalFilter, NearMiss, VerifyCount } from '../events.ts'

/** A verify that failed, as its message needs it; entries masked already (the message leaves the process in test reports). */
export interface VerifyFailure {
  filter: JournalFilter
  count: VerifyCount
  /** How many entries matched the filter. */
  matched: number
  /** How many entries were looked at (the project's journal). */
  total: number
  /** The project's slug; null: every project. */
  project: string | null
  /**
   * What to show, in order: when too few matched, the closest entries that did not, closest first,
   * with what differed; when too many, the ones that matched (no differences).
   */
  entries: { entry: JournalEntry; differences: Difference[] }[]
  /** The ids of the requests no endpoint matched, among those looked at. */
  unmatched: number[]
}

/** Past these, the message says how many more there were: a failure stays readable in a test report. */
const SHOWN_ENTRIES = 10
const SHOWN_IDS = 10
const BODY_LENGTH = 200
const LINE_LENGTH = 200

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

function cut(text: string, length: number): string {
  const line = text.replace(/\s+/g, ' ')
  return line.length > length ? `${line.slice(0, length - 1)}…` : line
}

function expectedCount(count: VerifyCount): string {
  const { times, atLeast, atMost } = count
  if (times !== undefined) return times === 0 ? 'no request' : `exactly ${plural(times, 'request')}`
  if (atLeast !== undefined && atMost !== undefined) return `between ${atLeast} and ${plural(atMost, 'request')}`
  if (atMost !== undefined) return `at most ${plural(atMost, 'request')}`
  return `at least ${plural(atLeast ?? 1, 'request')}`
}

/** The fewest a verify accepts: below it, the closest requests are shown; above its most, the ones that matched. */
function fewestAccepted(count: VerifyCount): number {
  return count.times ?? count.atLeast ?? (count.atMost === undefined ? 1 : 0)
}

/** A filter in one line: `POST /api/shop/orders, status 2xx when body.sku = A-1`. */
export function describeFilter(filter: JournalFilter): string {
  const method = filter.method === undefined ? 'any method' : [filter.method].flat().map((m) => m.toUpperCase()).join('|')
  const parts = [`${method} ${filter.path ?? 'any path'}`]
  if (filter.status !== undefined) parts.push(`status ${filter.status}`)
  if (filter.matched !== undefined) parts.push(filter.matched ? 'matched by an endpoint' : 'matched by no endpoint')
  if (filter.endpointId !== undefined) parts.push(`endpoint ${filter.endpointId}`)
  if (filter.since !== undefined) parts.push(`since ${filter.since}`)
  if (filter.after !== undefined) parts.push(`after #${filter.after}`)
  const when = filter.when === undefined ? '' : ` when ${describeWhen(filter.when)}`
  return `${parts.join(', ')}${when}`
}

function requestLine(entry: JournalEntry): string {
  const query = new URLSearchParams(Object.entries(entry.query).flatMap(([name, value]) => [value].flat().map((one): [string, string] => [name, one]))).toString()
  const target = cut(`${entry.path}${query ? `?${query}` : ''}`, LINE_LENGTH)
  let outcome: string
  if (entry.status === 0) outcome = `no response (fault${entry.fault ? ` ${entry.fault}` : ''})`
  else if (!entry.matched) outcome = `${entry.status} unmatched`
  else {
    const by = [entry.endpointId === null ? null : `endpoint ${entry.endpointId}`, entry.response === null ? null : `response ${entry.response.position}${entry.response.name ? ` "${entry.response.name}"` : ''}`].filter((part) => part !== null)
    outcome = `${entry.status}${by.length > 0 ? ` (${by.join(', ')})` : ''}${entry.fault ? `, fault ${entry.fault}` : ''}`
  }
  return `  #${entry.id} ${entry.time.slice(11, 23)} ${entry.method} ${target} → ${outcome}`
}

function nearMissLine(miss: NearMiss): string {
  return `near miss: ${miss.method} ${miss.path} (${miss.differences.map((difference) => difference.text).join('; ')})`
}

function entryLines(entry: JournalEntry, differences: readonly Difference[]): string[] {
  const lines = [requestLine(entry)]
  const detail = (text: string) => lines.push(`      ${text}`)
  for (const difference of differences) detail(`✗ ${difference.text}`)
  if (entry.note) detail(`note: ${entry.note}`)
  if (entry.body !== null && entry.body !== '') detail(`body ${cut(entry.body, BODY_LENGTH)}${entry.bodyCut ? ` (body cut at 64 KiB of ${entry.bodySize} bytes)` : ''}`)
  if (!entry.matched) {
    if (entry.nearMisses && entry.nearMisses.length > 0) for (const miss of entry.nearMisses) detail(nearMissLine(miss))
    else detail('no endpoint is close')
  }
  for (const rule of entry.ruleMisses ?? []) {
    detail(`rule ${rule.response.position}${rule.response.name ? ` "${rule.response.name}"` : ''} did not hold: ${rule.failed.join('; ')}`)
  }
  return lines
}

/**
 * The message of a verify that failed, readable in a vitest or jest report: what was expected in
 * one line, how many matched among how many, then up to 10 requests (the closest first, each with
 * what differed, its body cut at 200 characters, and for an unmatched one its near misses), and
 * which requests matched no endpoint.
 */
export function formatVerifyFailure(failure: VerifyFailure): string {
  const { filter, count, matched, total, project, entries, unmatched } = failure
  const where = project === null ? 'in the journal' : `to project ${project}`
  const tooFew = matched < fewestAccepted(count)
  const lines = [`mockapi verify failed: expected ${expectedCount(count)} matching ${describeFilter(filter)}`]
  if (total === 0) lines.push(`but the journal holds no request ${where}.`)
  else {
    const listed = entries.length === 0 ? '.' : tooFew ? '. Closest first:' : ':'
    lines.push(`but ${matched} matched among ${plural(total, 'request')} ${where}${listed}`)
  }
  for (const { entry, differences } of entries.slice(0, SHOWN_ENTRIES)) lines.push(...entryLines(entry, differences))
  if (entries.length > SHOWN_ENTRIES) lines.push(`  … and ${entries.length - SHOWN_ENTRIES} more`)
  if (unmatched.length > 0 && filter.matched !== false) {
    const ids = unmatched.slice(0, SHOWN_IDS).map((id) => `#${id}`).join(', ')
    lines.push(`Unmatched requests: ${unmatched.length} (${ids}${unmatched.length > SHOWN_IDS ? ', …' : ''}). \`api.requests()\` lists them all.`)
  }
  return lines.join('\n')
}

/**
 * The message of a `verifyNoUnmatched` that failed: how many requests matched no endpoint among how
 * many, then each (up to 10) with its body and near misses; entries masked already.
 */
export function formatUnmatchedFailure(unmatched: readonly JournalEntry[], total: number): string {
  const lines = [`mockapi verifyNoUnmatched failed: ${plural(unmatched.length, 'request')} matched no endpoint, among ${plural(total, 'request')} in the journal:`]
  for (const entry of unmatched.slice(0, SHOWN_ENTRIES)) lines.push(...entryLines(entry, []))
  if (unmatched.length > SHOWN_ENTRIES) lines.push(`  … and ${unmatched.length - SHOWN_ENTRIES} more (\`api.requests({ matched: false })\` lists them, per project)`)
  return lines.join('\n')
}
