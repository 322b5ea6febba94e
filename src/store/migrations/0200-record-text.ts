import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- Large collections that lists have searched with \`q\`: their records' string values are kept
    -- in record_text, whose trigram index finds a substring without reading every record.
    CREATE TABLE text_indexed (
      collection_id INTEGER PRIMARY KEY REFERENCES collections(id) ON DELETE CASCADE
    );

    -- One row per record of those collections (rowid = records.seq): its string values, nested
    -- ones too, joined by U+001F, which no search for a value crosses (store/records.ts).
    CREATE VIRTUAL TABLE record_text USING fts5(text, tokenize = 'trigram case_sensitive 0');

    -- A seq can be reused once its record is gone: a row left behind is replaced, never doubled.
    CREATE TRIGGER records_text_in AFTER INSERT ON records
      WHEN EXISTS (SELECT 1 FROM text_indexed WHERE collection_id = NEW.collection_id)
    BEGIN
      DELETE FROM record_text WHERE rowid = NEW.seq;
      INSERT INTO record_text (rowid, text)
        SELECT NEW.seq, group_concat(value, char(31)) FROM json_tree(NEW.data) WHERE type = 'text';
    END;
    CREATE TRIGGER records_text_update AFTER UPDATE OF data ON records
      WHEN EXISTS (SELECT 1 FROM text_indexed WHERE collection_id = OLD.collection_id)
    BEGIN
      DELETE FROM record_text WHERE rowid = OLD.seq;
      INSERT INTO record_text (rowid, text)
        SELECT NEW.seq, group_concat(value, char(31)) FROM json_tree(NEW.data) WHERE type = 'text';
    END;
    CREATE TRIGGER records_text_out AFTER DELETE ON records
      WHEN EXISTS (SELECT 1 FROM text_indexed WHERE collection_id = OLD.collection_id)
    BEGIN
      DELETE FROM record_text WHERE rowid = OLD.seq;
    END;
    CREATE TRIGGER text_indexed_out AFTER DELETE ON text_indexed BEGIN
      DELETE FROM record_text WHERE rowid IN (SELECT seq FROM records WHERE collection_id = OLD.collection_id);
    END;
  `)
}
