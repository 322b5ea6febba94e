import { writeTransaction } from '../../src/domain/transaction.ts'
import { openStore } from '../_helpers.ts'

/**
 * `count` failed deliveries of `subscriptionId`, as the worker leaves them after their last
 * attempt (an event, its delivery marked failed at `failedAt`, one attempt logged), written
 * through the store in one transaction: serving and failing 20,000 requests would take minutes.
 * Returns the events' ids, oldest first.
 */
export function arrangeFailed(dbPath: string, subscriptionId: number, count: number, failedAt = Date.now()): string[] {
  const { context } = openStore(dbPath)
  const subscription = context.repos.subscriptions.byId(subscriptionId)!
  const { deliveries } = context.repos
  const at = new Date(failedAt).toISOString()
  return writeTransaction(context.db, () => Array.from({ length: count }, (_, i) => {
    const eventId = `evt_${subscriptionId}_${failedAt}_${i}`
    deliveries.insertEvent({ id: eventId, projectId: subscription.projectId, type: 'mock.request', payload: JSON.stringify({ id: eventId, type: 'mock.request', n: i }), createdAt: at })
    const deliveryId = deliveries.insertDelivery(eventId, subscriptionId, failedAt, at)!
    deliveries.markFailed(deliveryId, failedAt)
    deliveries.logAttempt({ deliveryId, subscriptionId, eventId, eventType: 'mock.request', attempt: 1, statusCode: 500, succeeded: false, error: 'HTTP 500', durationMs: 3, timestamp: at })
    return eventId
  }))
}
