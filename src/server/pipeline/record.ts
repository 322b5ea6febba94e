import type { Journal, JournalRecord } from '../../domain/journal.ts'
import type { MockEvents, RequestServed } from '../../events.ts'

/** The record stage's input: one answered request of any transport (a gRPC code given as its HTTP equivalent). */
export type Served = RequestServed

/**
 * Requests served but not told yet, per server's events. They are told once the event loop's turn
 * has answered every request it read: telling each before its answer cost each request about 1 µs
 * more than telling the turn's together (measured: docs/performance.md). A client that waits for
 * its answer before its next request finds them told, as does a reader that settles first.
 */
const untold = new WeakMap<MockEvents, Served[]>()

/**
 * `request.served` (the CLI's log line, webhooks' `mock.request`, the counts `…/stats` answers
 * with) once per request, for every transport, at the end of the turn that answered it; the
 * journal's record, which any read of the journal finds. `entry` is null when the journal is off
 * or no project owns the request.
 */
export function recordServed(events: MockEvents, served: Served, journal: Journal | null, entry: JournalRecord | null): void {
  if (events.listenerCount('request.served') > 0) {
    const waiting = untold.get(events)
    if (waiting) waiting.push(served)
    else {
      untold.set(events, [served])
      setImmediate(settleServed, events)
    }
  }
  if (journal && entry) journal.record(entry)
}

/** Tells what was served and not told yet: before reading what the telling counts, or before the listeners go. */
export function settleServed(events: MockEvents): void {
  const waiting = untold.get(events)
  if (!waiting) return
  untold.delete(events)
  for (const served of waiting) {
    try {
      events.emit('request.served', served)
    } catch {
      // Outside any request now: a listener that fails must not take the server, or the turn's other requests' telling, down with it.
    }
  }
}
