import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { insertRecord } from '../../src/domain/records.ts'
import type { RecordQuery } from '../../src/store/records.ts'
import { cleanup, openStore, tempDb } from '../_helpers.ts'

afterAll(cleanup)

/** A page read again is served from the page cache; every kind of write must still show in the next read. */
describe('the page cache shows every write', () => {
  const path = tempDb()
  const { context } = openStore(path)
  const { db } = context
  const records = context.repos.records
  createProject(context, { name: 'C', slug: 'c' })
  const { resource } = createResource(context, { path: '/api/things' })
  const id = resource.collectionId
  for (let i = 1; i <= 30; i += 1) insertRecord(context, id, { n: i, status: i % 2 ? 'odd' : 'even' })
  const query: RecordQuery = { filters: [{ field: 'status', op: 'eq', values: ['odd'] }], q: null, sort: [{ field: 'n', descending: true }], limit: 3, offset: 1 }
  const firstN = () => (JSON.parse(records.page(id, query).json) as { n: number }[]).map((r) => r.n)

  it('reads the same page twice alike', () => {
    expect(firstN()).toEqual([27, 25, 23])
    expect(records.page(id, query)).toEqual(records.page(id, query))
    expect(records.page(id, query).total).toBe(15)
  })

  it('sees a write of the repository', () => {
    firstN()
    insertRecord(context, id, { n: 100, status: 'odd' })
    expect(firstN()).toEqual([29, 27, 25])
    expect(records.page(id, query).total).toBe(16)
  })

  it('sees a write made on the same connection without the repository', () => {
    firstN()
    db.prepare("UPDATE records SET data = json_set(data, '$.n', 28) WHERE collection_id = ? AND json_extract(data, '$.n') = 29").run(id)
    expect(firstN()).toEqual([28, 27, 25])
  })

  it('sees a commit of another connection', () => {
    firstN()
    const other = new Database(path)
    other.prepare("UPDATE records SET data = json_set(data, '$.n', 26) WHERE collection_id = ? AND json_extract(data, '$.n') = 28").run(id)
    other.close()
    expect(firstN()).toEqual([27, 26, 25])
  })

  it('keeps nothing read inside a transaction that rolls back', () => {
    firstN()
    expect(() => db.transaction(() => {
      insertRecord(context, id, { n: 99, status: 'odd' })
      expect(firstN()).toEqual([99, 27, 26])
      throw new Error('undo')
    })()).toThrow('undo')
    expect(firstN()).toEqual([27, 26, 25])
  })
})
