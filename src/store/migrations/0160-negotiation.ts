import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- strict: an imported OpenAPI operation answers 406 to an Accept it documents no type for; lenient: its default type.
    ALTER TABLE projects ADD COLUMN negotiation TEXT NOT NULL DEFAULT 'strict' CHECK (negotiation IN ('strict', 'lenient'));
  `)
}
