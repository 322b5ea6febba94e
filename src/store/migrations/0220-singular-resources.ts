import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- 1: a singular resource (json-server's top-level object, "profile": {…}): one object at its path,
    -- kept as the only record of its collection, answering GET, PUT and PATCH there.
    ALTER TABLE resources ADD COLUMN singular INTEGER NOT NULL DEFAULT 0 CHECK (singular IN (0, 1));
  `)
}
