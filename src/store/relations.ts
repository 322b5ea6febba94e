import type { Db } from './db.ts'
import type { RecordRepo } from './records.ts'
import { toJsonPath } from './record-sql.ts'

const INTEGER = /^-?(?:0|[1-9][0-9]*)$/

/**
 * The JSON texts a record id may be written as in another record's field: the string, and the
 * number when the id is an integer (`"5"` and `5`), so a `postId` of either type matches.
 */
function idCandidates(ids: readonly string[]): string {
  const texts: string[] = []
  for (const id of ids) {
    texts.push(JSON.stringify(id))
    if (INTEGER.test(id) && Number.isSafeInteger(Number(id))) texts.push(id)
  }
  return JSON.stringify(texts)
}

export type RelationRepo = ReturnType<typeof createRelationRepo>

/**
 * What relations between collections read: records of one collection whose field names ids of
 * another (children), and records by id (parents). One statement per relation and page, however
 * many records the page holds: the ids go in bound as one JSON array, the field as a JSON path.
 */
export function createRelationRepo(db: Db, records: RecordRepo) {
  const collection = db.prepare<[number], { projectId: number; name: string }>('SELECT project_id AS projectId, name FROM collections WHERE id = ?')
  const byName = db.prepare<[number, string], number>('SELECT id FROM collections WHERE project_id = ? AND name = ?').pluck()
  const names = db.prepare<[number], string>('SELECT name FROM collections WHERE project_id = ? ORDER BY name').pluck()
  const children = db.prepare<[number, string, string, number], string>(
    'SELECT data FROM records WHERE collection_id = ? AND (data -> ?) IN (SELECT value FROM json_each(?)) ORDER BY seq LIMIT ?',
  ).pluck()
  // A large collection's field index (made on first use): no scan of the whole collection.
  const indexedChildren = db.prepare<[number, string, string, number], string>(
    `SELECT r.data FROM field_values f JOIN records r ON r.seq = f.seq
     WHERE f.collection_id = ? AND f.field = ? AND f.json IN (SELECT value FROM json_each(?)) ORDER BY r.seq LIMIT ?`,
  ).pluck()
  const childIds = db.prepare<[number, string, string], string>(
    'SELECT id FROM records WHERE collection_id = ? AND (data -> ?) IN (SELECT value FROM json_each(?)) ORDER BY seq',
  ).pluck()
  const indexedChildIds = db.prepare<[number, string, string], string>(
    `SELECT r.id FROM field_values f JOIN records r ON r.seq = f.seq
     WHERE f.collection_id = ? AND f.field = ? AND f.json IN (SELECT value FROM json_each(?)) ORDER BY r.seq`,
  ).pluck()
  const byIds = db.prepare<[number, string], string>(
    'SELECT data FROM records WHERE collection_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY seq',
  ).pluck()

  const indexed = (collectionId: number, field: string) => records.indexed(collectionId, field)

  return {
    /** The project and name of a collection; undefined once it has been dropped. */
    collection: (collectionId: number): { projectId: number; name: string } | undefined => collection.get(collectionId),
    collectionByName: (projectId: number, name: string): number | undefined => byName.get(projectId, name) as number | undefined,
    collectionNames: (projectId: number): string[] => names.all(projectId) as string[],
    /** Stored JSON of the records whose `field` is one of `ids` (as string or number), in order, at most `limit`. */
    children(collectionId: number, field: string, ids: readonly string[], limit: number): string[] {
      if (ids.length === 0) return []
      return (indexed(collectionId, field)
        ? indexedChildren.all(collectionId, field, idCandidates(ids), limit)
        : children.all(collectionId, toJsonPath(field), idCandidates(ids), limit)) as string[]
    },
    /** Ids of the records whose `field` is one of `ids`; callers run it inside the transaction that deletes them. */
    childIds(collectionId: number, field: string, ids: readonly string[]): string[] {
      if (ids.length === 0) return []
      return (indexed(collectionId, field)
        ? indexedChildIds.all(collectionId, field, idCandidates(ids))
        : childIds.all(collectionId, toJsonPath(field), idCandidates(ids))) as string[]
    },
    /** Stored JSON of the records with these ids. */
    byIds: (collectionId: number, ids: readonly string[]): string[] => (ids.length === 0 ? [] : byIds.all(collectionId, JSON.stringify(ids)) as string[]),
  }
}
