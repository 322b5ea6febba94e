import { randomUUID } from 'node:crypto'
import type { Store } from '../domain/context.ts'
import { writeTransaction } from '../domain/transaction.ts'
import { createVersionedCache } from '../domain/versioned-cache.ts'
import type { MockEvents, RequestServed } from '../events.ts'
import type { EventType, Subscription } from '../model.ts'

export interface Outbox {
  /** Writes what is buffered now (also done on its own, once per event-loop turn). */
  flush(): void
  close(): void
}

/** A query string as the event's `query`: one value as a string, a repeated key as an array. */
export function queryObject(query: URLSearchParams): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {}
  for (const key of new Set(query.keys())) {
    const values = query.getAll(key)
    result[key] = values.length === 1 ? values[0]! : values
  }
  return result
}

function eventTypes(served: RequestServed): EventType[] {
  return served.status >= 400 || served.failed ? ['mock.request', 'mock.error'] : ['mock.request']
}

/**
 * Records events for subscribers. The request path only buffers the served request; the events
 * and one delivery row per matching enabled subscription are written in one transaction on the
 * next turn of the event loop, so many requests share one commit.
 */
export function createOutbox(store: Store, events: MockEvents, options: { onQueued: () => void }): Outbox {
  const subscriptions = createVersionedCache(store.db, () => {
    const byProject = new Map<number, Subscription[]>()
    for (const subscription of store.repos.subscriptions.listEnabled()) {
      byProject.set(subscription.projectId, [...(byProject.get(subscription.projectId) ?? []), subscription])
    }
    return byProject
  })
  let buffered: RequestServed[] = []
  let scheduled: NodeJS.Immediate | null = null

  const flush = () => {
    if (scheduled) clearImmediate(scheduled)
    scheduled = null
    if (buffered.length === 0) return
    const batch = buffered
    buffered = []
    const now = store.clock.now()
    const createdAt = now.toISOString()
    let queued = 0
    writeTransaction(store.db, () => {
      for (const served of batch) {
        const candidates = subscriptions.get().get(served.projectId!) ?? []
        for (const type of eventTypes(served)) {
          const targets = candidates.filter((s) => s.events.includes(type))
          if (targets.length === 0) continue
          const id = `msg_${randomUUID().replaceAll('-', '')}`
          const data = {
            projectId: served.projectId,
            endpointId: served.endpointId,
            method: served.method,
            path: served.path,
            query: queryObject(served.query),
            status: served.status,
            durationMs: served.durationMs,
          }
          const payload = JSON.stringify({ type, timestamp: createdAt, data })
          store.repos.deliveries.insertEvent({ id, projectId: served.projectId!, type, payload, createdAt })
          for (const target of targets) store.repos.deliveries.insertDelivery(id, target.id, now.getTime(), createdAt)
          queued += targets.length
        }
      }
    })
    if (queued > 0) options.onQueued()
  }

  const onServed = (served: RequestServed) => {
    if (served.fromDelivery || served.projectId === null) return
    if (!subscriptions.get().has(served.projectId)) return
    buffered.push(served)
    scheduled ??= setImmediate(flush)
  }
  const onChanged = () => subscriptions.invalidate()

  events.on('request.served', onServed)
  events.on('config.changed', onChanged)
  return {
    flush,
    close() {
      events.off('request.served', onServed)
      events.off('config.changed', onChanged)
      flush()
    },
  }
}
