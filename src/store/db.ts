import Database from 'better-sqlite3'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { AppError } from '../errors.ts'
import { migrate } from './migrations/index.ts'

export type Db = Database.Database

/** Opens (creating if needed) and migrates a mockapi database. `:memory:` gives a private one. */
export function openDb(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  let db: Db
  try {
    db = new Database(path)
  } catch (error) {
    throw new AppError('INVALID_INPUT', `cannot open database ${path}: ${(error as Error).message}`)
  }
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.pragma('foreign_keys = ON')
    // Another process (the CLI beside `serve`) may hold the write lock for a moment.
    db.pragma('busy_timeout = 5000')
    migrate(db)
  } catch (error) {
    db.close()
    if (error instanceof AppError) throw error
    throw new AppError('INVALID_INPUT', `${path} is not a usable mockapi database: ${(error as Error).message}`)
  }
  return db
}
