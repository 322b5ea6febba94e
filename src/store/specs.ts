import type { Db } from './db.ts'
import type { SpecFormat } from '../model.ts'

export interface StoredSpec {
  id: number
  projectId: number
  format: SpecFormat
  title: string
  /** OpenAPI: '2.0', '3.0' or '3.1'; others: what their format calls a version ('proto3', 'WSDL 1.1'…). */
  version: string
  source: string
  /**
   * OpenAPI: the bundled document as JSON text; GraphQL: SDL; gRPC: the protobufjs descriptor as
   * JSON text; SOAP: the WSDL. Parsed by whoever serves from it.
   */
  document: string
  importedAt: string
}

interface SpecRow {
  id: number
  project_id: number
  format: string
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
    format: row.format as SpecFormat,
    title: row.title,
    version: row.version,
    source: row.source,
    document: row.document,
    importedAt: row.imported_at,
  }
}

export type SpecRepo = ReturnType<typeof createSpecRepo>

export function createSpecRepo(db: Db) {
  const byId = db.prepare<[number], SpecRow>('SELECT * FROM api_specs WHERE id = ?')
  const byProject = db.prepare<[number], SpecRow>('SELECT * FROM api_specs WHERE project_id = ? ORDER BY id')
  const upsert = db.prepare<[number, string, string, string, string, string, string], { id: number }>(
    `INSERT INTO api_specs (project_id, format, title, version, source, document, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (project_id, title) DO UPDATE SET format = excluded.format, version = excluded.version, source = excluded.source,
       document = excluded.document, imported_at = excluded.imported_at
     RETURNING id`,
  )
  const stamps = db.prepare<[], { id: number; imported_at: string }>('SELECT id, imported_at FROM api_specs')
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
    /** Every spec's import time, without reading the documents. */
    stamps: (): Map<number, string> => new Map(stamps.all().map((row) => [row.id, row.imported_at])),
    listByProject: (projectId: number): StoredSpec[] => byProject.all(projectId).map(toSpec),
    /** Same project and title: the document is replaced, the id (and its endpoints) kept. */
    save: (spec: Omit<StoredSpec, 'id'>): number =>
      upsert.get(spec.projectId, spec.format, spec.title, spec.version, spec.source, spec.document, spec.importedAt)!.id,
    remove: (id: number): void => void remove.run(id),
    /** Specs none of whose endpoints are left (all removed one by one) are dropped. */
    removeUnused: (projectId: number): void => void unused.run(projectId),
  }
}
