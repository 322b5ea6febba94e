import type { Db } from './db.ts'

/** A project's running recording: where it proxies to, and since when. */
export interface RecordingRow {
  projectId: number
  target: string
  startedAt: string
}

export type RecordingRepo = ReturnType<typeof createRecordingRepo>

export function createRecordingRepo(db: Db) {
  const get = db.prepare<[number], { project_id: number; target: string; started_at: string }>('SELECT project_id, target, started_at FROM recordings WHERE project_id = ?')
  const on = db.prepare<[number], number>('SELECT 1 FROM recordings WHERE project_id = ?').pluck()
  const start = db.prepare<[number, string, string]>(
    'INSERT INTO recordings (project_id, target, started_at) VALUES (?, ?, ?) ON CONFLICT (project_id) DO UPDATE SET target = excluded.target, started_at = excluded.started_at',
  )
  const stop = db.prepare<[number]>('DELETE FROM recordings WHERE project_id = ?')
  const any = db.prepare<[], number>('SELECT EXISTS (SELECT 1 FROM recordings)').pluck()
  return {
    get(projectId: number): RecordingRow | undefined {
      const row = get.get(projectId)
      return row && { projectId: row.project_id, target: row.target, startedAt: row.started_at }
    },
    /** One indexed lookup: serve asks it for every proxied exchange. */
    isOn: (projectId: number): boolean => on.get(projectId) === 1,
    /** Whether any project records: serve's start asks it before loading the recording code. */
    any: (): boolean => any.get() === 1,
    start: (projectId: number, target: string, startedAt: string): void => void start.run(projectId, target, startedAt),
    /** Whether a recording was running. */
    stop: (projectId: number): boolean => stop.run(projectId).changes > 0,
  }
}
