import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- JSON {target, headers, pathRewrite}: where the project forwards what none of its endpoints matches; NULL: nowhere.
    ALTER TABLE projects ADD COLUMN proxy TEXT;
    -- 1: a matched request is forwarded to the project's proxy target instead of answered here.
    ALTER TABLE endpoints ADD COLUMN proxy INTEGER NOT NULL DEFAULT 0 CHECK (proxy IN (0, 1));
  `)
}
