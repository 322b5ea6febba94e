import { afterAll, describe, expect, it } from 'vitest'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { insertRecord } from '../../src/domain/records.ts'
import { createRecordRepo, type RecordQuery } from '../../src/store/records.ts'
import { cleanup, openStore, tempDb } from '../_helpers.ts'

afterAll(cleanup)

const STATUSES = ['active', 'inactive', 'archived', null, undefined, 7, true]

describe('field indexes give exactly the answers of a full scan', () => {
  const { context, db } = (() => {
    const runtime = openStore(tempDb())
    return { context: runtime.context, db: runtime.context.db }
  })()
  createProject(context, { name: 'I', slug: 'i' })
  const { resource } = createResource(context, { path: '/api/things' })
  db.transaction(() => {
    for (let i = 1; i <= 1200; i += 1) {
      const status = STATUSES[i % STATUSES.length]
      const record: Record<string, unknown> = { n: (i * 37) % 101, name: `t${(i * 13) % 50}` }
      if (status !== undefined) record.status = status
      if (i % 5 !== 0) record.createdAt = new Date(1_700_000_000_000 + ((i * 7919) % 997) * 1000).toISOString()
      insertRecord(context, resource.collectionId, record)
    }
  })()
  const scan = createRecordRepo(db, { indexThreshold: Infinity })
  const indexed = createRecordRepo(db, { indexThreshold: 100 })
  const eq = (field: string, values: string[]) => ({ field, op: 'eq' as const, values })
  const q = (filters: RecordQuery['filters'], sort: RecordQuery['sort'][number] | null, limit: number | null, offset = 0): RecordQuery => ({ filters, q: null, sort: sort ? [sort] : [], limit, offset })

  it.each([
    ['filter', q([eq('status', ['active'])], null, 20, 20)],
    ['filter on numbers, booleans and repeats', q([eq('status', ['7', 'true', 'archived'])], null, 50)],
    ['two filters', q([eq('status', ['active']), eq('name', ['t3', 't4'])], null, null)],
    ['sort ascending with missing values', q([], { field: 'createdAt', descending: false }, 30, 950)],
    ['sort descending with missing values and ties', q([], { field: 'n', descending: true }, 40, 10)],
    ['filter and sort, page 2', q([eq('status', ['active'])], { field: 'createdAt', descending: true }, 20, 20)],
    ['filter and sort past the end', q([eq('status', ['inactive'])], { field: 'name', descending: false }, 20, 5000)],
    ['no match', q([eq('status', ['nope'])], { field: 'n', descending: false }, 20, 0)],
    ['sort on a field nobody has', q([], { field: 'missing', descending: true }, 10, 0)],
  ])('%s', (_name, query) => {
    const expected = scan.page(resource.collectionId, query)
    const actual = indexed.page(resource.collectionId, query)
    expect(actual.total).toBe(expected.total)
    expect(actual.json).toBe(expected.json)
  })

  it('keeps the index right through inserts, updates and deletes', () => {
    const query = q([eq('status', ['active'])], { field: 'createdAt', descending: true }, 15, 0)
    indexed.page(resource.collectionId, query)
    insertRecord(context, resource.collectionId, { status: 'active', createdAt: '2099-01-01T00:00:00.000Z' })
    context.repos.records.replace(resource.collectionId, '7', JSON.stringify({ id: '7', status: 'active', createdAt: '2098-01-01T00:00:00.000Z' }))
    context.repos.records.remove(resource.collectionId, '14')
    expect(indexed.page(resource.collectionId, query)).toEqual(scan.page(resource.collectionId, query))
    expect(JSON.parse(indexed.page(resource.collectionId, query).json)[0].createdAt).toBe('2099-01-01T00:00:00.000Z')
    const fields = db.prepare('SELECT field FROM indexed_fields ORDER BY field').pluck().all()
    expect(fields).toEqual(['createdAt', 'missing', 'n', 'name', 'status'])
  })
})
