import { Webhook } from 'standardwebhooks'
import type { Store } from '../domain/context.ts'
import { writeTransaction } from '../domain/transaction.ts'
import type { DeliveryAttempted, MockEvents } from '../events.ts'
import type { ClaimedDelivery } from '../store/deliveries.ts'

/** Marks our own deliveries, so a subscription pointed at a mock endpoint cannot feed itself. */
export const DELIVERY_HEADER = 'x-mockapi-delivery'
export const DEFAULT_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000]
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000
const MAX_RETRY_AFTER_MS = 3_600_000

export interface WorkerOptions {
  store: Store
  events: MockEvents
  /** Delays between attempts; attempts = delays + 1. */
  retryDelaysMs?: number[]
  timeoutMs?: number
  concurrency?: number
  /** How often to look for deliveries queued by another process (`webhooks redeliver`). */
  pollMs?: number
}

export interface Worker {
  start(): void
  /** Looks for due deliveries now (after the outbox queued some). */
  wake(): void
  /** Stops claiming; lets in-flight attempts finish for `graceMs`, then puts the rest back unattempted. */
  stop(graceMs?: number): Promise<void>
}

interface Outcome {
  statusCode: number | null
  error: string | null
  retryAfterMs: number | null
}

function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null
  const seconds = Number(value)
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : null
}

function describeFailure(error: unknown, timeoutMs: number): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } }
  if (err.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`
  return err.cause?.code ?? err.cause?.message ?? err.message ?? String(error)
}

/**
 * Delivers queued events. The schedule lives in SQLite (state, attempt count, next attempt time),
 * so a restart or a crash picks up where it stopped; p-retry's in-memory retries could not.
 */
export function createWorker(options: WorkerOptions): Worker {
  const { store, events } = options
  const { deliveries } = store.repos
  const retryDelays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS
  const concurrency = options.concurrency ?? 16
  const pollMs = options.pollMs ?? 1000
  const inFlight = new Map<number, { abort: AbortController; done: Promise<void> }>()
  let timer: NodeJS.Timeout | null = null
  let stopping = false
  const now = () => store.clock.now().getTime()

  const schedule = (delayMs: number) => {
    if (timer) clearTimeout(timer)
    timer = setTimeout(tick, delayMs)
    timer.unref()
  }

  function tick(): void {
    timer = null
    if (stopping) return
    const free = concurrency - inFlight.size
    if (free > 0) {
      const claimed = writeTransaction(store.db, () => deliveries.claimDue(now(), free))
      for (const job of claimed) start(job)
    }
    if (inFlight.size >= concurrency) return // a finishing attempt ticks again
    const due = deliveries.nextDueAt()
    schedule(due === null ? pollMs : Math.max(0, Math.min(pollMs, due - now())))
  }

  async function attempt(job: ClaimedDelivery, abort: AbortController): Promise<Outcome | null> {
    const sentAt = store.clock.now()
    try {
      const response = await fetch(job.targetUrl, {
        method: 'POST',
        body: job.payload,
        redirect: 'manual',
        signal: AbortSignal.any([abort.signal, AbortSignal.timeout(timeoutMs)]),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'mockapi-webhooks',
          'webhook-id': job.eventId,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': new Webhook(job.secret).sign(job.eventId, sentAt, job.payload),
          [DELIVERY_HEADER]: String(job.id),
        },
      })
      await response.body?.cancel().catch(() => {})
      const status = response.status
      if (status >= 200 && status < 300) return { statusCode: status, error: null, retryAfterMs: null }
      const error = status >= 300 && status < 400
        ? `HTTP ${status}: redirects are not followed`
        : status === 410 ? 'HTTP 410 Gone: the subscription was turned off' : `HTTP ${status}`
      return { statusCode: status, error, retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), now()) }
    } catch (error) {
      if (abort.signal.aborted) return null // stopped: not attempted
      return { statusCode: null, error: describeFailure(error, timeoutMs), retryAfterMs: null }
    }
  }

  function record(job: ClaimedDelivery, outcome: Outcome, durationMs: number): DeliveryAttempted['outcome'] {
    const succeeded = outcome.error === null
    return writeTransaction(store.db, () => {
      deliveries.logAttempt({
        deliveryId: job.id,
        subscriptionId: job.subscriptionId,
        eventId: job.eventId,
        eventType: job.eventType,
        attempt: job.attempt,
        statusCode: outcome.statusCode,
        succeeded,
        error: outcome.error,
        durationMs,
        timestamp: store.clock.now().toISOString(),
      })
      if (succeeded) {
        deliveries.markSucceeded(job.id, now())
        return 'succeeded'
      }
      if (outcome.statusCode === 410) {
        const subscription = store.repos.subscriptions.byId(job.subscriptionId)
        if (subscription) store.repos.subscriptions.update({ ...subscription, enabled: false })
        deliveries.cancelPending(job.subscriptionId)
        deliveries.markFailed(job.id, now())
        events.emit('config.changed')
        return 'failed'
      }
      const delay = retryDelays[job.attempt - 1]
      if (delay === undefined) {
        deliveries.markFailed(job.id, now())
        return 'failed'
      }
      deliveries.retryAt(job.id, now() + Math.max(delay, outcome.retryAfterMs ?? 0))
      return 'retrying'
    })
  }

  function start(job: ClaimedDelivery): void {
    const abort = new AbortController()
    const started = performance.now()
    const done = attempt(job, abort).then((outcome) => {
      if (outcome === null) {
        deliveries.release(job.id)
        return
      }
      const durationMs = Math.round(performance.now() - started)
      const next = record(job, outcome, durationMs)
      events.emit('delivery.attempted', {
        deliveryId: job.id,
        subscriptionId: job.subscriptionId,
        eventType: job.eventType,
        attempt: job.attempt,
        statusCode: outcome.statusCode,
        succeeded: outcome.error === null,
        error: outcome.error,
        durationMs,
        outcome: next,
      })
    }).finally(() => {
      inFlight.delete(job.id)
      // Re-plan: a free slot, and perhaps a retry due sooner than the timer set.
      if (!stopping) schedule(0)
    })
    inFlight.set(job.id, { abort, done })
  }

  return {
    start() {
      stopping = false
      writeTransaction(store.db, () => deliveries.recoverInFlight())
      schedule(0)
    },
    wake() {
      if (!stopping) schedule(0)
    },
    async stop(graceMs = 2000) {
      stopping = true
      if (timer) clearTimeout(timer)
      timer = null
      const pending = [...inFlight.values()]
      if (pending.length === 0) return
      const grace = new Promise((resolve) => setTimeout(resolve, graceMs).unref())
      await Promise.race([Promise.all(pending.map((p) => p.done)), grace])
      for (const { abort } of inFlight.values()) abort.abort()
      await Promise.all([...inFlight.values()].map((p) => p.done))
    },
  }
}
