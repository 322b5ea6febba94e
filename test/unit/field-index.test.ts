import { afterAll, describe, expect, it } from 'vitest'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { insertRecord } from '../../src/domain/records.ts'
import { createRecordRepo, type RecordQuery } from '../../src/store/records.ts'
import type { FilterOperator, SortKey } from '../../src/model.ts'
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
  const op = (field: string, name: FilterOperator, value: string) => ({ field, op: name, values: [value] })
  const q = (filters: RecordQuery['filters'], sort: SortKey | null, limit: number | null, offset = 0, more: SortKey[] = []): RecordQuery =>
    ({ filters, q: null, sort: sort ? [sort, ...more] : [], limit, offset })

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
    ['numbers compared as numbers', q([op('n', 'gte', '50'), op('n', 'lt', '90')], { field: 'n', descending: false }, 30, 5)],
    ['ne keeps records missing the field', q([op('status', 'ne', 'active')], null, 40, 100)],
    ['ISO dates compared as instants', q([op('createdAt', 'gt', '2023-11-14T22:20:00+00:00')], { field: 'createdAt', descending: true }, 25, 0)],
    ['dates between two instants, few matches', q([op('createdAt', 'gte', '2023-11-14T22:20:00Z'), op('createdAt', 'lt', '2023-11-14T22:25:00+00:00')], { field: 'n', descending: false }, 25, 0)],
    ['dates before, date only', q([op('createdAt', 'lte', '2023-11-14')], null, 25, 0)],
    ['strings compared as strings', q([op('name', 'gt', 't4')], { field: 'name', descending: false }, 30, 0)],
    ['contains, startsWith, endsWith', q([op('name', 'contains', 'T1'), op('name', 'startsWith', 't'), op('name', 'endsWith', '2')], null, null)],
    ['like, a regex on text and numbers', q([{ field: 'n', op: 'like', values: ['^1'], matches: (text: string) => /^1/i.test(text) }], null, 30, 0)],
    ['two sort fields, one descending', q([op('n', 'gt', '10')], { field: 'status', descending: false }, 40, 10, [{ field: 'n', descending: true }])],
    ['few matches, sorted from them', q([eq('n', ['5', '6'])], { field: 'createdAt', descending: true }, 10, 2, [{ field: 'name', descending: false }])],
    ['few matches of a range, unsorted', q([op('n', 'gt', '99')], null, 10, 1)],
    ['two sort fields, first descending', q([], { field: 'name', descending: true }, 40, 300, [{ field: 'createdAt', descending: false }])],
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

  it.each([
    ['a word', 'active'],
    ['upper case and a nested value', 'ACTI'],
    ['two letters, too short for trigrams', 't3'],
    ['a rare word, few matches', 't17'],
    ['with filters and sort', 'inac'],
  ])('q gives the answers of a full scan: %s', (_name, text) => {
    const query: RecordQuery = { filters: _name.includes('filters') ? [op('n', 'gt', '20')] : [], q: text.toLowerCase(), sort: [{ field: 'n', descending: true }], limit: 20, offset: 3 }
    const expected = scan.page(resource.collectionId, query)
    expect(expected.total).toBeGreaterThan(0)
    expect(indexed.page(resource.collectionId, query)).toEqual(expected)
  })

  // Each step searches a text of its own: totals are cached per repository, and these writes go through another one.
  it('keeps the text index right through writes and bulk rewrites', () => {
    const query = (text: string): RecordQuery => ({ filters: [], q: text, sort: [], limit: null, offset: 0 })
    expect(indexed.page(resource.collectionId, query('no such text')).total).toBe(0)
    expect(db.prepare('SELECT count(*) FROM text_indexed').pluck().get()).toBe(1)
    insertRecord(context, resource.collectionId, { id: 'z1', tags: { first: 'Zebra crossing' } })
    context.repos.records.replace(resource.collectionId, '3', JSON.stringify({ id: '3', name: 'a zebra' }))
    expect(indexed.page(resource.collectionId, query('zebra'))).toEqual(scan.page(resource.collectionId, query('zebra')))
    expect(indexed.page(resource.collectionId, query('zebra')).total).toBe(2)
    context.repos.records.remove(resource.collectionId, 'z1')
    expect(indexed.page(resource.collectionId, query('ebra')).total).toBe(1)
    db.transaction(() => context.repos.records.removeAll(resource.collectionId))()
    expect(indexed.page(resource.collectionId, query('zebr')).total).toBe(0)
    expect(db.prepare('SELECT count(*) FROM record_text').pluck().get()).toBe(0)
  })
})
