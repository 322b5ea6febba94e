import { epochMs } from '../domain/context.ts'
import { createRequestStats, type RequestStats } from '../engine/stats-requests.ts'
import type { RequestServed } from '../events.ts'
import type { AdminDeps } from './admin-common.ts'
import { settleServed } from './pipeline/record.ts'

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
  const onServed = (served: RequestServed) => {
    const projectId = served.projectId ?? deps.ownPathsProject()?.id
    if (projectId !== undefined) requests.record(projectId, served.at, served.status, served.durationMs)
  }
  events.on('request.served', onServed)
  const sweep = setInterval(() => requests.sweep(epochMs(context.clock)), SWEEP_MS)
  sweep.unref()
  deps.signal.addEventListener('abort', () => {
    events.off('request.served', onServed)
    clearInterval(sweep)
  }, { once: true })
  return {
    ...requests,
    // A request answered in this turn is counted before the counts are read.
    buckets(projectId, window) {
      settleServed(events)
      return requests.buckets(projectId, window)
    },
  }
}
