import { randomBytes, randomUUID } from 'node:crypto'
import { createBackgroundLog, retryDelayMs, type BackgroundLog } from '../domain/background.ts'
import type { Context } from '../domain/context.ts'
import { whenStoreFree, writeTransaction } from '../domain/transaction.ts'
import { createVersionedCache } from '../domain/versioned-cache.ts'
import { queryObject } from '../domain/journal-view.ts'
import type { MockEvents, RequestServed } from '../events.ts'
import { CALLBACK_EVENT, type CallbackRequest, type EventType, type Subscription } from '../model.ts'
import { storeFault } from '../store/db.ts'

const TASK = 'webhook events'
/** What the callbacks subscription lists as its target: each callback goes where its request said. */
export const CALLBACKS_TARGET = "each callback's own URL (OpenAPI callbacks)"
/**
 * Served requests kept while the database cannot take them (busy, disk full). Past this many the
 * oldest go, so a database that never recovers cannot take all memory.
 */
export const MAX_BUFFERED = 50_000
/** How long closing waits for a busy database to take what is still buffered. */
const CLOSE_WAIT_MS = 2_000
/**
 * How long served requests gather before their events are written. A commit costs about as much
 * for one request's event and delivery rows as for a hundred's (it writes the pages they share):
 * written once per event-loop turn, a turn's one to five requests each paid most of one, over
 * 20 % of the busy CPU of GET one item under a subscription. A delivery starts this much later.
 */
export const EVENT_BATCH_MS = 10

export interface EventRecorder {
  /** Writes what is buffered now (also done on its own, EVENT_BATCH_MS after a request is buffered). */
  flush(): void
  /** Stops listening and writes what is buffered (waiting a moment for a busy database). */
  close(): Promise<void>
}

/**
 * An event's id (its `webhook-id`): `msg_` and 32 hex digits, the first 12 the time in ms, the rest
 * random. Ids in time order go in at the end of the events' key and the deliveries' index on it:
 * random ones changed a page of each, anywhere in them, per event (3.1 pages written per event
 * against 0.8, 45 µs of CPU against 17, with 50,000 events kept).
 */
function eventId(at: Date): string {
  return `msg_${at.getTime().toString(16).padStart(12, '0')}${randomUUID().replaceAll('-', '').slice(12)}`
}

function eventTypes(served: RequestServed): EventType[] {
  return served.status >= 400 || served.failed || served.fault ? ['mock.request', 'mock.error'] : ['mock.request']
}

/**
 * Records events for subscribers, and the OpenAPI callbacks an answer sets off (each one event and
 * one delivery of the project's callbacks subscription). The request path only buffers the served
 * request; the events and one delivery row per matching enabled subscription are written in one transaction a
 * few milliseconds later (EVENT_BATCH_MS), so many requests share one commit. A batch the database cannot
 * take (another process holds the lock, the disk is full) stays buffered and is written later.
 */
export function createEventRecorder(context: Context, events: MockEvents, options: { onQueued: () => void; log?: BackgroundLog }): EventRecorder {
  const log = options.log ?? createBackgroundLog({ write: (line) => console.error(line) })
  const subscriptions = createVersionedCache(context.db, () => {
    const byProject = new Map<number, Subscription[]>()
    // The callbacks subscription wants no events: a project with only that one records none.
    for (const subscription of context.repos.subscriptions.listEnabled()) {
      if (subscription.kind === 'callbacks') continue
      byProject.set(subscription.projectId, [...(byProject.get(subscription.projectId) ?? []), subscription])
    }
    return byProject
  })
  let buffered: RequestServed[] = []
  let scheduled: NodeJS.Timeout | null = null
  let retry: NodeJS.Timeout | null = null
  let failures = 0
  let dropped = 0

  /** The project's callbacks subscription, made with its first callback; null while it is turned off. */
  const callbacksSubscription = (projectId: number, createdAt: string): Subscription | null => {
    const existing = context.repos.subscriptions.callbacksOf(projectId)
    if (existing) return existing.enabled ? existing : null
    if (!context.repos.projects.byId(projectId)) return null
    return context.repos.subscriptions.insert({
      projectId,
      kind: 'callbacks',
      name: 'openapi-callbacks',
      targetUrl: CALLBACKS_TARGET,
      events: [],
      secret: `whsec_${randomBytes(24).toString('base64')}`,
      createdAt,
    })
  }

  const queueCallbacks = (projectId: number, callbacks: CallbackRequest[], now: Date): number => {
    const createdAt = now.toISOString()
    const subscription = callbacksSubscription(projectId, createdAt)
    if (!subscription) return 0
    let queued = 0
    for (const callback of callbacks) {
      const id = eventId(now)
      if (!context.repos.deliveries.insertEvent({ id, projectId, type: CALLBACK_EVENT, payload: JSON.stringify(callback), createdAt })) return queued
      if (context.repos.deliveries.insertDelivery(id, subscription.id, now.getTime(), createdAt) !== null) queued += 1
      else context.repos.deliveries.removeEvent(id)
    }
    return queued
  }

  /**
   * The cached subscriptions may be up to 50 ms stale (another process deleted one, or its
   * project): each row is written only if what it points at still exists, so one deleted
   * subscription cannot roll back the events of every other project in the batch.
   */
  const write = (batch: RequestServed[]): number => {
    const now = context.clock.now()
    const createdAt = now.toISOString()
    let queued = 0
    writeTransaction(context.db, () => {
      for (const served of batch) {
        if (served.callbacks?.length) queued += queueCallbacks(served.projectId!, served.callbacks, now)
        const candidates = subscriptions.get().get(served.projectId!) ?? []
        for (const type of eventTypes(served)) {
          const targets = candidates.filter((s) => s.events.includes(type))
          if (targets.length === 0) continue
          const id = eventId(now)
          const data = {
            projectId: served.projectId,
            endpointId: served.endpointId,
            method: served.method,
            path: served.path,
            query: queryObject(served.query),
            status: served.status,
            durationMs: served.durationMs,
            ...(served.fault ? { fault: served.fault } : {}),
            ...(served.failed && !served.fault && served.note ? { note: served.note } : {}),
            ...(served.answeredBy ? { answeredBy: served.answeredBy } : {}),
            ...(served.proxied ? { proxied: true } : {}),
          }
          const payload = JSON.stringify({ type, timestamp: createdAt, data })
          if (!context.repos.deliveries.insertEvent({ id, projectId: served.projectId!, type, payload, createdAt })) continue
          let added = 0
          for (const target of targets) {
            if (context.repos.deliveries.insertDelivery(id, target.id, now.getTime(), createdAt) !== null) added += 1
          }
          if (added === 0) context.repos.deliveries.removeEvent(id)
          queued += added
        }
      }
    })
    return queued
  }

  const keep = (batch: RequestServed[]) => {
    buffered = batch.concat(buffered)
    const over = buffered.length - MAX_BUFFERED
    if (over > 0) {
      buffered = buffered.slice(over)
      dropped += over
    }
  }

  const flush = () => {
    if (scheduled) clearTimeout(scheduled)
    scheduled = null
    if (retry) clearTimeout(retry)
    retry = null
    if (buffered.length === 0) return
    const batch = buffered
    buffered = []
    let queued: number
    try {
      queued = write(batch)
    } catch (error) {
      log.failed(TASK, error)
      // Anything but the database's state would fail the same way again: that batch is given up.
      if (storeFault(error) === null) return
      keep(batch)
      retry = setTimeout(flush, retryDelayMs(failures++))
      retry.unref()
      return
    }
    failures = 0
    log.succeeded(TASK)
    if (dropped > 0) {
      log.note(TASK, `the events of ${dropped} requests were not recorded: more than ${MAX_BUFFERED} waited for the database`)
      dropped = 0
    }
    if (queued > 0) options.onQueued()
  }

  const onServed = (served: RequestServed) => {
    if (served.fromDelivery || served.projectId === null) return
    try {
      if (!served.callbacks?.length && !subscriptions.get().has(served.projectId)) return
    } catch {
      // The subscriptions cannot be read now: the flush decides, once the database answers.
    }
    buffered.push(served)
    scheduled ??= setTimeout(flush, EVENT_BATCH_MS)
  }

  events.on('request.served', onServed)
  return {
    flush,
    async close() {
      events.off('request.served', onServed)
      if (scheduled) clearTimeout(scheduled)
      if (retry) clearTimeout(retry)
      scheduled = retry = null
      if (buffered.length === 0) return
      const batch = buffered
      buffered = []
      try {
        const queued = await whenStoreFree(context.db, () => write(batch), CLOSE_WAIT_MS)
        if (queued > 0) options.onQueued()
      } catch (error) {
        log.failed(TASK, error)
        log.note(TASK, `the events of ${batch.length} requests were not recorded before shutting down`)
      }
    },
  }
}
