import type { Db } from '../store/db.ts'

type Runner = { immediate: <T>(work: () => T) => T }

// better-sqlite3 builds a wrapper per db.transaction() call; one per connection is enough.
const runners = new WeakMap<Db, Runner>()

/**
 * Runs `work` in a write transaction that takes the lock up front (BEGIN IMMEDIATE), so a
 * second process never fails half-way with SQLITE_BUSY; nested calls become savepoints.
 */
export function writeTransaction<T>(db: Db, work: () => T): T {
  let runner = runners.get(db)
  if (!runner) {
    runner = db.transaction((job: () => unknown) => job()) as unknown as Runner
    runners.set(db, runner)
  }
  return runner.immediate(work)
}
