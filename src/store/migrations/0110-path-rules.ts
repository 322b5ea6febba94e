import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- How the project judges the paths of new resources and endpoints: strict (the naming rules
    -- refuse), warn (they warn) or off (only the structural checks). Existing projects keep strict.
    ALTER TABLE projects ADD COLUMN path_rules TEXT NOT NULL DEFAULT 'strict' CHECK (path_rules IN ('strict', 'warn', 'off'));
  `)
}
