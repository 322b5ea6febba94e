import { afterAll, describe, expect, it } from 'vitest'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { insertRecord } from '../../src/domain/records.ts'
import { resetProject } from '../../src/domain/seeding.ts'
import { createRecordRepo } from '../../src/store/records.ts'
import { cleanup, openStore, tempDb } from '../_helpers.ts'

afterAll(cleanup)

/**
 * A reset keeps the records still as seeded where they are and rewrites the others; when it cannot
 * (a seed kept before seqs were, a seq another collection's record has taken since) it copies the
 * whole seed back. Either way the collection reads exactly as seeded.
 */
describe('reset in place', () => {
  const setup = () => {
    const { context } = openStore(tempDb())
    const project = createProject(context, { name: 'R', slug: 'r' })
    const a = createResource(context, { project: 'r', path: '/api/as' }).resource.collectionId
    createProject(context, { name: 'O', slug: 'o' })
    const b = createResource(context, { project: 'o', path: '/api/bs' }).resource.collectionId
    context.db.transaction(() => {
      for (let i = 1; i <= 50; i += 1) insertRecord(context, a, { n: i, status: i % 3 ? 'on' : 'off' })
      context.repos.records.saveSnapshot(a)
    })()
    const rows = (collectionId: number) => context.db.prepare('SELECT id, data FROM records WHERE collection_id = ? ORDER BY seq').raw().all(collectionId) as [string, string][]
    return { context, project, a, b, rows, seeded: rows(a) }
  }

  it('puts back updated, deleted and added records, in the seeded order, without touching the others', () => {
    const { context, project, a, rows, seeded } = setup()
    const untouched = context.db.prepare('SELECT seq FROM records WHERE collection_id = ? AND id = ?').pluck()
    const seqOf10 = untouched.get(a, '10')
    context.db.transaction(() => {
      context.repos.records.replace(a, '7', JSON.stringify({ id: 7, n: 700 }))
      context.repos.records.remove(a, '3')
      context.repos.records.remove(a, '50')
      insertRecord(context, a, { n: 51 })
    })()
    expect(resetProject(context, project.id)).toEqual({ collections: 1, records: 50 })
    expect(rows(a)).toEqual(seeded)
    expect(untouched.get(a, '10')).toBe(seqOf10)
    expect(context.repos.records.count(a)).toBe(50)
    expect(insertRecord(context, a, { n: 0 })).toContain('"id":51')
  })

  it("copies the whole seed back when another project's record took the seq of a seeded one", () => {
    const { context, project, a, b, rows, seeded } = setup()
    context.repos.records.remove(a, '50')
    // The highest seq is free again: the next record written anywhere takes it.
    insertRecord(context, b, { other: true })
    expect(resetProject(context, project.id).records).toBe(50)
    expect(rows(a)).toEqual(seeded)
    expect(rows(b)).toEqual([['1', '{"id":1,"other":true}']])
    // The seqs are noted again: the next reset is in place.
    context.repos.records.remove(a, '2')
    resetProject(context, project.id)
    expect(rows(a)).toEqual(seeded)
  })

  it('copies the whole seed back, once, when it was kept before seqs were', () => {
    const { context, project, a, rows, seeded } = setup()
    context.db.prepare('UPDATE snapshot_records SET record_seq = NULL WHERE collection_id = ?').run(a)
    context.repos.records.remove(a, '4')
    resetProject(context, project.id)
    expect(rows(a)).toEqual(seeded)
    expect(context.db.prepare('SELECT count(*) FROM snapshot_records WHERE collection_id = ? AND record_seq IS NULL').pluck().get(a)).toBe(0)
  })

  it('keeps a field index right whether few or most records changed', () => {
    const { context, project, a, seeded } = setup()
    const indexed = createRecordRepo(context.db, { indexThreshold: 10 })
    const scan = createRecordRepo(context.db, { indexThreshold: Infinity })
    const query = { filters: [{ field: 'status', op: 'eq' as const, values: ['off'] }], q: null, sort: [{ field: 'n', descending: true }], limit: 5, offset: 1 }
    expect(indexed.page(a, query)).toEqual(scan.page(a, query))
    context.repos.records.replace(a, '6', JSON.stringify({ id: 6, n: 6, status: 'on' }))
    resetProject(context, project.id)
    expect(indexed.page(a, query)).toEqual(scan.page(a, query))
    context.db.transaction(() => {
      for (let i = 1; i <= 40; i += 1) context.repos.records.replace(a, String(i), JSON.stringify({ id: i, n: -i, status: 'off' }))
    })()
    expect(indexed.page(a, query).total).toBe(43)
    resetProject(context, project.id)
    expect(indexed.page(a, query)).toEqual(scan.page(a, query))
    expect(indexed.page(a, query).total).toBe(seeded.filter(([, data]) => data.includes('"off"')).length)
  })
})
