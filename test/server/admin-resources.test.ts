import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { seedResource } from '../../src/domain/seeding.ts'
import { loadFaker } from '../../src/engine/generators.ts'
import { cleanup, openStore, send, serve, tempDb } from '../_helpers.ts'

let url: string
let api: string
let auth: Record<string, string>
let limited: Record<string, string>

beforeAll(async () => {
  const dbPath = tempDb()
  const { context } = openStore(dbPath)
  createProject(context, { name: 'Shop', slug: 'shop' })
  createProject(context, { name: 'Other', slug: 'other' })
  const makeFaker = await loadFaker()
  const posts = createResource(context, { project: 'shop', path: '/api/posts' }).resource
  seedResource(context, posts, {
    fields: { title: 'lorem.words', views: 'number.int({"min":1,"max":5})', tag: 'helpers.arrayElement(["a","b"])' },
    seedCount: 12,
    seedValue: 7,
    seedRecords: [],
  }, makeFaker)
  createResource(context, { project: 'shop', path: '/api/users/:userId/comments' })
  createResource(context, { project: 'other', path: '/api/notes' })
  auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
  limited = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000, projectId: 2 })}` }
  url = (await serve(dbPath)).url
  api = `${url}/api/projects`
})
afterAll(cleanup)

const resources = async (projectId = 1) => (await send(`${api}/${projectId}/resources`, { headers: auth })).json
const endpointCount = async () => (await send(`${api}/1`, { headers: auth })).json.endpointCount

describe('GET /api/projects/{id}/resources', () => {
  it('lists resources by path with fields, counts and endpoint ids', async () => {
    const listed = await send(`${api}/1/resources`, { headers: auth })
    expect(listed.status).toBe(200)
    expect(listed.json).toEqual([
      { id: 1, path: '/api/posts', fields: { title: 'lorem.words', views: 'number.int({"min":1,"max":5})', tag: 'helpers.arrayElement(["a","b"])' }, seedCount: 12, onDelete: 'keep', singular: false, recordCount: 12, endpointIds: [1, 2, 3, 4, 5, 6] },
      { id: 2, path: '/api/users/:userId/comments', fields: {}, seedCount: 0, onDelete: 'keep', singular: false, recordCount: 0, endpointIds: [7, 8, 9, 10, 11, 12] },
    ])
    expect((await send(`${api}/1/resources`, { method: 'DELETE', headers: auth })).headers.get('allow')).toBe('GET, POST')
    expect((await send(`${api}/1/resources`)).status).toBe(401)
    expect((await send(`${api}/1/resources`, { headers: limited })).status).toBe(403)
    expect((await send(`${api}/7/resources`, { headers: auth })).status).toBe(404)
  })
})

describe('GET /api/projects/{id}/resources/check', () => {
  it.each([
    ['/api/comments/', { ok: true, path: '/api/comments', warnings: [] }],
    ['/api/v1/orders', { ok: true, path: '/api/v1/orders', warnings: [] }],
    ['/api/shops/:shopId/aisles/:aisleId/shelves/:shelfId/items', { ok: true, path: '/api/shops/:shopId/aisles/:aisleId/shelves/:shelfId/items', warnings: [expect.stringContaining('nests 4 resource levels')] }],
    ['/api/getPosts', { ok: false, message: expect.stringContaining('(rule: no-verbs)') }],
    ['/users', { ok: false, message: expect.stringContaining('(rule: starts-with-api)') }],
    ['/api/Users', { ok: false, message: expect.stringContaining('(rule: lowercase-hyphens)') }],
    ['/api/user', { ok: false, message: expect.stringContaining('(rule: plural-nouns)') }],
    ['/api/posts', { ok: false, message: 'resource /api/posts already exists in project "shop"' }],
    ['', { ok: false, message: expect.stringContaining('give a path') }],
  ])('%s', async (path, expected) => {
    const checked = await send(`${api}/1/resources/check?path=${encodeURIComponent(path)}`, { headers: auth })
    expect(checked.status).toBe(200)
    expect(checked.json).toEqual(expected)
  })

  it('answers 405 for other methods and needs a token', async () => {
    expect((await send(`${api}/1/resources/check?path=/api/x`, { method: 'POST', headers: auth })).headers.get('allow')).toBe('GET')
    expect((await send(`${api}/1/resources/check?path=/api/xs`)).status).toBe(401)
  })
})

describe('POST /api/projects/{id}/resources', () => {
  it('creates the resource, its six endpoints and seeded records (201); the mock serves them at once', async () => {
    const created = await send(`${api}/1/resources`, { method: 'POST', headers: auth, body: { path: '/api/tickets/', fields: { subject: 'lorem.sentence', votes: 'int' }, seed: 3 } })
    expect(created.status).toBe(201)
    const { resource, endpoints, warnings } = created.json
    expect(warnings).toEqual([])
    expect(resource).toEqual({ id: expect.any(Number), path: '/api/tickets', fields: { subject: 'lorem.sentence', votes: 'int' }, seedCount: 3, onDelete: 'keep', singular: false, recordCount: 3, endpointIds: endpoints.map((e: { id: number }) => e.id) })
    expect(endpoints.map((e: { method: string; path: string; status: number }) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      'GET /api/tickets 200', 'POST /api/tickets 201', 'GET /api/tickets/:id 200', 'PUT /api/tickets/:id 200', 'PATCH /api/tickets/:id 200', 'DELETE /api/tickets/:id 200',
    ])
    expect(endpoints[0]).toMatchObject({ kind: 'resource', action: 'list', resourceId: resource.id, body: null, schema: null })
    const served = await send(`${url}/api/shop/tickets`)
    expect(served.status).toBe(200)
    expect(served.json).toHaveLength(3)
    expect(served.json[0]).toEqual({ id: 1, subject: expect.any(String), votes: expect.any(Number) })
    expect((await resources()).map((r: { path: string }) => r.path)).toEqual(['/api/posts', '/api/tickets', '/api/users/:userId/comments'])
  })

  it('creates a resource without fields or seed', async () => {
    const created = await send(`${api}/1/resources`, { method: 'POST', headers: auth, body: { path: '/api/labels' } })
    expect(created.status).toBe(201)
    expect(created.json.resource).toMatchObject({ path: '/api/labels', fields: {}, seedCount: 0, recordCount: 0 })
    expect((await send(`${url}/api/shop/labels`)).json).toEqual([])
  })

  it('creates a resource whose deletes cascade (onDelete), as the DELETE of its records then does', async () => {
    const created = await send(`${api}/1/resources`, { method: 'POST', headers: auth, body: { path: '/api/shelves', onDelete: 'cascade' } })
    expect(created.status).toBe(201)
    expect(created.json.resource).toMatchObject({ path: '/api/shelves', onDelete: 'cascade' })
    await send(`${api}/1/resources`, { method: 'POST', headers: auth, body: { path: '/api/books' } })
    await send(`${url}/api/shop/shelves`, { method: 'POST', body: { id: 's1' } })
    await send(`${url}/api/shop/books`, { method: 'POST', body: { shelfId: 's1' } })
    const shelves = (await resources()).find((r: { path: string }) => r.path === '/api/shelves')
    expect((await send(`${api}/1/resources/${shelves.id}/records/s1`, { method: 'DELETE', headers: auth })).status).toBe(204)
    expect((await send(`${url}/api/shop/books`)).json).toEqual([])
  })

  it.each([
    ['path', { path: '/api/getThings' }, 'rule: no-verbs'],
    ['path', { path: 'api/things' }, 'rule: starts-with-api'],
    ['path', { path: '/api/thing' }, 'rule: plural-nouns'],
    ['path', { path: 42 }, '"path"'],
    ['path', {}, '"path"'],
    ['fields', { path: '/api/things', fields: { name: 'nope.nothing' }, seed: 2 }, 'unknown generator "nope.nothing"'],
    ['fields', { path: '/api/things', fields: { id: 'int' } }, '"id"'],
    ['fields', { path: '/api/things', fields: ['name:int'] }, '"fields"'],
    ['fields', { path: '/api/things', seed: 2 }, '"fields"'],
    ['seed', { path: '/api/things', fields: { n: 'int' }, seed: -1 }, '"seed"'],
    ['seed', { path: '/api/things', fields: { n: 'int' }, seed: 'ten' }, '"seed"'],
    ['seed', { path: '/api/things', fields: { n: 'int' }, seed: 1.5 }, '"seed"'],
    ['seed', { path: '/api/things', fields: { n: 'int' }, seed: 100_001 }, '"seed"'],
    ['count', { path: '/api/things', count: 3 }, '"count"'],
    ['onDelete', { path: '/api/things', onDelete: 'restrict' }, 'onDelete "restrict" must be one of keep, cascade'],
  ])('refuses a bad %s with 400 INVALID_INPUT and stores nothing', async (field, body, message) => {
    const before = await resources()
    const endpoints = await endpointCount()
    const refused = await send(`${api}/1/resources`, { method: 'POST', headers: auth, body })
    expect(refused.status).toBe(400)
    expect(refused.json.error.code).toBe('INVALID_INPUT')
    expect(refused.json.error.message).toContain(message)
    expect(refused.json.error.details[0].field).toBe(field)
    expect(await resources()).toEqual(before)
    expect(await endpointCount()).toBe(endpoints)
    expect((await send(`${url}/api/shop/things`)).status).toBe(404)
  })

  it('refuses an existing path with 409, and bodies that are not JSON objects', async () => {
    const before = await resources()
    const taken = await send(`${api}/1/resources`, { method: 'POST', headers: auth, body: { path: '/api/posts', fields: { a: 'int' }, seed: 2 } })
    expect(taken.status).toBe(409)
    expect(taken.json.error.code).toBe('CONFLICT')
    expect((await send(`${api}/1/resources`, { method: 'POST', headers: auth, body: [{ path: '/api/xs' }] })).status).toBe(400)
    expect((await send(`${api}/1/resources`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"path":' })).json.error.code).toBe('INVALID_JSON')
    expect((await send(`${api}/1/resources`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: 'path=/api/xs' })).status).toBe(415)
    expect((await send(`${api}/1/resources`, { method: 'POST', headers: limited, body: { path: '/api/xs' } })).status).toBe(403)
    expect(await resources()).toEqual(before)
    // The seeded records of the existing resource are untouched.
    expect(before.find((r: { path: string }) => r.path === '/api/posts').recordCount).toBe(12)
  })
})

describe('DELETE /api/projects/{id}/resources/{rid}', () => {
  it('removes the resource, its endpoints and its records (204)', async () => {
    const created = (await send(`${api}/1/resources`, { method: 'POST', headers: auth, body: { path: '/api/drafts', fields: { t: 'string' }, seed: 2 } })).json
    const count = await endpointCount()
    const deleted = await send(`${api}/1/resources/${created.resource.id}`, { method: 'DELETE', headers: auth })
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
    expect((await send(`${url}/api/shop/drafts`)).status).toBe(404)
    expect(await endpointCount()).toBe(count - 6)
    expect((await resources()).some((r: { id: number }) => r.id === created.resource.id)).toBe(false)
    // Made again, it starts with no records: the old ones went with it.
    const again = (await send(`${api}/1/resources`, { method: 'POST', headers: auth, body: { path: '/api/drafts' } })).json
    expect(again.resource.recordCount).toBe(0)
    expect((await send(`${url}/api/shop/drafts`)).json).toEqual([])
  })

  it('keeps records another resource shares (a nested path over the same collection)', async () => {
    const flat = (await send(`${api}/1/resources`, { method: 'POST', headers: auth, body: { path: '/api/comments' } })).json.resource
    await send(`${url}/api/shop/comments`, { method: 'POST', body: { text: 'stays' } })
    const nested = (await resources()).find((r: { path: string }) => r.path === '/api/users/:userId/comments')
    expect((await send(`${api}/1/resources/${nested.id}`, { method: 'DELETE', headers: auth })).status).toBe(204)
    expect((await send(`${url}/api/shop/users/1/comments`)).status).toBe(404)
    expect((await send(`${url}/api/shop/comments`)).json).toEqual([{ id: 1, text: 'stays' }])
    expect((await resources()).find((r: { id: number }) => r.id === flat.id).recordCount).toBe(1)
    expect((await send(`${api}/1/resources/${flat.id}`, { method: 'DELETE', headers: auth })).status).toBe(204)
    expect((await send(`${api}/1/resources`, { method: 'POST', headers: auth, body: { path: '/api/users/:userId/comments' } })).status).toBe(201)
  })

  it('answers 404 for unknown or another project\'s resources and 405 for other methods', async () => {
    const other = (await resources(2))[0]
    for (const id of ['999', 'x', String(other.id)]) {
      const response = await send(`${api}/1/resources/${id}`, { method: 'DELETE', headers: auth })
      expect(response.status, id).toBe(404)
      expect(response.json.error.code).toBe('NOT_FOUND')
    }
    const get = await send(`${api}/1/resources/1`, { headers: auth })
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('DELETE')
    expect((await send(`${api}/1/resources/1`, { method: 'DELETE' })).status).toBe(401)
    expect((await send(`${api}/1/resources/1`, { method: 'DELETE', headers: limited })).status).toBe(403)
    expect((await resources(2))[0]).toEqual(other)
    expect((await resources()).find((r: { id: number }) => r.id === 1).recordCount).toBe(12)
  })
})

describe('records through the management API', () => {
  const records = `/api/projects/1/resources/1/records`

  it.each([
    '',
    '?tag=a',
    '?tag=a&tag=b',
    '?views=3',
    '?sort=views&order=desc',
    '?sort=title',
    '?page=2&limit=5',
    '?limit=4',
    '?page=3',
    '?tag=b&sort=views&page=1&limit=2',
    '?page=99&limit=5',
    '?missing=1',
    '?page=0',
    '?limit=abc',
    '?order=up',
  ])('answer exactly as the list endpoint does for %s', async (query) => {
    const mock = await send(`${url}/api/shop/posts${query}`)
    const admin = await send(`${url}${records}${query}`, { headers: auth })
    expect(admin.status).toBe(mock.status)
    expect(admin.text).toBe(mock.text)
    expect(admin.headers.get('x-total-count')).toBe(mock.headers.get('x-total-count'))
    expect(admin.headers.get('content-type')).toBe(mock.headers.get('content-type'))
    // The same links, to the address asked.
    expect(admin.headers.get('link')).toBe(mock.headers.get('link')?.replaceAll(`${url}/api/shop/posts`, `${url}${records}`) ?? null)
  })

  it('creates, reads, replaces, patches and deletes records like the mock endpoints', async () => {
    const created = await send(`${url}${records}`, { method: 'POST', headers: auth, body: { title: 'admin', views: 9 } })
    expect(created.status).toBe(201)
    expect(created.json).toEqual({ id: 13, title: 'admin', views: 9 })
    expect((await send(`${url}/api/shop/posts/13`)).json).toEqual(created.json)
    const read = await send(`${url}${records}/13`, { headers: auth })
    expect(read.status).toBe(200)
    expect(read.text).toBe((await send(`${url}/api/shop/posts/13`)).text)
    const replaced = await send(`${url}${records}/13`, { method: 'PUT', headers: auth, body: { title: 'whole' } })
    expect(replaced.status).toBe(200)
    expect(replaced.json).toEqual({ id: 13, title: 'whole' })
    const patched = await send(`${url}${records}/13`, { method: 'PATCH', headers: auth, body: { views: 1 } })
    expect(patched.status).toBe(200)
    expect(patched.json).toEqual({ id: 13, title: 'whole', views: 1 })
    const deleted = await send(`${url}${records}/13`, { method: 'DELETE', headers: auth })
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
    expect((await send(`${url}/api/shop/posts/13`)).status).toBe(404)
    expect((await resources()).find((r: { id: number }) => r.id === 1).recordCount).toBe(12)
  })

  it('addresses ids with reserved characters percent-encoded', async () => {
    const created = await send(`${url}${records}`, { method: 'POST', headers: auth, body: { id: 'a/b c', title: 'odd' } })
    expect(created.status).toBe(201)
    expect((await send(`${url}${records}/${encodeURIComponent('a/b c')}`, { headers: auth })).json.title).toBe('odd')
    expect((await send(`${url}/api/shop/posts/${encodeURIComponent('a/b c')}`)).json.title).toBe('odd')
    expect((await send(`${url}${records}/${encodeURIComponent('a/b c')}`, { method: 'DELETE', headers: auth })).status).toBe(204)
    expect((await send(`${url}${records}/%E0%A4%A`, { headers: auth })).status).toBe(400)
  })

  it('refuses like the mock endpoints: unknown ids 404, taken ids 409, bad bodies 400/415, other methods 405', async () => {
    const before = (await send(`${url}${records}`, { headers: auth })).text
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const missing = await send(`${url}${records}/nope`, { method, headers: auth, ...(method === 'PUT' || method === 'PATCH' ? { body: { a: 1 } } : {}) })
      expect(missing.status, method).toBe(404)
      expect(missing.json.error.code).toBe('NOT_FOUND')
    }
    const taken = await send(`${url}${records}`, { method: 'POST', headers: auth, body: { id: '1', title: 'dup' } })
    expect(taken.status).toBe(409)
    expect((await send(`${url}${records}`, { method: 'POST', headers: auth, body: [1, 2] })).json.error.code).toBe('INVALID_BODY')
    expect((await send(`${url}${records}`, { method: 'POST', headers: auth })).status).toBe(400)
    expect((await send(`${url}${records}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"a":' })).json.error.code).toBe('INVALID_JSON')
    expect((await send(`${url}${records}/1`, { method: 'PUT', headers: { ...auth, 'content-type': 'text/plain' }, body: 'a=1' })).status).toBe(415)
    const collection = await send(`${url}${records}`, { method: 'PUT', headers: auth, body: {} })
    expect(collection.status).toBe(405)
    expect(collection.headers.get('allow')).toBe('GET, POST')
    const item = await send(`${url}${records}/1`, { method: 'POST', headers: auth, body: {} })
    expect(item.status).toBe(405)
    expect(item.headers.get('allow')).toBe('DELETE, GET, PATCH, PUT')
    expect((await send(`${url}${records}`)).status).toBe(401)
    expect((await send(`${url}${records}/1`, { method: 'DELETE', headers: limited })).status).toBe(403)
    expect((await send(`${url}/api/projects/1/resources/999/records`, { headers: auth })).status).toBe(404)
    expect((await send(`${url}/api/projects/1/resources/999/records/1`, { headers: auth })).status).toBe(404)
    expect((await send(`${url}${records}`, { headers: auth })).text).toBe(before)
  })

  it('lists a nested resource\'s records across parents', async () => {
    const nested = (await resources()).find((r: { path: string }) => r.path === '/api/users/:userId/comments')
    await send(`${url}/api/shop/users/1/comments`, { method: 'POST', body: { text: 'one' } })
    await send(`${url}/api/shop/users/2/comments`, { method: 'POST', body: { text: 'two' } })
    const all = await send(`${url}/api/projects/1/resources/${nested.id}/records`, { headers: auth })
    expect(all.json).toEqual([{ id: 1, text: 'one', userId: '1' }, { id: 2, text: 'two', userId: '2' }])
    const filtered = await send(`${url}/api/projects/1/resources/${nested.id}/records?userId=2`, { headers: auth })
    expect(filtered.text).toBe((await send(`${url}/api/shop/users/2/comments`)).text)
  })
})
