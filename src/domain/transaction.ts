import { setTimeout as sleep } from 'node:timers/promises'
import { configurationWriteCount, countUndoneWrites } from '../store/changes.ts'
import { storeFault, type Db } from '../store/db.ts'

type Runner = { immediate: <T>(work: () => T) => T }

// better-sqlite3 builds a wrapper per db.transaction() call; one per connection is enough.
const runners = new WeakMap<Db, Runner>()
const guards = new WeakMap<Db, () => void>()
const lockWaits = new WeakMap<Db, number>()

/** `check` runs at the end of every write transaction on `db`; a throw rolls the write back. */
export function guardWrites(db: Db, check: () => void): void {
  guards.set(db, check)
}

/** The lock wait of writes through `whenStoreFree` on `db` (serve's setting); default REQUEST_LOCK_WAIT_MS. */
export function setLockWait(db: Db, ms: number): void {
  lockWaits.set(db, ms)
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
  const writesBefore = configurationWriteCount()
  try {
    if (!guard) return runner.immediate(work)
    return runner.immediate(() => {
      const result = work()
      guard()
      return result
    })
  } catch (error) {
    // Only a rollback that undid configuration writes: a lock not taken changed nothing.
    if (configurationWriteCount() !== writesBefore) countUndoneWrites()
    throw error
  }
}

interface Queued {
  work: () => unknown
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

const batches = new WeakMap<Db, Queued[]>()

/**
 * Runs `work` as `writeTransaction` would, in one transaction with the other writes queued on `db`
 * in this turn of the event loop: one commit for all of them. A commit writes every page the
 * transaction changed to the write-ahead log, and a record's insert changes four (the record, its
 * two indexes, the collection's counters), so one commit per request was most of what a POST cost;
 * the writes of concurrent requests mostly change the same pages. Each work runs in a savepoint of
 * its own, so one that throws undoes only itself and rejects only its own promise; the commit
 * failing (or the write lock not taken) rejects them all, as it would have each alone.
 */
export function batchedWriteTransaction<T>(db: Db, work: () => T): Promise<T> {
  let batch = batches.get(db)
  if (!batch) {
    batch = []
    batches.set(db, batch)
    setImmediate(() => runBatch(db))
  }
  const queued = batch
  return new Promise<T>((resolve, reject) => queued.push({ work, resolve: resolve as (value: unknown) => void, reject }))
}

function runBatch(db: Db): void {
  const batch = batches.get(db)!
  batches.delete(db)
  const outcomes: { value?: unknown; error?: unknown; failed: boolean }[] = []
  try {
    writeTransaction(db, () => {
      for (const { work } of batch) {
        try {
          outcomes.push({ value: writeTransaction(db, work), failed: false })
        } catch (error) {
          outcomes.push({ error, failed: true })
        }
      }
    })
  } catch (error) {
    for (const { reject } of batch) reject(error)
    return
  }
  batch.forEach(({ resolve, reject }, at) => {
    const outcome = outcomes[at]!
    if (outcome.failed) reject(outcome.error)
    else resolve(outcome.value)
  })
}

/** A request's lock wait: how long its write waits in all for another process's write lock before answering 503. */
export const REQUEST_LOCK_WAIT_MS = 5_000
const FIRST_PAUSE_MS = 10
const LONGEST_PAUSE_MS = 200

/**
 * While the lock is taken, one probe per connection looks for it to free and every waiting write
 * waits on that probe: each try blocks the event loop for the connection's busy wait, so many
 * writes trying on their own would freeze the requests that only read.
 */
const lockFreed = new WeakMap<Db, Promise<void>>()

function waitForLock(db: Db): Promise<void> {
  let freed = lockFreed.get(db)
  if (freed) return freed
  freed = (async () => {
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
      await sleep(pause, undefined, { ref: false })
      if (!db.open) return
      // A transaction of this connection is open only inside synchronous work, never across a timer.
      if (db.inTransaction) continue
      try {
        db.exec('BEGIN IMMEDIATE')
        db.exec('ROLLBACK')
        return
      } catch (error) {
        // Anything but the lock is for the write itself to meet and report.
        if (storeFault(error) !== 'busy') return
      }
    }
  })().finally(() => lockFreed.delete(db))
  lockFreed.set(db, freed)
  return freed
}

/**
 * Runs a write that may meet another process's write lock (`work` takes it at once, so failing
 * changed nothing). While the lock is held it waits without blocking the event loop, for up to
 * `waitMs` in all (default: the connection's lock wait), then lets SQLITE_BUSY through: the
 * caller answers 503 STORE_BUSY.
 */
export async function whenStoreFree<T>(db: Db, work: () => T | Promise<T>, waitMs = lockWaits.get(db) ?? REQUEST_LOCK_WAIT_MS): Promise<T> {
  const deadline = performance.now() + waitMs
  for (;;) {
    // Tried first even while a probe runs: work that turns out to only read never waits.
    try {
      return await work()
    } catch (error) {
      if (storeFault(error) !== 'busy' || performance.now() >= deadline) throw error
    }
    await untilDeadline(waitForLock(db), deadline)
  }
}

async function untilDeadline(freed: Promise<void>, deadline: number): Promise<void> {
  const left = deadline - performance.now()
  if (left <= 0) return
  const abort = new AbortController()
  await Promise.race([freed, sleep(left, undefined, { signal: abort.signal, ref: false }).catch(() => {})])
  abort.abort()
}
