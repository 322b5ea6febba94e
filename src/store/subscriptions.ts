import type { Db } from './db.ts'
import type { EventType, Subscription, SubscriptionKind } from '../model.ts'

interface SubscriptionRow {
  id: number
  project_id: number
  kind: string
  name: string
  target_url: string
  events: string
  enabled: number
  secret: string
  created_at: string
}

function toSubscription(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    projectId: row.project_id,
    kind: row.kind as SubscriptionKind,
    name: row.name,
    targetUrl: row.target_url,
    events: JSON.parse(row.events) as EventType[],
    enabled: row.enabled === 1,
    secret: row.secret,
    createdAt: row.created_at,
  }
}

export type SubscriptionRepo = ReturnType<typeof createSubscriptionRepo>

export function createSubscriptionRepo(db: Db) {
  const byProject = db.prepare<[number], SubscriptionRow>('SELECT * FROM subscriptions WHERE project_id = ? ORDER BY id')
  const enabled = db.prepare<[], SubscriptionRow>('SELECT * FROM subscriptions WHERE enabled = 1 ORDER BY id')
  const byId = db.prepare<[number], SubscriptionRow>('SELECT * FROM subscriptions WHERE id = ?')
  const insert = db.prepare(
    `INSERT INTO subscriptions (project_id, kind, name, target_url, events, enabled, secret, created_at)
     VALUES (@projectId, @kind, @name, @targetUrl, @events, 1, @secret, @createdAt)`,
  )
  const callbacksOf = db.prepare<[number], SubscriptionRow>("SELECT * FROM subscriptions WHERE project_id = ? AND kind = 'callbacks' ORDER BY id LIMIT 1")
  const update = db.prepare(
    'UPDATE subscriptions SET name = @name, target_url = @targetUrl, events = @events, enabled = @enabled WHERE id = @id',
  )
  const remove = db.prepare<[number]>('DELETE FROM subscriptions WHERE id = ?')

  const get = (id: number): Subscription | undefined => {
    const row = byId.get(id)
    return row && toSubscription(row)
  }

  return {
    listByProject: (projectId: number): Subscription[] => byProject.all(projectId).map(toSubscription),
    listEnabled: (): Subscription[] => enabled.all().map(toSubscription),
    byId: get,
    /** The project's subscription for OpenAPI callbacks, once one was sent. */
    callbacksOf: (projectId: number): Subscription | undefined => {
      const row = callbacksOf.get(projectId)
      return row && toSubscription(row)
    },
    insert(subscription: Omit<Subscription, 'id' | 'enabled' | 'kind'> & { kind?: SubscriptionKind }): Subscription {
      const info = insert.run({ kind: 'webhook', ...subscription, events: JSON.stringify(subscription.events) })
      return get(Number(info.lastInsertRowid))!
    },
    update(subscription: Subscription): Subscription {
      update.run({ ...subscription, events: JSON.stringify(subscription.events), enabled: subscription.enabled ? 1 : 0 })
      return get(subscription.id)!
    },
    remove: (id: number): boolean => remove.run(id).changes > 0,
  }
}
