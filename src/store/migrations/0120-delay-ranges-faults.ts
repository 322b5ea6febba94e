import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- NULL: delay_ms is the delay; else a range drawn from per request.
    ALTER TABLE endpoints ADD COLUMN delay_max_ms INTEGER;
    -- reset | empty | malformed | hang, or NULL for none.
    ALTER TABLE endpoints ADD COLUMN fault TEXT;
  `)
}
