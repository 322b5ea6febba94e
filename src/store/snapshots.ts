import type { Db } from './db.ts'

/**
 * A collection's records as seeded (snapshot_records), for reset. Each row keeps the seq its
 * record had, so a reset can leave the records still as seeded where they are and rewrite only
 * the others: a reset after a few writes touches a few rows, not the whole collection. Every
 * statement copies rows inside SQLite, never through JavaScript; callers run them in a transaction.
 */
export function createSnapshots(db: Db) {
  const clear = db.prepare<[number]>('DELETE FROM snapshot_records WHERE collection_id = ?')
  const take = db.prepare<[number]>(
    'INSERT INTO snapshot_records (collection_id, id, data, record_seq) SELECT collection_id, id, data, seq FROM records WHERE collection_id = ? ORDER BY seq',
  )
  const takeAfter = db.prepare<[number, number, number]>(
    `INSERT INTO snapshot_records (collection_id, id, data, record_seq) SELECT collection_id, id, data, seq FROM records
     WHERE collection_id = ? AND seq > ? AND id NOT IN (SELECT id FROM snapshot_records WHERE collection_id = ?) ORDER BY seq`,
  )
  // In place needs every row's seq, none of them held by another collection's record (seqs are shared: a record
  // written since may have taken the seq of a seeded one deleted since).
  const placeable = db.prepare<[number, number, number], number>(
    `SELECT NOT EXISTS (SELECT 1 FROM snapshot_records WHERE collection_id = ? AND record_seq IS NULL)
        AND NOT EXISTS (SELECT 1 FROM snapshot_records s JOIN records r ON r.seq = s.record_seq WHERE s.collection_id = ? AND r.collection_id <> ?)`,
  ).pluck()
  const sizes = db.prepare<[number, number, number], { kept: number; seeded: number }>(
    `SELECT (SELECT count(*) FROM snapshot_records s JOIN records r ON r.seq = s.record_seq
             WHERE s.collection_id = ? AND r.collection_id = ? AND r.id = s.id AND r.data = s.data) AS kept,
            (SELECT count(*) FROM snapshot_records WHERE collection_id = ?) AS seeded`,
  )
  const removeChanged = db.prepare<[number, number, number]>(
    `DELETE FROM records WHERE collection_id = ? AND seq NOT IN
       (SELECT s.record_seq FROM snapshot_records s JOIN records r ON r.seq = s.record_seq
        WHERE s.collection_id = ? AND r.collection_id = ? AND r.id = s.id AND r.data = s.data)`,
  )
  const putBackMissing = db.prepare<[number]>(
    `INSERT INTO records (seq, collection_id, id, data) SELECT s.record_seq, s.collection_id, s.id, s.data FROM snapshot_records s
     WHERE s.collection_id = ? AND NOT EXISTS (SELECT 1 FROM records r WHERE r.seq = s.record_seq) ORDER BY s.seq`,
  )
  const copyBack = db.prepare<[number]>(
    'INSERT INTO records (collection_id, id, data) SELECT collection_id, id, data FROM snapshot_records WHERE collection_id = ? ORDER BY seq',
  )
  const noteSeqs = db.prepare<[number, number]>(
    'UPDATE snapshot_records AS s SET record_seq = r.seq FROM records r WHERE s.collection_id = ? AND r.collection_id = s.collection_id AND r.id = s.id AND r.collection_id = ?',
  )

  return {
    /** Keeps the collection's records as they are now as its seed. */
    save(collectionId: number): void {
      clear.run(collectionId)
      take.run(collectionId)
    },
    /** Adds the records written after `seq` (an id it already holds is not added twice). */
    saveAfter(collectionId: number, seq: number): void {
      takeAfter.run(collectionId, seq, collectionId)
    },
    /**
     * How many rows a reset in place would delete (`changed`: records not as seeded) and insert
     * (`missing`: seeded ones not there as seeded); null when it cannot be done in place.
     */
    difference(collectionId: number, size: number): { changed: number; missing: number } | null {
      if (placeable.get(collectionId, collectionId, collectionId) !== 1) return null
      const { kept, seeded } = sizes.get(collectionId, collectionId, collectionId)!
      return { changed: size - kept, missing: seeded - kept }
    },
    /** Deletes the records not as seeded and puts the missing seeded ones back under their seqs. */
    restoreInPlace(collectionId: number): void {
      removeChanged.run(collectionId, collectionId, collectionId)
      putBackMissing.run(collectionId)
    },
    /** Copies the whole seed into the emptied collection, under new seqs, and notes them. */
    restoreAll(collectionId: number): void {
      copyBack.run(collectionId)
      noteSeqs.run(collectionId, collectionId)
    },
  }
}
