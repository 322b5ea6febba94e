import { randomBytes } from 'node:crypto'
import { targetUrlProblem } from '../engine/target-url.ts'
import { AppError } from '../errors.ts'
import { EVENT_TYPES, type Attempt, type EventType, type Project, type Subscription } from '../model.ts'
import type { Context } from './context.ts'
import { writeTransaction } from './transaction.ts'
import { isObject } from '../engine/json-input.ts'

export const DELIVERY_LOG_LIMIT = 50

function invalidField(field: string, message: string): never {
  throw new AppError('INVALID_INPUT', `"${field}" ${message}`, { details: [{ field, message }] })
}

function checkName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') invalidField('name', 'must be a non-empty string')
  if (value.length > 200) invalidField('name', 'must be at most 200 characters')
  return value.trim()
}

export function checkTargetUrl(value: unknown): string {
  if (typeof value !== 'string') invalidField('targetUrl', 'must be an absolute http(s) URL')
  const problem = targetUrlProblem(value)
  if (problem !== null) invalidField('targetUrl', problem)
  return new URL(value).href
}

function checkEvents(value: unknown): EventType[] {
  if (!Array.isArray(value) || value.length === 0) invalidField('events', `must be a non-empty list of ${EVENT_TYPES.join(', ')}`)
  for (const event of value) {
    if (!(EVENT_TYPES as readonly unknown[]).includes(event)) invalidField('events', `has "${String(event)}"; allowed: ${EVENT_TYPES.join(', ')}`)
  }
  return [...new Set(value as EventType[])]
}

export function createSubscription(context: Context, project: Project, input: unknown): Subscription {
  if (!isObject(input)) throw new AppError('INVALID_BODY', 'request body must be a JSON object with name, targetUrl and events')
  const fields = { name: checkName(input.name), targetUrl: checkTargetUrl(input.targetUrl), events: checkEvents(input.events) }
  // The project may have been deleted (by another process) while the body was read.
  return writeTransaction(context.db, () => {
    if (!context.repos.projects.byId(project.id)) throw new AppError('PROJECT_NOT_FOUND', `project ${project.id} was deleted`)
    return context.repos.subscriptions.insert({
      projectId: project.id,
      ...fields,
      secret: `whsec_${randomBytes(24).toString('base64')}`,
      createdAt: context.clock.now().toISOString(),
    })
  })
}

function gone(subscription: Subscription): AppError {
  return new AppError('NOT_FOUND', `no webhook subscription with id "${subscription.id}" (it was deleted)`)
}

export function requireSubscription(context: Context, id: string | number, project?: Project): Subscription {
  const numeric = typeof id === 'number' ? id : /^[1-9][0-9]{0,15}$/.test(id) ? Number(id) : NaN
  const subscription = Number.isSafeInteger(numeric) ? context.repos.subscriptions.byId(numeric) : undefined
  if (!subscription || (project && subscription.projectId !== project.id)) {
    throw new AppError('NOT_FOUND', `no webhook subscription with id "${id}"${project ? ` in project ${project.id}` : ''}`)
  }
  return subscription
}

/** Applies `{enabled, name, targetUrl, events}`; turning one off cancels its pending retries. */
export function updateSubscription(context: Context, subscription: Subscription, input: unknown): Subscription {
  if (!isObject(input)) throw new AppError('INVALID_BODY', 'request body must be a JSON object')
  const known = ['enabled', 'name', 'targetUrl', 'events'].filter((key) => key in input)
  if (known.length === 0) throw new AppError('INVALID_INPUT', 'nothing to change: send enabled, name, targetUrl or events')
  if ('enabled' in input && typeof input.enabled !== 'boolean') invalidField('enabled', 'must be true or false')
  // Each callback names its own URL, and it carries no events: it can only be turned off or on.
  const fixed = subscription.kind === 'callbacks' ? known.filter((key) => key !== 'enabled') : []
  if (fixed.length > 0) throw new AppError('CONFLICT', `subscription ${subscription.id} sends the project's OpenAPI callbacks: only "enabled" can change, not ${fixed.join(', ')}`)
  const next: Subscription = {
    ...subscription,
    ...('enabled' in input ? { enabled: input.enabled as boolean } : {}),
    ...('name' in input ? { name: checkName(input.name) } : {}),
    ...('targetUrl' in input ? { targetUrl: checkTargetUrl(input.targetUrl) } : {}),
    ...('events' in input ? { events: checkEvents(input.events) } : {}),
  }
  return writeTransaction(context.db, () => {
    if (!context.repos.subscriptions.byId(subscription.id)) throw gone(subscription)
    if (!next.enabled) context.repos.deliveries.cancelPending(subscription.id)
    return context.repos.subscriptions.update(next)
  })
}

/**
 * Why the project's OpenAPI callbacks are not sent, when its callbacks subscription is turned off
 * (said in the journal note of the request that set them off); null when they are sent.
 */
export function callbacksOffNote(context: Context, projectId: number, count: number): string | null {
  const subscription = context.repos.subscriptions.callbacksOf(projectId)
  if (!subscription || subscription.enabled) return null
  return `${count} callback${count === 1 ? '' : 's'} not sent: callbacks are off for this project (mockapi webhooks toggle ${subscription.id} turns them on)`
}

export function deleteSubscription(context: Context, subscription: Subscription): void {
  if (!context.repos.subscriptions.remove(subscription.id)) throw gone(subscription)
}

export function recentAttempts(context: Context, subscriptionId: number, limit = DELIVERY_LOG_LIMIT): Attempt[] {
  return context.repos.deliveries.recentAttempts(subscriptionId, Math.min(limit, 1000))
}

/** Queues the event of a logged attempt once more, for the same subscription (of `project`, when given). */
export function redeliver(context: Context, attemptId: string, project?: Project): { deliveryId: number; attempt: Attempt } {
  const id = /^[1-9][0-9]{0,15}$/.test(attemptId) ? Number(attemptId) : NaN
  const found = Number.isSafeInteger(id) ? context.repos.deliveries.attemptById(id) : undefined
  const attempt = found && (!project || context.repos.subscriptions.byId(found.subscriptionId)?.projectId === project.id) ? found : undefined
  if (!attempt) throw new AppError('NOT_FOUND', `no delivery with id "${attemptId}"${project ? ` in project ${project.id}` : ''} (ids are listed by "mockapi webhooks deliveries")`)
  // One transaction: the subscription checked is the one the delivery is queued for.
  return writeTransaction(context.db, () => {
    const subscription = requireSubscription(context, attempt.subscriptionId)
    if (!subscription.enabled) throw new AppError('CONFLICT', `subscription ${subscription.id} is off; turn it on first`)
    const now = context.clock.now()
    const deliveryId = context.repos.deliveries.insertDelivery(attempt.eventId, subscription.id, now.getTime(), now.toISOString())
    if (deliveryId === null) throw gone(subscription)
    return { deliveryId, attempt }
  })
}
