import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- JSON {target, headers, pathRewrite}: where the project forwards what none of its endpoints matches; NULL: nowhere.
    ALTER TABLE projects ADD COLUMN proxy TEXT;
  `)
}
