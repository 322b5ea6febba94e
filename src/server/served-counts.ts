import { systemClock } from '../domain/context.ts'
import { createRequestStats, type RequestStats } from '../engine/stats-requests.ts'
import type { RequestServed } from '../events.ts'
import type { AdminDeps } from './admin-common.ts'

/** How often the counts of the requests let go of what is older than a day (and of projects without traffic since). */
const SWEEP_MS = 60_000

/**
 * The requests `…/stats` answers with, counted from the server's start as each is answered
 * (journal or not), though the management API loads only with its first request. A request no
 * project's path names counts for the project served at its own paths, as the journal keeps it.
 */
export function countServedRequests(deps: Pick<AdminDeps, 'context' | 'events' | 'signal' | 'ownPathsProject'>): RequestStats {
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
  return requests
}
