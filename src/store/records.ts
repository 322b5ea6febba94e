import type { Statement } from 'better-sqlite3'
import type { Db } from './db.ts'

/** A list filter: keep records whose `field` equals any of `values` (repeats OR, fields AND). */
export interface FieldFilter {
  field: string
  values: string[]
}

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
    if (value === 'true' || value === 'false' || value === 'null') candidates.add(value)
  }
  return JSON.stringify([...candidates])
}

// One fixed SQL fragment per filter; only how many of them appear varies, never their text.
const FILTER_SQL = ' AND (data -> ?) IN (SELECT value FROM json_each(?))'

function filterParams(filters: FieldFilter[]): string[] {
  return filters.flatMap((f) => [toJsonPath(f.field), toJsonCandidates(f.values)])
}

export type RecordRepo = ReturnType<typeof createRecordRepo>

export function createRecordRepo(db: Db) {
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

  const pageStatement = (filterCount: number, sort: RecordQuery['sort']) => {
    const order = sort ? (sort.descending ? 'desc' : 'asc') : 'none'
    return prepared(`page:${filterCount}:${order}`, () => {
      const orderBy = sort
        ? `ORDER BY (data ->> ?) IS NULL, data ->> ? ${sort.descending ? 'DESC' : 'ASC'}, seq`
        : 'ORDER BY seq'
      return `SELECT data FROM records WHERE collection_id = ?${FILTER_SQL.repeat(filterCount)} ${orderBy} LIMIT ? OFFSET ?`
    }).pluck()
  }

  const getStatement = (filterCount: number) =>
    prepared(`get:${filterCount}`, () =>
      `SELECT data FROM records WHERE collection_id = ? AND id = ?${FILTER_SQL.repeat(filterCount)}`).pluck()

  const exists = db.prepare<[number, string], number>('SELECT 1 FROM records WHERE collection_id = ? AND id = ?').pluck()
  const insert = db.prepare<[number, string, string]>('INSERT INTO records (collection_id, id, data) VALUES (?, ?, ?)')
  const replace = db.prepare<[string, number, string]>('UPDATE records SET data = ? WHERE collection_id = ? AND id = ?')
  const remove = db.prepare<[number, string]>('DELETE FROM records WHERE collection_id = ? AND id = ?')
  const removeAll = db.prepare<[number]>('DELETE FROM records WHERE collection_id = ?')
  const allJson = db.prepare<[number], string>('SELECT data FROM records WHERE collection_id = ? ORDER BY seq').pluck()
  const countAll = db.prepare<[number], number>('SELECT record_count FROM collections WHERE id = ?').pluck()

  return {
    page(collectionId: number, query: RecordQuery): RecordPage {
      const where = filterParams(query.filters)
      const total = (query.filters.length === 0
        ? countAll.get(collectionId)
        : countStatement(query.filters.length).get(collectionId, ...where)) as number
      const sortParams = query.sort ? [toJsonPath(query.sort.field), toJsonPath(query.sort.field)] : []
      const rows = pageStatement(query.filters.length, query.sort)
        .all(collectionId, ...where, ...sortParams, query.limit ?? -1, query.offset) as string[]
      return { total, json: `[${rows.join(',')}]` }
    },
    /** The stored JSON text of one record, if it exists and matches the filters. */
    get(collectionId: number, id: string, filters: FieldFilter[] = []): string | undefined {
      return getStatement(filters.length).get(collectionId, id, ...filterParams(filters)) as string | undefined
    },
    exists: (collectionId: number, id: string): boolean => exists.get(collectionId, id) === 1,
    insert: (collectionId: number, id: string, json: string): void => void insert.run(collectionId, id, json),
    replace: (collectionId: number, id: string, json: string): void => void replace.run(json, collectionId, id),
    remove: (collectionId: number, id: string): void => void remove.run(collectionId, id),
    removeAll: (collectionId: number): void => void removeAll.run(collectionId),
    allJson: (collectionId: number): string[] => allJson.all(collectionId) as string[],
    count: (collectionId: number): number => (countAll.get(collectionId) as number | undefined) ?? 0,
  }
}
