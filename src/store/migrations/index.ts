import type { Database } from 'better-sqlite3'
import { AppError } from '../../errors.ts'
import { up as init } from './0010-init.ts'
import { up as webhooks } from './0020-webhooks.ts'
import { up as endpointConfig } from './0030-endpoint-config.ts'
import { up as retention } from './0040-retention.ts'
import { up as fieldIndexes } from './0050-field-indexes.ts'
import { up as apiSpecs } from './0060-api-specs.ts'
import { up as specFormats } from './0070-spec-formats.ts'
import { up as seedSnapshots } from './0080-seed-snapshots.ts'

export interface Migration {
  version: number
  up: (db: Database) => void
}

/** Ordered, numbered in steps of 10; the database's `user_version` records the last one applied. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 10, up: init },
  { version: 20, up: webhooks },
  { version: 30, up: endpointConfig },
  { version: 40, up: retention },
  { version: 50, up: fieldIndexes },
  { version: 60, up: apiSpecs },
  { version: 70, up: specFormats },
  { version: 80, up: seedSnapshots },
]

export const LATEST_VERSION = MIGRATIONS.at(-1)?.version ?? 0

export function migrate(db: Database, target = LATEST_VERSION): void {
  const current = db.pragma('user_version', { simple: true }) as number
  if (current > LATEST_VERSION) {
    throw new AppError('INVALID_INPUT', `database schema version ${current} is newer than this mockapi understands (${LATEST_VERSION}); upgrade mockapi`)
  }
  const pending = MIGRATIONS.filter((m) => m.version > current && m.version <= target)
  if (pending.length === 0) return
  // One transaction for the whole step: a crash mid-way leaves the old schema intact.
  db.transaction(() => {
    for (const migration of pending) {
      migration.up(db)
      db.pragma(`user_version = ${migration.version}`)
    }
  }).immediate()
}
