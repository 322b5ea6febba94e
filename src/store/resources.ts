import type { Db } from './db.ts'
import type { OnDelete, Resource } from '../model.ts'

interface ResourceRow {
  id: number
  project_id: number
  collection_id: number
  path: string
  fields: string
  seed_count: number
  seed_value: number | null
  seed_records: string
  on_delete: OnDelete
  singular: 0 | 1
  created_at: string
}

function toResource(row: ResourceRow): Resource {
  return {
    id: row.id,
    projectId: row.project_id,
    collectionId: row.collection_id,
    path: row.path,
    fields: JSON.parse(row.fields) as Record<string, string>,
    seedCount: row.seed_count,
    seedValue: row.seed_value,
    seedRecords: JSON.parse(row.seed_records) as Record<string, unknown>[],
    onDelete: row.on_delete,
    singular: row.singular === 1,
    createdAt: row.created_at,
  }
}

export interface ResourceSeed {
  fields: Record<string, string>
  seedCount: number
  seedValue: number | null
  seedRecords: Record<string, unknown>[]
}

export type ResourceRepo = ReturnType<typeof createResourceRepo>

export function createResourceRepo(db: Db) {
  const byProject = db.prepare<[number], ResourceRow>('SELECT * FROM resources WHERE project_id = ? ORDER BY id')
  const byCollection = db.prepare<[number], ResourceRow>('SELECT * FROM resources WHERE collection_id = ? ORDER BY id')
  const byId = db.prepare<[number], ResourceRow>('SELECT * FROM resources WHERE id = ?')
  const byPath = db.prepare<[number, string], ResourceRow>('SELECT * FROM resources WHERE project_id = ? AND path = ?')
  const insert = db.prepare<[number, number, string, OnDelete, 0 | 1, string]>(
    'INSERT INTO resources (project_id, collection_id, path, on_delete, singular, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  )
  const setOnDelete = db.prepare<[OnDelete, number]>('UPDATE resources SET on_delete = ? WHERE id = ?')
  const setSeed = db.prepare(
    'UPDATE resources SET fields = @fields, seed_count = @seedCount, seed_value = @seedValue, seed_records = @seedRecords WHERE id = @id',
  )
  const remove = db.prepare<[number]>('DELETE FROM resources WHERE id = ?')
  const countByProject = db.prepare<[number], number>('SELECT count(*) FROM resources WHERE project_id = ?').pluck()

  return {
    listByProject: (projectId: number): Resource[] => byProject.all(projectId).map(toResource),
    listByCollection: (collectionId: number): Resource[] => byCollection.all(collectionId).map(toResource),
    byId: (id: number): Resource | undefined => {
      const row = byId.get(id)
      return row && toResource(row)
    },
    countByProject: (projectId: number): number => countByProject.get(projectId) as number,
    byPath: (projectId: number, path: string): Resource | undefined => {
      const row = byPath.get(projectId, path)
      return row && toResource(row)
    },
    insert(resource: { projectId: number; collectionId: number; path: string; onDelete: OnDelete; singular?: boolean; createdAt: string }): Resource {
      const info = insert.run(resource.projectId, resource.collectionId, resource.path, resource.onDelete, resource.singular ? 1 : 0, resource.createdAt)
      return toResource(byId.get(Number(info.lastInsertRowid))!)
    },
    setSeed(id: number, seed: ResourceSeed): void {
      setSeed.run({ id, ...seed, fields: JSON.stringify(seed.fields), seedRecords: JSON.stringify(seed.seedRecords) })
    },
    setOnDelete: (id: number, onDelete: OnDelete): void => void setOnDelete.run(onDelete, id),
    remove: (id: number): void => void remove.run(id),
  }
}
