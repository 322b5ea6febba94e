import { randomBytes } from 'node:crypto'
import { createBackgroundLog, retryDelayMs, type BackgroundLog } from '../domain/background.ts'
import type { Context } from '../domain/context.ts'
import { whenStoreFree, writeTransaction } from '../domain/transaction.ts'
import { createVersionedCache } from '../domain/versioned-cache.ts'
import { queryObject } from '../domain/journal-view.ts'
import type { MockEvents, RequestServed } from '../events.ts'
import { CALLBACK_EVENT, type CallbackRequest, type EventType, type Subscription } from '../model.ts'
import { storeFault } from '../store/db.ts'
import type { NewEvent } from '../store/deliveries.ts'

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
 * Event ids (`webhook-id`s) for one batch: `msg_` and 32 hex digits, the first 12 the time in ms,
 * then 14 random ones drawn once per batch, then a count. Ids in time order go in at the end of the
 * events' key and the deliveries' index on it: random ones changed a page of each, anywhere in
 * them, per event (3.1 pages written per event against 0.8, 45 µs of CPU against 17, with 50,000
 * events kept). One random draw per batch, not per event: per event it was 2 % of the CPU of GET
 * one item under a subscription.
 */
function eventIds(at: Date): () => string {
  const head = `msg_${at.getTime().toString(16).padStart(12, '0')}${randomBytes(7).toString('hex')}`
  let next = 0
  return () => head + (next++).toString(16).padStart(6, '0')
}

/** JSON's text of a number: `null` for NaN and the infinities. */
const jsonNumber = (value: number): string => (Number.isFinite(value) ? String(value) : 'null')

/**
 * The envelope's `data` as JSON text, written out rather than JSON.stringify of an object built with
 * spreads: the same bytes, for a quarter of the CPU (0.17 µs against 0.7 for a GET without a query).
 */
function eventData(served: RequestServed): string {
  let data = `{"projectId":${served.projectId},"endpointId":${served.endpointId === null ? 'null' : jsonNumber(served.endpointId)},"method":${JSON.stringify(served.method)},"path":${JSON.stringify(served.path)},"query":${served.query.size === 0 ? '{}' : JSON.stringify(queryObject(served.query))},"status":${jsonNumber(served.status)},"durationMs":${jsonNumber(served.durationMs)}`
  if (served.fault) data += `,"fault":${JSON.stringify(served.fault)}`
  if (served.failed && !served.fault && served.note) data += `,"note":${JSON.stringify(served.note)}`
  if (served.answeredBy) data += `,"answeredBy":${JSON.stringify(served.answeredBy)}`
  if (served.proxied) data += ',"proxied":true'
  return `${data}}`
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

  const queueCallbacks = (projectId: number, callbacks: CallbackRequest[], now: Date, eventId: () => string): number => {
    const createdAt = now.toISOString()
    const subscription = callbacksSubscription(projectId, createdAt)
    if (!subscription) return 0
    let queued = 0
    for (const callback of callbacks) {
      const id = eventId()
      if (!context.repos.deliveries.insertEvent({ id, projectId, type: CALLBACK_EVENT, payload: JSON.stringify(callback), createdAt })) return queued
      if (context.repos.deliveries.insertDelivery(id, subscription.id, now.getTime(), createdAt) !== null) queued += 1
      else context.repos.deliveries.removeEvent(id)
    }
    return queued
  }

  /**
   * The cached subscriptions may be up to 50 ms stale (another process deleted one, or its
   * project): each project's enabled subscriptions are read once in the batch's transaction, and
   * only those get deliveries, so one deleted subscription cannot roll back the events of every
   * other project in the batch. The rows go in by multi-row INSERTs (deliveries.insertEvents): one
   * statement a row, each checking its project or subscription, was over half of what recording
   * a request cost.
   */
  const write = (batch: RequestServed[]): number => {
    const now = context.clock.now()
    const createdAt = now.toISOString()
    const eventId = eventIds(now)
    let queued = 0
    writeTransaction(context.db, () => {
      const enabled = new Map<number, Set<number>>()
      const enabledOf = (projectId: number): Set<number> => {
        let found = enabled.get(projectId)
        if (!found) enabled.set(projectId, (found = new Set(context.repos.deliveries.enabledSubscriptionIds(projectId))))
        return found
      }
      const written: NewEvent[] = []
      for (const served of batch) {
        const projectId = served.projectId!
        if (served.callbacks?.length) queued += queueCallbacks(projectId, served.callbacks, now, eventId)
        const candidates = subscriptions.get().get(projectId)
        if (!candidates) continue
        let data: string | null = null
        for (const type of eventTypes(served)) {
          const subscriptionIds: number[] = []
          for (const subscription of candidates) {
            if (subscription.events.includes(type) && enabledOf(projectId).has(subscription.id)) subscriptionIds.push(subscription.id)
          }
          if (subscriptionIds.length === 0) continue
          data ??= eventData(served)
          written.push({ id: eventId(), projectId, type, payload: `{"type":"${type}","timestamp":"${createdAt}","data":${data}}`, createdAt, subscriptionIds })
          queued += subscriptionIds.length
        }
      }
      context.repos.deliveries.insertEvents(written, now.getTime())
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
