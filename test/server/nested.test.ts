import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { insertRecord } from '../../src/domain/records.ts'
import { cleanup, openStore, send, serve, tempDb } from '../_helpers.ts'

let base: string

beforeAll(async () => {
  const dbPath = tempDb()
  const { context } = openStore(dbPath)
  createProject(context, { name: 'Nest', slug: 'nest' })
  const { resource: users } = createResource(context, { path: '/api/users' })
  // A nested POST needs its parent (string ids: the parent field takes the parent id's type).
  insertRecord(context, users.collectionId, { id: '7' })
  insertRecord(context, users.collectionId, { id: '8' })
  const { resource: posts } = createResource(context, { path: '/api/posts' })
  createResource(context, { path: '/api/users/:userId/posts' })
  insertRecord(context, posts.collectionId, { title: 'by seven (number)', userId: 7 })
  insertRecord(context, posts.collectionId, { title: 'by eight', userId: '8' })
  base = `${(await serve(dbPath)).url}/api/nest`
})
afterAll(cleanup)

describe('nested resources (/api/users/:userId/posts)', () => {
  it('lists only the posts whose userId is the value in the path', async () => {
    const response = await send(`${base}/users/7/posts`)
    expect(response.status).toBe(200)
    expect(response.json).toEqual([{ id: 1, title: 'by seven (number)', userId: 7 }])
    expect(response.headers.get('x-total-count')).toBe('1')
  })

  it('creates a post with userId from the path, visible in the top-level collection too', async () => {
    const created = await send(`${base}/users/7/posts`, { method: 'POST', body: { title: 'new', userId: '999' } })
    expect(created.status).toBe(201)
    expect(created.json).toEqual({ id: 3, title: 'new', userId: '7' })
    expect((await send(`${base}/users/7/posts`)).json).toHaveLength(2)
    expect((await send(`${base}/posts/3`)).json.userId).toBe('7')
    expect((await send(`${base}/posts`)).headers.get('x-total-count')).toBe('3')
  })

  it('answers an item only under its own parent', async () => {
    expect((await send(`${base}/users/8/posts/2`)).status).toBe(200)
    expect((await send(`${base}/users/7/posts/2`)).status).toBe(404)
    expect((await send(`${base}/users/7/posts/2`, { method: 'DELETE' })).status).toBe(404)
    expect((await send(`${base}/posts/2`)).status).toBe(200)
  })

  it('keeps the parent field on PUT and filters within the parent', async () => {
    const replaced = await send(`${base}/users/8/posts/2`, { method: 'PUT', body: { title: 'edited' } })
    expect(replaced.json).toEqual({ id: 2, title: 'edited', userId: '8' })
    expect((await send(`${base}/users/7/posts?title=new`)).json.map((p: { id: number }) => p.id)).toEqual([3])
    expect((await send(`${base}/users/8/posts?title=new`)).json).toEqual([])
  })
})
