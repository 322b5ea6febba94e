import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- JSON array of auth schemes every mock route of the project demands; NULL: none.
    ALTER TABLE projects ADD COLUMN auth TEXT;
    -- 1: imported OpenAPI operations enforce their security requirements.
    ALTER TABLE projects ADD COLUMN openapi_security INTEGER NOT NULL DEFAULT 1 CHECK (openapi_security IN (0, 1));
    -- NULL: the project's auth; '"none"': public; else a JSON array of schemes.
    ALTER TABLE endpoints ADD COLUMN auth TEXT;
  `)
}
