import type { Database } from 'better-sqlite3'

// The same test as INTEGER_ID in domain/records.ts (`^[1-9][0-9]{0,14}$`), in GLOB patterns.
const NOT_INTEGER = `NOT (length(id) <= 15 AND id GLOB '[1-9]*' AND id NOT GLOB '*[^0-9]*')`

/**
 * Record ids keep their JSON type from now on, and a collection says which type its generated ids
 * take (`id_type`): numbers, unless a spec's ids are strings. Earlier versions stored every id as
 * a string (`{"id":"5",…}`). A collection whose ids are all plain integers (records and seed
 * snapshot alike) gets them as the numbers they spell. One with any other id (`"abc"`, `"007"`)
 * had string ids chosen by a client: it keeps them, and goes on generating strings as it did.
 *
 * Every version wrote a record as `{"id":` first (domain/records.ts, toRecordJson), and a plain
 * integer needs no escaping, so the rewrite drops two quotes from that prefix and keeps every
 * other byte of the record as stored (numbers past a double's precision among them).
 */
export function up(db: Database): void {
  db.exec(`
    ALTER TABLE collections ADD COLUMN id_type TEXT NOT NULL DEFAULT 'number';
    UPDATE collections SET id_type = 'string' WHERE id IN (
      SELECT collection_id FROM records WHERE ${NOT_INTEGER}
      UNION SELECT collection_id FROM snapshot_records WHERE ${NOT_INTEGER});
  `)
  for (const table of ['records', 'snapshot_records']) {
    db.exec(`
      UPDATE ${table} SET data = '{"id":' || id || substr(data, length(id) + 9)
      WHERE substr(data, 1, length(id) + 8) = '{"id":"' || id || '"'
        AND collection_id IN (SELECT id FROM collections WHERE id_type = 'number')
    `)
  }
}
