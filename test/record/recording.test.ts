import { afterAll, describe, expect, it } from 'vitest'
import { existsSync, readFileSync } from 'node:fs'
import { createServer, request as httpRequest } from 'node:http'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { loadFaker } from '../../src/engine/generators.ts'
import { createProject, updateProjectSettings } from '../../src/domain/projects.ts'
import type { RecordedExchange } from '../../src/domain/recorded-exchange.ts'
import { recordExchanges, recordOptions, recordProxied, startRecording, stopRecording } from '../../src/domain/recording.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { cleanup, openStore, send, serve, tempDb } from '../_helpers.ts'

afterAll(cleanup)

const encode = (text: string) => new TextEncoder().encode(text)
const json = (value: unknown) => encode(JSON.stringify(value))

function exchange(method: string, path: string, status: number, body: Uint8Array | string, headers: [string, string][] = [], extra: Partial<RecordedExchange> = {}): RecordedExchange {
  return {
    method, path, query: '', requestHeaders: [['authorization', 'Bearer sekr1t-request-token']], requestBody: null,
    status, responseHeaders: headers, responseBody: typeof body === 'string' ? encode(body) : body,
    startedAt: '2026-01-01T00:00:00.000Z', durationMs: 5, ...extra,
  }
}

const JSON_TYPE: [string, string] = ['content-type', 'application/json; charset=utf-8']
// A PNG's first bytes, then bytes no UTF-8 text has.
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0x80, 0x01])

async function recorded(exchanges: RecordedExchange[][]) {
  const db = tempDb()
  const { context } = openStore(db)
  const project = createProject(context, { name: 'Recorded', slug: 'rec' })
  const options = await recordOptions('https://user:pw@api.example.com/?token=sekr1t-source')
  expect(options.source).toBe('https://api.example.com/')
  const summaries = exchanges.map((batch) => recordExchanges(context, project, batch, options))
  return { db, context, project, summaries }
}

describe('recordExchanges', () => {
  it('makes JSON collections resources with their records and everything else custom endpoints answering byte for byte', async () => {
    const stats = '{"requests": 12,   "ok": true}\n'
    const uuidA = '9b2f3c1e-4d5a-4b6c-8d7e-1f2a3b4c5d6e'
    const uuidB = '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f'
    const { db, summaries } = await recorded([[
      exchange('GET', '/users', 200, JSON.stringify([{ id: 1, name: 'Ada' }, { id: 2, name: 'Bob' }]), [JSON_TYPE], { query: '?api_key=sekr1t-query' }),
      exchange('GET', '/users/3', 200, JSON.stringify({ id: 3, name: 'Cy' }), [JSON_TYPE]),
      exchange('POST', '/users', 201, JSON.stringify({ id: 4, name: 'Di' }), [JSON_TYPE], { requestBody: json({ name: 'Di' }) }),
      exchange('DELETE', '/users/2', 204, ''),
      exchange('PATCH', '/users/1', 200, JSON.stringify({ id: 1, name: 'Ada L' }), [JSON_TYPE]),
      exchange('GET', '/users/1/avatar', 200, PNG, [['Content-Type', 'image/png'], ['Cache-Control', 'max-age=60'], ['Content-Length', String(PNG.length)]]),
      exchange('GET', '/health', 200, 'ok\n', [
        ['Content-Type', 'text/plain'], ['X-Upstream', 'yes'], ['Set-Cookie', 'sid=sekr1t-cookie; HttpOnly'], ['X-Auth-Token', 'sekr1t-header'],
        ['Connection', 'keep-alive'], ['Date', 'Mon, 01 Jan 2026 00:00:00 GMT'], ['WWW-Authenticate', 'Bearer realm="api"'],
      ]),
      exchange('GET', `/orders/${uuidA}/receipt`, 200, '{"total": 10}', [JSON_TYPE]),
      exchange('GET', `/orders/${uuidB}/receipt`, 200, '{"total":  20}', [JSON_TYPE]),
      exchange('GET', '/stats', 200, gzipSync(encode(stats)), [JSON_TYPE, ['Content-Encoding', 'gzip']]),
      exchange('GET', '/old', 302, '', [['Location', '/new']]),
      exchange('GET', '/template', 200, 'Hello {{name}}', [['Content-Type', 'text/plain; charset=utf-8']]),
    ]])
    const summary = summaries[0]!
    expect(summary.resources.map((r) => r.path)).toEqual(['/users'])
    expect(summary.records).toBe(3)
    expect(summary.skipped).toEqual([])
    const custom = summary.created.filter((e) => e.kind === 'custom').map((e) => `${e.method} ${e.path}`).sort()
    expect(custom).toEqual(['GET /health', 'GET /old', 'GET /orders/:orderId/receipt', 'GET /stats', 'GET /template', 'GET /users/:userId/avatar'])

    const server = await serve(db)
    const at = (path: string) => `${server.url}/api/rec${path}`
    expect((await send(at('/users'))).json).toEqual([{ id: 1, name: 'Ada L' }, { id: 3, name: 'Cy' }, { id: 4, name: 'Di' }])
    expect((await send(at('/users/2'))).status).toBe(404)

    const avatar = await fetch(at('/users/7/avatar'))
    expect(avatar.headers.get('content-type')).toBe('image/png')
    expect(avatar.headers.get('cache-control')).toBe('max-age=60')
    expect(new Uint8Array(await avatar.arrayBuffer())).toEqual(PNG)

    const health = await send(at('/health'))
    expect(health.text).toBe('ok\n')
    expect(health.headers.get('x-upstream')).toBe('yes')
    expect(health.headers.get('www-authenticate')).toBe('Bearer realm="api"')
    expect(health.headers.get('set-cookie')).toBeNull()
    expect(health.headers.get('x-auth-token')).toBeNull()
    expect(health.headers.get('date')).not.toBe('Mon, 01 Jan 2026 00:00:00 GMT')

    // Each URL answers its own last answer, as the upstream wrote it (spaces kept); another one the route's last.
    expect((await send(at(`/orders/${uuidA}/receipt`))).text).toBe('{"total": 10}')
    expect((await send(at(`/orders/${uuidB}/receipt`))).text).toBe('{"total":  20}')
    expect((await send(at('/orders/0f0f0f0f-0000-4000-8000-000000000000/receipt'))).text).toBe('{"total":  20}')
    const decoded = await send(at('/stats'))
    expect(decoded.text).toBe(stats)
    expect(decoded.headers.get('content-encoding')).toBeNull()
    expect(decoded.headers.get('content-type')).toBe('application/json; charset=utf-8')
    const redirect = await send(at('/old'))
    expect(redirect.status).toBe(302)
    expect(redirect.headers.get('location')).toBe('/new')
    // Text an endpoint would render as a template is kept as a file: answered as recorded.
    expect((await send(at('/template'))).text).toBe('Hello {{name}}')
    await server.close()

    const stored = Buffer.concat([db, `${db}-wal`].filter(existsSync).map((file) => readFileSync(file))).toString('latin1')
    for (const secret of ['sekr1t-request-token', 'sekr1t-query', 'sekr1t-cookie', 'sekr1t-header']) expect(stored).not.toContain(secret)
    expect(stored).toContain('Ada L')
  })

  it('updates what it recorded before: the same route answers the new exchange, the same record id is replaced', async () => {
    const { context, project, summaries } = await recorded([
      [exchange('GET', '/status', 200, 'first', [['Content-Type', 'text/plain']]), exchange('GET', '/items', 200, '[{"id":"a1","n":1}]', [JSON_TYPE])],
      [exchange('GET', '/status', 503, 'second', [['Content-Type', 'text/plain']]), exchange('GET', '/items', 200, '[{"id":"a1","n":2},{"id":"b2","n":3}]', [JSON_TYPE])],
      // One exchange at a time, as the proxy records: ids still make one route.
      [exchange('GET', '/things/5/detail', 200, 'five')],
      [exchange('GET', '/things/6/detail', 200, 'six')],
      // A word where an id was: the same route.
      [exchange('GET', '/things/latest/detail', 200, 'latest')],
    ])
    expect(summaries[1]!.created).toEqual([])
    expect(summaries[1]!.updated.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual(['GET /status 503'])
    expect(summaries[3]!.updated.map((e) => e.path)).toEqual(['/things/:thingId/detail'])
    expect(summaries[4]!.updated.map((e) => e.body)).toEqual(['latest'])
    const endpoints = context.repos.endpoints.listByProject(project.id).filter((e) => e.kind === 'custom').map((e) => `${e.method} ${e.path}`).sort()
    expect(endpoints).toEqual(['GET /status', 'GET /things/:thingId/detail'])
    const resource = context.repos.resources.listByProject(project.id)
    expect(resource.map((r) => r.seedRecords)).toEqual([[{ id: 'a1', n: 2 }, { id: 'b2', n: 3 }]])
  })

  it('answers each recorded URL its own answer: repeated query values, secrets ignored, a plain URL recorded before rules, long URLs, hand-made rules first', async () => {
    const text = (body: string, headers: [string, string][] = []) => [['Content-Type', 'text/plain'] as [string, string], ...headers]
    const long = `?q=${'x'.repeat(120)}`
    const { db, context, project, summaries } = await recorded([
      [exchange('GET', '/feed', 200, 'plain feed', text('plain feed', [['X-Only-Plain', 'yes']]))],
      [
        exchange('GET', '/feed', 200, 'tags a b', text(''), { query: '?tag=a&tag=b' }),
        exchange('GET', '/feed', 200, 'tag a', text(''), { query: '?tag=a&access_token=sekr1t-feed' }),
        exchange('GET', '/feed', 200, 'long', text(''), { query: long }),
      ],
    ])
    expect(summaries[1]!.warnings).toEqual([])
    const feed = context.repos.endpoints.listByProject(project.id).find((e) => e.path === '/feed')!
    expect(feed.responses.map((r) => r.name)).toEqual([
      '/feed?tag=a&tag=b',
      '/feed?tag=a',
      `/feed?q=${'x'.repeat(83)}…${feed.responses[2]!.name!.slice(-8)}`,
      '/feed',
      'last recorded',
    ])
    expect(feed.responses[0]!.when).toEqual({ query: { tag: 'a', q: { absent: true } }, any: [{ query: { tag: 'b' } }] })
    // A hand-made rule stays first, and recording again keeps it.
    const makeFaker = await loadFaker()
    const { addResponse } = await import('../../src/domain/response-edits.ts')
    addResponse(context, feed, { name: 'down', when: { headers: { 'x-down': { present: true } } }, status: 503, text: 'down' }, undefined, makeFaker)
    recordExchanges(context, project, [exchange('GET', '/feed', 200, 'tag a again', text(''), { query: '?tag=a' })], { source: 'test', makeFaker })
    expect(context.repos.endpoints.byId(feed.id)!.responses.map((r) => r.name)).toEqual(['down', '/feed?tag=a&tag=b', `/feed?q=${'x'.repeat(83)}…${feed.responses[2]!.name!.slice(-8)}`, '/feed?tag=a', '/feed', 'last recorded'])

    const server = await serve(db)
    const at = (path: string, headers: Record<string, string> = {}) => send(`${server.url}/api/rec${path}`, { headers })
    expect((await at('/feed?tag=a&tag=b')).text).toBe('tags a b')
    expect((await at('/feed?tag=b&tag=a')).text).toBe('tags a b')
    expect((await at('/feed?tag=a&access_token=another')).text).toBe('tag a again')
    expect((await at(`/feed${long}`)).text).toBe('long')
    const plain = await at('/feed')
    expect([plain.text, plain.headers.get('x-only-plain')]).toEqual(['plain feed', 'yes'])
    // Not recorded: the last answer, without a header only the plain one had.
    const other = await at('/feed?tag=c')
    expect([other.text, other.headers.get('x-only-plain')]).toEqual(['tag a again', null])
    expect((await at('/feed?tag=a', { 'x-down': '1' })).status).toBe(503)
    await server.close()
    const stored = Buffer.concat([db, `${db}-wal`].filter(existsSync).map((file) => readFileSync(file))).toString('latin1')
    expect(stored).not.toContain('sekr1t-feed')
    expect(stored).not.toContain('access_token')
  })

  it('gives a resource read a rule only while its records do not answer it as recorded; a 404 is the records\' own', async () => {
    const { db, context, project } = await recorded([
      [exchange('GET', '/items', 200, '[{"id":1},{"id":2}]', [JSON_TYPE]), exchange('GET', '/items/2', 404, '{"error":"no 2"}', [JSON_TYPE])],
      [exchange('GET', '/items/me', 200, '{"id":1,"me":true}', [JSON_TYPE]), exchange('GET', '/items/3', 500, '{"error":"down"}', [JSON_TYPE])],
    ])
    const read = () => context.repos.endpoints.listByProject(project.id).find((e) => e.action === 'read')!
    expect(read().responses.map((r) => [r.name, r.when])).toEqual([['/items/me', { params: { id: 'me' } }], ['/items/3', { params: { id: '3' } }]])
    // The 404 removed item 2, and answers as the resource answers a missing record (no rule would hide one made later).
    expect(context.repos.resources.listByProject(project.id)[0]!.seedRecords).toEqual([{ id: 1 }])
    const server = await serve(db)
    const at = (path: string) => send(`${server.url}/api/rec${path}`)
    expect([(await at('/items/2')).status, (await at('/items/2')).json]).toEqual([404, { error: { code: 'NOT_FOUND', message: 'no record with id "2"' } }])
    expect((await at('/items/me')).text).toBe('{"id":1,"me":true}')
    expect([(await at('/items/3')).status, (await at('/items/3')).text]).toEqual([500, '{"error":"down"}'])
    await server.close()
    // The real API made item 3 since: its record answers, and its rule is gone.
    recordExchanges(context, project, [
      exchange('POST', '/items', 201, '{"id":3}', [JSON_TYPE]),
      exchange('GET', '/items/3', 200, '{"id":3}', [JSON_TYPE]),
    ], { source: 'test', makeFaker: await loadFaker() })
    expect(read().responses.map((r) => r.name)).toEqual(['/items/me'])
    expect(context.repos.resources.listByProject(project.id)[0]!.seedRecords).toEqual([{ id: 1 }, { id: 3 }])
  })

  it('replaces a recorded 404 at a route, or at its /api spelling, once the real API lists records there', async () => {
    const { context, project, summaries } = await recorded([
      [exchange('GET', '/orders', 404, '{"error":"none yet"}', [JSON_TYPE]), exchange('GET', '/api/carts', 404, '{"error":"no"}', [JSON_TYPE])],
      [exchange('GET', '/orders', 200, '[{"id":1}]', [JSON_TYPE]), exchange('GET', '/carts', 200, '[{"id":"c1"}]', [JSON_TYPE])],
    ])
    expect(context.repos.resources.listByProject(project.id).map((r) => r.path).sort()).toEqual(['/carts', '/orders'])
    expect(context.repos.endpoints.listByProject(project.id).filter((e) => e.kind === 'custom')).toEqual([])
    expect(summaries[1]!.warnings.slice(0, 2)).toEqual([
      'GET /orders (a recorded 404) removed: /orders answers at the same URL, as the real API does',
      'GET /api/carts (a recorded 404) removed: /carts answers at the same URL, as the real API does',
    ])
  })

  it('records a proxied exchange only while the project is recording, and takes the real API\'s paths whatever the path rules say', async () => {
    const db = tempDb()
    const { context } = openStore(db)
    const project = updateProjectSettings(context, createProject(context, { name: 'Strict', slug: 'strict' }), { pathRules: 'strict' })
    const options = await recordOptions('https://api.example.com')
    const call = exchange('GET', '/v1/getUserInfo', 200, '{"name":"Ada"}', [JSON_TYPE])
    expect(recordProxied(context, project.id, call, options)).toBeNull()
    startRecording(context, project, 'https://api.example.com')
    const summary = recordProxied(context, project.id, call, options)!
    expect(summary.created.map((e) => e.path)).toEqual(['/v1/getUserInfo'])
    expect(summary.warnings).toEqual(['the path rules of project "strict" (strict) would refuse 1 recorded path(s) when its export is applied: /v1/getUserInfo; recorded paths are the real API\'s: mockapi project set strict --path-rules off'])
    stopRecording(context, project)
    expect(recordProxied(context, project.id, exchange('GET', '/v1/other', 200, 'x'), options)).toBeNull()
    expect(context.repos.endpoints.listByProject(project.id).map((e) => e.path)).toEqual(['/v1/getUserInfo'])
  })

  it('leaves endpoints it did not make alone, and says which exchanges it did not keep', async () => {
    const db = tempDb()
    const { context } = openStore(db)
    const project = createProject(context, { name: 'Mixed', slug: 'mixed' })
    addEndpoint(context, { project: 'mixed', method: 'GET', path: '/api/users', body: '{"mine":true}', rules: false })
    const makeFaker = await loadFaker()
    const summary = recordExchanges(context, project, [
      // Served at the same URL as the hand-made /api/users.
      exchange('GET', '/users', 200, '[{"id":1}]', [JSON_TYPE]),
      exchange('GET', '/a/*/b', 200, 'star'),
      exchange('CONNECT', '/x', 200, ''),
      exchange('GET', '/early', 101, ''),
      exchange('OPTIONS', '/users', 204, '', [['Access-Control-Allow-Origin', '*']], { requestHeaders: [['Access-Control-Request-Method', 'POST']] }),
    ], { source: 'test', makeFaker })
    expect(summary.created).toEqual([])
    expect(summary.skipped.map((s) => `${s.method} ${s.path}`).sort()).toEqual(['CONNECT /x', 'GET /a/*/b', 'GET /early', 'GET /users', 'OPTIONS /users'])
    expect(summary.skipped.find((s) => s.method === 'GET' && s.path === '/users')!.reason).toContain('GET /api/users')
  })
})

/** Asks the upstream as a proxy does: the bytes as they come off the wire, content coding and all. */
function capture(base: string, method: string, path: string): Promise<RecordedExchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const req = httpRequest(`${base}${path}`, { method, headers: { 'accept-encoding': 'gzip, br', authorization: 'Bearer sekr1t-upstream' } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({
        method, path, query: '', requestHeaders: [['authorization', 'Bearer sekr1t-upstream']], requestBody: null,
        status: res.statusCode!,
        // Hop-by-hop headers dropped, as the proxy hands them over.
        responseHeaders: Object.entries(res.headers).filter(([name]) => !['connection', 'keep-alive', 'transfer-encoding'].includes(name)).flatMap(([name, value]) => (Array.isArray(value) ? value : [value!]).map((v) => [name, v] as [string, string])),
        responseBody: new Uint8Array(Buffer.concat(chunks)),
        startedAt: new Date(started).toISOString(), durationMs: Date.now() - started,
      }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

describe('a recording of a real upstream, replayed offline', () => {
  it('answers what the upstream answered, byte for byte, with the upstream gone', async () => {
    const report = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256))
    const feed = '<?xml version="1.0"?>\n<feed>\u00e9t\u00e9 \u2603</feed>\n'
    const upstream = createServer((req, res) => {
      if (req.url === '/reports/2026/full.bin') {
        // Chunked, no length: the body arrives in pieces.
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-report': 'yes' })
        res.write(report.subarray(0, 1000))
        res.end(report.subarray(1000))
      } else if (req.url === '/feed') {
        res.writeHead(200, { 'content-type': 'application/atom+xml; charset=utf-8', 'content-encoding': 'br', 'set-cookie': 'sid=sekr1t-upstream-cookie' })
        res.end(brotliCompressSync(Buffer.from(feed)))
      } else if (req.url === '/items') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
        res.end(gzipSync(JSON.stringify([{ id: 'x1', v: 1 }, { id: 'x2', v: 2 }])))
      } else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"nope"}')
    })
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`
    const exchanges = [await capture(base, 'GET', '/reports/2026/full.bin'), await capture(base, 'GET', '/feed'), await capture(base, 'GET', '/items'), await capture(base, 'GET', '/missing')]
    await new Promise<void>((resolve) => upstream.close(() => resolve()))

    const { db } = await recorded([exchanges])
    const server = await serve(db)
    const at = (path: string) => `${server.url}/api/rec${path}`
    const bin = await fetch(at('/reports/2027/full.bin'))
    expect(bin.headers.get('x-report')).toBe('yes')
    expect(Buffer.from(await bin.arrayBuffer()).equals(report)).toBe(true)
    const atom = await fetch(at('/feed'))
    expect(atom.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8')
    expect(Buffer.from(await atom.arrayBuffer()).equals(Buffer.from(feed))).toBe(true)
    expect((await send(at('/items/x2'))).json).toEqual({ id: 'x2', v: 2 })
    const missing = await send(at('/missing'))
    expect([missing.status, missing.text]).toEqual([404, '{"error":"nope"}'])
    await server.close()
    const stored = Buffer.concat([db, `${db}-wal`].filter(existsSync).map((file) => readFileSync(file))).toString('latin1')
    expect(stored).not.toContain('sekr1t-upstream')
  })
})
