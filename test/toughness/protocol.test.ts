import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { mintToken } from '../../src/domain/auth.ts'
import { storeOperations as importDefinition } from '../../src/domain/import-operations.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import type { RunningServer } from '../../src/server/start.ts'
import { cleanup, cliWorkspace, expectAliveAndIntact, openStore, send, serve, tempDb } from '../_helpers.ts'
import { openEvents } from '../server/_events.ts'

afterAll(cleanup)

let server: RunningServer
let dbPath: string
let token: string
let auth: Record<string, string>
let api: string
let mintShort: (ms: number) => Promise<string>

beforeAll(async () => {
  dbPath = tempDb()
  const { context } = openStore(dbPath)
  const project = createProject(context, { name: 'Protocol', slug: 'p' })
  createResource(context, { path: '/api/orders' })
  addEndpoint(context, { method: 'GET', path: '/api/tickets', body: '{"ok":true}' })
  importDefinition(context, project, { format: 'graphql', title: 'hello', version: 'SDL', source: 'hello.graphql', document: 'type Query { hello: String }', operations: ['/graphql#Query.hello'] })
  token = await mintToken(context, { expiresInMs: 600_000 })
  auth = { Authorization: `Bearer ${token}` }
  mintShort = (ms) => mintToken(context, { expiresInMs: ms })
  server = await serve(dbPath)
  api = `${server.url}/api/projects/1`
  expect((await send(`${server.url}/api/p/orders`, { method: 'POST', body: { id: '1', name: 'first' } })).status).toBe(201)
})

describe('a 1xx is never a final status', () => {
  it.each(['100', '101', '103', '199'])('Prefer: code=%s → 400 BAD_REQUEST (on records and on fixed bodies)', async (code) => {
    for (const path of ['/api/p/orders', '/api/p/tickets']) {
      const response = await send(`${server.url}${path}`, { headers: { Prefer: `code=${code}` } })
      expect(response.status).toBe(400)
      expect(response.json.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining(`code=${code}`) })
    }
  })

  it('a status of 100 or 101 is refused by the management API, the CLI and add-endpoint', async () => {
    const endpoints = (await send(`${api}/endpoints`, { headers: auth })).json as { id: number; method: string; path: string }[]
    const tickets = endpoints.find((e) => e.path === '/api/tickets')!
    for (const field of ['status', 'errorStatus']) {
      const patched = await send(`${api}/endpoints/${tickets.id}`, { method: 'PATCH', headers: auth, body: { [field]: 101 } })
      expect(patched.status).toBe(400)
      expect(patched.json.error.code).toBe('INVALID_INPUT')
    }
    expect((await send(`${server.url}/api/p/tickets`)).status).toBe(200)
    const cli = cliWorkspace()
    await cli.ok('init', '--yes', '--slug', 'c')
    await cli.ok('add-endpoint', 'GET', '/api/pings', '--body', '{}')
    const set = await cli.run('endpoint', 'set', 'GET', '/api/pings', '--status', '101')
    expect(set.code).toBe(1)
    expect(set.stderr).toContain('status 101 must be an HTTP status code from 200 to 599')
    expect((await cli.run('add-endpoint', 'GET', '/api/pongs', '--status', '100')).code).toBe(1)
  })

  it('an imported operation documenting only 101 (a WebSocket upgrade) answers 200 with its example', async () => {
    const cli = cliWorkspace()
    writeFileSync(join(cli.cwd, 'ws.yaml'), `openapi: 3.0.3
info: {title: Sockets, version: "1"}
paths:
  /socket:
    get:
      responses:
        '101':
          description: Switching Protocols
          content: {application/json: {schema: {type: object}, example: {upgrade: websocket}}}
`)
    await cli.ok('import', 'ws.yaml')
    const imported = await serve(cli.db)
    const response = await send(`${imported.url}/socket`)
    expect(response.status).toBe(200)
    expect(response.json).toEqual({ upgrade: 'websocket' })
    await expectAliveAndIntact(imported.url, cli.db)
  })
})

describe('HEAD answers like GET, without a body, wherever GET is served', () => {
  it.each([
    ['/api/health', {}],
    ['/api/p/orders', {}],
    ['/api/p/orders/1', {}],
    ['/api/orders?limit=1&page=1', {}],
    ['/api/p/tickets', {}],
    ['/graphql', {}],
    ['/graphql?query=%7B__typename%7D', {}],
    ['/graphql?sdl', {}],
    ['/_mockapi/', {}],
    ['/api/projects', 'auth'],
    ['/api/projects/1', 'auth'],
    ['/api/projects/1/resources', 'auth'],
    ['/api/projects/1/resources/1/records', 'auth'],
    ['/api/projects/1/resources/1/records/1', 'auth'],
    ['/api/projects/1/endpoints', 'auth'],
    ['/api/projects/1/webhook-inbox', 'auth'],
    ['/api/projects/1/webhooks', 'auth'],
    ['/api/projects/1/requests', 'auth'],
  ] as const)('HEAD %s', async (path, needs) => {
    const headers = needs === 'auth' ? auth : {}
    const get = await fetch(`${server.url}${path}`, { headers })
    const getBody = await get.arrayBuffer()
    const head = await fetch(`${server.url}${path}`, { method: 'HEAD', headers })
    expect(head.status).toBe(get.status)
    expect(get.status).toBe(200)
    expect(await head.text()).toBe('')
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'))
    expect(head.headers.get('x-total-count')).toBe(get.headers.get('x-total-count'))
    if (get.headers.has('content-length')) expect(head.headers.get('content-length')).toBe(String(getBody.byteLength))
  })

  it('HEAD on the event stream sends its headers and opens no stream', async () => {
    const head = await fetch(`${api}/events`, { method: 'HEAD', headers: auth })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(await head.text()).toBe('')
  })

  it('HEAD where GET is not served is still 405 with Allow', async () => {
    const head = await fetch(`${server.url}/api/webhooks/inbox/p`, { method: 'HEAD' })
    expect(head.status).toBe(405)
    expect(head.headers.get('allow')).toBe('POST')
  })
})

describe('CORS preflights reach routes of their own', () => {
  it.each([
    ['/api/webhooks/inbox/p', 'POST'],
    ['/api/projects', 'GET'],
    ['/api/projects/1/resources/1/records', 'POST'],
    ['/api/projects/1/events', 'GET'],
    ['/api/p/orders', 'POST'],
  ])('OPTIONS %s (no token) → 204 with the allowed methods', async (path, method) => {
    const response = await fetch(`${server.url}${path}`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'content-type,authorization' },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-methods')).toContain(method)
    expect(response.headers.get('access-control-allow-headers')).toBe('content-type,authorization')
  })
})

describe('every 401 carries WWW-Authenticate', () => {
  it('management API: no token, a malformed one, a forged one, an expired one', async () => {
    const expired = await mintShort(-60_000)
    for (const authorization of [undefined, 'Bearer', 'Bearer a.b.c', `Bearer ${token}x`, `Bearer ${expired}`, 'Basic Zm9vOmJhcg==']) {
      for (const path of ['/api/projects', '/api/projects/1/resources', '/api/projects/1/events']) {
        const response = await send(`${server.url}${path}`, { headers: authorization === undefined ? {} : { Authorization: authorization } })
        expect(response.status).toBe(401)
        expect(response.json.error.code).toBe('UNAUTHORIZED')
        expect(response.headers.get('www-authenticate')).toBe('Bearer realm="mockapi"')
      }
    }
    const query = await send(`${api}/events?access_token=nope`)
    expect(query.status).toBe(401)
    expect(query.headers.get('www-authenticate')).toBe('Bearer realm="mockapi"')
  })

  it('mock endpoints asked for a 401 (Prefer, a configured status) send one too', async () => {
    const preferred = await send(`${server.url}/api/p/orders`, { headers: { Prefer: 'code=401' } })
    expect(preferred.status).toBe(401)
    expect(preferred.headers.get('www-authenticate')).toBe('Bearer realm="mockapi"')
    const endpoints = (await send(`${api}/endpoints`, { headers: auth })).json as { id: number; path: string; method: string }[]
    const tickets = endpoints.find((e) => e.path === '/api/tickets')!
    expect((await send(`${api}/endpoints/${tickets.id}`, { method: 'PATCH', headers: auth, body: { status: 401, headers: { 'WWW-Authenticate': 'Basic realm="tickets"' } } })).status).toBe(200)
    const configured = await send(`${server.url}/api/p/tickets`)
    expect(configured.status).toBe(401)
    // A challenge the endpoint sets itself is kept.
    expect(configured.headers.get('www-authenticate')).toBe('Basic realm="tickets"')
    expect((await send(`${api}/endpoints/${tickets.id}`, { method: 'PATCH', headers: auth, body: { status: 200, headers: {} } })).status).toBe(200)
  })
})

describe('the event stream ends when its token expires', () => {
  it('sends an "expired" event and closes; reconnecting with the token is refused', async () => {
    const shortLived = await mintShort(1_000)
    const started = Date.now()
    const stream = await openEvents(`${api}/events?access_token=${shortLived}`)
    expect(stream.status).toBe(200)
    const expired = await stream.next('expired', 8_000)
    expect(JSON.parse(expired.data)).toEqual({ error: { code: 'UNAUTHORIZED', message: 'the token has expired' } })
    await stream.ended
    expect(Date.now() - started).toBeLessThan(8_000)
    const again = await send(`${api}/events?access_token=${shortLived}`)
    expect(again.status).toBe(401)
    // A stream with a valid token is unaffected.
    const lasting = await openEvents(`${api}/events`, auth)
    await send(`${server.url}/api/p/orders`)
    expect((await lasting.next('request', 5_000)).event).toBe('request')
    lasting.close()
  })
})

describe('the event stream ends when its project is deleted', () => {
  it('by the CLI beside serve: an "ended" event, then the stream closes', async () => {
    const workspace = cliWorkspace()
    await workspace.ok('init', '--yes', '--slug', 'gone', '--resource', '/api/things')
    const { context } = openStore(workspace.db)
    const own = await mintToken(context, { expiresInMs: 600_000 })
    const running = await serve(workspace.db)
    const stream = await openEvents(`${running.url}/api/projects/1/events?access_token=${own}`)
    expect(stream.status).toBe(200)
    await workspace.ok('project', 'delete', 'gone')
    const ended = await stream.next('ended', 8_000)
    expect(JSON.parse(ended.data)).toEqual({ error: { code: 'NOT_FOUND', message: 'project 1 was deleted' } })
    await stream.ended
    await expectAliveAndIntact(running.url, workspace.db)
  })
})

describe('requests Node\'s parser refuses still get the error shape', () => {
  /** Raw bytes over a socket: fetch cannot send an unknown method or a broken request line. */
  async function raw(request: string): Promise<{ status: number; headers: string; body: string }> {
    const { connect } = await import('node:net')
    const { port } = new URL(server.url)
    return new Promise((resolve, reject) => {
      let text = ''
      const socket = connect(Number(port), '127.0.0.1', () => socket.end(request))
      socket.on('data', (chunk) => (text += chunk))
      socket.on('error', reject)
      socket.on('close', () => {
        const [head = '', body = ''] = text.split('\r\n\r\n')
        resolve({ status: Number(head.split(' ')[1]), headers: head, body })
      })
    })
  }

  for (const [what, request, status] of [
    ['an unknown method', 'FOO /api/p/orders HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ['a header line without a colon', 'GET /api/p/orders HTTP/1.1\r\nHost x\r\n\r\n', 400],
    ['headers past the size limit', `GET /api/p/orders HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ] as const) {
    it(`${what}: ${status} with a JSON error body`, async () => {
      const answer = await raw(request)
      expect(answer.status).toBe(status)
      expect(answer.headers).toMatch(/content-type: application\/json/i)
      expect(JSON.parse(answer.body).error.code).toBe('BAD_REQUEST')
    })
  }
})

describe('afterwards', () => {
  it('keeps serving, the file intact', async () => {
    await expectAliveAndIntact(server.url, dbPath)
  })
})
