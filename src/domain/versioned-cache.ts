import type { Db } from '../store/db.ts'

export interface VersionedCache<T> {
  get(): T
  /** Call after this process changed what the value is built from. */
  invalidate(): void
}

/** Another process's commit shows within this long; checking on every request cost ~6 % of a GET. */
const RECHECK_MS = 50

/**
 * A value built from the database and rebuilt when it may be stale: after `invalidate()`, or
 * when another connection (the CLI beside `serve`) committed, which `PRAGMA data_version` tells.
 */
export function createVersionedCache<T>(db: Db, build: () => T): VersionedCache<T> {
  const dataVersion = db.prepare('PRAGMA data_version').pluck()
  let value: T | undefined
  let built = false
  let seenVersion = -1
  let checkedAt = 0
  return {
    get() {
      const now = performance.now()
      if (built && now - checkedAt < RECHECK_MS) return value as T
      checkedAt = now
      const version = dataVersion.get() as number
      if (!built || version !== seenVersion) {
        value = build()
        built = true
        seenVersion = version
      }
      return value as T
    },
    invalidate() {
      built = false
    },
  }
}
