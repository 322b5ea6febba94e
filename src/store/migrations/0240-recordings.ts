import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- 1: a project's recording (serve --proxy URL --record): while its row is here, proxied exchanges are kept;
    -- another process (mockapi record stop) ends it by deleting the row, which serve reads per exchange.
    CREATE TABLE recordings (
      project_id  INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
      target      TEXT NOT NULL,
      started_at  TEXT NOT NULL
    );
  `)
}
