import type BetterSqlite3 from 'better-sqlite3'
import { existsSync, mkdirSync, statSync } from 'node:fs'
import nodeModule from 'node:module'
import { dirname } from 'node:path'
import { AppError } from '../errors.ts'
import { countConfigurationWrites } from './changes.ts'
import { migrate } from './migrations/index.ts'

// Required, not imported: an import of this CommonJS package makes Node scan its source for the
// names it exports and build an ES module around it, a cost every start paid for nothing.
const Database = nodeModule.createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3

export type Db = BetterSqlite3.Database

/**
 * How long one statement waits for another process's write lock. better-sqlite3 waits inside the
 * call, freezing this process's event loop: a CLI command (nothing else to do) waits its whole
 * lock wait there; `serve` waits only a moment per try and waits longer between tries,
 * asynchronously (`whenStoreFree`).
 */
export const CLI_LOCK_WAIT_MS = 10_000
export const SERVE_BUSY_WAIT_MS = 20

export interface OpenOptions {
  /** The lock wait: how long a write waits for another process's write lock before failing busy (default 10 s). */
  lockWaitMs?: number | undefined
  /** Create the file (and its folders) when missing (the default); false: a missing file is an error that says what to do. */
  create?: boolean
}

const TRY_DB = 'pass --db with a file in a folder you can write (e.g. --db ~/mockapi.db)'

/** One line saying what to do, for the ways opening a path fails. */
function openProblem(path: string, error: NodeJS.ErrnoException): AppError {
  const code = error.code ?? ''
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || /SQLITE_(CANTOPEN|READONLY)|SQLITE_PERM/.test(code)) {
    return new AppError('STORE_UNAVAILABLE', `cannot create or write the database ${path} (${code === '' ? error.message : code}: permission denied or read-only); ${TRY_DB}`)
  }
  if (code === 'ENOTDIR') return new AppError('INVALID_INPUT', `cannot create the database ${path}: part of that path is a file, not a folder; ${TRY_DB}`)
  return new AppError('INVALID_INPUT', `cannot create or open the database ${path} (${error.message}); ${TRY_DB}`)
}

/**
 * `mkdirSync(…, { recursive: true })` one level at a time: Node's own loops without end under
 * /proc, and a file where a folder should be must say so.
 */
function makeFolders(folder: string): void {
  const stat = statSync(folder, { throwIfNoEntry: false })
  if (stat?.isDirectory()) return
  if (stat) throw Object.assign(new Error(`${folder} is not a folder`), { code: 'ENOTDIR' })
  const parent = dirname(folder)
  if (parent !== folder) makeFolders(parent)
  mkdirSync(folder)
}

/**
 * Opens and migrates a mockapi database; `:memory:` gives a private one. Only commands that make
 * something (`init`, `serve`, `import`, `apply`, `project create`) create a missing file: for the
 * others a typo in `--db` would otherwise look like every project had gone.
 */
export function openDb(path: string, options: OpenOptions = {}): Db {
  if (path !== ':memory:') {
    if (options.create === false && !existsSync(path)) {
      throw new AppError('NOT_FOUND', `no database at ${path}; run "mockapi init" to make one, or pass --db with the right file`)
    }
    try {
      makeFolders(dirname(path))
    } catch (error) {
      throw openProblem(path, error as NodeJS.ErrnoException)
    }
  }
  let db: Db
  try {
    db = new Database(path)
  } catch (error) {
    throw openProblem(path, error as NodeJS.ErrnoException)
  }
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.pragma('foreign_keys = ON')
    setBusyWait(db, options.lockWaitMs ?? CLI_LOCK_WAIT_MS)
    migrate(db)
    countConfigurationWrites(db)
  } catch (error) {
    db.close()
    if (/SQLITE_(CANTOPEN|READONLY)/.test((error as { code?: string }).code ?? '')) throw openProblem(path, error as NodeJS.ErrnoException)
    const fault = storeFaultError(error)
    if (fault) throw fault
    if (error instanceof AppError) throw error
    throw new AppError('INVALID_INPUT', `${path} is not a usable mockapi database: ${(error as Error).message}`)
  }
  return db
}

/** SQLite keeps its busy timeout in an int: a larger value would silently become no wait at all. */
const LONGEST_BUSY_WAIT_MS = 2_147_483_647

export function setBusyWait(db: Db, ms: number): void {
  db.pragma(`busy_timeout = ${Math.min(LONGEST_BUSY_WAIT_MS, Math.max(0, Math.trunc(ms) || 0))}`)
}

/**
 * What a failed statement says about the database rather than the statement: `busy` (another
 * process holds the write lock; trying again later works) or `unavailable` (the disk is full, the
 * file cannot be written or read; trying again works once that is fixed). Null for anything else.
 */
export type StoreFault = 'busy' | 'unavailable'

const FAULTS: [prefix: string, fault: StoreFault][] = [
  ['SQLITE_BUSY', 'busy'],
  ['SQLITE_LOCKED', 'busy'],
  ['SQLITE_FULL', 'unavailable'],
  ['SQLITE_IOERR', 'unavailable'],
  ['SQLITE_READONLY', 'unavailable'],
  ['SQLITE_CANTOPEN', 'unavailable'],
  ['SQLITE_CORRUPT', 'unavailable'],
  ['SQLITE_NOTADB', 'unavailable'],
]

export function storeFault(error: unknown): StoreFault | null {
  if (!(error instanceof Database.SqliteError)) return null
  // Extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_WRITE, …) share their primary code's prefix.
  return FAULTS.find(([prefix]) => error.code === prefix || error.code.startsWith(`${prefix}_`))?.[1] ?? null
}

/** Seconds a client is told to wait (`Retry-After`) when another process holds the lock. */
export const BUSY_RETRY_AFTER_S = 2

/** A store fault as the error users see (a 503 over HTTP, one line in the CLI); null for anything else. */
export function storeFaultError(error: unknown): AppError | null {
  switch (storeFault(error)) {
    case 'busy':
      return new AppError('STORE_BUSY', 'the database is busy: another process (mockapi serve or another mockapi command) holds its write lock; try again', {
        headers: { 'Retry-After': String(BUSY_RETRY_AFTER_S) },
      })
    case 'unavailable':
      return new AppError('STORE_UNAVAILABLE', `the database cannot be written or read (${(error as { code: string }).code}: ${(error as Error).message})`)
    default:
      return null
  }
}
