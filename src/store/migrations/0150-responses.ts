import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- rules | sequence | random: how one of the responses is picked.
    ALTER TABLE endpoints ADD COLUMN pick TEXT NOT NULL DEFAULT 'rules';
    -- JSON EndpointResponse[], in order: always read and written whole with its endpoint.
    ALTER TABLE endpoints ADD COLUMN responses TEXT NOT NULL DEFAULT '[]';
    -- Bumped by a reset, so a serving process (this one or another) restarts its sequences.
    ALTER TABLE projects ADD COLUMN sequence_epoch INTEGER NOT NULL DEFAULT 0;
  `)
}
