import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    CREATE TABLE meta (
      key   TEXT PRIMARY KEY,
      value TEXT NOT NULL
    );

    CREATE TABLE projects (
      id          INTEGER PRIMARY KEY,
      name        TEXT NOT NULL,
      slug        TEXT NOT NULL UNIQUE,
      share_token TEXT NOT NULL UNIQUE,
      is_default  INTEGER NOT NULL DEFAULT 0,
      created_at  TEXT NOT NULL
    );

    -- Records live in collections; /api/posts and /api/users/:userId/posts share "posts".
    CREATE TABLE collections (
      id          INTEGER PRIMARY KEY,
      project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      name         TEXT NOT NULL,
      next_id      INTEGER NOT NULL DEFAULT 1,
      record_count INTEGER NOT NULL DEFAULT 0,
      UNIQUE (project_id, name)
    );

    CREATE TABLE resources (
      id            INTEGER PRIMARY KEY,
      project_id    INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
      path          TEXT NOT NULL,
      created_at    TEXT NOT NULL,
      UNIQUE (project_id, path)
    );

    CREATE TABLE endpoints (
      id          INTEGER PRIMARY KEY,
      project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      resource_id INTEGER REFERENCES resources(id) ON DELETE CASCADE,
      method      TEXT NOT NULL,
      path        TEXT NOT NULL,
      kind        TEXT NOT NULL,
      action      TEXT,
      status      INTEGER NOT NULL,
      headers     TEXT NOT NULL DEFAULT '{}',
      delay_ms    INTEGER NOT NULL DEFAULT 0,
      body        TEXT,
      created_at  TEXT NOT NULL,
      UNIQUE (project_id, method, path)
    );
    CREATE INDEX endpoints_by_resource ON endpoints(resource_id);

    CREATE TABLE records (
      seq           INTEGER PRIMARY KEY,
      collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
      id            TEXT NOT NULL,
      data          TEXT NOT NULL,
      UNIQUE (collection_id, id)
    );
    CREATE INDEX records_by_collection ON records(collection_id, seq);

    -- An unfiltered list reads its X-Total-Count here instead of counting every row.
    CREATE TRIGGER records_counted_in AFTER INSERT ON records BEGIN
      UPDATE collections SET record_count = record_count + 1 WHERE id = NEW.collection_id;
    END;
    CREATE TRIGGER records_counted_out AFTER DELETE ON records BEGIN
      UPDATE collections SET record_count = record_count - 1 WHERE id = OLD.collection_id;
    END;
  `)
}
