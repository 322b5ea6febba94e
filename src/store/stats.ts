import type { Db } from './db.ts'
import type { AttemptOutcome, AttemptSample } from '../model.ts'
import { ATTEMPT_OUTCOME_SQL } from './attempt-outcome.ts'

interface SampleRow {
  subscription_id: number
  timestamp: string
  outcome: AttemptOutcome
  duration_ms: number
}

export type StatsRepo = ReturnType<typeof createStatsRepo>

/** What the stats read of the delivery log. */
export function createStatsRepo(db: Db) {
  // Timestamps are ISO text in UTC (toISOString), so they compare as text.
  const samples = db.prepare<[number, string, string], SampleRow>(
    `SELECT a.subscription_id, a.timestamp, a.duration_ms,
            ${ATTEMPT_OUTCOME_SQL} AS outcome
       FROM subscriptions s
       JOIN attempts a ON a.subscription_id = s.id
       JOIN deliveries d ON d.id = a.delivery_id
      WHERE s.project_id = ? AND a.timestamp >= ? AND a.timestamp < ?`,
  )

  return {
    /** The project's delivery attempts logged from `fromMs` up to (not including) `toMs`. */
    attemptSamples(projectId: number, fromMs: number, toMs: number): AttemptSample[] {
      return samples.all(projectId, new Date(fromMs).toISOString(), new Date(toMs).toISOString()).map((row) => ({
        subscriptionId: row.subscription_id,
        atMs: Date.parse(row.timestamp),
        outcome: row.outcome,
        durationMs: row.duration_ms,
      }))
    },
  }
}
