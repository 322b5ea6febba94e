import type { Db } from './db.ts'

export type CollectionRepo = ReturnType<typeof createCollectionRepo>

/** The JSON type of a collection's generated ids: `1`, or `"1"` where a spec says ids are strings. */
export type IdType = 'number' | 'string'

/** Named record collections of a project, with the counter behind generated ids. */
export function createCollectionRepo(db: Db) {
  const byName = db.prepare<[number, string], number>('SELECT id FROM collections WHERE project_id = ? AND name = ?').pluck()
  const insert = db.prepare<[number, string]>('INSERT INTO collections (project_id, name) VALUES (?, ?)')
  const nextId = db.prepare<[number], number>('SELECT next_id FROM collections WHERE id = ?').pluck()
  const setNextId = db.prepare<[number, number]>('UPDATE collections SET next_id = ? WHERE id = ?')
  const raiseNextId = db.prepare<[number, number, number]>('UPDATE collections SET next_id = ? WHERE id = ? AND next_id <= ?')
  const idType = db.prepare<[number], IdType>('SELECT id_type FROM collections WHERE id = ?').pluck()
  const setIdType = db.prepare<[IdType, number]>('UPDATE collections SET id_type = ? WHERE id = ?')
  const inUse = db.prepare<[number], number>('SELECT EXISTS (SELECT 1 FROM resources WHERE collection_id = ?)').pluck()
  const byProject = db.prepare<[number], number>('SELECT id FROM collections WHERE project_id = ? ORDER BY id').pluck()
  // better-sqlite3 refuses numbered parameters (`?1`): the id is bound twice.
  const removeUnused = db.prepare<[number, number]>('DELETE FROM collections WHERE id = ? AND NOT EXISTS (SELECT 1 FROM resources WHERE collection_id = ?)')

  return {
    /** The collection's id, created on first use. */
    ensure(projectId: number, name: string): number {
      const existing = byName.get(projectId, name) as number | undefined
      return existing ?? Number(insert.run(projectId, name).lastInsertRowid)
    },
    /** Callers run these inside a transaction. */
    peekNextId: (id: number): number => (nextId.get(id) as number | undefined) ?? 1,
    setNextId: (id: number, value: number): void => void setNextId.run(value, id),
    /** Keeps the counter above an integer id a client chose, so generated ids never collide with it. */
    raiseNextIdPast: (id: number, taken: number): void => void raiseNextId.run(taken + 1, id, taken),
    idType: (id: number): IdType => (idType.get(id) as IdType | undefined) ?? 'number',
    setIdType: (id: number, type: IdType): void => void setIdType.run(type, id),
    listIds: (projectId: number): number[] => byProject.all(projectId) as number[],
    /** Whether a resource still stores its records here. */
    inUse: (id: number): boolean => inUse.get(id) === 1,
    /** Drops a collection no resource uses any more, with its records. */
    removeIfUnused: (id: number): void => void removeUnused.run(id, id),
  }
}
