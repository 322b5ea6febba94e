import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- Fields of a large collection that lists filter or sort on. The JSON path is data in a row,
    -- never SQL text: the triggers below read it from here.
    CREATE TABLE indexed_fields (
      collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
      field         TEXT NOT NULL,
      path          TEXT NOT NULL,
      PRIMARY KEY (collection_id, field)
    ) WITHOUT ROWID;

    -- One row per record and indexed field: its SQL value (for sorting) and JSON text (for filters).
    CREATE TABLE field_values (
      collection_id INTEGER NOT NULL,
      field         TEXT NOT NULL,
      seq           INTEGER NOT NULL,
      value         ANY,
      json          TEXT,
      PRIMARY KEY (collection_id, field, seq)
    ) WITHOUT ROWID;
    CREATE INDEX field_values_by_json ON field_values(collection_id, field, json);
    CREATE INDEX field_values_by_value ON field_values(collection_id, field, value, seq);

    CREATE TRIGGER records_indexed_in AFTER INSERT ON records BEGIN
      INSERT INTO field_values (collection_id, field, seq, value, json)
        SELECT NEW.collection_id, f.field, NEW.seq, NEW.data ->> f.path, NEW.data -> f.path
        FROM indexed_fields f WHERE f.collection_id = NEW.collection_id;
    END;
    CREATE TRIGGER records_indexed_update AFTER UPDATE OF data ON records BEGIN
      DELETE FROM field_values WHERE (collection_id, field, seq) IN
        (SELECT OLD.collection_id, f.field, OLD.seq FROM indexed_fields f WHERE f.collection_id = OLD.collection_id);
      INSERT INTO field_values (collection_id, field, seq, value, json)
        SELECT NEW.collection_id, f.field, NEW.seq, NEW.data ->> f.path, NEW.data -> f.path
        FROM indexed_fields f WHERE f.collection_id = NEW.collection_id;
    END;
    CREATE TRIGGER records_indexed_out AFTER DELETE ON records BEGIN
      DELETE FROM field_values WHERE (collection_id, field, seq) IN
        (SELECT OLD.collection_id, f.field, OLD.seq FROM indexed_fields f WHERE f.collection_id = OLD.collection_id);
    END;
    CREATE TRIGGER indexed_fields_out AFTER DELETE ON indexed_fields BEGIN
      DELETE FROM field_values WHERE collection_id = OLD.collection_id AND field = OLD.field;
    END;
  `)
}
