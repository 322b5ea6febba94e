import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { createProject } from '../../src/domain/projects.ts'
import { cleanup, openStore, send, serve, tempDb } from '../_helpers.ts'

let base: string
let headers: Record<string, string>

beforeAll(async () => {
  const dbPath = tempDb()
  const { context } = openStore(dbPath)
  createProject(context, { name: 'Subs', slug: 'subs' })
  createProject(context, { name: 'Other', slug: 'other' })
  headers = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
  base = `${(await serve(dbPath)).url}/api/projects`
})
afterAll(cleanup)

const valid = { name: 'ci', targetUrl: 'http://127.0.0.1:9/hook', events: ['mock.request', 'mock.error'] }

describe('subscriptions API', () => {
  it('creates a subscription: 201, enabled, a whsec_ secret', async () => {
    const created = await send(`${base}/1/webhooks`, { method: 'POST', body: valid, headers })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ id: 1, projectId: 1, name: 'ci', targetUrl: 'http://127.0.0.1:9/hook', events: ['mock.request', 'mock.error'], enabled: true })
    expect(created.json.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/)
    expect(Date.parse(created.json.createdAt)).not.toBeNaN()
    const list = await send(`${base}/1/webhooks`, { headers })
    expect(list.json).toEqual([created.json])
    const withDeliveries = await send(`${base}/1/webhooks?deliveries=true`, { headers })
    expect(withDeliveries.json[0].deliveries).toEqual([])
  })

  it.each([
    ['name', { ...valid, name: '' }],
    ['name', { ...valid, name: 7 }],
    ['targetUrl', { ...valid, targetUrl: 'ftp://example.com/x' }],
    ['targetUrl', { ...valid, targetUrl: '/relative' }],
    ['targetUrl', { ...valid, targetUrl: 'javascript:alert(1)' }],
    ['targetUrl', { ...valid, targetUrl: 'http://user:pass@example.com/' }],
    ['targetUrl', { name: 'x', events: ['mock.request'] }],
    ['events', { ...valid, events: [] }],
    ['events', { ...valid, events: ['mock.other'] }],
    ['events', { ...valid, events: 'mock.request' }],
  ])('refuses a bad %s with 400 naming it', async (field, body) => {
    const response = await send(`${base}/1/webhooks`, { method: 'POST', body, headers })
    expect(response.status).toBe(400)
    expect(response.json.error.message).toContain(`"${field}"`)
    expect(response.json.error.details[0].field).toBe(field)
    expect((await send(`${base}/1/webhooks`, { headers })).json).toHaveLength(1)
  })

  it('refuses non-object and non-JSON bodies', async () => {
    expect((await send(`${base}/1/webhooks`, { method: 'POST', body: [valid], headers })).status).toBe(400)
    expect((await send(`${base}/1/webhooks`, { method: 'POST', body: '{', headers: { ...headers, 'content-type': 'application/json' } })).status).toBe(400)
    expect((await send(`${base}/1/webhooks`, { method: 'POST', body: 'x=1', headers: { ...headers, 'content-type': 'text/plain' } })).status).toBe(415)
  })

  it('updates with PATCH: enabled, name, targetUrl, events', async () => {
    const off = await send(`${base}/1/webhooks/1`, { method: 'PATCH', body: { enabled: false }, headers })
    expect(off.status).toBe(200)
    expect(off.json.enabled).toBe(false)
    const renamed = await send(`${base}/1/webhooks/1`, { method: 'PATCH', body: { name: 'renamed', events: ['mock.error'], enabled: true }, headers })
    expect(renamed.json).toMatchObject({ name: 'renamed', events: ['mock.error'], enabled: true, secret: off.json.secret })
    for (const body of [{ enabled: 'yes' }, { targetUrl: 'nope' }, {}, { events: [] }]) {
      expect((await send(`${base}/1/webhooks/1`, { method: 'PATCH', body, headers })).status).toBe(400)
    }
    expect((await send(`${base}/1/webhooks/1`, { headers })).json.name).toBe('renamed')
  })

  it('keeps subscriptions to their project and answers 404 and 405', async () => {
    expect((await send(`${base}/2/webhooks/1`, { method: 'PATCH', body: { enabled: false }, headers })).status).toBe(404)
    expect((await send(`${base}/1/webhooks/99`, { headers })).status).toBe(404)
    expect((await send(`${base}/1/webhooks/abc`, { method: 'DELETE', headers })).status).toBe(404)
    const put = await send(`${base}/1/webhooks/1`, { method: 'PUT', body: valid, headers })
    expect(put.status).toBe(405)
    expect(put.headers.get('allow')).toBe('DELETE, GET, PATCH')
  })

  it('deletes with 204', async () => {
    expect((await send(`${base}/1/webhooks/1`, { method: 'DELETE', headers })).status).toBe(204)
    expect((await send(`${base}/1/webhooks/1`, { headers })).status).toBe(404)
    expect((await send(`${base}/1/webhooks`, { headers })).json).toEqual([])
  })
})
