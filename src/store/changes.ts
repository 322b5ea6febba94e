// Not db.ts's Db (the same type): db.ts calls countConfigurationWrites, and imports must not go round.
import type { Database } from 'better-sqlite3'

/**
 * Tables written while serving (records with their counters, indexes and seed snapshots, the
 * inbox, events, deliveries and their log, and `meta`, where the serve lease is renewed every 2 s).
 * No cache is built from them, and counting their writes would rebuild the route catalog after
 * every POST. Every other table is counted, so a table a later migration adds is counted unless
 * it is named here.
 */
const SERVED_DATA = new Set([
  'meta', 'collections', 'records', 'indexed_fields', 'field_values', 'snapshot_records', 'inbox', 'events', 'deliveries', 'attempts',
  // The text index of store/records.ts: a virtual table (which takes no trigger) and its shadow tables.
  'text_indexed', 'record_text', 'record_text_data', 'record_text_idx', 'record_text_content', 'record_text_docsize', 'record_text_config',
])

const COUNT_FUNCTION = 'mockapi_configuration_written'

/**
 * One count for the whole process, not one per connection: the CLI run in-process beside
 * `startServer`, or a test suite writing next to `startMockApi`, writes through a connection of
 * its own, and a server in the same process must see that at once too.
 */
let configurationWrites = 0

/**
 * Rows written so far by this process, through any connection, to the tables caches are built
 * from (projects, resources, endpoints, imports, subscriptions), counted by SQLite triggers, so a
 * write through any repository (or a cascade) counts.
 */
export function configurationWriteCount(): number {
  return configurationWrites
}

/**
 * A transaction that wrote to those tables rolled back: a cache built inside it, after the write,
 * holds what was undone, so the undoing counts as one more write.
 */
export function countUndoneWrites(): void {
  configurationWrites += 1
}

/**
 * Makes `db` count its writes to the configuration tables. TEMP triggers belong to this
 * connection only: nothing is added to the file, which other versions and tools open unchanged.
 */
export function countConfigurationWrites(db: Database): void {
  db.function(COUNT_FUNCTION, { deterministic: false }, () => {
    configurationWrites += 1
    return null
  })
  const tables = db.prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'").pluck().all()
  const triggers = tables
    .filter((table) => !SERVED_DATA.has(table))
    .flatMap((table) => ['INSERT', 'UPDATE', 'DELETE'].map((change) =>
      `CREATE TEMP TRIGGER "counted_${table}_${change.toLowerCase()}" AFTER ${change} ON main."${table}" BEGIN SELECT ${COUNT_FUNCTION}(); END;`))
  db.exec(triggers.join('\n'))
}

/**
 * Changes when another connection (another process: the CLI beside `serve`) commits to the file;
 * this connection's own commits leave it as it is.
 */
export function otherConnectionsCommits(db: Database): () => number {
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck()
  return () => dataVersion.get() as number
}
