import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- Bytes a response answers as they are (an image, a PDF), kept in the database so serving needs
    -- no file. A table of their own: the catalog reads every endpoint row on each rebuild and must
    -- not load megabytes with them. A row never changes; another file is another row.
    CREATE TABLE response_files (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      sha256 TEXT NOT NULL,
      size INTEGER NOT NULL,
      bytes BLOB NOT NULL,
      UNIQUE (project_id, sha256, name)
    );
    -- json: body is JSON text; text: body is the text; file: file_id names the bytes.
    ALTER TABLE endpoints ADD COLUMN body_type TEXT NOT NULL DEFAULT 'json';
    -- Overrides the Content-Type of a configured body; null: from the body type or the file's extension.
    ALTER TABLE endpoints ADD COLUMN content_type TEXT;
    ALTER TABLE endpoints ADD COLUMN file_id INTEGER REFERENCES response_files(id);
    CREATE INDEX endpoints_file ON endpoints(file_id) WHERE file_id IS NOT NULL;
  `)
}
