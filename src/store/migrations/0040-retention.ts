import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- Pruning finds events no delivery refers to any more.
    CREATE INDEX deliveries_by_event ON deliveries(event_id);
  `)
}
