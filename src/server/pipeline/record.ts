import type { Journal, JournalRecord } from '../../domain/journal.ts'
import type { MockEvents, RequestServed } from '../../events.ts'

/** The record stage's input: one answered request of any transport (a gRPC code given as its HTTP equivalent). */
export type Served = RequestServed

/**
 * `request.served` (the CLI's log line, webhooks' `mock.request`) and the journal's record: once
 * per request, for every transport, before the answer leaves, so a test that asks right after its
 * request sees it. `entry` is null when the journal is off or no project owns the request.
 */
export function recordServed(events: MockEvents, served: Served, journal: Journal | null, entry: JournalRecord | null): void {
  if (events.listenerCount('request.served') > 0) events.emit('request.served', served)
  if (journal && entry) journal.record(entry)
}
