import type { Database } from 'better-sqlite3'

/** A segment as routing compares it: a whole-segment parameter (`:id`, `{id}`, `*`) matches any other. */
const shapeOf = (path: string) => path.split('/').filter(Boolean).map((segment) => (/^(:[A-Za-z_][\w-]*|\{[A-Za-z_][\w-]*\}|\*)$/.test(segment) ? ':' : segment)).join('/')

/**
 * Every resource gets PATCH on its item path from now on (it merges the fields sent), as json-server
 * and Mockoon answer it. A resource that still has its own PUT (mockapi's, not an imported spec's)
 * gets it here too, unless some PATCH already answers its item path: one added by hand since
 * `add-endpoint PATCH …/:id` (kept, settings and all), or another route of that shape. A resource
 * without its PUT was made read-only on purpose, or was imported from a spec that says which
 * methods exist: neither gains a write (docs/decisions.md, "Resources and records").
 */
export function up(db: Database): void {
  const puts = db.prepare<[], { project_id: number; resource_id: number; path: string; status: number }>(`
    SELECT e.project_id, e.resource_id, e.path, e.status FROM endpoints e
    WHERE e.method = 'PUT' AND e.kind = 'resource' AND e.action = 'replace' AND e.resource_id IS NOT NULL
    ORDER BY e.id
  `).all()
  const patchPaths = db.prepare<[number], string>(`SELECT path FROM endpoints WHERE project_id = ? AND method = 'PATCH'`).pluck()
  const insert = db.prepare<[number, number, string, string]>(`
    INSERT INTO endpoints (project_id, resource_id, method, path, kind, action, status, created_at)
    VALUES (?, ?, 'PATCH', ?, 'resource', 'patch', 200, ?)
  `)
  const now = new Date().toISOString()
  for (const put of puts) {
    const shape = shapeOf(put.path)
    if (patchPaths.all(put.project_id).some((path) => shapeOf(path) === shape)) continue
    insert.run(put.project_id, put.resource_id, put.path, now)
  }
}
