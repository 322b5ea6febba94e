import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
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
  createResource(context, { project: 'shop', path: '/api/posts' })
  addEndpoint(context, { project: 'shop', method: 'GET', path: '/api/stats', body: '{"visits":1}' })
  addEndpoint(context, { project: 'other', method: 'GET', path: '/api/pings', body: '{}' })
  auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
  limited = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000, projectId: 2 })}` }
  url = (await serve(dbPath)).url
  api = `${url}/api/projects`
})
afterAll(cleanup)

const endpoints = async (projectId = 1) => (await send(`${api}/${projectId}/endpoints`, { headers: auth })).json

describe('GET /api/projects[/{id}]', () => {
  it('lists every project with its counts, by id', async () => {
    const listed = await send(api, { headers: auth })
    expect(listed.status).toBe(200)
    expect(listed.headers.get('content-type')).toMatch(/^application\/json/)
    expect(listed.json).toEqual([
      { id: 1, name: 'Shop', slug: 'shop', shareToken: expect.any(String), isDefault: true, pathRules: 'strict', auth: null, openapiSecurity: true, createdAt: expect.any(String), resourceCount: 1, endpointCount: 6 },
      { id: 2, name: 'Other', slug: 'other', shareToken: expect.any(String), isDefault: false, pathRules: 'strict', auth: null, openapiSecurity: true, createdAt: expect.any(String), resourceCount: 0, endpointCount: 1 },
    ])
    const one = await send(`${api}/1`, { headers: auth })
    expect(one.status).toBe(200)
    expect(one.json).toEqual(listed.json[0])
  })

  it('shows a token limited to one project only that project', async () => {
    const listed = await send(api, { headers: limited })
    expect(listed.json.map((p: { id: number }) => p.id)).toEqual([2])
    expect((await send(`${api}/2`, { headers: limited })).status).toBe(200)
    const forbidden = await send(`${api}/1`, { headers: limited })
    expect(forbidden.status).toBe(403)
    expect(forbidden.json.error.code).toBe('FORBIDDEN')
  })

  it('answers 401 without a token, 404 for an unknown project, 405 for other methods', async () => {
    for (const target of [api, `${api}/1`]) {
      const response = await send(target)
      expect(response.status).toBe(401)
      expect(response.json.error.code).toBe('UNAUTHORIZED')
    }
    for (const id of ['99', 'abc', '0']) expect((await send(`${api}/${id}`, { headers: auth })).status).toBe(404)
    for (const [target, method, allow] of [[api, 'POST', 'GET'], [`${api}/1`, 'DELETE', 'GET, PATCH'], [api, 'PATCH', 'GET']] as const) {
      const response = await send(target, { method, headers: auth, body: {} })
      expect(response.status).toBe(405)
      expect(response.headers.get('allow')).toBe(allow)
    }
  })
})

describe('GET /api/projects/{id}/endpoints', () => {
  it('lists endpoint views by path, then method', async () => {
    const listed = await send(`${api}/1/endpoints`, { headers: auth })
    expect(listed.status).toBe(200)
    expect(listed.json.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).toEqual([
      'GET /api/posts', 'POST /api/posts', 'DELETE /api/posts/:id', 'GET /api/posts/:id', 'PUT /api/posts/:id', 'GET /api/stats',
    ])
    expect(listed.json.at(-1)).toEqual({
      id: expect.any(Number), method: 'GET', path: '/api/stats', kind: 'custom', status: 200, action: null, resourceId: null, delayMs: 0, delay: 0, fault: null, auth: null, pick: 'rules', responses: [],
      headers: {}, bodyType: 'json', body: { visits: 1 }, text: null, file: null, contentType: null, schema: null, errorRate: 0, errorStatus: 500, specId: null, operationId: null, createdAt: expect.any(String),
      url: `${url}/api/shop/stats`,
      call: `curl '${url}/api/shop/stats'`,
      effectiveAuth: 'none',
    })
    expect((await send(`${api}/1/endpoints`, { method: 'POST', headers: auth, body: {} })).headers.get('allow')).toBe('GET')
    expect((await send(`${api}/1/endpoints`)).status).toBe(401)
    expect((await send(`${api}/1/endpoints`, { headers: limited })).status).toBe(403)
  })
})

describe('PATCH /api/projects/{id}/endpoints/{eid}', () => {
  it('changes the settings given, and the mock answers with them at once', async () => {
    const stats = (await endpoints()).find((e: { path: string }) => e.path === '/api/stats')
    const patched = await send(`${api}/1/endpoints/${stats.id}`, {
      method: 'PATCH',
      headers: auth,
      body: { status: 202, headers: { 'X-Env': 'mock' }, body: { visits: '{{faker.number.int}}', ok: true }, delayMs: 5 },
    })
    expect(patched.status).toBe(200)
    expect(patched.json).toMatchObject({ id: stats.id, status: 202, headers: { 'X-Env': 'mock' }, body: { visits: '{{faker.number.int}}', ok: true }, delayMs: 5, errorRate: 0 })
    const answered = await send(`${url}/api/shop/stats`)
    expect(answered.status).toBe(202)
    expect(answered.headers.get('x-env')).toBe('mock')
    expect(answered.json).toEqual({ visits: expect.any(Number), ok: true })

    const cleared = await send(`${api}/1/endpoints/${stats.id}`, { method: 'PATCH', headers: auth, body: { body: null, errorRate: 100, errorStatus: 418 } })
    expect(cleared.json).toMatchObject({ body: null, errorRate: 100, errorStatus: 418, status: 202, delayMs: 5 })
    expect((await send(`${url}/api/shop/stats`)).status).toBe(418)
    await send(`${api}/1/endpoints/${stats.id}`, { method: 'PATCH', headers: auth, body: { errorRate: 0, body: { visits: 1 } } })
  })

  it('sets and clears a request schema', async () => {
    const create = (await endpoints()).find((e: { method: string; path: string }) => e.method === 'POST' && e.path === '/api/posts')
    const schema = { type: 'object', required: ['title'], properties: { title: { type: 'string' } } }
    const patched = await send(`${api}/1/endpoints/${create.id}`, { method: 'PATCH', headers: auth, body: { schema } })
    expect(patched.json.schema).toEqual(schema)
    const refused = await send(`${url}/api/shop/posts`, { method: 'POST', body: { nope: 1 } })
    expect(refused.status).toBe(422)
    await send(`${api}/1/endpoints/${create.id}`, { method: 'PATCH', headers: auth, body: { schema: null } })
    expect((await send(`${url}/api/shop/posts`, { method: 'POST', body: { nope: 1 } })).status).toBe(201)
  })

  it.each([
    ['status', { status: 700 }],
    ['status', { status: '200' }],
    ['delayMs', { delayMs: -1 }],
    ['delayMs', { delayMs: 1.5 }],
    ['delayMs', { delayMs: 999_999 }],
    ['errorRate', { errorRate: 101 }],
    ['errorRate', { errorRate: 'half' }],
    ['errorStatus', { errorStatus: 200 }],
    ['headers', { headers: { 'bad name': 'x' } }],
    ['headers', { headers: ['X-A: b'] }],
    ['headers', { headers: { 'X-A': 3 } }],
    ['schema', { schema: { type: 'nope' } }],
    ['body', { body: { greeting: '{{nope.nothing}}' } }],
    ['body', { body: { name: '{{faker.nope.nothing}}' } }],
    ['delay', { delay: 5 }],
  ])('refuses a bad %s with 400 INVALID_INPUT naming it, and changes nothing', async (field, body) => {
    const before = await endpoints()
    const stats = before.find((e: { path: string }) => e.path === '/api/stats')
    const refused = await send(`${api}/1/endpoints/${stats.id}`, { method: 'PATCH', headers: auth, body: { delayMs: 7, ...body } })
    expect(refused.status).toBe(400)
    expect(refused.json.error.code).toBe('INVALID_INPUT')
    expect(refused.json.error.message).toContain(`"${field}"`)
    expect(refused.json.error.details[0].field).toBe(field)
    expect(await endpoints()).toEqual(before)
  })

  it('refuses an empty change, a body that is not an object, malformed JSON and other content types', async () => {
    const before = await endpoints()
    const id = before[0].id
    const empty = await send(`${api}/1/endpoints/${id}`, { method: 'PATCH', headers: auth, body: {} })
    expect(empty.status).toBe(400)
    expect(empty.json.error.message).toContain('nothing to change')
    expect((await send(`${api}/1/endpoints/${id}`, { method: 'PATCH', headers: auth, body: [1] })).json.error.code).toBe('INVALID_BODY')
    expect((await send(`${api}/1/endpoints/${id}`, { method: 'PATCH', headers: auth })).status).toBe(400)
    const malformed = await send(`${api}/1/endpoints/${id}`, { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json' }, body: '{"status":' })
    expect(malformed.status).toBe(400)
    expect(malformed.json.error.code).toBe('INVALID_JSON')
    expect((await send(`${api}/1/endpoints/${id}`, { method: 'PATCH', headers: { ...auth, 'content-type': 'text/plain' }, body: 'status=201' })).status).toBe(415)
    expect(await endpoints()).toEqual(before)
  })

  it('answers 404 for unknown endpoints and another project\'s, 405 for other methods, 401 and 403', async () => {
    const other = (await endpoints(2))[0]
    const mine = (await endpoints())[0]
    for (const id of ['9999', 'abc', String(other.id)]) {
      const response = await send(`${api}/1/endpoints/${id}`, { method: 'PATCH', headers: auth, body: { status: 201 } })
      expect(response.status, id).toBe(404)
      expect(response.json.error.code).toBe('NOT_FOUND')
    }
    const put = await send(`${api}/1/endpoints/${mine.id}`, { method: 'PUT', headers: auth, body: { status: 201 } })
    expect(put.status).toBe(405)
    expect(put.headers.get('allow')).toBe('DELETE, PATCH')
    expect((await send(`${api}/1/endpoints/${mine.id}`, { method: 'PATCH', body: { status: 201 } })).status).toBe(401)
    expect((await send(`${api}/1/endpoints/${mine.id}`, { method: 'DELETE', headers: limited })).status).toBe(403)
    expect((await endpoints(2))[0]).toEqual(other)
    expect((await endpoints())[0]).toEqual(mine)
  })
})

describe('DELETE /api/projects/{id}/endpoints/{eid}', () => {
  it('removes one endpoint (204); the others of its resource stay', async () => {
    const remove = (await endpoints()).find((e: { method: string; path: string }) => e.method === 'DELETE' && e.path === '/api/posts/:id')
    const created = await send(`${url}/api/shop/posts`, { method: 'POST', body: { title: 'kept' } })
    const deleted = await send(`${api}/1/endpoints/${remove.id}`, { method: 'DELETE', headers: auth })
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
    const gone = await send(`${url}/api/shop/posts/${created.json.id}`, { method: 'DELETE' })
    expect(gone.status).toBe(405)
    expect(gone.headers.get('allow')).toBe('GET, HEAD, PUT')
    expect((await send(`${url}/api/shop/posts/${created.json.id}`)).status).toBe(200)
    expect((await endpoints()).some((e: { id: number }) => e.id === remove.id)).toBe(false)
    expect((await send(`${api}/1/endpoints/${remove.id}`, { method: 'DELETE', headers: auth })).status).toBe(404)
    expect((await send(`${api}/1`, { headers: auth })).json.endpointCount).toBe(5)
  })
})
