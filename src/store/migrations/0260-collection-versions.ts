import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- Counts every write to a collection's records, whichever process or statement made it: a page
    -- of the collection computed under one count is still right while the count is the same
    -- (store/records.ts). A write elsewhere (another collection, the serve lease in meta) leaves it.
    -- Collection ids are never reused (AUTOINCREMENT, migration 0090), so neither is a count.
    ALTER TABLE collections ADD COLUMN version INTEGER NOT NULL DEFAULT 0;

    -- The counter rides on the record-count triggers' own UPDATE: an insert costs no statement more.
    DROP TRIGGER records_counted_in;
    DROP TRIGGER records_counted_out;
    CREATE TRIGGER records_counted_in AFTER INSERT ON records BEGIN
      UPDATE collections SET record_count = record_count + 1, version = version + 1 WHERE id = NEW.collection_id;
    END;
    CREATE TRIGGER records_counted_out AFTER DELETE ON records BEGIN
      UPDATE collections SET record_count = record_count - 1, version = version + 1 WHERE id = OLD.collection_id;
    END;
    CREATE TRIGGER records_versioned_update AFTER UPDATE ON records BEGIN
      UPDATE collections SET version = version + 1 WHERE id IN (OLD.collection_id, NEW.collection_id);
    END;
  `)
}
