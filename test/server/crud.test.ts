import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { removeEndpoint } from '../../src/domain/endpoints.ts'
import { cleanup, openStore, send, serve, tempDb } from '../_helpers.ts'

let base: string
let dbPath: string

beforeAll(async () => {
  dbPath = tempDb()
  const { context } = openStore(dbPath)
  createProject(context, { name: 'Shop', slug: 'shop' })
  createResource(context, { path: '/api/blog-posts' })
  createResource(context, { path: '/api/tags' })
  const server = await serve(dbPath)
  base = `${server.url}/api/shop`
})
afterAll(cleanup)

describe('resource CRUD', () => {
  it('creates with generated integer ids 1, 2, … and answers 201 with the item', async () => {
    const first = await send(`${base}/blog-posts`, { method: 'POST', body: { title: 'a', views: 3 } })
    expect(first.status).toBe(201)
    expect(first.headers.get('content-type')).toMatch(/^application\/json/)
    expect(first.json).toEqual({ id: 1, title: 'a', views: 3 })
    const second = await send(`${base}/blog-posts`, { method: 'POST', body: { title: 'b' } })
    expect(second.json.id).toBe(2)
  })

  it('keeps a given id and its JSON type, and refuses a taken id with 409', async () => {
    const given = await send(`${base}/blog-posts`, { method: 'POST', body: { id: 'intro', title: 'c' } })
    expect(given.status).toBe(201)
    expect(given.json.id).toBe('intro')
    const numeric = await send(`${base}/blog-posts`, { method: 'POST', body: { id: 10, title: 'd' } })
    expect(numeric.json.id).toBe(10)
    const taken = await send(`${base}/blog-posts`, { method: 'POST', body: { id: 'intro', title: 'again' } })
    expect(taken.status).toBe(409)
    expect(taken.json.error.code).toBe('CONFLICT')
    // The next generated id skips past the integer a client chose.
    const next = await send(`${base}/blog-posts`, { method: 'POST', body: { title: 'e' } })
    expect(next.json.id).toBe(11)
    const stored = await send(`${base}/blog-posts/intro`)
    expect(stored.json.title).toBe('c')
  })

  it('refuses ids that are not strings or numbers, or that no URL can address', async () => {
    for (const id of [null, true, { a: 1 }, '', '.', '..', 'x'.repeat(1025)]) {
      const response = await send(`${base}/tags`, { method: 'POST', body: { id, name: 'x' } })
      expect(response.status).toBe(400)
      expect(response.json.error.code).toBe('INVALID_ID')
    }
    expect((await send(`${base}/tags`)).json).toEqual([])
  })

  it('reads one item, and 404 for an unknown id', async () => {
    const found = await send(`${base}/blog-posts/1`)
    expect(found.status).toBe(200)
    expect(found.json).toEqual({ id: 1, title: 'a', views: 3 })
    const missing = await send(`${base}/blog-posts/999`)
    expect(missing.status).toBe(404)
    expect(missing.json.error.code).toBe('NOT_FOUND')
    expect(missing.json.error.message).toContain('999')
  })

  it('replaces the whole item with PUT: fields not sent are gone, the id is kept', async () => {
    const replaced = await send(`${base}/blog-posts/1`, { method: 'PUT', body: { id: 'other', subtitle: 'new' } })
    expect(replaced.status).toBe(200)
    expect(replaced.json).toEqual({ id: 1, subtitle: 'new' })
    expect((await send(`${base}/blog-posts/1`)).json).toEqual({ id: 1, subtitle: 'new' })
    const missing = await send(`${base}/blog-posts/999`, { method: 'PUT', body: { a: 1 } })
    expect(missing.status).toBe(404)
  })

  it('deletes an item, answering 200 with it; then 404', async () => {
    const removed = await send(`${base}/blog-posts/2`, { method: 'DELETE' })
    expect(removed.status).toBe(200)
    expect(removed.json).toEqual({ id: 2, title: 'b' })
    expect((await send(`${base}/blog-posts/2`)).status).toBe(404)
    expect((await send(`${base}/blog-posts/2`, { method: 'DELETE' })).status).toBe(404)
  })

  it('lists as a JSON array with X-Total-Count', async () => {
    const list = await send(`${base}/blog-posts`)
    expect(list.status).toBe(200)
    expect(Array.isArray(list.json)).toBe(true)
    expect(list.headers.get('x-total-count')).toBe(String(list.json.length))
    expect(list.json.map((p: { id: string | number }) => p.id)).toEqual([1, 'intro', 10, 11])
  })

  it('answers 404 for a path that matches nothing and 405 with Allow for a missing method', async () => {
    const nothing = await send(`${base}/authors`)
    expect(nothing.status).toBe(404)
    expect(nothing.json.error.code).toBe('ROUTE_NOT_MATCHED')
    const posted = await send(`${base}/blog-posts/1`, { method: 'POST', body: { a: 1 } })
    expect(posted.status).toBe(405)
    expect(posted.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH, PUT')
    expect(posted.json.error.code).toBe('METHOD_NOT_ALLOWED')
    const postOnList = await send(`${base}/blog-posts`, { method: 'PUT', body: {} })
    expect(postOnList.status).toBe(405)
    expect(postOnList.headers.get('allow')).toBe('GET, HEAD, POST')
  })

  it('answers 405 for an endpoint removed while serving, and keeps the other five', async () => {
    const { context } = openStore(dbPath)
    removeEndpoint(context, { project: 'shop', method: 'DELETE', path: '/api/tags/:id' })
      await send(`${base}/tags`, { method: 'POST', body: { id: 'x', name: 'x' } })
    const deleted = await send(`${base}/tags/x`, { method: 'DELETE' })
    expect(deleted.status).toBe(405)
    expect(deleted.headers.get('allow')).toBe('GET, HEAD, PATCH, PUT')
    expect((await send(`${base}/tags/x`)).status).toBe(200)
    expect((await send(`${base}/tags/x`, { method: 'PUT', body: { name: 'y' } })).json).toEqual({ id: 'x', name: 'y' })
  })

  it('serves ids with slashes, dots and unicode when percent-encoded', async () => {
    for (const id of ['a/b', 'a..b', '.hidden', 'ünï-😀', 'x y', "it's"]) {
      const created = await send(`${base}/tags`, { method: 'POST', body: { id, name: id } })
      expect(created.status).toBe(201)
      const found = await send(`${base}/tags/${encodeURIComponent(id)}`)
      expect(found.status).toBe(200)
      expect(found.json.name).toBe(id)
    }
  })
})
