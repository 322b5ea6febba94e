import type { Db } from './db.ts'

export interface NewInboxItem {
  projectId: number
  receivedAt: string
  method: string
  headers: Record<string, string>
  body: string
  sizeBytes: number
  sourceIp: string | null
}

interface InboxRow {
  id: number
  received_at: string
  headers: string
  body: string
  size_bytes: number
  source_ip: string | null
}

/** One inbox item as JSON text; the stored body goes in verbatim (it is JSON already). */
export function inboxItemJson(item: { id: number; receivedAt: string; headers: string; body: string; sizeBytes: number; sourceIp: string | null }): string {
  return `{"id":${JSON.stringify(String(item.id))},"receivedAt":${JSON.stringify(item.receivedAt)},"headers":${item.headers},"body":${item.body},"sizeBytes":${item.sizeBytes},"sourceIp":${JSON.stringify(item.sourceIp)}}`
}

export type InboxRepo = ReturnType<typeof createInboxRepo>

export function createInboxRepo(db: Db) {
  const insert = db.prepare(
    `INSERT INTO inbox (project_id, received_at, method, headers, body, size_bytes, source_ip)
     VALUES (@projectId, @receivedAt, @method, @headers, @body, @sizeBytes, @sourceIp)`,
  )
  const page = db.prepare<[number, number, number], InboxRow>(
    'SELECT id, received_at, headers, body, size_bytes, source_ip FROM inbox WHERE project_id = ? ORDER BY id DESC LIMIT ? OFFSET ?',
  )
  const count = db.prepare<[number], number>('SELECT count(*) FROM inbox WHERE project_id = ?').pluck()
  const clear = db.prepare<[number]>('DELETE FROM inbox WHERE project_id = ?')

  return {
    insert: (item: NewInboxItem): number =>
      Number(insert.run({ ...item, headers: JSON.stringify(item.headers) }).lastInsertRowid),
    count: (projectId: number): number => count.get(projectId) as number,
    /**
     * Newest first, as one JSON array text: the stored body is inserted verbatim, so numbers
     * past 2^53 or `1e400` come back exactly as they were sent.
     */
    pageJson(projectId: number, limit: number | null, offset: number): string {
      const items = page.all(projectId, limit ?? -1, offset).map((row) =>
        inboxItemJson({ id: row.id, receivedAt: row.received_at, headers: row.headers, body: row.body, sizeBytes: row.size_bytes, sourceIp: row.source_ip }))
      return `[${items.join(',')}]`
    },
    clear: (projectId: number): number => clear.run(projectId).changes,
  }
}
