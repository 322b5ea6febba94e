import { deliveryBuckets } from '../engine/stats-deliveries.ts'
import type { RequestStats } from '../engine/stats-requests.ts'
import { parseStatsWindow } from '../engine/stats-window.ts'
import type { StatsView } from '../views.ts'
import type { Context } from './context.ts'

/**
 * A project's traffic over a window (`GET …/stats`): its mock requests as this serve counted them,
 * its subscriptions' delivery attempts from the delivery log; a bad `window` or `bucket` is a 400.
 */
export function projectStats(context: Context, requests: RequestStats, projectId: number, query: URLSearchParams): StatsView {
  const window = parseStatsWindow(query, context.clock.now().getTime())
  const subscriptions = context.repos.subscriptions.listByProject(projectId).map((subscription) => subscription.id)
  const samples = context.repos.stats.attemptSamples(projectId, window.fromMs, window.toMs)
  return {
    window: window.window,
    bucketSeconds: window.bucketSeconds,
    from: new Date(window.fromMs).toISOString(),
    to: new Date(window.toMs).toISOString(),
    requests: requests.buckets(projectId, window),
    deliveries: deliveryBuckets(subscriptions, samples, window),
  }
}
