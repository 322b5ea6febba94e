import { setTimeout as sleep } from 'node:timers/promises'
import { isObject } from '../engine/json-input.ts'
import { countProgress, type OnProgress } from '../engine/progress.ts'
import { SINCE_FORMS, sinceTime } from '../engine/since.ts'
import { AppError } from '../errors.ts'
import type { Project, Subscription } from '../model.ts'
import type { RedeliveryTarget } from '../store/redeliveries.ts'
import type { RedeliverySkipReason, RedeliveryView } from '../views.ts'
import type { Context } from './context.ts'
import { requireSubscription } from './subscriptions.ts'
import { whenStoreFree, writeTransaction } from './transaction.ts'

/**
 * What to queue once more: the events of logged attempts (by attempt id; of `project` only, when
 * given), or every failed delivery of a project (or of one of its subscriptions) that failed at
 * `since` or later and was not queued again since.
 */
export type RedeliverySelection =
  | { attemptIds: number[]; project: Project | undefined }
  | { failed: true; project: Project; subscription: Subscription | null; since: number | null }

/**
 * Deliveries queued in one transaction. Between two, the write lock is left free for at least
 * `PAUSE_MS`, and for as long as the batch held it: serve (another process, or the same one
 * answering the management API) records its requests and attempts meanwhile.
 */
const BATCH = 500
const PAUSE_MS = 5

const ATTEMPT_ID = /^[1-9][0-9]{0,15}$/
const BODY_FIELDS = ['attemptIds', 'failed', 'subscriptionId', 'since']
const BODY_SHAPE = '{"attemptIds": [12, 13]} or {"failed": true, "subscriptionId"?: 3, "since"?: "1h"}'

function invalidField(field: string, message: string): never {
  throw new AppError('INVALID_INPUT', `"${field}" ${message}`, { details: [{ field, message }] })
}

/** A delivery id as the log shows it (the id of an attempt); null for anything else. */
export function attemptIdOf(raw: unknown): number | null {
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : ''
  const id = ATTEMPT_ID.test(text) ? Number(text) : Number.NaN
  return Number.isSafeInteger(id) ? id : null
}

/** `--since` or the body's `since`: an ISO time or a span back from now, in ms since the epoch. */
export function redeliverySince(context: Context, raw: unknown, field: string): number {
  return sinceTime(raw, context.clock.now().getTime()) ?? invalidField(field, `must be ${SINCE_FORMS}, got ${JSON.stringify(raw)}`)
}

/** The management API's body, `{attemptIds}` or `{failed: true, subscriptionId?, since?}`, checked against `project`. */
export function redeliveryRequest(context: Context, project: Project, input: unknown): RedeliverySelection {
  if (!isObject(input)) throw new AppError('INVALID_BODY', `request body must be a JSON object: ${BODY_SHAPE}`)
  const unknown = Object.keys(input).find((key) => !BODY_FIELDS.includes(key))
  if (unknown !== undefined) invalidField(unknown, `is not a field of a redelivery: ${BODY_SHAPE}`)
  if ('attemptIds' in input) {
    if ('failed' in input || 'subscriptionId' in input || 'since' in input) {
      throw new AppError('INVALID_INPUT', 'send "attemptIds" alone, or "failed" (with "subscriptionId" and "since"), not both')
    }
    const ids = input.attemptIds
    if (!Array.isArray(ids) || ids.length === 0) invalidField('attemptIds', 'must be a non-empty list of delivery ids (the ids of the delivery log)')
    return { attemptIds: ids.map((raw) => (typeof raw === 'number' ? attemptIdOf(raw) : null) ?? invalidField('attemptIds', `must hold positive integers, got ${JSON.stringify(raw)}`)), project }
  }
  if (input.failed !== true) invalidField('failed', `must be true (or send "attemptIds"): ${BODY_SHAPE}`)
  const rawSubscription = input.subscriptionId
  if (rawSubscription !== undefined && (typeof rawSubscription !== 'number' || attemptIdOf(rawSubscription) === null)) {
    invalidField('subscriptionId', `must be a subscription id, got ${JSON.stringify(rawSubscription)}`)
  }
  return {
    failed: true,
    project,
    subscription: rawSubscription === undefined ? null : requireSubscription(context, rawSubscription as number, project),
    since: input.since === undefined ? null : redeliverySince(context, input.since, 'since'),
  }
}

/** The attempts' events, each (event, subscription) once; an id of another project (when given) or of no attempt is refused, and nothing is queued. */
function attemptTargets(context: Context, project: Project | undefined, attemptIds: number[]): { targets: RedeliveryTarget[]; duplicates: RedeliveryTarget[] } {
  const projectOf = new Map<number, number | undefined>()
  const inProject = (subscriptionId: number) => {
    if (!projectOf.has(subscriptionId)) projectOf.set(subscriptionId, context.repos.subscriptions.byId(subscriptionId)?.projectId)
    return project === undefined || projectOf.get(subscriptionId) === project.id
  }
  const targets: RedeliveryTarget[] = []
  const duplicates: RedeliveryTarget[] = []
  const missing: number[] = []
  const seen = new Set<string>()
  for (const id of attemptIds) {
    const attempt = context.repos.deliveries.attemptById(id)
    if (!attempt || !inProject(attempt.subscriptionId)) {
      missing.push(id)
      continue
    }
    const target = { eventId: attempt.eventId, subscriptionId: attempt.subscriptionId }
    const key = `${target.subscriptionId} ${target.eventId}`
    if (seen.has(key)) {
      duplicates.push(target)
    } else {
      seen.add(key)
      targets.push(target)
    }
  }
  if (missing.length > 0) {
    const named = missing.slice(0, 5).map((id) => `"${id}"`).join(', ') + (missing.length > 5 ? ` and ${missing.length - 5} more` : '')
    throw new AppError('NOT_FOUND', `no deliver${missing.length === 1 ? 'y' : 'ies'} with id ${named}${project ? ` in project ${project.id}` : ''} (ids are listed by "mockapi webhooks deliveries"); nothing was queued`, {
      details: missing.map((attemptId) => ({ attemptId })),
    })
  }
  return { targets, duplicates }
}

/** Why a target was not queued (the transaction that tried it sees why). */
function whyNot(context: Context, target: RedeliveryTarget): RedeliverySkipReason {
  const subscription = context.repos.subscriptions.byId(target.subscriptionId)
  return !subscription ? 'subscription-deleted' : !subscription.enabled ? 'subscription-off' : 'event-pruned'
}

/**
 * Queues each selected event once more for its subscription, due at once, in transactions of
 * `BATCH`; what cannot be queued (its subscription turned off or deleted meanwhile, its event
 * pruned) is skipped and counted.
 */
export async function redeliverMany(context: Context, selection: RedeliverySelection, options: { onProgress?: OnProgress | undefined } = {}): Promise<RedeliveryView> {
  const skips = new Map<string, RedeliveryView['skips'][number]>()
  const skip = (target: RedeliveryTarget, reason: RedeliverySkipReason) => {
    const key = `${target.subscriptionId} ${reason}`
    const entry = skips.get(key)
    if (entry) entry.count += 1
    else skips.set(key, { subscriptionId: target.subscriptionId, reason, count: 1 })
  }
  let targets: RedeliveryTarget[]
  if ('attemptIds' in selection) {
    const picked = attemptTargets(context, selection.project, selection.attemptIds)
    targets = picked.targets
    for (const duplicate of picked.duplicates) skip(duplicate, 'duplicate')
  } else {
    targets = context.repos.redeliveries.failed(selection.project.id, selection.subscription?.id ?? null, selection.since ?? 0)
  }

  const progress = countProgress(options.onProgress, 'queuing deliveries', targets.length)
  let queued = 0
  for (let start = 0; start < targets.length; start += BATCH) {
    const batch = targets.slice(start, start + BATCH)
    const began = performance.now()
    const notQueued = await whenStoreFree(context.db, () => writeTransaction(context.db, () => {
      const now = context.clock.now()
      const left: [RedeliveryTarget, RedeliverySkipReason][] = []
      for (const target of batch) {
        if (!context.repos.redeliveries.queue(target, now.getTime(), now.toISOString())) left.push([target, whyNot(context, target)])
        progress.add()
      }
      return left
    }))
    queued += batch.length - notQueued.length
    for (const [target, reason] of notQueued) skip(target, reason)
    if (start + BATCH < targets.length) await sleep(Math.max(PAUSE_MS, performance.now() - began))
  }
  progress.finish()
  const listed = [...skips.values()].sort((a, b) => a.subscriptionId - b.subscriptionId || a.reason.localeCompare(b.reason))
  return { queued, skipped: listed.reduce((n, s) => n + s.count, 0), skips: listed }
}
