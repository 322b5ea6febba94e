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
import { up as uniqueIds } from './0090-unique-ids.ts'
import { up as fieldIndexTriggers } from './0100-field-index-triggers.ts'
import { up as pathRules } from './0110-path-rules.ts'
import { up as delayRangesFaults } from './0120-delay-ranges-faults.ts'
import { up as bodies } from './0130-bodies.ts'
import { up as auth } from './0140-auth.ts'
import { up as responses } from './0150-responses.ts'
import { up as negotiation } from './0160-negotiation.ts'
import { up as callbacks } from './0170-callbacks.ts'
import { up as resourceOnDelete } from './0180-resource-on-delete.ts'
import { up as typedIds } from './0190-typed-ids.ts'
import { up as recordText } from './0200-record-text.ts'
import { up as resourcePatch } from './0210-resource-patch.ts'
import { up as singularResources } from './0220-singular-resources.ts'
import { up as proxy } from './0230-proxy.ts'
import { up as recordings } from './0240-recordings.ts'
import { up as snapshotSeqs } from './0250-snapshot-seqs.ts'
import { up as collectionVersions } from './0260-collection-versions.ts'
import { up as attemptsByDelivery } from './0270-attempts-by-delivery.ts'
import { up as deliveriesDueBySubscription } from './0280-deliveries-due-by-subscription.ts'

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
  { version: 90, up: uniqueIds },
  { version: 100, up: fieldIndexTriggers },
  { version: 110, up: pathRules },
  { version: 120, up: delayRangesFaults },
  { version: 130, up: bodies },
  { version: 140, up: auth },
  { version: 150, up: responses },
  { version: 160, up: negotiation },
  { version: 170, up: callbacks },
  { version: 180, up: resourceOnDelete },
  { version: 190, up: typedIds },
  { version: 200, up: recordText },
  { version: 210, up: resourcePatch },
  { version: 220, up: singularResources },
  { version: 230, up: proxy },
  { version: 240, up: recordings },
  { version: 250, up: snapshotSeqs },
  { version: 260, up: collectionVersions },
  { version: 270, up: attemptsByDelivery },
  { version: 280, up: deliveriesDueBySubscription },
]

export const LATEST_VERSION = MIGRATIONS.at(-1)?.version ?? 0

export function migrate(db: Database, target = LATEST_VERSION): void {
  const version = () => db.pragma('user_version', { simple: true }) as number
  const pendingFrom = (current: number) => MIGRATIONS.filter((m) => m.version > current && m.version <= target)
  const current = version()
  if (current > LATEST_VERSION) {
    throw new AppError('INVALID_INPUT', `database schema version ${current} is newer than this mockapi understands (${LATEST_VERSION}); upgrade mockapi`)
  }
  if (pendingFrom(current).length === 0) return
  // A migration that rebuilds a table drops the old one, which with foreign keys on would
  // cascade-delete every row referring to it. SQLite ignores this setting inside a transaction,
  // so it goes off around the step, and the references are checked before it commits.
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) === 1
  if (foreignKeys) db.pragma('foreign_keys = OFF')
  try {
    // One transaction for the whole step: a crash mid-way leaves the old schema intact. The version
    // is read again under the lock: another process may have migrated while this one waited.
    db.transaction(() => {
      for (const migration of pendingFrom(version())) {
        migration.up(db)
        db.pragma(`user_version = ${migration.version}`)
      }
      const broken = db.pragma('foreign_key_check') as { table: string; parent: string }[]
      if (broken.length > 0) {
        const pairs = [...new Set(broken.map((row) => `${row.table} → ${row.parent}`))].join(', ')
        throw new Error(`${broken.length} rows refer to rows that do not exist (${pairs})`)
      }
    }).immediate()
  } finally {
    if (foreignKeys) db.pragma('foreign_keys = ON')
  }
}
