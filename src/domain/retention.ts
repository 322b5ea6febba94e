import type { Store } from './context.ts'
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

/** Prunes the log tables now and every few seconds, so a long-running serve stays the same size. */
export function startRetention(store: Store, limits: RetentionLimits): { stop(): void; pruneNow(): number } {
  const pruneNow = () => writeTransaction(store.db, () => store.repos.retention.prune(limits))
  pruneNow()
  const timer = setInterval(pruneNow, limits.everyMs)
  timer.unref()
  return { stop: () => clearInterval(timer), pruneNow }
}
