import type { H3 } from 'h3'
import type { Journal } from '../domain/journal.ts'
import { entryOf, projectMasking } from '../domain/journal-view.ts'
import { AppError } from '../errors.ts'
import type { DeliveryAttempted, InboxReceived } from '../events.ts'
import { bearerOf, notAllowed, type AdminDeps, type Authorize, isRead, route } from './admin-common.ts'
import { jsonResponse, textResponse } from './http-response.ts'
import { eventStream, eventStreamHead } from './sse.ts'

/** When the (already verified) bearer token expires, in ms since the epoch. */
async function expiryOf(authorization: string | null): Promise<number> {
  const { decodeJwt } = await import('jose')
  return decodeJwt(authorization!.replace(/^\s*Bearer\s+/i, '').trim()).exp! * 1000
}

/** How many entries `GET …/requests` gives without a `limit`. */
const DEFAULT_LISTED = 100

function listLimit(query: URLSearchParams, max: number): number {
  const raw = query.get('limit')
  if (raw === null) return Math.min(DEFAULT_LISTED, max)
  const limit = /^[1-9][0-9]{0,8}$/.test(raw) ? Number(raw) : NaN
  if (!(limit <= max)) {
    throw new AppError('INVALID_QUERY', `query parameter "limit" must be an integer from 1 to ${max}, got "${raw}"`, {
      details: [{ parameter: 'limit', message: `must be an integer from 1 to ${max}` }],
    })
  }
  return limit
}

function journalOf(deps: AdminDeps): Journal {
  if (!deps.journal) throw new AppError('CONFLICT', 'this serve keeps no journal of requests (--journal 0)')
  return deps.journal
}

/**
 * `…/requests` (the project's journal: every mock request since the start or the last clear) and
 * `…/events` (server-sent events: request, inbox, delivery). Whatever leaves here is masked.
 */
export function mountAdminLive(app: H3, deps: AdminDeps, authorized: Authorize): void {
  const { context, events } = deps

  route(app, '/api/projects/:projectId/requests', async (event) => {
    const project = await authorized(event)
    if (isRead(event)) {
      const journal = journalOf(deps)
      const records = journal.records(project.id)
      const limit = listLimit(event.url.searchParams, journal.size)
      const mask = projectMasking(context, project.id)
      const newest = records.slice(-limit).reverse().map((record) => entryOf(record, { mask }))
      return jsonResponse(200, newest, { 'X-Total-Count': String(records.length) })
    }
    if (event.req.method === 'DELETE') {
      journalOf(deps).clear(project.id)
      return textResponse(204, null)
    }
    notAllowed(event, ['DELETE', 'GET'])
  })

  route(app, '/api/projects/:projectId/events', async (event) => {
    const project = await authorized(event, { queryToken: true })
    if (!isRead(event)) notAllowed(event, ['GET'])
    if (event.req.method === 'HEAD') return eventStreamHead()
    // A stream is authorized once: it must not outlive the token that opened it.
    const endsInMs = (await expiryOf(bearerOf(event, true))) - context.clock.now().getTime()
    return eventStream(deps.signal, (send) => {
      const mask = projectMasking(context, project.id)
      const stopRequests = deps.journal?.subscribe(project.id, (record) => send('request', JSON.stringify(entryOf(record, { mask })))) ?? (() => {})
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
