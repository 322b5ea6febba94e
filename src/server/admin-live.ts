import type { H3 } from 'h3'
import type { DeliveryAttempted, InboxReceived } from '../events.ts'
import { bearerOf, notAllowed, type AdminDeps, type Authorize, isRead, route } from './admin-common.ts'
import { jsonResponse } from './http-response.ts'
import { eventStream, eventStreamHead } from './sse.ts'

/** When the (already verified) bearer token expires, in ms since the epoch. */
async function expiryOf(authorization: string | null): Promise<number> {
  const { decodeJwt } = await import('jose')
  return decodeJwt(authorization!.replace(/^\s*Bearer\s+/i, '').trim()).exp! * 1000
}

/**
 * `…/requests` (the recent mock requests) and `…/events` (server-sent events: request, inbox,
 * delivery). Either turns the request log on; until the dashboard asks, nothing is captured.
 */
export function mountAdminLive(app: H3, deps: AdminDeps, authorized: Authorize): void {
  const { context, events, requestLog } = deps

  route(app, '/api/projects/:projectId/requests', async (event) => {
    const project = await authorized(event)
    if (!isRead(event)) notAllowed(event, ['GET'])
    requestLog.activate()
    return jsonResponse(200, requestLog.list(project.id))
  })

  route(app, '/api/projects/:projectId/events', async (event) => {
    const project = await authorized(event, { queryToken: true })
    if (!isRead(event)) notAllowed(event, ['GET'])
    if (event.req.method === 'HEAD') return eventStreamHead()
    requestLog.activate()
    // A stream is authorized once: it must not outlive the token that opened it.
    const endsInMs = (await expiryOf(bearerOf(event, true))) - context.clock.now().getTime()
    return eventStream(deps.signal, (send) => {
      const stopRequests = requestLog.subscribe(project.id, (entry) => send('request', JSON.stringify(entry)))
      const onInbox = (received: InboxReceived) => {
        if (received.projectId === project.id) send('inbox', received.json)
      }
      const onDelivery = (attempted: DeliveryAttempted) => {
        if (context.repos.subscriptions.byId(attempted.subscriptionId)?.projectId !== project.id) return
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
    }, {
      endsInMs,
      // Deleted by the API, the dashboard or the CLI beside serve: nothing more will come.
      endedBy: () => (context.repos.projects.byId(project.id) ? null : `project ${project.id} was deleted`),
    })
  })
}
