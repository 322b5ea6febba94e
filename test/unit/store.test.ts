import { afterAll, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { openDb } from '../../src/store/db.ts'
import { LATEST_VERSION } from '../../src/store/migrations/index.ts'
import { cleanup, tempDb } from '../_helpers.ts'

afterAll(cleanup)

describe('openDb', () => {
  it('creates a WAL database with foreign keys on, migrated to the latest version', () => {
    const path = tempDb()
    const db = openDb(path)
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1)
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION)
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all()
    expect(tables).toEqual(['api_specs', 'attempts', 'collections', 'deliveries', 'endpoints', 'events', 'field_values', 'inbox', 'indexed_fields', 'meta', 'projects', 'record_text', 'record_text_config', 'record_text_content', 'record_text_data', 'record_text_docsize', 'record_text_idx', 'recordings', 'records', 'resources', 'response_files', 'snapshot_records', 'sqlite_sequence', 'subscriptions', 'text_indexed'])
    db.close()
    // Opening again is a no-op migration.
    openDb(path).close()
  })

  it('works in memory', () => {
    const db = openDb(':memory:')
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION)
    db.close()
  })

  it('refuses a database written by a newer mockapi', () => {
    const path = tempDb()
    const raw = new Database(path)
    raw.pragma('user_version = 9990')
    raw.close()
    expect(() => openDb(path)).toThrow(/newer than this mockapi understands/)
  })
})
