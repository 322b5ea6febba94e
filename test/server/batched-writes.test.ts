import { afterAll, describe, expect, it } from 'vitest'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { insertRecord } from '../../src/domain/records.ts'
import { batchedWriteTransaction } from '../../src/domain/transaction.ts'
import { AppError } from '../../src/errors.ts'
import { cleanup, openStore, send, serve, tempDb } from '../_helpers.ts'

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
})
