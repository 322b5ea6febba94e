import type { Statement } from 'better-sqlite3'
import type { FieldFilter } from '../model.ts'
import type { Db } from './db.ts'
import { otherConnectionsCommits } from './changes.ts'

export interface RecordQuery {
  filters: FieldFilter[]
  sort: { field: string; descending: boolean } | null
  limit: number | null
  offset: number
}

export interface RecordPage {
  /** Matching records before paging. */
  total: number
  /** The page as a JSON array text, built from the stored JSON without parsing it. */
  json: string
}

const NUMERIC = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/**
 * A field name becomes a JSON path bound as a parameter (never spliced into SQL).
 * Dots address nested fields, as json-server does: `author.name` → `$."author"."name"`.
 */
export function toJsonPath(field: string): string {
  return '$' + field.split('.').map((key) => `."${key}"`).join('')
}

/**
 * The JSON texts a query value may stand for: the string itself, and its number or boolean
 * reading, so `?views=10` matches `10` and `"10"`, `?done=true` matches `true`.
 */
export function toJsonCandidates(values: string[]): string {
  const candidates = new Set<string>()
  for (const value of values) {
    candidates.add(JSON.stringify(value))
    if (NUMERIC.test(value) && Number.isFinite(Number(value))) candidates.add(JSON.stringify(Number(value)))
    // Stored numbers keep the digits they were sent with (an id past 2^53, `1.50`): match those too.
    if (JSON_NUMBER.test(value)) candidates.add(value)
    if (value === 'true' || value === 'false' || value === 'null') candidates.add(value)
  }
  return JSON.stringify([...candidates])
}

// One fixed SQL fragment per filter; only how many of them appear varies, never their text.
const FILTER_SQL = ' AND (data -> ?) IN (SELECT value FROM json_each(?))'
// The same test through the field index: a primary-key lookup per row.
const INDEXED_FILTER_SQL = ' AND EXISTS (SELECT 1 FROM field_values f WHERE f.collection_id = ? AND f.field = ? AND f.seq = r.seq AND f.json IN (SELECT value FROM json_each(?)))'

/**
 * Rows per statement when seeding. Inside a savepoint (a nested transaction, as `apply` and
 * seeding open), every statement copies the pages it touches to the savepoint's journal, a
 * temporary file that grows for the whole transaction: one statement per record wrote about 16 KB
 * there per record, over a second of a 100,000-record seed.
 */
const INSERT_BATCH = 250

/** Collections this large get their filtered and sorted fields indexed on first use. */
export const INDEX_THRESHOLD = 5000
const MAX_INDEXED_FIELDS = 8

function filterParams(filters: FieldFilter[]): string[] {
  return filters.flatMap((f) => [toJsonPath(f.field), toJsonCandidates(f.values)])
}

function indexedFilterParams(collectionId: number, filters: FieldFilter[]): (string | number)[] {
  return filters.flatMap((f) => [collectionId, f.field, toJsonCandidates(f.values)])
}

export type RecordRepo = ReturnType<typeof createRecordRepo>

export function createRecordRepo(db: Db, options: { indexThreshold?: number } = {}) {
  const indexThreshold = options.indexThreshold ?? INDEX_THRESHOLD
  const cache = new Map<string, Statement>()
  const prepared = (key: string, build: () => string): Statement => {
    let statement = cache.get(key)
    if (!statement) {
      statement = db.prepare(build())
      cache.set(key, statement)
    }
    return statement
  }

  const countStatement = (filterCount: number) =>
    prepared(`count:${filterCount}`, () =>
      `SELECT count(*) FROM records WHERE collection_id = ?${FILTER_SQL.repeat(filterCount)}`).pluck()

  // Ties keep the order's direction (newest first when descending); missing values come last, oldest first.
  const pageStatement = (filterCount: number, sort: RecordQuery['sort']) => {
    const order = sort ? (sort.descending ? 'desc' : 'asc') : 'none'
    return prepared(`page:${filterCount}:${order}`, () => {
      const orderBy = !sort
        ? 'ORDER BY seq'
        : sort.descending
          ? 'ORDER BY (data ->> ?) IS NULL, data ->> ? DESC, CASE WHEN (data ->> ?) IS NULL THEN seq ELSE -seq END'
          : 'ORDER BY (data ->> ?) IS NULL, data ->> ?, seq'
      return `SELECT data FROM records r WHERE collection_id = ?${FILTER_SQL.repeat(filterCount)} ${orderBy} LIMIT ? OFFSET ?`
    }).pluck()
  }

  const indexedCount = (filterCount: number) =>
    prepared(`ix-count:${filterCount}`, () =>
      `SELECT count(*) FROM field_values r WHERE r.collection_id = ? AND r.field = ? AND r.json IN (SELECT value FROM json_each(?))${INDEXED_FILTER_SQL.repeat(filterCount - 1)}`).pluck()

  const indexedPage = (filterCount: number) =>
    prepared(`ix-page:${filterCount}`, () =>
      `SELECT data FROM records r WHERE r.collection_id = ?${INDEXED_FILTER_SQL.repeat(filterCount)} ORDER BY r.seq LIMIT ? OFFSET ?`).pluck()

  // Walks the sort field's index in order (values, then the missing ones) and stops after the page.
  const indexedSortedPage = (filterCount: number, descending: boolean) =>
    prepared(`ix-sorted:${filterCount}:${descending}`, () => {
      const part = (present: boolean) =>
        `SELECT * FROM (SELECT r.data AS data FROM field_values s JOIN records r ON r.seq = s.seq
          WHERE s.collection_id = ? AND s.field = ? AND s.value IS ${present ? 'NOT ' : ''}NULL${INDEXED_FILTER_SQL.repeat(filterCount)}
          ORDER BY ${present ? (descending ? 's.value DESC, s.seq DESC' : 's.value, s.seq') : 's.seq'})`
      return `${part(true)} UNION ALL ${part(false)} LIMIT ? OFFSET ?`
    }).pluck()

  // Filtered totals are cached until something writes: this connection (the counter below) or another one.
  const commitsByOthers = otherConnectionsCommits(db)
  let localWrites = 0
  const totals = new Map<string, { stamp: string; total: number }>()
  const cachedTotal = (collectionId: number, filters: FieldFilter[], count: () => number): number => {
    const key = `${collectionId}|${JSON.stringify(filters)}`
    const stamp = `${commitsByOthers()}:${localWrites}`
    const hit = totals.get(key)
    if (hit && hit.stamp === stamp) return hit.total
    const total = count()
    if (totals.size >= 1000) totals.clear()
    totals.set(key, { stamp, total })
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

  /**
   * Rewrites many records with the collection's field index lifted, then builds it again with one
   * INSERT … SELECT per field: the triggers keep it row by row, which costs a temporary table per
   * record deleted. Runs inside the caller's transaction, so nobody sees the index missing.
   */
  const withIndexLifted = <T>(collectionId: number, rewrite: () => T): T => {
    const fields = indexedFields.all(collectionId) as string[]
    if (fields.length === 0) return rewrite()
    dropIndexedFields.run(collectionId)
    const result = rewrite()
    addFields(collectionId, fields)
    return result
  }

  /** The fields this query needs, indexed when the collection is large enough; null: scan instead. */
  const usableIndex = (collectionId: number, query: RecordQuery, size: number): Set<string> | null => {
    if (size < indexThreshold) return null
    const wanted = [...new Set([...query.filters.map((f) => f.field), ...(query.sort ? [query.sort.field] : [])])]
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

  const getStatement = (filterCount: number) =>
    prepared(`get:${filterCount}`, () =>
      `SELECT data FROM records WHERE collection_id = ? AND id = ?${FILTER_SQL.repeat(filterCount)}`).pluck()

  const exists = db.prepare<[number, string], number>('SELECT 1 FROM records WHERE collection_id = ? AND id = ?').pluck()
  const insert = db.prepare<[number, string, string]>('INSERT INTO records (collection_id, id, data) VALUES (?, ?, ?)')
  const insertBatch = db.prepare<[(number | string)[]]>(`INSERT INTO records (collection_id, id, data) VALUES ${Array(INSERT_BATCH).fill('(?, ?, ?)').join(', ')}`)
  const replace = db.prepare<[string, number, string]>('UPDATE records SET data = ? WHERE collection_id = ? AND id = ?')
  const remove = db.prepare<[number, string]>('DELETE FROM records WHERE collection_id = ? AND id = ?')
  const removeAll = db.prepare<[number]>('DELETE FROM records WHERE collection_id = ?')
  const allJson = db.prepare<[number], string>('SELECT data FROM records WHERE collection_id = ? ORDER BY seq').pluck()
  const countAll = db.prepare<[number], number>('SELECT record_count FROM collections WHERE id = ?').pluck()
  // The same test as INTEGER_ID in domain/records.ts (`^[1-9][0-9]{0,14}$`), in GLOB patterns.
  const maxIntegerId = db.prepare<[number], number>(
    `SELECT coalesce(max(CAST(id AS INTEGER)), 0) FROM records
     WHERE collection_id = ? AND length(id) <= 15 AND id GLOB '[1-9]*' AND id NOT GLOB '*[^0-9]*'`,
  ).pluck()
  const clearSnapshot = db.prepare<[number]>('DELETE FROM snapshot_records WHERE collection_id = ?')
  const takeSnapshot = db.prepare<[number]>(
    'INSERT INTO snapshot_records (collection_id, id, data) SELECT collection_id, id, data FROM records WHERE collection_id = ? ORDER BY seq',
  )
  const restoreSnapshot = db.prepare<[number]>(
    'INSERT INTO records (collection_id, id, data) SELECT collection_id, id, data FROM snapshot_records WHERE collection_id = ? ORDER BY seq',
  )

  return {
    page(collectionId: number, query: RecordQuery): RecordPage {
      const size = (countAll.get(collectionId) as number | undefined) ?? 0
      const limit = query.limit ?? -1
      const filters = query.filters
      if (usableIndex(collectionId, query, size)) {
        const [first, ...rest] = filters
        const total = first
          ? cachedTotal(collectionId, filters, () => indexedCount(filters.length).get(collectionId, first.field, toJsonCandidates(first.values), ...indexedFilterParams(collectionId, rest)) as number)
          : size
        const where = indexedFilterParams(collectionId, filters)
        const rows = (query.sort
          ? indexedSortedPage(filters.length, query.sort.descending).all(collectionId, query.sort.field, ...where, collectionId, query.sort.field, ...where, limit, query.offset)
          : indexedPage(filters.length).all(collectionId, ...where, limit, query.offset)) as string[]
        return { total, json: `[${rows.join(',')}]` }
      }
      const where = filterParams(filters)
      const total = filters.length === 0 ? size : cachedTotal(collectionId, filters, () => countStatement(filters.length).get(collectionId, ...where) as number)
      const path = query.sort ? toJsonPath(query.sort.field) : null
      const sortParams = path === null ? [] : query.sort!.descending ? [path, path, path] : [path, path]
      const rows = pageStatement(filters.length, query.sort).all(collectionId, ...where, ...sortParams, limit, query.offset) as string[]
      return { total, json: `[${rows.join(',')}]` }
    },
    /**
     * Whether the field has an index in this collection, made now when the collection is large
     * enough, as a list filtered by it would make it (relations read children through it).
     */
    indexed: (collectionId: number, field: string): boolean =>
      usableIndex(collectionId, { filters: [{ field, values: [] }], sort: null, limit: null, offset: 0 }, (countAll.get(collectionId) as number | undefined) ?? 0) !== null,
    /** The stored JSON text of one record, if it exists and matches the filters. */
    get(collectionId: number, id: string, filters: FieldFilter[] = []): string | undefined {
      return getStatement(filters.length).get(collectionId, id, ...filterParams(filters)) as string | undefined
    },
    exists: (collectionId: number, id: string): boolean => exists.get(collectionId, id) === 1,
    insert(collectionId: number, id: string, json: string): void {
      localWrites += 1
      insert.run(collectionId, id, json)
    },
    /** Inserts records in order, many to a statement; `rows` are [id, json] pairs. */
    insertMany(collectionId: number, rows: readonly (readonly [string, string])[]): void {
      if (rows.length === 0) return
      localWrites += 1
      let at = 0
      for (; at + INSERT_BATCH <= rows.length; at += INSERT_BATCH) {
        insertBatch.run(rows.slice(at, at + INSERT_BATCH).flatMap(([id, json]) => [collectionId, id, json]))
      }
      for (; at < rows.length; at += 1) insert.run(collectionId, rows[at]![0], rows[at]![1])
    },
    replace(collectionId: number, id: string, json: string): void {
      localWrites += 1
      replace.run(json, collectionId, id)
    },
    remove(collectionId: number, id: string): void {
      localWrites += 1
      remove.run(collectionId, id)
    },
    /** Empties the collection; callers run it inside a transaction (see withIndexLifted). */
    removeAll(collectionId: number): void {
      localWrites += 1
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
      clearSnapshot.run(collectionId)
      takeSnapshot.run(collectionId)
    },
    /** Returns how many records were restored. */
    restoreSnapshot(collectionId: number): number {
      localWrites += 1
      return withIndexLifted(collectionId, () => {
        removeAll.run(collectionId)
        return restoreSnapshot.run(collectionId).changes
      })
    },
    /** How many records the collection holds (a counter kept by triggers, no scan). */
    count: (collectionId: number): number => (countAll.get(collectionId) as number | undefined) ?? 0,
  }
}
