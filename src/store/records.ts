import type { Statement } from 'better-sqlite3'
import type { FieldCondition, FieldFilter, SortKey } from '../model.ts'
import type { Db } from './db.ts'
import { otherConnectionsCommits } from './changes.ts'
import { createPageCache } from './page-cache.ts'
import { createSnapshots } from './snapshots.ts'
import { bindAll, type Bound, conditionTest, type Fragment, indexWalks, join, qTest, raw, walk, scanOrder, sortPageSql, sql, textPhrase, toJsonCandidates, toJsonPath } from './record-sql.ts'

export interface RecordQuery {
  filters: FieldCondition[]
  /** Lower-cased text that some string value of the record must contain. */
  q: string | null
  sort: SortKey[]
  limit: number | null
  offset: number
}

export interface RecordPage {
  /** Matching records before paging. */
  total: number
  /** The page as a JSON array text, built from the stored JSON without parsing it. */
  json: string
}

// A record's GET under its parents: one fixed SQL fragment per parent field.
const FILTER_SQL = ' AND (data -> ?) IN (SELECT value FROM json_each(?))'

/**
 * Rows per statement when seeding. Inside a savepoint (a nested transaction, as `apply` and
 * seeding open), every statement copies the pages it touches to the savepoint's journal, a
 * temporary file that grows for the whole transaction: one statement per record wrote about 16 KB
 * there per record, over a second of a 100,000-record seed.
 */
const INSERT_BATCH = 250

/** Collections this large get their filtered and sorted fields indexed on first use, and their text when searched. */
export const INDEX_THRESHOLD = 5000
const MAX_INDEXED_FIELDS = 8
/**
 * Statements kept prepared. Their SQL texts follow the query's shape (how many filters, sort
 * fields and their directions, which index), never its values; past this many the oldest goes.
 */
const MAX_STATEMENTS = 256
/** Fields whose presence is remembered per collection (see fieldPresent). */
const MAX_FIELDS_KNOWN = 64
/** A reset of an indexed collection rebuilds its indexes when more than 1/8 of its records change (see restoreSnapshot). */
const MANY_CHANGES = 8
/** A filtered list of a large collection is sorted from its matches when they are at most 1/16 of it. */
const FEW_MATCHES = 16

function filterParams(filters: FieldFilter[]): string[] {
  return filters.flatMap((f) => [toJsonPath(f.field), toJsonCandidates(f.values)])
}

export type RecordRepo = ReturnType<typeof createRecordRepo>

/** A list's `q`: its test, the trigram phrase it searches with (null: it reads the records' values instead). */
interface QPart {
  test: Fragment
  phrase: string | null
  readsRecord: boolean
}

/**
 * The `like` patterns of the query being run, by slot. Statements run synchronously, one at a
 * time in a process, so the one list is enough; the store cannot compile patterns itself (the
 * engine does, and the layers keep the two apart).
 */
let activeMatchers: readonly ((text: string) => boolean)[] = []

export function createRecordRepo(db: Db, options: { indexThreshold?: number } = {}) {
  const indexThreshold = options.indexThreshold ?? INDEX_THRESHOLD
  // JavaScript's lower-casing, as json-server's, where SQLite's lower() folds ASCII only.
  db.function('mockapi_fold', { deterministic: true }, (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value))
  db.function('mockapi_match', { deterministic: false }, (slot: unknown, value: unknown) => (activeMatchers[Number(slot)]?.(String(value)) ? 1 : 0))

  const cache = new Map<string, Statement>()
  const prepared = (key: string, build: () => string): Statement => {
    let statement = cache.get(key)
    if (statement) {
      // Least recently used goes first: the map's order is the order of use.
      cache.delete(key)
    } else {
      statement = db.prepare(build())
      if (cache.size >= MAX_STATEMENTS) cache.delete(cache.keys().next().value!)
    }
    cache.set(key, statement)
    return statement
  }
  const rows = (fragment: Fragment): string[] => prepared(fragment.text, () => fragment.text).pluck().all(...fragment.params) as string[]
  const count = (fragment: Fragment): number => prepared(fragment.text, () => fragment.text).pluck().get(...fragment.params) as number

  /**
   * Pages, filtered totals, and which index walk is narrowest, are kept under the collection's
   * version (migration 0260), which every write to its records bumps, in any process and through
   * any statement: a write to another collection, or to any other table (the serve lease is renewed
   * every 2 s), leaves them. Nothing is kept inside a transaction: its writes may yet be rolled
   * back, taking the version back to a number a later, different write will reach again.
   */
  const collectionVersion = db.prepare<[number], number>('SELECT version FROM collections WHERE id = ?').pluck()
  const versionOf = (collectionId: number): number | undefined => (db.inTransaction ? undefined : collectionVersion.get(collectionId) as number | undefined)
  const totals = new Map<string, { version: number; total: number }>()
  const cachedUntilWrite = (collectionId: number, key: string, compute: () => number): number => {
    const version = versionOf(collectionId)
    if (version === undefined) return compute()
    const hit = totals.get(key)
    if (hit && hit.version === version) return hit.total
    const total = compute()
    if (totals.size >= 1000) totals.clear()
    totals.set(key, { version, total })
    return total
  }

  const indexedFields = db.prepare<[number], string>('SELECT field FROM indexed_fields WHERE collection_id = ?').pluck()
  const addIndexedField = db.prepare<[number, string, string]>('INSERT OR IGNORE INTO indexed_fields (collection_id, field, path) VALUES (?, ?, ?)')
  const backfill = db.prepare<[number, string, string, string, number]>(
    'INSERT OR IGNORE INTO field_values (collection_id, field, seq, value, json) SELECT ?, ?, seq, data ->> ?, data -> ? FROM records WHERE collection_id = ?',
  )
  const addFields = (collectionId: number, fields: string[]): void => {
    for (const field of fields) {
      const path = toJsonPath(field)
      if (addIndexedField.run(collectionId, field, path).changes > 0) backfill.run(collectionId, field, path, path, collectionId)
    }
  }
  const indexFields = db.transaction(addFields)
  const dropIndexedFields = db.prepare<[number]>('DELETE FROM indexed_fields WHERE collection_id = ?')

  const textIndexed = db.prepare<[number], number>('SELECT 1 FROM text_indexed WHERE collection_id = ?').pluck()
  const addTextIndexed = db.prepare<[number]>('INSERT OR IGNORE INTO text_indexed (collection_id) VALUES (?)')
  const dropTextIndexed = db.prepare<[number]>('DELETE FROM text_indexed WHERE collection_id = ?')
  // Rows another record once held under these seqs are replaced (see migration 0200).
  const clearText = db.prepare<[number]>('DELETE FROM record_text WHERE rowid IN (SELECT seq FROM records WHERE collection_id = ?)')
  const fillText = db.prepare<[number]>(
    "INSERT INTO record_text (rowid, text) SELECT seq, (SELECT group_concat(value, char(31)) FROM json_tree(records.data) WHERE type = 'text') FROM records WHERE collection_id = ?",
  )
  const addText = (collectionId: number): void => {
    if (addTextIndexed.run(collectionId).changes === 0) return
    clearText.run(collectionId)
    fillText.run(collectionId)
  }
  const indexText = db.transaction(addText)

  /**
   * Rewrites many records with the collection's field and text indexes lifted, then builds them
   * again with one INSERT … SELECT each: the triggers keep them row by row, which costs a temporary
   * table per record deleted. Runs inside the caller's transaction, so nobody sees an index missing.
   */
  const withIndexLifted = <T>(collectionId: number, rewrite: () => T): T => {
    const fields = indexedFields.all(collectionId) as string[]
    const hadText = textIndexed.get(collectionId) === 1
    if (fields.length === 0 && !hadText) return rewrite()
    dropIndexedFields.run(collectionId)
    if (hadText) dropTextIndexed.run(collectionId)
    const result = rewrite()
    addFields(collectionId, fields)
    if (hadText) addText(collectionId)
    return result
  }

  /** The fields this query needs, indexed when the collection is large enough; null: scan instead. */
  const usableIndex = (collectionId: number, query: RecordQuery, size: number): Set<string> | null => {
    if (size < indexThreshold) return null
    const wanted = [...new Set([...query.filters.map((f) => f.field), ...query.sort.map((key) => key.field)])]
    if (wanted.length === 0) return null
    let indexed = new Set(indexedFields.all(collectionId) as string[])
    const missing = wanted.filter((field) => !indexed.has(field))
    if (missing.length > 0) {
      if (indexed.size + missing.length > MAX_INDEXED_FIELDS) return null
      indexFields.immediate(collectionId, missing)
      indexed = new Set(indexedFields.all(collectionId) as string[])
    }
    return wanted.every((field) => indexed.has(field)) ? indexed : null
  }

  /** `q` through the trigram index once the collection is large (indexed on first search), else by reading the records. */
  const qPart = (collectionId: number, q: string | null, size: number): QPart => {
    if (q === null) return { test: raw(''), phrase: null, readsRecord: false }
    const phrase = size >= indexThreshold ? textPhrase(q) : null
    if (phrase !== null && textIndexed.get(collectionId) !== 1) indexText.immediate(collectionId)
    return { test: sql` AND ${qTest(q, phrase)}`, phrase, readsRecord: phrase === null }
  }

  // The key's text (as JSON.stringify writes it, which every record write goes through) rules out most records before any is parsed.
  const hasField = db.prepare<[number, string, string], number>('SELECT EXISTS (SELECT 1 FROM records WHERE collection_id = ? AND instr(data, ?) > 0 AND (data -> ?) IS NOT NULL)').pluck()
  const keyText = (field: string) => `${JSON.stringify(field.split('.').at(-1))}:`

  /**
   * Which fields each collection has, as asked so far. Finding a field absent reads the whole
   * collection, so this connection's writes only forget what they may have changed (a record
   * written with the key's text, a present field once records go); another connection's commit
   * forgets everything.
   */
  const presence = new Map<number, Map<string, boolean>>()
  const commitsByOthers = otherConnectionsCommits(db)
  let presenceStamp = -1
  const fieldPresent = (collectionId: number, field: string): boolean => {
    const stamp = commitsByOthers()
    if (stamp !== presenceStamp) {
      presence.clear()
      presenceStamp = stamp
    }
    let fields = presence.get(collectionId)
    if (!fields) presence.set(collectionId, (fields = new Map()))
    let present = fields.get(field)
    if (present === undefined) {
      present = hasField.get(collectionId, keyText(field), toJsonPath(field)) === 1
      if (fields.size < MAX_FIELDS_KNOWN) fields.set(field, present)
    }
    return present
  }
  const forgetPresence = (collectionId: number, written: readonly string[], removed: boolean): void => {
    const fields = presence.get(collectionId)
    if (!fields) return
    for (const [field, present] of fields) {
      if (present ? removed : written.some((json) => json.includes(keyText(field)))) fields.delete(field)
    }
  }

  const scanPage = (collectionId: number, query: RecordQuery, size: number, bounds: Bound[]): RecordPage => {
    const tests = bounds.map((bound) => {
      const path = toJsonPath(bound.field)
      return sql` AND ${conditionTest(bound, sql`(r.data ->> ${path})`, sql`(r.data -> ${path})`)}`
    })
    const where = join([...tests, qPart(collectionId, query.q, size).test], '')
    const total = where.text === '' ? size : cachedUntilWrite(collectionId, totalKey(collectionId, query), () => count(sql`SELECT count(*) FROM records r WHERE r.collection_id = ${collectionId}${where}`))
    const page = rows(sql`SELECT r.data FROM records r WHERE r.collection_id = ${collectionId}${where} ${scanOrder(query.sort)} LIMIT ${query.limit ?? -1} OFFSET ${query.offset}`)
    return { total, json: `[${page.join(',')}]` }
  }

  // Each condition is tested on the record's own entry of the field index: a primary-key lookup per row.
  const indexedPage = (collectionId: number, query: RecordQuery, size: number, bounds: Bound[]): RecordPage => {
    const test = (bound: Bound) =>
      sql` AND EXISTS (SELECT 1 FROM field_values f WHERE f.collection_id = ${collectionId} AND f.field = ${bound.field} AND f.seq = r.seq AND ${conditionTest(bound, raw('f.value'), raw('f.json'))})`
    const q = qPart(collectionId, query.q, size)
    const where = join([...bounds.map(test), q.test], '')
    const matching = (select: 'count' | 'page') => narrowest(collectionId, query, bounds, test, q, select)
    const total = where.text === '' ? size : cachedUntilWrite(collectionId, totalKey(collectionId, query), () => count(matching('count')))
    const limit = query.limit ?? -1
    // Few matches: read them all from the narrowest walk and sort them; many: walk the sort index (or the records in order) until the page is full.
    const page = total * FEW_MATCHES <= size
      ? rows(sql`${matching('page')} ${scanOrder(query.sort)} LIMIT ${limit} OFFSET ${query.offset}`)
      : query.sort.length > 0
        ? rows(sortPageSql(collectionId, query.sort, where, limit, query.offset))
        : rows(sql`SELECT r.data FROM records r WHERE r.collection_id = ${collectionId}${where} ORDER BY r.seq LIMIT ${limit} OFFSET ${query.offset}`)
    return { total, json: `[${page.join(',')}]` }
  }

  /**
   * Which index walk (see indexWalks) visits the fewest entries; -1: none does better than the
   * records themselves, narrowed by `q`'s trigram index when it has one. Entries are counted only
   * up to the best so far, and the choice is kept until the next write.
   */
  const narrowestWalk = (collectionId: number, query: RecordQuery, walks: ReturnType<typeof indexWalks>, qPhrase: string | null): number =>
    cachedUntilWrite(collectionId, `walk|${totalKey(collectionId, query)}`, () => {
      // One walk and no trigram index to weigh it against: it is taken whatever its count, so none is made (2 ms over 33,000 entries).
      if (walks.length === 1 && qPhrase === null) return 0
      let best = -1
      let fewest = qPhrase === null ? Infinity : count(sql`SELECT count(*) FROM record_text WHERE record_text MATCH ${qPhrase}`)
      walks.forEach(({ field, range }, at) => {
        const cap = Number.isFinite(fewest) ? fewest : -1
        const entries = count(sql`SELECT count(*) FROM (SELECT 1 FROM field_values r WHERE r.collection_id = ${collectionId} AND r.field = ${field} AND ${walk('r', range)} LIMIT ${cap})`)
        if (entries < fewest) {
          best = at
          fewest = entries
        }
      })
      return best
    })

  /** The matching records (or their count) over the narrowest walk; a walked equality needs no test of its own. */
  const narrowest = (collectionId: number, query: RecordQuery, bounds: Bound[], test: (bound: Bound) => Fragment, q: QPart, select: 'count' | 'page'): Fragment => {
    const what = raw(select === 'count' ? 'count(*)' : 'r.data')
    const walks = indexWalks(bounds)
    const chosen = walks[narrowestWalk(collectionId, query, walks, q.phrase)]
    if (!chosen && q.phrase !== null) {
      // CROSS JOIN keeps the trigram matches the outer loop: SQLite would otherwise walk every record of the collection and look each up in them.
      return sql`SELECT ${what} FROM (SELECT rowid AS seq FROM record_text WHERE record_text MATCH ${q.phrase}) t CROSS JOIN records r ON r.seq = t.seq WHERE r.collection_id = ${collectionId}${join(bounds.map(test), '')}`
    }
    if (!chosen) return sql`SELECT ${what} FROM records r WHERE r.collection_id = ${collectionId}${join([...bounds.map(test), q.test], '')}`
    const rest = join([...bounds.filter((_, at) => at !== chosen.covers).map(test), q.test], '')
    // A count reads no record when no test does (only `q` without its trigram index reads one): the index entry stands in for it.
    if (select === 'count' && !q.readsRecord) {
      return sql`SELECT count(*) FROM field_values r WHERE r.collection_id = ${collectionId} AND r.field = ${chosen.field} AND ${walk('r', chosen.range)}${rest}`
    }
    return sql`SELECT ${what} FROM field_values d JOIN records r ON r.seq = d.seq WHERE d.collection_id = ${collectionId} AND d.field = ${chosen.field} AND ${walk('d', chosen.range)}${rest}`
  }

  const totalKey = (collectionId: number, query: RecordQuery) => `total|${collectionId}|${JSON.stringify(query.filters)}|${query.q}`

  const getStatement = (filterCount: number) =>
    prepared(`get:${filterCount}`, () =>
      `SELECT data FROM records WHERE collection_id = ? AND id = ?${FILTER_SQL.repeat(filterCount)}`).pluck()
  // Most reads of one record: kept apart from the cache, which would build a key and reorder itself each time.
  const getOne = db.prepare<[number, string], string>('SELECT data FROM records WHERE collection_id = ? AND id = ?').pluck()

  const exists = db.prepare<[number, string], number>('SELECT 1 FROM records WHERE collection_id = ? AND id = ?').pluck()
  const insert = db.prepare<[number, string, string]>('INSERT INTO records (collection_id, id, data) VALUES (?, ?, ?)')
  const insertBatch = db.prepare<[(number | string)[]]>(`INSERT INTO records (collection_id, id, data) VALUES ${Array(INSERT_BATCH).fill('(?, ?, ?)').join(', ')}`)
  const replace = db.prepare<[string, number, string]>('UPDATE records SET data = ? WHERE collection_id = ? AND id = ?')
  const remove = db.prepare<[number, string]>('DELETE FROM records WHERE collection_id = ? AND id = ?')
  const removeAll = db.prepare<[number]>('DELETE FROM records WHERE collection_id = ?')
  const allJson = db.prepare<[number], string>('SELECT data FROM records WHERE collection_id = ? ORDER BY seq').pluck()
  /**
   * A page of a collection in its own order, neither filtered nor sorted nor searched (most lists):
   * statements prepared up front, no SQL text built to look them up. A whole collection's array text
   * is joined by SQLite (a JavaScript string per record costs more there); a page's rows are joined
   * here, which is quicker for a few. The subquery keeps its order: having a LIMIT, it is not
   * flattened into the aggregate, whose rows come as it yields them (an ORDER BY inside
   * group_concat would sort them again, twice the time for 1,000).
   */
  const plainAll = db.prepare<[number], string>(
    "SELECT '[' || coalesce(group_concat(data, ','), '') || ']' FROM (SELECT data FROM records WHERE collection_id = ? ORDER BY seq LIMIT -1)",
  ).pluck()
  const plainPage = db.prepare<[number, number, number], string>('SELECT data FROM records WHERE collection_id = ? ORDER BY seq LIMIT ? OFFSET ?').pluck()
  const countAll = db.prepare<[number], number>('SELECT record_count FROM collections WHERE id = ?').pluck()
  // The same test as INTEGER_ID in domain/records.ts (`^[1-9][0-9]{0,14}$`), in GLOB patterns.
  const maxIntegerId = db.prepare<[number], number>(
    `SELECT coalesce(max(CAST(id AS INTEGER)), 0) FROM records
     WHERE collection_id = ? AND length(id) <= 15 AND id GLOB '[1-9]*' AND id NOT GLOB '*[^0-9]*'`,
  ).pluck()
  const lastSeq = db.prepare<[number], number>('SELECT coalesce(max(seq), 0) FROM records WHERE collection_id = ?').pluck()
  const snapshots = createSnapshots(db)

  const pages = createPageCache<RecordPage>()
  const cachedPage = (collectionId: number, query: RecordQuery, compute: () => RecordPage): RecordPage => {
    // Read before computing: a write committed in between leaves the page under the older version, never a stale one under the newer.
    const version = versionOf(collectionId)
    if (version === undefined) return compute()
    const key = pages.keyOf(collectionId, query)
    const hit = pages.get(key, version)
    if (hit) return hit
    const page = compute()
    pages.set(key, version, page)
    return page
  }

  return {
    page: (collectionId: number, query: RecordQuery): RecordPage => cachedPage(collectionId, query, () => {
      const size = (countAll.get(collectionId) as number | undefined) ?? 0
      if (query.filters.length === 0 && query.q === null && query.sort.length === 0) {
        const json = query.limit === null && query.offset === 0
          ? plainAll.get(collectionId) as string
          : `[${(plainPage.all(collectionId, query.limit ?? -1, query.offset) as string[]).join(',')}]`
        return { total: size, json }
      }
      const bounds = bindAll(query.filters)
      activeMatchers = query.filters.map((condition) => condition.matches ?? (() => false))
      try {
        return usableIndex(collectionId, query, size) ? indexedPage(collectionId, query, size, bounds) : scanPage(collectionId, query, size, bounds)
      } finally {
        activeMatchers = []
      }
    }),
    /**
     * Whether the field has an index in this collection, made now when the collection is large
     * enough, as a list filtered by it would make it (relations read children through it).
     */
    indexed: (collectionId: number, field: string): boolean =>
      usableIndex(collectionId, { filters: [{ field, op: 'eq', values: [] }], q: null, sort: [], limit: null, offset: 0 }, (countAll.get(collectionId) as number | undefined) ?? 0) !== null,
    /** Whether some record of the collection has the field (null counts). */
    hasField: fieldPresent,
    /** The stored JSON text of one record, if it exists and matches the filters. */
    get(collectionId: number, id: string, filters: FieldFilter[] = []): string | undefined {
      if (filters.length === 0) return getOne.get(collectionId, id)
      return getStatement(filters.length).get(collectionId, id, ...filterParams(filters)) as string | undefined
    },
    exists: (collectionId: number, id: string): boolean => exists.get(collectionId, id) === 1,
    insert(collectionId: number, id: string, json: string): void {
      forgetPresence(collectionId, [json], false)
      insert.run(collectionId, id, json)
    },
    /** Inserts records in order, many to a statement; `rows` are [id, json] pairs. */
    insertMany(collectionId: number, rows: readonly (readonly [string, string])[]): void {
      if (rows.length === 0) return
      forgetPresence(collectionId, rows.map(([, json]) => json), false)
      let at = 0
      for (; at + INSERT_BATCH <= rows.length; at += INSERT_BATCH) {
        insertBatch.run(rows.slice(at, at + INSERT_BATCH).flatMap(([id, json]) => [collectionId, id, json]))
      }
      for (; at < rows.length; at += 1) insert.run(collectionId, rows[at]![0], rows[at]![1])
    },
    replace(collectionId: number, id: string, json: string): void {
      forgetPresence(collectionId, [json], true)
      replace.run(json, collectionId, id)
    },
    remove(collectionId: number, id: string): void {
      forgetPresence(collectionId, [], true)
      remove.run(collectionId, id)
    },
    /** Empties the collection; callers run it inside a transaction (see withIndexLifted). */
    removeAll(collectionId: number): void {
      presence.delete(collectionId)
      withIndexLifted(collectionId, () => removeAll.run(collectionId))
    },
    allJson: (collectionId: number): string[] => allJson.all(collectionId) as string[],
    /** The highest id that is a plain integer (as generated ids are), 0 if none. */
    maxIntegerId: (collectionId: number): number => maxIntegerId.get(collectionId) as number,
    /**
     * Keeps the collection's records as seeded, for reset; and puts them back. Both copy rows
     * inside SQLite, never through JavaScript. Callers run these inside a transaction.
     */
    saveSnapshot(collectionId: number): void {
      snapshots.save(collectionId)
    },
    /** Where the collection's records end now: `snapshotAfter` takes those written after it. */
    lastSeq: (collectionId: number): number => lastSeq.get(collectionId) as number,
    /** Adds to the snapshot the records written after `seq` (an id it already holds is not added twice). */
    snapshotAfter(collectionId: number, seq: number): void {
      snapshots.saveAfter(collectionId, seq)
    },
    /**
     * Returns how many records were restored. Records still as seeded stay where they are; when
     * most have changed in an indexed collection, the whole seed is copied back with the index
     * lifted instead, as its triggers cost more per row than a rebuild.
     */
    restoreSnapshot(collectionId: number): number {
      presence.delete(collectionId)
      const size = (countAll.get(collectionId) as number | undefined) ?? 0
      const difference = snapshots.difference(collectionId, size)
      const indexed = indexedFields.all(collectionId).length > 0 || textIndexed.get(collectionId) === 1
      if (difference !== null && (!indexed || (difference.changed + difference.missing) * MANY_CHANGES <= size)) snapshots.restoreInPlace(collectionId)
      else {
        withIndexLifted(collectionId, () => {
          removeAll.run(collectionId)
          snapshots.restoreAll(collectionId)
        })
      }
      return (countAll.get(collectionId) as number | undefined) ?? 0
    },
    /** How many records the collection holds (a counter kept by triggers, no scan). */
    count: (collectionId: number): number => (countAll.get(collectionId) as number | undefined) ?? 0,
  }
}
