import type { Statement } from 'better-sqlite3'
import type { Db } from './db.ts'
import type { Attempt, AttemptOutcome } from '../model.ts'
import { ATTEMPT_OUTCOME_SQL } from './attempt-outcome.ts'

/** A delivery claimed for sending, with what the request needs. */
export interface ClaimedDelivery {
  id: number
  attempt: number
  eventId: string
  eventType: string
  payload: string
  subscriptionId: number
  targetUrl: string
  secret: string
}

interface AttemptRow {
  id: number
  delivery_id: number
  subscription_id: number
  event_id: string
  event_type: string
  attempt: number
  status_code: number | null
  succeeded: number
  error: string | null
  duration_ms: number
  timestamp: string
  outcome: AttemptOutcome
}

function toAttempt(row: AttemptRow): Attempt {
  return {
    id: row.id,
    deliveryId: row.delivery_id,
    subscriptionId: row.subscription_id,
    eventId: row.event_id,
    eventType: row.event_type,
    attempt: row.attempt,
    statusCode: row.status_code,
    succeeded: row.succeeded === 1,
    error: row.error,
    durationMs: row.duration_ms,
    timestamp: row.timestamp,
    outcome: row.outcome,
  }
}

/** An event as the event recorder writes it, with its deliveries: one per subscription id. */
export interface NewEvent {
  id: string
  projectId: number
  type: string
  payload: string
  createdAt: string
  subscriptionIds: number[]
}

/** Rows a multi-row INSERT takes at most; a batch is written by statements of 64, 32, … 1 rows. */
const ROWS_PER_INSERT = 64

/**
 * Inserts many rows by statements of several rows each: the run of a statement per row (binding,
 * stepping, the AUTOINCREMENT counter written once a statement) cost about 9 µs an event with its
 * delivery, several rows a statement about 6.
 */
function rowsInsert(db: Db, head: string, tuple: string, width: number): (params: unknown[]) => void {
  const bySize = new Map<number, Statement>()
  const statement = (rows: number): Statement => {
    let found = bySize.get(rows)
    if (!found) bySize.set(rows, (found = db.prepare(`${head} VALUES ${Array.from({ length: rows }, () => tuple).join(', ')}`)))
    return found
  }
  return (params) => {
    const rows = params.length / width
    let done = 0
    for (let size = ROWS_PER_INSERT; size >= 1; size >>= 1) {
      while (rows - done >= size) {
        statement(size).run(size === rows ? params : params.slice(done * width, (done + size) * width))
        done += size
      }
    }
  }
}

export type DeliveryRepo = ReturnType<typeof createDeliveryRepo>

/**
 * Events, their deliveries (the persistent retry queue) and the log of attempts. Writes that name a
 * project, subscription or delivery check it still exists in the same statement: another process
 * (or the management API) may delete it while an event waits in the event recorder or an attempt is in flight.
 */
export function createDeliveryRepo(db: Db) {
  const insertEvent = db.prepare<[string, number, string, string, string, number]>(
    'INSERT INTO events (id, project_id, type, payload, created_at) SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM projects WHERE id = ?)',
  )
  const eventRows = rowsInsert(db, 'INSERT INTO events (id, project_id, type, payload, created_at)', '(?, ?, ?, ?, ?)', 5)
  const deliveryRows = rowsInsert(db, 'INSERT INTO deliveries (event_id, subscription_id, state, next_attempt_at, created_at)', "(?, ?, 'pending', ?, ?)", 4)
  const enabledOf = db.prepare<[number], number>("SELECT id FROM subscriptions WHERE project_id = ? AND enabled = 1 AND kind != 'callbacks'").pluck()
  const removeEvent = db.prepare<[string]>('DELETE FROM events WHERE id = ?')
  const insertDelivery = db.prepare<[string, number, string, number]>(
    "INSERT INTO deliveries (event_id, subscription_id, state, next_attempt_at, created_at) SELECT ?, id, 'pending', ?, ? FROM subscriptions WHERE id = ? AND enabled = 1",
  )
  const dueSubscriptions = db.prepare<[number], number>(
    `SELECT s.id FROM subscriptions s WHERE s.enabled = 1
       AND EXISTS (SELECT 1 FROM deliveries d INDEXED BY deliveries_by_subscription
                   WHERE d.subscription_id = s.id AND d.state = 'pending' AND d.next_attempt_at <= ?)
     ORDER BY s.id`,
  ).pluck()
  // One subscription's rows, soonest due first (then by id): the order of deliveries_by_subscription
  // (subscription_id, state, next_attempt_at, rowid), so a backlog of 100,000 is neither scanned nor
  // sorted. New deliveries are due when written, so they go in the order they were queued.
  const dueOf = db.prepare<[number, number, number], number>(
    "SELECT id FROM deliveries INDEXED BY deliveries_by_subscription WHERE subscription_id = ? AND state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?",
  ).pluck()
  // Claiming takes the next attempt number up front; a crash mid-flight is undone by `recover`.
  const claim = db.prepare<[number], { id: number; attempts: number; event_id: string; subscription_id: number }>(
    "UPDATE deliveries SET state = 'sending', attempts = attempts + 1 WHERE id = ? RETURNING id, attempts, event_id, subscription_id",
  )
  const details = db.prepare<[string, number], { type: string; payload: string; target_url: string; secret: string }>(
    'SELECT e.type, e.payload, s.target_url, s.secret FROM events e, subscriptions s WHERE e.id = ? AND s.id = ?',
  )
  // Per subscription, each the first entry of its pending rows in deliveries_by_subscription.
  const nextDue = db.prepare<[], number | null>(
    `SELECT min((SELECT min(d.next_attempt_at) FROM deliveries d INDEXED BY deliveries_by_subscription WHERE d.subscription_id = s.id AND d.state = 'pending'))
       FROM subscriptions s WHERE s.enabled = 1`,
  ).pluck()
  const setState = db.prepare<[string, number, number]>('UPDATE deliveries SET state = ?, next_attempt_at = ? WHERE id = ?')
  const release = db.prepare<[number]>("UPDATE deliveries SET state = 'pending', attempts = attempts - 1 WHERE id = ? AND state = 'sending'")
  // A scan, once a start: an index by state alone cost every delivery written one more insert.
  const recover = db.prepare("UPDATE deliveries SET state = 'pending', attempts = attempts - 1 WHERE state = 'sending'")
  const cancel = db.prepare<[number]>("UPDATE deliveries SET state = 'canceled' WHERE subscription_id = ? AND state = 'pending'")
  const insertAttempt = db.prepare(
    `INSERT INTO attempts (delivery_id, subscription_id, event_id, event_type, attempt, status_code, succeeded, error, duration_ms, timestamp)
     SELECT @deliveryId, @subscriptionId, @eventId, @eventType, @attempt, @statusCode, @succeeded, @error, @durationMs, @timestamp
     WHERE EXISTS (SELECT 1 FROM deliveries WHERE id = @deliveryId AND subscription_id = @subscriptionId)`,
  )
  const attemptsBySubscription = db.prepare<[number, number], AttemptRow>(
    `SELECT a.*, ${ATTEMPT_OUTCOME_SQL} AS outcome FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
      WHERE a.subscription_id = ? ORDER BY a.id DESC LIMIT ?`,
  )
  const attemptById = db.prepare<[number], AttemptRow>(
    `SELECT a.*, ${ATTEMPT_OUTCOME_SQL} AS outcome FROM attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE a.id = ?`,
  )

  return {
    /** False (nothing written) when the project is gone. */
    insertEvent: (event: { id: string; projectId: number; type: string; payload: string; createdAt: string }): boolean =>
      insertEvent.run(event.id, event.projectId, event.type, event.payload, event.createdAt, event.projectId).changes > 0,
    /** The ids of the project's enabled webhook subscriptions (none when the project is gone). */
    enabledSubscriptionIds: (projectId: number): number[] => enabledOf.all(projectId) as number[],
    /**
     * Writes the events and their deliveries, all due at `dueAt`. Unchecked: the caller, in the same
     * write transaction, made sure each project and subscription exists (see enabledSubscriptionIds).
     */
    insertEvents(events: NewEvent[], dueAt: number): void {
      const eventParams: unknown[] = []
      const deliveryParams: unknown[] = []
      for (const event of events) {
        eventParams.push(event.id, event.projectId, event.type, event.payload, event.createdAt)
        for (const subscriptionId of event.subscriptionIds) deliveryParams.push(event.id, subscriptionId, dueAt, event.createdAt)
      }
      eventRows(eventParams)
      deliveryRows(deliveryParams)
    },
    removeEvent: (id: string): void => void removeEvent.run(id),
    /** The new delivery's id; null (nothing written) when the subscription is gone or turned off. */
    insertDelivery(eventId: string, subscriptionId: number, dueAt: number, createdAt: string): number | null {
      const info = insertDelivery.run(eventId, dueAt, createdAt, subscriptionId)
      return info.changes > 0 ? Number(info.lastInsertRowid) : null
    },
    /** Enabled subscriptions with a delivery due at `now`, by id. */
    dueSubscriptions: (now: number): number[] => dueSubscriptions.all(now) as number[],
    /** Marks up to `limit` of one subscription's due deliveries as sending, oldest first. */
    claimDue(subscriptionId: number, now: number, limit: number): ClaimedDelivery[] {
      return (dueOf.all(subscriptionId, now, limit) as number[]).map((id) => {
        const row = claim.get(id)!
        const more = details.get(row.event_id, row.subscription_id)!
        return {
          id: row.id,
          attempt: row.attempts,
          eventId: row.event_id,
          eventType: more.type,
          payload: more.payload,
          subscriptionId: row.subscription_id,
          targetUrl: more.target_url,
          secret: more.secret,
        }
      })
    },
    nextDueAt: (): number | null => nextDue.get() as number | null,
    markSucceeded: (id: number, now: number): void => void setState.run('succeeded', now, id),
    markFailed: (id: number, now: number): void => void setState.run('failed', now, id),
    retryAt: (id: number, at: number): void => void setState.run('pending', at, id),
    /** Puts a claimed delivery back as if the attempt never started. */
    release: (id: number): void => void release.run(id),
    /** After a crash: deliveries left "sending" go back to pending, their attempt not counted. */
    recoverInFlight: (): number => recover.run().changes,
    cancelPending: (subscriptionId: number): number => cancel.run(subscriptionId).changes,
    /** False (nothing written) when the delivery is gone: its subscription or project was deleted meanwhile. */
    logAttempt: (attempt: Omit<Attempt, 'id' | 'outcome'>): boolean =>
      insertAttempt.run({ ...attempt, succeeded: attempt.succeeded ? 1 : 0 }).changes > 0,
    recentAttempts: (subscriptionId: number, limit: number): Attempt[] =>
      attemptsBySubscription.all(subscriptionId, limit).map(toAttempt),
    attemptById: (id: number): Attempt | undefined => {
      const row = attemptById.get(id)
      return row && toAttempt(row)
    },
  }
}
