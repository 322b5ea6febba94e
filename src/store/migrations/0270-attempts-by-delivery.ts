import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- Deleting a delivery deletes its attempts (ON DELETE CASCADE), which without this index
    -- scanned every attempt kept, per delivery: pruning 3,500 finished deliveries held the event
    -- loop 1.3 s (12 ms with it), once every 5 s while a backlog drained.
    CREATE INDEX IF NOT EXISTS attempts_by_delivery ON attempts(delivery_id);
  `)
}
