import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- The records as seeded, one row each: reset copies them back with one INSERT … SELECT. They
    -- were one JSON array in the collections row, which the record-count triggers rewrote (megabytes
    -- of it) on every record written, so a reset or a POST cost time in proportion to the seed.
    CREATE TABLE snapshot_records (
      seq           INTEGER PRIMARY KEY,
      collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
      id            TEXT NOT NULL,
      data          TEXT NOT NULL
    );
    CREATE INDEX snapshot_records_by_collection ON snapshot_records(collection_id, seq);

    INSERT INTO snapshot_records (collection_id, id, data)
      SELECT c.id, CAST(r.value ->> '$.id' AS TEXT), r.value
      FROM collections c, json_each(c.snapshot) r
      ORDER BY c.id, r.key;
    ALTER TABLE collections DROP COLUMN snapshot;
  `)
}
