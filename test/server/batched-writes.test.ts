import { afterAll, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { insertRecord } from '../../src/domain/records.ts'
import { batchedWriteTransaction } from '../../src/domain/transaction.ts'
import { AppError } from '../../src/errors.ts'
import { cleanup, expectAliveAndIntact, openStore, send, serve, tempDb } from '../_helpers.ts'

afterAll(cleanup)

describe('writes of concurrent requests share a commit', () => {
  it('runs the writes queued in one turn in one transaction; one that throws undoes only itself', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    createProject(context, { name: 'Shop', slug: 'shop' })
    const { resource } = createResource(context, { path: '/api/items' })
    const reader = openStore(dbPath).context
    const seen: number[] = []
    const first = batchedWriteTransaction(context.db, () => insertRecord(context, resource.collectionId, { name: 'a' }))
    const failing = batchedWriteTransaction(context.db, () => {
      insertRecord(context, resource.collectionId, { name: 'undone' })
      // Another connection sees nothing yet: the first write is in the same open transaction.
      seen.push(reader.repos.records.count(resource.collectionId))
      throw new AppError('CONFLICT', 'refused on purpose')
    })
    const third = batchedWriteTransaction(context.db, () => insertRecord(context, resource.collectionId, { name: 'c' }))
    expect(JSON.parse(await first)).toEqual({ id: 1, name: 'a' })
    await expect(failing).rejects.toThrow('refused on purpose')
    // The undone write's id is given again, as after a refused request alone.
    expect(JSON.parse(await third)).toEqual({ id: 2, name: 'c' })
    expect(seen).toEqual([0])
    expect(reader.repos.records.allJson(resource.collectionId).map((json) => JSON.parse(json).name)).toEqual(['a', 'c'])
  })

  it('answers concurrent POSTs each with its own id, a taken id 409 alone, all of them kept', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    createProject(context, { name: 'Shop', slug: 'shop' })
    createResource(context, { path: '/api/items' })
    const server = await serve(dbPath)
    const base = `${server.url}/api/shop/items`
    await send(base, { method: 'POST', body: { id: 'taken' } })
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      send(base, { method: 'POST', body: i === 7 ? { id: 'taken' } : { n: i }, overSocket: true })))
    expect(answers.map((answer) => answer.status)).toEqual(answers.map((_, i) => (i === 7 ? 409 : 201)))
    const ids = answers.filter((answer) => answer.status === 201).map((answer) => answer.json.id)
    expect(new Set(ids).size).toBe(19)
    const listed = await send(base)
    expect(listed.json).toHaveLength(20)
    expect(listed.json.map((item: { id: unknown }) => item.id).slice(1).sort((a: number, b: number) => a - b)).toEqual([...ids].sort((a, b) => a - b))
  })

  it('meets another process\'s write lock: a batch held past the lock wait answers 503 STORE_BUSY each, storing nothing; one freed in time commits every write', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    createProject(context, { name: 'Shop', slug: 'shop' })
    const { resource } = createResource(context, { path: '/api/items' })
    const server = await serve(dbPath, { lockWaitMs: 400 })
    const base = `${server.url}/api/shop/items`
    const post = (n: number) => send(base, { method: 'POST', body: { n }, overSocket: true })
    const locker = new Database(dbPath)
    try {
      locker.exec('BEGIN IMMEDIATE')
      const refused = await Promise.all([1, 2, 3].map(post))
      expect(refused.map((answer) => [answer.status, answer.json.error.code])).toEqual([[503, 'STORE_BUSY'], [503, 'STORE_BUSY'], [503, 'STORE_BUSY']])
      expect(context.repos.records.count(resource.collectionId)).toBe(0)
      // Freed within the lock wait: the batch waits for it, then commits every write.
      const waiting = Promise.all([4, 5, 6].map(post))
      await new Promise((resolve) => setTimeout(resolve, 100))
      locker.exec('COMMIT')
      const kept = await waiting
      expect(kept.map((answer) => answer.status)).toEqual([201, 201, 201])
      expect(new Set(kept.map((answer) => answer.json.id)).size).toBe(3)
    } finally {
      if (locker.inTransaction) locker.exec('ROLLBACK')
      locker.close()
    }
    expect((await send(base)).json.map((item: { n: number }) => item.n).sort()).toEqual([4, 5, 6])
    await expectAliveAndIntact(server.url, dbPath)
  })
})
