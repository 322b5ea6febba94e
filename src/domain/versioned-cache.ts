import { configurationWriteCount, otherConnectionsCommits } from '../store/changes.ts'
import type { Db } from '../store/db.ts'

export interface VersionedCache<T> {
  get(): T
  /** Built again now: the caller found the value older than the store (another process's commit, inside RECHECK_MS). */
  refresh(): T
}

/** Another process's commit shows within this long; checking on every request cost ~6 % of a GET. */
const RECHECK_MS = 50

/**
 * A value built from the configuration tables (projects, resources, endpoints, imports,
 * subscriptions), rebuilt when they may have changed: at once after this process wrote to them
 * (the store counts those writes, whichever code made them), and within `recheckMs` (RECHECK_MS)
 * after another process committed; 0 looks for such a commit on every get, for a value that must
 * never be behind the store. A value built inside a transaction that then rolls back is rebuilt
 * too: `writeTransaction` counts the undoing as a write.
 */
export function createVersionedCache<T>(db: Db, build: () => T, options: { recheckMs?: number } = {}): VersionedCache<T> {
  const recheckMs = options.recheckMs ?? RECHECK_MS
  const commitsByOthers = otherConnectionsCommits(db)
  let value: T | undefined
  let built = false
  let seenWrites = -1
  let seenCommits = -1
  let checkedAt = 0
  const rebuild = (writes: number, commits: number, now: number): T => {
    value = build()
    built = true
    seenWrites = writes
    seenCommits = commits
    checkedAt = now
    return value
  }
  return {
    get() {
      const writes = configurationWriteCount()
      const now = performance.now()
      if (built && writes === seenWrites && now - checkedAt < recheckMs) return value as T
      const commits = commitsByOthers()
      if (built && writes === seenWrites && commits === seenCommits) {
        checkedAt = now
        return value as T
      }
      return rebuild(writes, commits, now)
    },
    refresh: () => rebuild(configurationWriteCount(), commitsByOthers(), performance.now()),
  }
}
