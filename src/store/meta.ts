import type { Db } from './db.ts'

export type MetaRepo = ReturnType<typeof createMetaRepo>

/** Small key/value facts about the database file itself (signing secret, …). */
export function createMetaRepo(db: Db) {
  const get = db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck()
  const setIfMissing = db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING')
  return {
    get: (key: string): string | undefined => get.get(key) as string | undefined,
    /** Stores `value` unless the key already has one; returns whichever is stored. */
    ensure(key: string, value: string): string {
      setIfMissing.run(key, value)
      return get.get(key) as string
    },
  }
}
