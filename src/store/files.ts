import { createHash } from 'node:crypto'
import type { Db } from './db.ts'
import type { ResponseFile } from '../model.ts'

interface FileRow {
  id: number
  project_id: number
  name: string
  sha256: string
  size: number
}

function toFile(row: FileRow): ResponseFile {
  return { id: row.id, projectId: row.project_id, name: row.name, sha256: row.sha256, size: row.size }
}

export type FileRepo = ReturnType<typeof createFileRepo>

/** Files responses answer as they are; a row is never changed, so its bytes may be cached by id. */
export function createFileRepo(db: Db) {
  const find = db.prepare<[number, string, string], { id: number }>('SELECT id FROM response_files WHERE project_id = ? AND sha256 = ? AND name = ?')
  const insert = db.prepare<[number, string, string, number, Uint8Array]>('INSERT INTO response_files (project_id, name, sha256, size, bytes) VALUES (?, ?, ?, ?, ?)')
  const meta = db.prepare<[number], FileRow>('SELECT id, project_id, name, sha256, size FROM response_files WHERE id = ?')
  const content = db.prepare<[number], { name: string; bytes: Buffer }>('SELECT name, bytes FROM response_files WHERE id = ?')
  // A file is used by an endpoint's own body or by one of its responses (their JSON holds `fileId`).
  const unused = db.prepare<[number]>(
    `DELETE FROM response_files WHERE project_id = ? AND id NOT IN (
       SELECT file_id FROM endpoints WHERE file_id IS NOT NULL
       UNION SELECT json_extract(r.value, '$.fileId') FROM endpoints e, json_each(e.responses) r
         WHERE e.responses <> '[]' AND json_extract(r.value, '$.fileId') IS NOT NULL)`,
  )
  return {
    /** The file's id; the same name and bytes in the same project are stored once. */
    put(projectId: number, name: string, content: Uint8Array): number {
      const sha256 = createHash('sha256').update(content).digest('hex')
      const existing = find.get(projectId, sha256, name)
      if (existing) return existing.id
      return Number(insert.run(projectId, name, sha256, content.byteLength, content).lastInsertRowid)
    },
    meta: (id: number): ResponseFile | undefined => {
      const row = meta.get(id)
      return row && toFile(row)
    },
    /** The name and bytes, read when the file is answered. */
    content: (id: number): { name: string; bytes: Uint8Array } | undefined => content.get(id),
    /** Files no endpoint or response answers any more are dropped. */
    removeUnused: (projectId: number): void => void unused.run(projectId),
  }
}
