import type { Db } from './db.ts'
import type { Resource } from '../model.ts'

interface ResourceRow {
  id: number
  project_id: number
  collection_id: number
  path: string
  created_at: string
}

function toResource(row: ResourceRow): Resource {
  return { id: row.id, projectId: row.project_id, collectionId: row.collection_id, path: row.path, createdAt: row.created_at }
}

export type ResourceRepo = ReturnType<typeof createResourceRepo>

export function createResourceRepo(db: Db) {
  const byProject = db.prepare<[number], ResourceRow>('SELECT * FROM resources WHERE project_id = ? ORDER BY id')
  const byId = db.prepare<[number], ResourceRow>('SELECT * FROM resources WHERE id = ?')
  const byPath = db.prepare<[number, string], ResourceRow>('SELECT * FROM resources WHERE project_id = ? AND path = ?')
  const insert = db.prepare<[number, number, string, string]>(
    'INSERT INTO resources (project_id, collection_id, path, created_at) VALUES (?, ?, ?, ?)',
  )

  return {
    listByProject: (projectId: number): Resource[] => byProject.all(projectId).map(toResource),
    byPath: (projectId: number, path: string): Resource | undefined => {
      const row = byPath.get(projectId, path)
      return row && toResource(row)
    },
    insert(resource: { projectId: number; collectionId: number; path: string; createdAt: string }): Resource {
      const info = insert.run(resource.projectId, resource.collectionId, resource.path, resource.createdAt)
      return toResource(byId.get(Number(info.lastInsertRowid))!)
    },
  }
}
