import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- The row-value IN lists of these triggers are temporary tables that SQLite builds for every
    -- row deleted or updated, indexed fields or not: a reset of 100,000 records spent seconds in
    -- them (mostly in the kernel, allocating and freeing their pages). A collection without
    -- indexed fields, and one whose index a bulk rewrite has lifted (store/records.ts), skips them.
    DROP TRIGGER records_indexed_update;
    DROP TRIGGER records_indexed_out;
    CREATE TRIGGER records_indexed_update AFTER UPDATE OF data ON records
      WHEN EXISTS (SELECT 1 FROM indexed_fields WHERE collection_id = OLD.collection_id)
    BEGIN
      DELETE FROM field_values WHERE (collection_id, field, seq) IN
        (SELECT OLD.collection_id, f.field, OLD.seq FROM indexed_fields f WHERE f.collection_id = OLD.collection_id);
      INSERT INTO field_values (collection_id, field, seq, value, json)
        SELECT NEW.collection_id, f.field, NEW.seq, NEW.data ->> f.path, NEW.data -> f.path
        FROM indexed_fields f WHERE f.collection_id = NEW.collection_id;
    END;
    CREATE TRIGGER records_indexed_out AFTER DELETE ON records
      WHEN EXISTS (SELECT 1 FROM indexed_fields WHERE collection_id = OLD.collection_id)
    BEGIN
      DELETE FROM field_values WHERE (collection_id, field, seq) IN
        (SELECT OLD.collection_id, f.field, OLD.seq FROM indexed_fields f WHERE f.collection_id = OLD.collection_id);
    END;
  `)
}
