import type { Db } from './db.ts'

/** An event to send once more to one subscription. */
export interface RedeliveryTarget {
  eventId: string
  subscriptionId: number
}

export type RedeliveryRepo = ReturnType<typeof createRedeliveryRepo>

/** Which deliveries to make again, and making them: `webhooks redeliver` of many. */
export function createRedeliveryRepo(db: Db) {
  // Only a failed delivery with no newer one of its event to its subscription: one queued again
  // already (pending, sent, or failed in turn) is that newer one, so asking twice queues once.
  // A finished delivery's next_attempt_at is when it finished (the worker writes it): `since`
  // counts from when it failed, as the time of its last attempt in the log.
  const failed = db.prepare<{ projectId: number; subscriptionId: number | null; since: number }, RedeliveryTarget>(
    `SELECT d.event_id AS eventId, d.subscription_id AS subscriptionId
       FROM subscriptions s JOIN deliveries d INDEXED BY deliveries_by_subscription ON d.subscription_id = s.id AND d.state = 'failed'
      WHERE s.project_id = @projectId AND (@subscriptionId IS NULL OR s.id = @subscriptionId) AND d.next_attempt_at >= @since
        AND NOT EXISTS (SELECT 1 FROM deliveries later WHERE later.event_id = d.event_id AND later.subscription_id = d.subscription_id AND later.id > d.id)
      ORDER BY d.id`,
  )
  // The event is checked too: pruning may have taken it since it was selected (with the last delivery naming it).
  const queue = db.prepare<{ eventId: string; subscriptionId: number; dueAt: number; createdAt: string }>(
    `INSERT INTO deliveries (event_id, subscription_id, state, next_attempt_at, created_at)
     SELECT @eventId, id, 'pending', @dueAt, @createdAt FROM subscriptions
      WHERE id = @subscriptionId AND enabled = 1 AND EXISTS (SELECT 1 FROM events WHERE id = @eventId)`,
  )

  return {
    /** The project's failed deliveries (of one subscription, when given) not queued again since, that failed at `since` or later, oldest first. */
    failed: (projectId: number, subscriptionId: number | null, since: number): RedeliveryTarget[] =>
      failed.all({ projectId, subscriptionId, since }),
    /** False (nothing written) when the subscription is gone or off, or the event was pruned. */
    queue: (target: RedeliveryTarget, dueAt: number, createdAt: string): boolean =>
      queue.run({ ...target, dueAt, createdAt }).changes > 0,
  }
}
