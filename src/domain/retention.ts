import type { BackgroundLog } from './background.ts'
import type { Context } from './context.ts'
import { writeTransaction } from './transaction.ts'

export interface RetentionLimits {
  /** Newest inbox payloads kept per project. */
  inboxPerProject: number
  /** Newest finished deliveries (with their attempts) kept per subscription. */
  deliveriesPerSubscription: number
  /** How often to prune. */
  everyMs: number
}

export const DEFAULT_RETENTION: RetentionLimits = { inboxPerProject: 1000, deliveriesPerSubscription: 1000, everyMs: 5000 }

const TASK = 'log pruning'

/**
 * Prunes the log tables every few seconds, so a long-running serve stays the same size. The first
 * prune waits one period: at start it would hold up the first requests behind a large delete.
 * A prune the database cannot take now (busy, disk full) is simply the next one's work.
 */
export function startRetention(context: Context, limits: RetentionLimits, log: BackgroundLog): { stop(): void } {
  const pruneNow = () => {
    try {
      writeTransaction(context.db, () => context.repos.retention.prune(limits))
      log.succeeded(TASK)
    } catch (error) {
      log.failed(TASK, error)
    }
  }
  const timer = setInterval(pruneNow, limits.everyMs)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
