import type { Db } from './db.ts'

export type MetaRepo = ReturnType<typeof createMetaRepo>

/** Small key/value facts about the database file itself (signing secret, …). */
export function createMetaRepo(db: Db) {
  const get = db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck()
  const set = db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
  return {
    get: (key: string): string | undefined => get.get(key) as string | undefined,
    set: (key: string, value: string): void => void set.run(key, value),
  }
}
