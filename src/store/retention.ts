import type { Db } from './db.ts'

export type RetentionRepo = ReturnType<typeof createRetentionRepo>

/** Deletes the oldest log rows beyond a count: inbox per project, finished deliveries per subscription. */
export function createRetentionRepo(db: Db) {
  const projects = db.prepare<[], number>('SELECT id FROM projects').pluck()
  const subscriptions = db.prepare<[], number>('SELECT id FROM subscriptions').pluck()
  const pruneInbox = db.prepare<[number, number, number]>(
    'DELETE FROM inbox WHERE project_id = ? AND id <= (SELECT id FROM inbox WHERE project_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)',
  )
  // A finished delivery takes its attempts with it (ON DELETE CASCADE); pending ones are never pruned.
  const pruneDeliveries = db.prepare<[number, number, number]>(
    `DELETE FROM deliveries WHERE subscription_id = ? AND state IN ('succeeded', 'failed', 'canceled') AND id <= (
       SELECT id FROM deliveries WHERE subscription_id = ? AND state IN ('succeeded', 'failed', 'canceled') ORDER BY id DESC LIMIT 1 OFFSET ?)`,
  )
  const pruneAttempts = db.prepare<[number, number, number]>(
    'DELETE FROM attempts WHERE subscription_id = ? AND id <= (SELECT id FROM attempts WHERE subscription_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)',
  )
  // Only events older than the oldest delivery's are looked at: a scan of every event each time
  // cost tens of ms once a backlog held 90,000 of them. The NOT EXISTS still guards a re-delivered
  // old event; orphans newer than that go once the deliveries before them are pruned.
  const pruneEvents = db.prepare(
    `DELETE FROM events WHERE rowid < coalesce((SELECT e.rowid FROM deliveries d JOIN events e ON e.id = d.event_id ORDER BY d.id LIMIT 1), 9223372036854775807)
       AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id)`,
  )

  return {
    /** Returns how many rows went. */
    prune(limits: { inboxPerProject: number; deliveriesPerSubscription: number }): number {
      let removed = 0
      for (const project of projects.all() as number[]) removed += pruneInbox.run(project, project, limits.inboxPerProject).changes
      for (const subscription of subscriptions.all() as number[]) {
        removed += pruneDeliveries.run(subscription, subscription, limits.deliveriesPerSubscription).changes
        removed += pruneAttempts.run(subscription, subscription, limits.deliveriesPerSubscription).changes
      }
      return removed + pruneEvents.run().changes
    },
  }
}
