import type { H3 } from 'h3'
import type { Journal } from '../domain/journal.ts'
import { entryOf, liveMasking, maskDifference, projectMasking } from '../domain/journal-view.ts'
import { AppError } from '../errors.ts'
import type { DeliveryAttempted, InboxReceived } from '../events.ts'
import type { Project } from '../model.ts'
import { bearerOf, notAllowed, type AdminDeps, type Authorize, isRead, route } from './admin-common.ts'
import { readJsonBody } from './body.ts'
import { jsonResponse, textResponse } from './http-response.ts'
import { eventStream, eventStreamHead } from './sse.ts'

/** When the (already verified) bearer token expires, in ms since the epoch. */
async function expiryOf(authorization: string | null): Promise<number> {
  const { decodeJwt } = await import('jose')
  return decodeJwt(authorization!.replace(/^\s*Bearer\s+/i, '').trim()).exp! * 1000
}

/** How many entries `GET …/requests` gives without a `limit`. */
const DEFAULT_LISTED = 100

/** The filter of a query on this project's journal: the project is the path's, a `project` field is refused. */
async function projectFilter(input: URLSearchParams | unknown, now: number) {
  const { parseFilter } = await import('../engine/journal-filter.ts')
  const filter = parseFilter(input, now)
  if (filter.project !== undefined) {
    const fromQuery = input instanceof URLSearchParams
    throw new AppError(fromQuery ? 'INVALID_QUERY' : 'INVALID_INPUT', `${fromQuery ? 'query parameter ' : ''}"project" is not taken here: the project is the one in the path`, {
      details: [{ field: 'project', message: 'the project is the one in the path' }],
    })
  }
  return filter
}

/** The journal, as of the project's last reset: one made by another process since is seen here first. */
function journalOf(deps: AdminDeps, project: Project): Journal {
  if (!deps.journal) throw new AppError('CONFLICT', 'this serve keeps no journal of requests (--journal 0)')
  deps.journal.seenReset(project.id, project.sequenceEpoch)
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
      const journal = journalOf(deps, project)
      const filter = await projectFilter(event.url.searchParams, context.clock.now().getTime())
      const { queryJournal, pageOf } = await import('../domain/journal-query.ts')
      const { matching } = queryJournal(journal.records(project.id), filter, context.clock.now().getTime())
      const mask = projectMasking(context, project.id)
      const newest = pageOf(matching, { limit: filter.limit ?? DEFAULT_LISTED, after: filter.after }).reverse().map((record) => entryOf(record, { mask }))
      return jsonResponse(200, newest, { 'X-Total-Count': String(matching.length), 'X-Journal-Size': String(journal.size) })
    }
    if (event.req.method === 'DELETE') {
      journalOf(deps, project).clear(project.id)
      return textResponse(204, null)
    }
    notAllowed(event, ['DELETE', 'GET'])
  })

  // WireMock's find and count in one: the entries a filter with a `when` holds for, and the closest when none does.
  route(app, '/api/projects/:projectId/requests/find', async (event) => {
    const project = await authorized(event)
    if (event.req.method !== 'POST') notAllowed(event, ['POST'])
    const journal = journalOf(deps, project)
    const now = context.clock.now().getTime()
    const filter = await projectFilter(await readJsonBody(event, deps.bodyLimit), now)
    const { searchJournal, pageOf } = await import('../domain/journal-query.ts')
    const search = searchJournal(journal.records(project.id), filter, now)
    const { matching } = search
    const mask = projectMasking(context, project.id)
    const requests = pageOf(matching, { limit: filter.limit ?? DEFAULT_LISTED, after: filter.after }).reverse().map((record) => entryOf(record, { mask }))
    if (matching.length > 0) return jsonResponse(200, { count: matching.length, requests })
    const closest = search.closest().map(({ record, differences }) => ({ request: entryOf(record, { mask }), differences: differences.map((difference) => maskDifference(difference, mask)) }))
    return jsonResponse(200, { count: 0, requests, closest })
  })

  route(app, '/api/projects/:projectId/events', async (event) => {
    const project = await authorized(event, { queryToken: true })
    if (!isRead(event)) notAllowed(event, ['GET'])
    if (event.req.method === 'HEAD') return eventStreamHead()
    // A stream is authorized once: it must not outlive the token that opened it.
    const endsInMs = (await expiryOf(bearerOf(event, true))) - context.clock.now().getTime()
    return eventStream(deps.signal, (send) => {
      const masking = liveMasking(context, project.id)
      const stopRequests = deps.journal?.subscribe(project.id, (record) => send('request', JSON.stringify(entryOf(record, { mask: masking() })))) ?? (() => {})
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
