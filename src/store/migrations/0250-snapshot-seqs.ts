import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- The seq each seeded record had (records.seq): a reset keeps the records still as seeded, in
    -- their places, and rewrites only the others (store/snapshots.ts). Null for a snapshot taken
    -- before: its first reset copies it all back, as resets did, and fills it in.
    ALTER TABLE snapshot_records ADD COLUMN record_seq INTEGER;
  `)
}
