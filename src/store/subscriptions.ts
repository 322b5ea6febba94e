import type { Db } from './db.ts'
import type { EventType, Subscription } from '../model.ts'

interface SubscriptionRow {
  id: number
  project_id: number
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
    `INSERT INTO subscriptions (project_id, name, target_url, events, enabled, secret, created_at)
     VALUES (@projectId, @name, @targetUrl, @events, 1, @secret, @createdAt)`,
  )
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
    insert(subscription: Omit<Subscription, 'id' | 'enabled'>): Subscription {
      const info = insert.run({ ...subscription, events: JSON.stringify(subscription.events) })
      return get(Number(info.lastInsertRowid))!
    },
    update(subscription: Subscription): Subscription {
      update.run({ ...subscription, events: JSON.stringify(subscription.events), enabled: subscription.enabled ? 1 : 0 })
      return get(subscription.id)!
    },
    remove: (id: number): boolean => remove.run(id).changes > 0,
  }
}
