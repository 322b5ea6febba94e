import Database from 'better-sqlite3'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { insertRecord } from '../../src/domain/records.ts'
import type { RecordQuery } from '../../src/store/records.ts'
import { cleanup, cliProcess, openStore, tempDb, tempDir } from '../_helpers.ts'

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

/**
 * A page is kept under its own collection's version: a write anywhere else (another collection,
 * the serve lease renewed every 2 s, another process's commit) leaves it cached, so a large
 * collection's page is not computed again for nothing. A page served from the cache is the very
 * object computed before (`toBe`); one computed again is a new one.
 */
describe('the page cache forgets a collection\'s pages only when its records are written', () => {
  const path = tempDb()
  const { context } = openStore(path)
  const { db } = context
  const records = context.repos.records
  createProject(context, { name: 'Two', slug: 'two' })
  const a = createResource(context, { path: '/api/apples' }).resource.collectionId
  const b = createResource(context, { path: '/api/berries' }).resource.collectionId
  for (let i = 1; i <= 10; i += 1) {
    insertRecord(context, a, { n: i })
    insertRecord(context, b, { n: i })
  }
  const query: RecordQuery = { filters: [{ field: 'n', op: 'gte', values: ['3'] }], q: null, sort: [{ field: 'n', descending: true }], limit: 2, offset: 0 }
  const ns = (page: { json: string }) => (JSON.parse(page.json) as { n: number }[]).map((r) => r.n)

  it('keeps a page of B through writes to A, to the lease and other tables, in this process', () => {
    const pageB = records.page(b, query)
    insertRecord(context, a, { n: 50 })
    context.repos.lease.take({ id: 'x', pid: 1, hostname: 'h', url: 'u', startedAt: 's', renewedAt: 1 })
    context.repos.lease.renew({ id: 'x', pid: 1, hostname: 'h', url: 'u', startedAt: 's', renewedAt: 2 })
    db.prepare("INSERT INTO meta (key, value) VALUES ('unrelated', '1')").run()
    expect(records.page(b, query)).toBe(pageB)
    expect(ns(records.page(a, query))).toEqual([50, 10])
  })

  it('computes a page of B again after any write to B: insert, update, delete', () => {
    let pageB = records.page(b, query)
    insertRecord(context, b, { n: 60 })
    expect(records.page(b, query)).not.toBe(pageB)
    expect(ns(records.page(b, query))).toEqual([60, 10])
    pageB = records.page(b, query)
    db.prepare("UPDATE records SET data = json_set(data, '$.n', 61) WHERE collection_id = ? AND json_extract(data, '$.n') = 60").run(b)
    expect(ns(records.page(b, query))).toEqual([61, 10])
    db.prepare("DELETE FROM records WHERE collection_id = ? AND json_extract(data, '$.n') = 61").run(b)
    expect(ns(records.page(b, query))).toEqual([10, 9])
    expect(records.page(b, query).total).toBe(8)
  })

  it('keeps nothing computed inside a transaction, whose version a rollback takes back', () => {
    const outside = records.page(b, query)
    expect(() => db.transaction(() => {
      insertRecord(context, b, { n: 70 })
      expect(ns(records.page(b, query))).toEqual([70, 10])
      throw new Error('undo')
    })()).toThrow('undo')
    expect(records.page(b, query)).toBe(outside)
    // A different write reaches the version the rolled-back one had: its page is computed, not the undone one's.
    insertRecord(context, b, { n: 71 })
    expect(ns(records.page(b, query))).toEqual([71, 10])
    expect(records.page(b, query).total).toBe(9)
  })

  it('another process importing into A: a page of B stays cached and right, a page of A changes at once', () => {
    const pageB = records.page(b, query)
    const pageA = records.page(a, query)
    const file = join(tempDir(), 'db.json')
    writeFileSync(file, JSON.stringify({ apples: [{ id: 1, n: 5 }, { id: 2, n: 400 }, { id: 3, n: 300 }] }))
    const imported = cliProcess(['--db', path, 'import', file, '--project', 'two', '--prefix', '/api'])
    expect(imported.stderr).not.toMatch(/error/i)
    expect(imported.code).toBe(0)
    expect(records.page(b, query)).toBe(pageB)
    const fresh = new Database(path, { readonly: true })
    const bFromFile = fresh.prepare("SELECT data ->> '$.n' FROM records WHERE collection_id = ? AND data ->> '$.n' >= 3 ORDER BY data ->> '$.n' DESC LIMIT 2").pluck().all(b)
    fresh.close()
    expect(ns(pageB)).toEqual(bFromFile)
    expect(records.page(a, query)).not.toBe(pageA)
    expect(ns(records.page(a, query))).toEqual([400, 300])
    expect(records.page(a, query).total).toBe(3)
  })
})
