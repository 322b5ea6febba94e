import type { Db } from './db.ts'
import type { Attempt } from '../model.ts'

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
  }
}

export type DeliveryRepo = ReturnType<typeof createDeliveryRepo>

/** Events, their deliveries (the persistent retry queue) and the log of attempts. */
export function createDeliveryRepo(db: Db) {
  const insertEvent = db.prepare<[string, number, string, string, string]>(
    'INSERT INTO events (id, project_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?)',
  )
  const insertDelivery = db.prepare<[string, number, number, string]>(
    "INSERT INTO deliveries (event_id, subscription_id, state, next_attempt_at, created_at) VALUES (?, ?, 'pending', ?, ?)",
  )
  // Claiming takes the next attempt number up front; a crash mid-flight is undone by `recover`.
  const claim = db.prepare<[number, number], { id: number; attempts: number; event_id: string; subscription_id: number }>(
    `UPDATE deliveries SET state = 'sending', attempts = attempts + 1
     WHERE id IN (
       SELECT d.id FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id
       WHERE d.state = 'pending' AND d.next_attempt_at <= ? AND s.enabled = 1
       ORDER BY d.next_attempt_at, d.id LIMIT ?)
     RETURNING id, attempts, event_id, subscription_id`,
  )
  const details = db.prepare<[string, number], { type: string; payload: string; target_url: string; secret: string }>(
    'SELECT e.type, e.payload, s.target_url, s.secret FROM events e, subscriptions s WHERE e.id = ? AND s.id = ?',
  )
  const nextDue = db.prepare<[], number | null>(
    "SELECT min(d.next_attempt_at) FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id WHERE d.state = 'pending' AND s.enabled = 1",
  ).pluck()
  const setState = db.prepare<[string, number, number]>('UPDATE deliveries SET state = ?, next_attempt_at = ? WHERE id = ?')
  const release = db.prepare<[number]>("UPDATE deliveries SET state = 'pending', attempts = attempts - 1 WHERE id = ? AND state = 'sending'")
  const recover = db.prepare("UPDATE deliveries SET state = 'pending', attempts = attempts - 1 WHERE state = 'sending'")
  const cancel = db.prepare<[number]>("UPDATE deliveries SET state = 'canceled' WHERE subscription_id = ? AND state = 'pending'")
  const insertAttempt = db.prepare(
    `INSERT INTO attempts (delivery_id, subscription_id, event_id, event_type, attempt, status_code, succeeded, error, duration_ms, timestamp)
     VALUES (@deliveryId, @subscriptionId, @eventId, @eventType, @attempt, @statusCode, @succeeded, @error, @durationMs, @timestamp)`,
  )
  const attemptsBySubscription = db.prepare<[number, number], AttemptRow>(
    'SELECT * FROM attempts WHERE subscription_id = ? ORDER BY id DESC LIMIT ?',
  )
  const attemptById = db.prepare<[number], AttemptRow>('SELECT * FROM attempts WHERE id = ?')

  return {
    insertEvent: (event: { id: string; projectId: number; type: string; payload: string; createdAt: string }): void =>
      void insertEvent.run(event.id, event.projectId, event.type, event.payload, event.createdAt),
    insertDelivery: (eventId: string, subscriptionId: number, dueAt: number, createdAt: string): number =>
      Number(insertDelivery.run(eventId, subscriptionId, dueAt, createdAt).lastInsertRowid),
    claimDue(now: number, limit: number): ClaimedDelivery[] {
      return claim.all(now, limit).map((row) => {
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
    logAttempt: (attempt: Omit<Attempt, 'id'>): number =>
      Number(insertAttempt.run({ ...attempt, succeeded: attempt.succeeded ? 1 : 0 }).lastInsertRowid),
    recentAttempts: (subscriptionId: number, limit: number): Attempt[] =>
      attemptsBySubscription.all(subscriptionId, limit).map(toAttempt),
    attemptById: (id: number): Attempt | undefined => {
      const row = attemptById.get(id)
      return row && toAttempt(row)
    },
  }
}
