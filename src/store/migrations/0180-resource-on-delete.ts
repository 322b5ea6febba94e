import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- keep | cascade: what deleting one of the resource's records does to the records that name it
    -- by the foreign key convention (postId) or sit under it in a nested resource.
    ALTER TABLE resources ADD COLUMN on_delete TEXT NOT NULL DEFAULT 'keep' CHECK (on_delete IN ('keep', 'cascade'));
  `)
}
