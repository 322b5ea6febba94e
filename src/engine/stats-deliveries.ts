import type { AttemptSample } from '../model.ts'
import { exactPercentile } from './stats-percentiles.ts'
import type { DeliveryBucketView } from '../views.ts'
import type { StatsWindow } from './stats-window.ts'

/**
 * Each subscription's buckets over the window, by subscription then time, one per bucket whether or
 * not it had attempts; percentiles exact (the attempts are few enough to sort).
 */
export function deliveryBuckets(subscriptionIds: readonly number[], samples: readonly AttemptSample[], window: StatsWindow): DeliveryBucketView[] {
  const bucketMs = window.bucketSeconds * 1000
  const bySubscription = new Map(subscriptionIds.map((id) => [id, Array.from({ length: window.bucketCount }, () => [] as AttemptSample[])]))
  for (const sample of samples) {
    const index = Math.floor((sample.atMs - window.fromMs) / bucketMs)
    if (index >= 0 && index < window.bucketCount) bySubscription.get(sample.subscriptionId)?.[index]!.push(sample)
  }
  const buckets: DeliveryBucketView[] = []
  for (const [subscriptionId, perBucket] of bySubscription) {
    perBucket.forEach((attempts, index) => {
      const durations = attempts.map((attempt) => attempt.durationMs).sort((a, b) => a - b)
      const outcomes = { succeeded: 0, retrying: 0, failed: 0 }
      for (const attempt of attempts) outcomes[attempt.outcome] += 1
      buckets.push({
        at: new Date(window.fromMs + index * bucketMs).toISOString(),
        subscriptionId,
        ...outcomes,
        p50: exactPercentile(durations, 0.5),
        p95: exactPercentile(durations, 0.95),
      })
    })
  }
  return buckets
}
