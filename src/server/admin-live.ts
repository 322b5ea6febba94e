import type { H3 } from 'h3'
import type { DeliveryAttempted, InboxReceived } from '../events.ts'
import { notAllowed, type AdminDeps, type Authorize } from './admin-common.ts'
import { jsonResponse } from './respond.ts'
import { eventStream } from './sse.ts'

/**
 * `…/requests` (the recent mock requests) and `…/events` (server-sent events: request, inbox,
 * delivery). Either turns the request log on; until the dashboard asks, nothing is captured.
 */
export function mountAdminLive(app: H3, deps: AdminDeps, authorized: Authorize): void {
  const { store, events, requestLog } = deps

  app.all('/api/projects/:projectId/requests', async (event) => {
    const project = await authorized(event)
    if (event.req.method !== 'GET') notAllowed(event, ['GET'])
    requestLog.activate()
    return jsonResponse(200, requestLog.list(project.id))
  })

  app.all('/api/projects/:projectId/events', async (event) => {
    const project = await authorized(event, { queryToken: true })
    if (event.req.method !== 'GET') notAllowed(event, ['GET'])
    requestLog.activate()
    return eventStream(deps.signal, (send) => {
      const stopRequests = requestLog.subscribe(project.id, (entry) => send('request', JSON.stringify(entry)))
      const onInbox = (received: InboxReceived) => {
        if (received.projectId === project.id) send('inbox', received.json)
      }
      const onDelivery = (attempted: DeliveryAttempted) => {
        if (store.repos.subscriptions.byId(attempted.subscriptionId)?.projectId !== project.id) return
        const { subscriptionId, deliveryId, attempt, statusCode, succeeded, error, durationMs, outcome } = attempted
        send('delivery', JSON.stringify({ subscriptionId, deliveryId, attempt, statusCode, succeeded, error, durationMs, outcome }))
      }
      events.on('inbox.received', onInbox)
      events.on('delivery.attempted', onDelivery)
      return () => {
        stopRequests()
        events.off('inbox.received', onInbox)
        events.off('delivery.attempted', onDelivery)
      }
    })
  })
}
