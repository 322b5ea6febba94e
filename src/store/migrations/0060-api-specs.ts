import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- An imported OpenAPI/Swagger document, stored once; its endpoints point into it.
    CREATE TABLE api_specs (
      id INTEGER PRIMARY KEY,
      project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      -- info.title: importing a spec with the same title again updates this row.
      title TEXT NOT NULL,
      version TEXT NOT NULL,
      source TEXT NOT NULL,
      document TEXT NOT NULL,
      imported_at TEXT NOT NULL,
      UNIQUE (project_id, title)
    );

    ALTER TABLE endpoints ADD COLUMN spec_id INTEGER REFERENCES api_specs(id) ON DELETE CASCADE;
    -- The operation (parameters, request body, responses) as pointers into the spec document.
    ALTER TABLE endpoints ADD COLUMN operation TEXT;
    CREATE INDEX endpoints_spec ON endpoints(spec_id);
  `)
}
