import { setTimeout as sleep } from 'node:timers/promises'
import { createBackgroundLog, retryDelayMs, type BackgroundLog } from '../domain/background.ts'
import type { Context } from '../domain/context.ts'
import { writeTransaction } from '../domain/transaction.ts'
import { standardWebhookHeaders } from '../domain/webhook-signature.ts'
import { targetUrlProblem } from '../engine/target-url.ts'
import type { DeliveryAttempted, MockEvents } from '../events.ts'
import { CALLBACK_EVENT, type CallbackRequest } from '../model.ts'
import type { ClaimedDelivery } from '../store/deliveries.ts'
import { storeFault } from '../store/db.ts'
import { watchRequestLoad, type RequestLoad } from './request-load.ts'

/** Marks our own deliveries, so a subscription pointed at a mock endpoint cannot feed itself. */
export const DELIVERY_HEADER = 'x-mockapi-delivery'
export const DEFAULT_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000]
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000
const MAX_RETRY_AFTER_MS = 3_600_000
/**
 * While requests pour in (request-load.ts), outcomes are recorded and slots filled at most this
 * often rather than on the next turn: each pass is one commit, and at a pass per finished attempt
 * the worker took a fifth of the CPU from the requests a subscription's project was answering.
 * At a pass every 20 ms (8 attempts a pass to a subscription: about 400 a second each), a GET
 * under a subscription cost 17.5 µs of CPU more than one without; at 100 ms (about 80 a second
 * each), 7.8. Most of the backlog waits for the load to end: once requests stop, the next pass is
 * at once again and it drains at full speed.
 */
export const LOAD_PACE_MS = 100
const TASK = 'webhook deliveries'

/** One attempt's request: where to, and what to send. */
export interface OutgoingRequest {
  url: string
  method: string
  headers: Record<string, string>
  body: string | null
}

export interface Answer {
  status: number
  retryAfter: string | null
}

/** What sends the attempts (server/webhook-sender.ts: the network is the server layer's). */
export interface Sender {
  /** The answer's status, once known; rejects when no answer comes (refused, aborted by `signal`). */
  send(request: OutgoingRequest, signal: AbortSignal): Promise<Answer>
  /** Closes the connections kept open between attempts. */
  close(): void
}

export interface WorkerOptions {
  context: Context
  events: MockEvents
  sender: Sender
  /** Delays between attempts; attempts = delays + 1. */
  retryDelaysMs?: number[]
  timeoutMs?: number
  concurrency?: number
  /** Attempts in flight at once to one subscription: a slow receiver cannot hold every slot. */
  perSubscription?: number
  /** How often to look for deliveries queued by another process (`webhooks redeliver`). */
  pollMs?: number
  log?: BackgroundLog
}

export interface Worker {
  start(): void
  /** Looks for due deliveries now (after the event recorder queued some). */
  wake(): void
  /** Stops claiming; lets in-flight attempts finish for `graceMs`, then puts the rest back unattempted. */
  stop(graceMs?: number): Promise<void>
}

interface Outcome {
  statusCode: number | null
  error: string | null
  retryAfterMs: number | null
  /** Not worth another attempt: the request could not even be made. */
  final?: boolean
}

interface InFlight {
  subscriptionId: number
  /** Aborted by `stop` after its grace: the attempt did not happen, or its outcome is not recorded. */
  stop: AbortController
  done: Promise<void>
}

function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null
  const seconds = Number(value)
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : null
}

/** Standard Webhooks headers: the event id (the same on every attempt), the time, and the signature of both with the body. */
function signature(job: ClaimedDelivery, sentAt: Date, body: string): Record<string, string> {
  return standardWebhookHeaders(job.secret, job.eventId, sentAt, body)
}

/**
 * What one attempt sends: a webhook event, or an OpenAPI callback's own request. Both are signed
 * with their subscription's secret, so a receiver can tell mockapi sent them.
 */
function requestOf(job: ClaimedDelivery, sentAt: Date): OutgoingRequest | { refused: string } {
  if (job.eventType === CALLBACK_EVENT) {
    const callback = JSON.parse(job.payload) as CallbackRequest
    // Checked when queued; checked again here, as a row written by another process is not ours.
    const problem = targetUrlProblem(callback.url)
    if (problem !== null) return { refused: `callback URL ${problem}` }
    return {
      url: callback.url,
      method: callback.method,
      body: callback.body,
      headers: { 'user-agent': 'mockapi-callbacks', ...callback.headers, ...signature(job, sentAt, callback.body ?? ''), [DELIVERY_HEADER]: String(job.id) },
    }
  }
  return {
    url: job.targetUrl,
    method: 'POST',
    body: job.payload,
    headers: { 'content-type': 'application/json', 'user-agent': 'mockapi-webhooks', ...signature(job, sentAt, job.payload), [DELIVERY_HEADER]: String(job.id) },
  }
}

/** A system call's code (ECONNREFUSED, ENOTFOUND), else the message. */
function describeFailure(error: unknown): string {
  const err = error as { message?: string; code?: string; syscall?: string }
  return (err.syscall !== undefined ? err.code : undefined) ?? err.message ?? String(error)
}

/**
 * Delivers queued events. The schedule lives in SQLite (state, attempt count, next attempt time),
 * so a restart or a crash picks up where it stopped; p-retry's in-memory retries could not.
 * Nothing here throws out of its timers: a database it cannot write delays the work, and an
 * outcome is recorded once the database takes it.
 */
export function createWorker(options: WorkerOptions): Worker {
  const { context, events } = options
  const { deliveries } = context.repos
  const retryDelays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS
  const concurrency = options.concurrency ?? 32
  // Against a local receiver, 8 in flight made 1.6 to 1.9 times the deliveries a second of 4: more
  // outcomes share each commit. A quarter of all slots, as 4 of 16 were: a slow receiver still
  // leaves the other subscriptions three quarters.
  const perSubscription = options.perSubscription ?? 8
  const pollMs = options.pollMs ?? 1000
  const log = options.log ?? createBackgroundLog({ write: (line) => console.error(line) })
  const inFlight = new Map<number, InFlight>()
  const { sender } = options
  let timer: NodeJS.Timeout | null = null
  let timerAt = 0
  let soon: NodeJS.Immediate | null = null
  let load: RequestLoad | null = null
  let stopping = false
  let recovered = false
  let failures = 0
  // Round robin: the next claim starts after the subscription served first last time.
  let lastFirst = 0
  const now = () => context.clock.now().getTime()

  const cancelTick = () => {
    if (timer) clearTimeout(timer)
    if (soon) clearImmediate(soon)
    timer = null
    soon = null
  }
  // "Now" is the next turn of the event loop, not a 1 ms timer: each finished attempt frees a slot to fill at once.
  const schedule = (delayMs: number) => {
    if (delayMs <= 0 && load?.busy()) {
      // Not put off again by every attempt that finishes: a pass already due within the pace stays.
      if (timer !== null && timerAt <= performance.now() + LOAD_PACE_MS) return
      delayMs = LOAD_PACE_MS
    }
    cancelTick()
    if (delayMs > 0) {
      timerAt = performance.now() + delayMs
      timer = setTimeout(tick, delayMs)
      timer.unref()
    } else {
      // Not unref'd: an unref'd immediate lets the loop sleep in its poll phase until other I/O comes.
      soon = setImmediate(tick)
    }
  }

  const busyWith = (subscriptionId: number) => {
    let count = 0
    for (const job of inFlight.values()) if (job.subscriptionId === subscriptionId) count += 1
    return count
  }

  /** Claims up to `free` due deliveries, one per subscription in turn, each under its cap. */
  function claim(free: number): ClaimedDelivery[] {
    const at = now()
    const due = deliveries.dueSubscriptions(at)
    const turn = [...due.filter((id) => id > lastFirst), ...due.filter((id) => id <= lastFirst)]
    const room = new Map(turn.map((id) => [id, perSubscription - busyWith(id)]))
    const claimed: ClaimedDelivery[] = []
    let open = turn.filter((id) => room.get(id)! > 0)
    if (open.length > 0) lastFirst = open[0]!
    while (claimed.length < free && open.length > 0) {
      for (const id of open) {
        if (claimed.length >= free) break
        const [job] = deliveries.claimDue(id, at, 1)
        if (job) claimed.push(job)
        room.set(id, job ? room.get(id)! - 1 : 0)
      }
      open = open.filter((id) => room.get(id)! > 0)
    }
    return claimed
  }

  /** Whether some due subscription is under its cap: a claim with nothing to take would still cost a commit. */
  const hasRoom = (): boolean => deliveries.dueSubscriptions(now()).some((id) => busyWith(id) < perSubscription)

  function tick(): void {
    timer = null
    soon = null
    if (stopping) return
    let claimed: ClaimedDelivery[] = []
    let due: number | null
    try {
      if (!recovered) {
        writeTransaction(context.db, () => deliveries.recoverInFlight())
        recovered = true
      }
      const free = concurrency - inFlight.size
      if (free > 0 && hasRoom()) claimed = writeTransaction(context.db, () => claim(free))
      due = deliveries.nextDueAt()
      log.succeeded(TASK)
      failures = 0
    } catch (error) {
      log.failed(TASK, error)
      schedule(retryDelayMs(failures++))
      return
    }
    for (const job of claimed) start(job)
    if (inFlight.size >= concurrency) return // a finishing attempt ticks again
    // Still due now: only subscriptions at their cap have some, and a finishing attempt ticks again.
    schedule(due === null || due <= now() ? pollMs : Math.min(pollMs, due - now()))
  }

  async function attempt(job: ClaimedDelivery, stop: AbortSignal): Promise<Outcome | null> {
    const request = requestOf(job, context.clock.now())
    if ('refused' in request) return { statusCode: null, error: request.refused, retryAfterMs: null, final: true }
    // Our own timer, not AbortSignal.timeout inside AbortSignal.any: that one can be collected
    // before it fires, and a receiver answering after 40 s was logged as a success.
    const cut = new AbortController()
    const onStop = () => cut.abort(stop.reason)
    stop.addEventListener('abort', onStop)
    const timeout = setTimeout(() => cut.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError')), timeoutMs)
    try {
      const { status, retryAfter } = await sender.send(request, cut.signal)
      if (status >= 200 && status < 300) return { statusCode: status, error: null, retryAfterMs: null }
      const callback = job.eventType === CALLBACK_EVENT
      const error = status >= 300 && status < 400
        ? `HTTP ${status}: redirects are not followed`
        : status === 410 ? `HTTP 410 Gone: ${callback ? 'this callback is not sent again' : 'the subscription was turned off'}` : `HTTP ${status}`
      return { statusCode: status, error, retryAfterMs: parseRetryAfter(retryAfter, now()) }
    } catch (error) {
      if (stop.aborted) return null // stopped: not attempted
      const reason = cut.signal.aborted ? (cut.signal.reason as Error) : null
      return { statusCode: null, error: reason?.name === 'TimeoutError' ? reason.message : describeFailure(error), retryAfterMs: null }
    } finally {
      clearTimeout(timeout)
      stop.removeEventListener('abort', onStop)
    }
  }

  /** The attempt's outcome and the next step; null when the delivery is gone (its subscription was deleted meanwhile). Runs inside a write transaction. */
  function record(job: ClaimedDelivery, outcome: Outcome, durationMs: number): DeliveryAttempted['outcome'] | null {
    const succeeded = outcome.error === null
    const logged = deliveries.logAttempt({
      deliveryId: job.id,
      subscriptionId: job.subscriptionId,
      eventId: job.eventId,
      eventType: job.eventType,
      attempt: job.attempt,
      statusCode: outcome.statusCode,
      succeeded,
      error: outcome.error,
      durationMs,
      timestamp: context.clock.now().toISOString(),
    })
    if (!logged) return null
    if (succeeded) {
      deliveries.markSucceeded(job.id, now())
      return 'succeeded'
    }
    // A callback's 410 refuses that URL only: the project's other callbacks still go.
    if (outcome.final || (outcome.statusCode === 410 && job.eventType === CALLBACK_EVENT)) {
      deliveries.markFailed(job.id, now())
      return 'failed'
    }
    if (outcome.statusCode === 410) {
      const subscription = context.repos.subscriptions.byId(job.subscriptionId)
      if (subscription) context.repos.subscriptions.update({ ...subscription, enabled: false })
      deliveries.cancelPending(job.subscriptionId)
      deliveries.markFailed(job.id, now())
      return 'failed'
    }
    const delay = retryDelays[job.attempt - 1]
    if (delay === undefined) {
      deliveries.markFailed(job.id, now())
      return 'failed'
    }
    // Turned off while this attempt was in flight: its retries are canceled as the pending ones were.
    if (context.repos.subscriptions.byId(job.subscriptionId)?.enabled === false) {
      deliveries.retryAt(job.id, now())
      deliveries.cancelPending(job.subscriptionId)
      return 'failed'
    }
    deliveries.retryAt(job.id, now() + Math.max(delay, outcome.retryAfterMs ?? 0))
    return 'retrying'
  }

  /**
   * Outcomes finished in the same turn of the event loop are recorded in one transaction: a commit
   * per attempt cost more than the attempt itself against a local receiver.
   */
  let finished: { job: ClaimedDelivery; outcome: Outcome; durationMs: number; settle: (result: RecordResult) => void }[] = []
  type RecordResult = { next: DeliveryAttempted['outcome'] | null } | { error: unknown }

  function recordFinished(): void {
    const batch = finished
    finished = []
    let results: RecordResult[]
    let claimed: ClaimedDelivery[] = []
    const slots = batch.map(({ job }) => [job.id, inFlight.get(job.id)] as const)
    try {
      // The slots these outcomes free are filled in the same commit.
      results = writeTransaction(context.db, () => {
        const written = batch.map(({ job, outcome, durationMs }) => ({ next: record(job, outcome, durationMs) }))
        for (const [id] of slots) inFlight.delete(id)
        if (!stopping) claimed = claim(concurrency - inFlight.size)
        return written
      })
    } catch (error) {
      for (const [id, slot] of slots) if (slot) inFlight.set(id, slot)
      claimed = []
      // Busy or unwritable: each attempt's persist tries again later. Anything else: one at a time, so one outcome the database refuses does not hold back the others.
      if (storeFault(error) !== null) results = batch.map(() => ({ error }))
      else results = batch.map(({ job, outcome, durationMs }) => {
        try {
          return { next: writeTransaction(context.db, () => record(job, outcome, durationMs)) }
        } catch (error) {
          return { error }
        }
      })
    }
    batch.forEach(({ settle }, at) => settle(results[at]!))
    for (const job of claimed) start(job)
  }

  function recordSoon(job: ClaimedDelivery, outcome: Outcome, durationMs: number): Promise<DeliveryAttempted['outcome'] | null> {
    return new Promise((resolve, reject) => {
      if (finished.length === 0) {
        if (load?.busy()) setTimeout(recordFinished, LOAD_PACE_MS)
        else setImmediate(recordFinished)
      }
      finished.push({ job, outcome, durationMs, settle: (result) => ('error' in result ? reject(result.error) : resolve(result.next)) })
    })
  }

  /**
   * Writes `work` once the database takes it: tried again while it is busy or cannot be written,
   * until `stop` aborts (then the row stays "sending" and the next start puts it back). Resolves
   * to undefined when it gave up.
   */
  async function persist<T>(work: () => Promise<T>, stop: AbortSignal): Promise<T | undefined> {
    for (let failed = 0; ; failed += 1) {
      try {
        const result = await work()
        log.succeeded(TASK)
        return result
      } catch (error) {
        log.failed(TASK, error)
        if (storeFault(error) === null || stop.aborted) return undefined
      }
      try {
        await sleep(retryDelayMs(failed), undefined, { signal: stop, ref: false })
      } catch {
        return undefined
      }
    }
  }

  async function run(job: ClaimedDelivery, stop: AbortSignal): Promise<void> {
    const started = performance.now()
    const outcome = await attempt(job, stop)
    if (outcome === null) {
      // Stopping: best effort; what stays "sending" goes back to pending at the next start.
      try {
        deliveries.release(job.id)
      } catch (error) {
        log.failed(TASK, error)
      }
      return
    }
    const durationMs = Math.round(performance.now() - started)
    const next = await persist(() => recordSoon(job, outcome, durationMs), stop)
    if (next === undefined || next === null) return
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
  }

  function start(job: ClaimedDelivery): void {
    const stop = new AbortController()
    const done = run(job, stop.signal).catch((error: unknown) => log.failed(TASK, error)).finally(() => {
      inFlight.delete(job.id)
      // Re-plan: a free slot, and perhaps a retry due sooner than the timer set.
      if (!stopping) schedule(0)
    })
    inFlight.set(job.id, { subscriptionId: job.subscriptionId, stop, done })
  }

  return {
    start() {
      stopping = false
      load ??= watchRequestLoad(events)
      schedule(0)
    },
    wake() {
      if (!stopping) schedule(0)
    },
    async stop(graceMs = 2000) {
      stopping = true
      cancelTick()
      load?.close()
      load = null
      const pending = [...inFlight.values()]
      if (pending.length > 0) {
        const grace = new Promise((resolve) => setTimeout(resolve, graceMs).unref())
        await Promise.race([Promise.all(pending.map((p) => p.done)), grace])
        for (const { stop } of inFlight.values()) stop.abort()
        await Promise.all([...inFlight.values()].map((p) => p.done))
      }
      sender.close()
    },
  }
}
