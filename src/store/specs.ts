import type { Db } from './db.ts'
import type { SpecVersion } from '../openapi/types.ts'

export interface StoredSpec {
  id: number
  projectId: number
  title: string
  version: SpecVersion
  source: string
  /** The bundled document as JSON text; parsed by whoever serves from it. */
  document: string
  importedAt: string
}

interface SpecRow {
  id: number
  project_id: number
  title: string
  version: string
  source: string
  document: string
  imported_at: string
}

function toSpec(row: SpecRow): StoredSpec {
  return {
    id: row.id,
    projectId: row.project_id,
    title: row.title,
    version: row.version as SpecVersion,
    source: row.source,
    document: row.document,
    importedAt: row.imported_at,
  }
}

export type SpecRepo = ReturnType<typeof createSpecRepo>

export function createSpecRepo(db: Db) {
  const byId = db.prepare<[number], SpecRow>('SELECT * FROM api_specs WHERE id = ?')
  const byProject = db.prepare<[number], SpecRow>('SELECT * FROM api_specs WHERE project_id = ? ORDER BY id')
  const upsert = db.prepare<[number, string, string, string, string, string], { id: number }>(
    `INSERT INTO api_specs (project_id, title, version, source, document, imported_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (project_id, title) DO UPDATE SET version = excluded.version, source = excluded.source,
       document = excluded.document, imported_at = excluded.imported_at
     RETURNING id`,
  )
  const stamp = db.prepare<[number], string>('SELECT imported_at FROM api_specs WHERE id = ?').pluck()
  const remove = db.prepare<[number]>('DELETE FROM api_specs WHERE id = ?')
  const unused = db.prepare<[number]>(
    'DELETE FROM api_specs WHERE project_id = ? AND NOT EXISTS (SELECT 1 FROM endpoints WHERE endpoints.spec_id = api_specs.id)',
  )

  return {
    byId: (id: number): StoredSpec | undefined => {
      const row = byId.get(id)
      return row && toSpec(row)
    },
    /** When the document was last replaced: a cheap way to tell a parsed copy is still current. */
    importedAt: (id: number): string | undefined => stamp.get(id),
    listByProject: (projectId: number): StoredSpec[] => byProject.all(projectId).map(toSpec),
    /** Same project and title: the document is replaced, the id (and its endpoints) kept. */
    save: (spec: Omit<StoredSpec, 'id'>): number =>
      upsert.get(spec.projectId, spec.title, spec.version, spec.source, spec.document, spec.importedAt)!.id,
    remove: (id: number): void => void remove.run(id),
    /** Specs none of whose endpoints are left (all removed one by one) are dropped. */
    removeUnused: (projectId: number): void => void unused.run(projectId),
  }
}
