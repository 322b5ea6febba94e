import type { Db } from './db.ts'
import type { MetaRepo } from './meta.ts'

/** Who serves a database file: one row in `meta`, renewed while that `serve` runs. */
export interface LeaseHolder {
  /** Random per start: tells this serve's row from a later one's with the same pid. */
  id: string
  pid: number
  hostname: string
  url: string
  startedAt: string
  /** Epoch ms of the last renewal. */
  renewedAt: number
}

export type LeaseRepo = ReturnType<typeof createLeaseRepo>

const KEY = 'serve_lease'

/** The lease is a `meta` row: read and written through the meta repository, renewed and released only by its holder. */
export function createLeaseRepo(db: Db, meta: MetaRepo) {
  const renew = db.prepare<[string, string, string]>("UPDATE meta SET value = ? WHERE key = ? AND json_extract(value, '$.id') = ?")
  const release = db.prepare<[string, string]>("DELETE FROM meta WHERE key = ? AND json_extract(value, '$.id') = ?")
  return {
    holder(): LeaseHolder | null {
      const text = meta.get(KEY)
      if (text === undefined) return null
      try {
        return JSON.parse(text) as LeaseHolder
      } catch {
        return null
      }
    },
    /** Callers check the current holder in the same transaction. */
    take: (holder: LeaseHolder): void => meta.set(KEY, JSON.stringify(holder)),
    /** False when the row is no longer this holder's (another serve took it over). */
    renew: (holder: LeaseHolder): boolean => renew.run(JSON.stringify(holder), KEY, holder.id).changes === 1,
    release: (id: string): void => void release.run(KEY, id),
  }
}
