import { storeFault } from '../store/db.ts'

/**
 * Where background work (the delivery worker, the event recorder, log pruning) reports what went wrong.
 * Such work runs in timers, where a throw would end the process: it catches everything, tries
 * again later and says so here, once when a problem starts and once when it is over, not on
 * every try.
 */
export interface BackgroundLog {
  failed(task: string, error: unknown): void
  succeeded(task: string): void
  /** Something lost or skipped, said once where it happened. */
  note(task: string, message: string): void
}

export function createBackgroundLog(options: { write: (line: string) => void; debug?: boolean }): BackgroundLog {
  const failing = new Map<string, string>()
  return {
    failed(task, error) {
      const fault = storeFault(error)
      const problem = fault === 'busy'
        ? 'the database is busy (another process holds its write lock); trying again'
        : fault === 'unavailable'
          ? `the database cannot be written (${(error as { code: string }).code}: ${(error as Error).message}); trying again`
          : `failed: ${(error as Error)?.message ?? String(error)}`
      if (failing.get(task) === problem) return
      failing.set(task, problem)
      options.write(`! ${task}: ${problem}`)
      if (fault === null && options.debug) options.write(String((error as Error)?.stack ?? error))
    },
    succeeded(task) {
      if (!failing.delete(task)) return
      options.write(`✔ ${task}: working again`)
    },
    note(task, message) {
      options.write(`! ${task}: ${message}`)
    },
  }
}

/** Until the database works again, background work tries once a second at most. */
export function retryDelayMs(failures: number): number {
  return Math.min(1000, 50 * 2 ** Math.min(failures, 5))
}
