import type { Db } from '../store/db.ts'

type Runner = { immediate: <T>(work: () => T) => T }

// better-sqlite3 builds a wrapper per db.transaction() call; one per connection is enough.
const runners = new WeakMap<Db, Runner>()
const guards = new WeakMap<Db, () => void>()

/** `check` runs at the end of every write transaction on `db`; a throw rolls the write back. */
export function guardWrites(db: Db, check: () => void): void {
  guards.set(db, check)
}

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
  const guard = guards.get(db)
  if (!guard) return runner.immediate(work)
  return runner.immediate(() => {
    const result = work()
    guard()
    return result
  })
}
