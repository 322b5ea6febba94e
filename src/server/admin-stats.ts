import type { H3 } from 'h3'
import { systemClock } from '../domain/context.ts'
import { projectStats } from '../domain/stats.ts'
import { createRequestStats } from '../engine/stats-requests.ts'
import type { RequestServed } from '../events.ts'
import { notAllowed, type AdminDeps, type Authorize, isRead, route } from './admin-common.ts'
import { jsonResponse } from './http-response.ts'

/** How often the counts of the requests let go of what is older than a day (and of projects without traffic since). */
const SWEEP_MS = 60_000

/**
 * `…/stats`: the project's requests per bucket, by status class with duration percentiles, and its
 * deliveries per subscription, by outcome with latency percentiles. The requests are counted here,
 * as each is answered (journal or not); a request no project's path names counts for the project
 * served at its own paths, as the journal keeps it.
 */
export function mountAdminStats(app: H3, deps: AdminDeps, authorized: Authorize): void {
  const { context, events } = deps
  const requests = createRequestStats()
  // The system clock read without a Date per request; a test's clock as it says.
  const now = context.clock === systemClock ? Date.now : () => context.clock.now().getTime()
  const onServed = (served: RequestServed) => {
    const projectId = served.projectId ?? deps.ownPathsProject()?.id
    if (projectId !== undefined) requests.record(projectId, now(), served.status, served.durationMs)
  }
  events.on('request.served', onServed)
  const sweep = setInterval(() => requests.sweep(now()), SWEEP_MS)
  sweep.unref()
  deps.signal.addEventListener('abort', () => {
    events.off('request.served', onServed)
    clearInterval(sweep)
  }, { once: true })

  route(app, '/api/projects/:projectId/stats', async (event) => {
    const project = await authorized(event)
    if (!isRead(event)) notAllowed(event, ['GET'])
    // As `…/requests` says it: the dashboard learns here that the journal is off (0) without asking it for a 409.
    return jsonResponse(200, projectStats(context, requests, project.id, event.url.searchParams), { 'X-Journal-Size': String(deps.journal?.size ?? 0) })
  })
}
