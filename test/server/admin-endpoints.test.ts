import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { cleanup, cliWorkspace, expectAliveAndIntact, heldRequest, openStore, send, serve, tempDb } from '../_helpers.ts'

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
      { id: 1, name: 'Shop', slug: 'shop', shareToken: expect.any(String), isDefault: true, pathRules: 'strict', auth: null, openapiSecurity: true, negotiation: 'strict', proxy: null, createdAt: expect.any(String), resourceCount: 1, endpointCount: 7 },
      { id: 2, name: 'Other', slug: 'other', shareToken: expect.any(String), isDefault: false, pathRules: 'strict', auth: null, openapiSecurity: true, negotiation: 'strict', proxy: null, createdAt: expect.any(String), resourceCount: 0, endpointCount: 1 },
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
      'GET /api/posts', 'POST /api/posts', 'DELETE /api/posts/:id', 'GET /api/posts/:id', 'PATCH /api/posts/:id', 'PUT /api/posts/:id', 'GET /api/stats',
    ])
    expect(listed.json.at(-1)).toEqual({
      id: expect.any(Number), method: 'GET', path: '/api/stats', kind: 'custom', status: 200, action: null, resourceId: null, delayMs: 0, delay: 0, fault: null, auth: null, pick: 'rules', responses: [],
      headers: {}, bodyType: 'json', body: { visits: 1 }, text: null, file: null, contentType: null, schema: null, errorRate: 0, errorStatus: 500, proxy: false, specId: null, operationId: null, createdAt: expect.any(String),
      url: `${url}/api/shop/stats`,
      call: `curl '${url}/api/shop/stats'`,
      effectiveAuth: 'none',
    })
    expect((await send(`${api}/1/endpoints`, { method: 'PUT', headers: auth, body: {} })).headers.get('allow')).toBe('GET, POST')
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
    expect(gone.headers.get('allow')).toBe('GET, HEAD, PATCH, PUT')
    expect((await send(`${url}/api/shop/posts/${created.json.id}`)).status).toBe(200)
    expect((await endpoints()).some((e: { id: number }) => e.id === remove.id)).toBe(false)
    expect((await send(`${api}/1/endpoints/${remove.id}`, { method: 'DELETE', headers: auth })).status).toBe(404)
    expect((await send(`${api}/1`, { headers: auth })).json.endpointCount).toBe(6)
  })
})

describe('POST /api/projects/{id}/endpoints', () => {
  /** Every project's endpoints as the API lists them: what a refusal must leave as it was. */
  const everything = async () => [await endpoints(1), await endpoints(2)]
  const add = (body: unknown, headers = auth, projectId = 1) => send(`${api}/${projectId}/endpoints`, { method: 'POST', headers, body })

  it('adds an endpoint with the settings given (201, as GET lists it), and the mock answers from it at once', async () => {
    const created = await add({ method: 'post', path: '/api/orders/:id/refunds', status: 202, headers: { 'X-Env': 'mock' }, body: { order: '{{params.id}}', refunded: true }, delay: '1-3' })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ method: 'POST', path: '/api/orders/:id/refunds', kind: 'custom', status: 202, headers: { 'X-Env': 'mock' }, delay: '1-3', url: `${url}/api/shop/orders/:id/refunds` })
    expect((await endpoints()).find((e: { id: number }) => e.id === created.json.id)).toEqual(created.json)
    const answered = await send(`${url}/api/shop/orders/7/refunds`, { method: 'POST', body: {} })
    expect([answered.status, answered.headers.get('x-env'), answered.json]).toEqual([202, 'mock', { order: '7', refunded: true }])

    const report = await add({ method: 'GET', path: '/api/reports', text: 'day,total\n1,42\n', contentType: 'text/csv' })
    expect(report.json).toMatchObject({ bodyType: 'text', text: 'day,total\n1,42\n', contentType: 'text/csv' })
    const csv = await send(`${url}/api/shop/reports`)
    expect([csv.status, csv.headers.get('content-type'), csv.text]).toEqual([200, 'text/csv', 'day,total\n1,42\n'])

    const file = await add({ method: 'GET', path: '/api/greetings', file: { name: 'hello.txt', base64: Buffer.from('hi').toString('base64') }, fault: null, auth: 'none' })
    expect(file.json).toMatchObject({ bodyType: 'file', file: { name: 'hello.txt', size: 2 }, auth: 'none' })
    const hello = await send(`${url}/api/shop/greetings`)
    expect([hello.status, hello.headers.get('content-type'), hello.text]).toEqual([200, 'text/plain; charset=utf-8', 'hi'])

    // Nothing but a method and a path: status 200 and `{}`, as `add-endpoint` makes it.
    const bare = await add({ method: 'GET', path: '/api/coupons/:code' })
    expect(bare.json).toMatchObject({ method: 'GET', path: '/api/coupons/:code', kind: 'custom', status: 200, body: null })
    const coupon = await send(`${url}/api/shop/coupons/SPRING`)
    expect([coupon.status, coupon.json]).toEqual([200, {}])
  })

  it('brings back a resource\'s endpoint on its path, as add-endpoint does; with a body it answers that body instead', async () => {
    const removed = await add({ method: 'DELETE', path: '/api/posts/:id' })
    expect(removed.status).toBe(201)
    expect(removed.json).toMatchObject({ kind: 'resource', action: 'delete', resourceId: expect.any(Number) })
    const post = await send(`${url}/api/shop/posts`, { method: 'POST', body: { title: 'gone soon' } })
    expect((await send(`${url}/api/shop/posts/${post.json.id}`, { method: 'DELETE' })).status).toBe(200)
    expect((await send(`${url}/api/shop/posts/${post.json.id}`)).status).toBe(404)
    const patch = (await endpoints()).find((e: { method: string; path: string }) => e.method === 'PATCH' && e.path === '/api/posts/:id')
    expect((await send(`${api}/1/endpoints/${patch.id}`, { method: 'DELETE', headers: auth })).status).toBe(204)
    const fixed = await add({ method: 'PATCH', path: '/api/posts/:id', body: { patched: false } })
    expect(fixed.json).toMatchObject({ kind: 'custom', action: null, body: { patched: false } })
    expect((await send(`${url}/api/shop/posts/1`, { method: 'PATCH', body: { title: 'x' } })).json).toEqual({ patched: false })
  })

  it.each([
    ['method', { method: 'FETCH', path: '/api/carts' }],
    ['method', { path: '/api/carts' }],
    ['method', { method: 7, path: '/api/carts' }],
    ['path', { method: 'GET' }],
    ['path', { method: 'GET', path: 'api/carts' }],
    ['path', { method: 'GET', path: '/api/getCarts' }],
    ['path', { method: 'GET', path: '/api/carts?x=1' }],
    ['status', { method: 'GET', path: '/api/carts', status: 700 }],
    ['status', { method: 'GET', path: '/api/carts', status: '200' }],
    ['delay', { method: 'GET', path: '/api/carts', delay: 'soon' }],
    ['fault', { method: 'GET', path: '/api/carts', fault: 'boom' }],
    ['headers', { method: 'GET', path: '/api/carts', headers: { 'bad name': 'x' } }],
    ['body', { method: 'GET', path: '/api/carts', body: { name: '{{faker.nope.nothing}}' } }],
    ['text', { method: 'GET', path: '/api/carts', body: {}, text: 'both' }],
    ['colour', { method: 'GET', path: '/api/carts', colour: 'red' }],
  ])('refuses a bad %s with 400 INVALID_INPUT naming it, and changes nothing', async (field, body) => {
    const before = await everything()
    const refused = await add(body)
    expect(refused.status).toBe(400)
    expect(refused.json.error.code).toBe('INVALID_INPUT')
    expect(refused.json.error.details[0].field).toBe(field)
    expect(await everything()).toEqual(before)
    expect((await send(`${url}/api/shop/carts`)).status).toBe(404)
  })

  it('refuses a route taken (409), another project\'s token (403), an unknown project (404), no token (401), and bodies that are not an object; changing nothing', async () => {
    const before = await everything()
    const taken = await add({ method: 'GET', path: '/api/stats', body: { visits: 2 } })
    expect([taken.status, taken.json.error.code, taken.json.error.message]).toEqual([409, 'CONFLICT', 'GET /api/stats already exists in project "shop"'])
    const trailingSlash = await add({ method: 'get', path: '/api/stats/' })
    expect([trailingSlash.status, trailingSlash.json.error.code]).toEqual([409, 'CONFLICT'])
    const forbidden = await add({ method: 'GET', path: '/api/carts' }, limited)
    expect([forbidden.status, forbidden.json.error.code]).toEqual([403, 'FORBIDDEN'])
    expect((await add({ method: 'GET', path: '/api/carts' }, auth, 99)).status).toBe(404)
    expect((await add({ method: 'GET', path: '/api/carts' }, {})).status).toBe(401)
    expect((await add([{ method: 'GET', path: '/api/carts' }])).json.error.code).toBe('INVALID_BODY')
    expect((await send(`${api}/1/endpoints`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: 'GET /api/carts' })).status).toBe(415)
    expect((await send(`${api}/1/endpoints`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"method":' })).json.error.code).toBe('INVALID_JSON')
    expect(await everything()).toEqual(before)
    expect((await send(`${url}/api/shop/stats`)).json).toEqual({ visits: 1 })
  })

  it('adds one of two POSTs of the same route sent at once; the other is 409', async () => {
    const route = { method: 'PUT', path: '/api/carts/:id', body: { saved: true } }
    const answers = await Promise.all([add(route), add(route)])
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409])
    expect((await endpoints()).filter((e: { method: string; path: string }) => e.method === 'PUT' && e.path === '/api/carts/:id')).toHaveLength(1)
    expect((await send(`${url}/api/shop/carts/3`, { method: 'PUT', body: {} })).json).toEqual({ saved: true })
  })

  it('a POST whose project is deleted while its body arrives answers 404 and stores nothing', async () => {
    const workspace = cliWorkspace()
    await workspace.ok('init', '--yes', '--slug', 'keep')
    await workspace.ok('project', 'create', 'Doomed', '--slug', 'doomed')
    const server = await serve(workspace.db)
    const { context } = openStore(workspace.db)
    const doomed = server.project('doomed').id
    const token = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const held = await heldRequest(server, 'POST', `/api/projects/${doomed}/endpoints`, { ...token, 'Content-Type': 'application/json' }, new TextEncoder().encode(JSON.stringify({ method: 'GET', path: '/api/late', body: { late: true } })))
    await workspace.ok('project', 'delete', 'doomed')
    const answer = await held.finish()
    expect(answer.status).toBe(404)
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('PROJECT_NOT_FOUND')
    const rows = new Database(workspace.db, { readonly: true })
    try {
      expect(rows.prepare("SELECT count(*) AS n FROM endpoints WHERE path = '/api/late'").get()).toEqual({ n: 0 })
    } finally {
      rows.close()
    }
    await expectAliveAndIntact(server.url, workspace.db)
  })

  it('meets another process\'s write lock with 503 STORE_BUSY, storing nothing; the same POST passes once the lock is free', async () => {
    const { ok, db } = cliWorkspace()
    await ok('init', '--yes', '--slug', 't', '--resource', '/api/items')
    const { url: lockedUrl } = await serve(db, { lockWaitMs: 300 })
    const { context } = openStore(db)
    const headers = { authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const rows = () => context.db.prepare('SELECT * FROM endpoints ORDER BY id').all()
    const before = rows()
    const locker = new Database(db)
    try {
      locker.exec('BEGIN IMMEDIATE')
      const busy = await send(`${lockedUrl}/api/projects/1/endpoints`, { method: 'POST', headers, body: { method: 'GET', path: '/api/health', body: { up: true } } })
      expect([busy.status, busy.json.error.code, busy.headers.get('retry-after')]).toEqual([503, 'STORE_BUSY', '2'])
    } finally {
      if (locker.inTransaction) locker.exec('ROLLBACK')
      locker.close()
    }
    expect(rows()).toEqual(before)
    expect((await send(`${lockedUrl}/api/t/health`)).status).toBe(404)
    expect((await send(`${lockedUrl}/api/projects/1/endpoints`, { method: 'POST', headers, body: { method: 'GET', path: '/api/health', body: { up: true } } })).status).toBe(201)
    expect((await send(`${lockedUrl}/api/t/health`)).json).toEqual({ up: true })
    await expectAliveAndIntact(lockedUrl, db)
  })
})
