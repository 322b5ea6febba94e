import { request as httpRequest } from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { entryOf } from '../../src/domain/journal-view.ts'
import { createProject, deleteProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import type { RequestServed } from '../../src/events.ts'
import { UNREAD_BODY_WAIT_MS } from '../../src/server/request-capture.ts'
import type { RunningServer } from '../../src/server/start.ts'
import { cleanup, expectAliveAndIntact, openStore, send, serve, serveCli, tempDb, waitFor } from '../_helpers.ts'

afterAll(cleanup)

interface Served {
  server: RunningServer
  dbPath: string
  auth: Record<string, string>
}

/** A shop (records, a fixed POST, a slow GET, a faulting one, one behind an API key) and another project, served. */
async function shop(options: { journal?: number; journalMaxBytes?: number } = {}): Promise<Served> {
  const dbPath = tempDb()
  const { context } = openStore(dbPath)
  createProject(context, { name: 'Shop', slug: 'shop' })
  createProject(context, { name: 'Other', slug: 'other' })
  createResource(context, { project: 'shop', path: '/api/posts' })
  createResource(context, { project: 'other', path: '/api/notes' })
  addEndpoint(context, { project: 'shop', method: 'POST', path: '/api/echoes', body: '{"ok":true}' })
  addEndpoint(context, { project: 'shop', method: 'GET', path: '/api/slow', body: '{"slow":true}', delayMs: 100 })
  addEndpoint(context, { project: 'shop', method: 'POST', path: '/api/broken', body: '{}', fault: 'reset' })
  addEndpoint(context, { project: 'shop', method: 'GET', path: '/api/big', body: JSON.stringify({ text: 'é'.repeat(512 * 1024) }) })
  addEndpoint(context, { project: 'shop', method: 'GET', path: '/api/keyed', body: '{}', auth: [{ type: 'apiKey', in: 'header', name: 'X-Shop-Key', keys: ['k-123456789012'] }] })
  addEndpoint(context, { project: 'shop', method: 'GET', path: '/api/login', body: '{}', headers: { 'Set-Cookie': 'session=abcdefghijklmnopqrstuvwx; Path=/; HttpOnly' } })
  const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
  const server = await serve(dbPath, options)
  return { server, dbPath, auth }
}

const projectId = (server: RunningServer, slug = 'shop') => server.project(slug).id

describe('the journal', () => {
  it('is on from the start, and a request is in it as soon as its answer is', async () => {
    const { server, dbPath, auth } = await shop()
    // Over a socket, nothing awaited between the answer and the look: the record came first.
    const answer = await fetch(`${server.url}/api/shop/posts?first=1`)
    const records = server.journal!.records(projectId(server))
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({ method: 'GET', path: '/api/shop/posts', search: '?first=1', status: 200, matched: true })
    expect(await answer.text()).toBe('[]')
    const listed = await send(`${server.url}/api/projects/${projectId(server)}/requests`, { headers: auth })
    expect(listed.json.map((e: { query: unknown }) => e.query)).toEqual([{ first: '1' }])
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('goes to the mocks for whatever no route of the server matched: another method or a neighbour of one of its paths', async () => {
    const { server } = await shop()
    expect((await send(`${server.url}/api/health`)).json).toEqual({ status: 'ok' })
    expect((await send(`${server.url}/api/health`, { method: 'HEAD', overSocket: true })).status).toBe(200)
    for (const [method, path] of [['POST', '/api/health'], ['GET', '/api/healthz'], ['GET', '/_mockapix'], ['DELETE', '/api/shop/nothing/1']] as const) {
      const answer = await send(`${server.url}${path}`, { method })
      expect([method, path, answer.status, answer.json.error.code]).toEqual([method, path, 404, 'ROUTE_NOT_MATCHED'])
    }
    expect((await send(`${server.url}/api/shop/posts`)).json).toEqual([])
    expect(server.journal!.records(projectId(server)).map((record) => `${record.method} ${record.path}`)).toEqual(['POST /api/health', 'GET /api/healthz', 'GET /_mockapix', 'DELETE /api/shop/nothing/1', 'GET /api/shop/posts'])
  })

  it('keeps unmatched requests of every kind, a stray one in the project served at its own paths', async () => {
    const { server, dbPath } = await shop()
    expect((await send(`${server.url}/api/shop/nothing`)).status).toBe(404)
    expect((await send(`${server.url}/api/shop/echoes`, { method: 'GET' })).status).toBe(405)
    expect((await send(`${server.url}/api/nosuch/things`)).status).toBe(404)
    expect((await send(`${server.url}/favicon.ico`)).status).toBe(404)
    const shopEntries = server.journal!.records(projectId(server)).map((r) => entryOf(r, { mask: null }))
    expect(shopEntries.map((e) => [e.path, e.status, e.matched])).toEqual([
      ['/api/shop/nothing', 404, false],
      ['/api/shop/echoes', 405, false],
      // The default project (the first made) is the one served at its own paths.
      ['/api/nosuch/things', 404, false],
      ['/favicon.ico', 404, false],
    ])
    expect(shopEntries[1]!.answer.headers.allow).toBe('POST')
    expect(server.journal!.records(projectId(server, 'other'))).toEqual([])
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('keeps the body of a faulted request, of a simulated error, and one no stage read', async () => {
    const { server, dbPath } = await shop()
    await expect(fetch(`${server.url}/api/shop/broken`, { method: 'POST', body: '{"lost":1}', headers: { 'content-type': 'application/json' } })).rejects.toThrow()
    await send(`${server.url}/api/shop/posts`, { method: 'POST', body: { never: 'read' }, headers: { Prefer: 'code=503' }, overSocket: true })
    await send(`${server.url}/api/shop/nothing`, { method: 'POST', body: { unmatched: true }, overSocket: true })
    const [broken, simulated, unmatched] = server.journal!.records(projectId(server)).map((r) => entryOf(r, { mask: null }))
    expect(broken).toMatchObject({ status: 0, fault: 'reset', body: '{"lost":1}', bodySize: 10, matched: true, answer: { body: null } })
    expect(simulated).toMatchObject({ status: 503, body: '{"never":"read"}', bodyCut: false })
    expect(unmatched).toMatchObject({ status: 404, body: '{"unmatched":true}', matched: false })
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('cuts bodies at 64 KiB and says so; shows a binary body by its size and type', async () => {
    const { server, dbPath } = await shop()
    const big = JSON.stringify({ text: 'x'.repeat(100 * 1024) })
    await send(`${server.url}/api/shop/echoes`, { method: 'POST', body: big, headers: { 'content-type': 'application/json' }, overSocket: true })
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe])
    await fetch(`${server.url}/api/shop/echoes`, { method: 'POST', body: png, headers: { 'content-type': 'image/png' } })
    const bigAnswer = await send(`${server.url}/api/shop/big`)
    const [cut, binary, answered] = server.journal!.records(projectId(server)).map((r) => entryOf(r, { mask: null }))
    expect(cut!.body).toHaveLength(64 * 1024)
    expect(cut).toMatchObject({ bodySize: big.length, bodyCut: true })
    expect(big.startsWith(cut!.body!)).toBe(true)
    expect(binary).toMatchObject({ body: '(binary, 10 bytes, image/png)', bodySize: 10, bodyCut: false })
    expect(bigAnswer.text.startsWith(answered!.answer.body!)).toBe(true)
    expect(answered!.answer.body!.length).toBe(64 * 1024)
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('keeps its byte cap: many large answers leave only the newest few', async () => {
    const { server, dbPath } = await shop({ journalMaxBytes: 400_000 })
    for (let i = 0; i < 20; i++) expect((await send(`${server.url}/api/shop/big?n=${i}`)).status).toBe(200)
    const kept = server.journal!.records(projectId(server))
    // Each keeps 64 Ki characters of answer (128 KiB as UTF-16): three fit in 400,000 bytes.
    expect(kept.length).toBeGreaterThanOrEqual(1)
    expect(kept.length).toBeLessThanOrEqual(3)
    expect(kept.at(-1)!.search).toBe('?n=19')
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('keeps each project apart: 50 projects, 10 requests each, rings only where there was traffic', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    for (let p = 0; p < 51; p++) {
      createProject(context, { name: `P${p}`, slug: `p${p}` })
      createResource(context, { project: `p${p}`, path: '/api/items' })
    }
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const server = await serve(dbPath)
    await Promise.all(Array.from({ length: 500 }, (_, i) => send(`${server.url}/api/p${i % 50}/items?i=${i}`)))
    for (let p = 0; p < 50; p++) {
      const id = projectId(server, `p${p}`)
      const listed = (await send(`${server.url}/api/projects/${id}/requests`, { headers: auth })).json as { path: string; query: { i: string } }[]
      expect(listed).toHaveLength(10)
      expect(listed.every((e) => e.path === `/api/p${p}/items` && Number(e.query.i) % 50 === p)).toBe(true)
    }
    expect(server.journal!.projects().sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, p) => projectId(server, `p${p}`)).sort((a, b) => a - b))
    expect(server.journal!.projects()).not.toContain(projectId(server, 'p50'))
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('a DELETE while 200 requests arrive keeps none that arrived before it, and ids go on', async () => {
    const { server, dbPath, auth } = await shop()
    const id = projectId(server)
    await send(`${server.url}/api/shop/posts`)
    const lastBefore = server.journal!.records(id).at(-1)!.id
    // Slow ones: they arrive, wait 100 ms, and end after the clear.
    const early = Array.from({ length: 100 }, (_, i) => fetch(`${server.url}/api/shop/slow?early=${i}`).then((r) => r.text()))
    await new Promise((resolve) => setTimeout(resolve, 30))
    const cleared = await fetch(`${server.url}/api/projects/${id}/requests`, { method: 'DELETE', headers: auth })
    expect(cleared.status).toBe(204)
    const clearEpoch = server.journal!.epoch
    const late = Array.from({ length: 100 }, (_, i) => fetch(`${server.url}/api/shop/posts?late=${i}`).then((r) => r.text()))
    await Promise.all([...early, ...late])
    const kept = server.journal!.records(id)
    expect(kept.every((r) => r.epoch >= clearEpoch)).toBe(true)
    expect(kept.filter((r) => r.search.startsWith('?late=')).length).toBe(100)
    expect(kept.length).toBeLessThan(200)
    expect(kept.every((r) => r.id > lastBefore)).toBe(true)
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('is cleared by a project reset (that project only) and by RunningServer.reset() (all)', async () => {
    const { server, dbPath, auth } = await shop()
    await send(`${server.url}/api/shop/posts`)
    await send(`${server.url}/api/other/notes`)
    expect((await send(`${server.url}/api/projects/${projectId(server)}/reset`, { method: 'POST', headers: auth })).status).toBe(200)
    expect(server.journal!.records(projectId(server))).toEqual([])
    expect(server.journal!.records(projectId(server, 'other'))).toHaveLength(1)
    server.reset()
    expect(server.journal!.records(projectId(server, 'other'))).toEqual([])
    await send(`${server.url}/api/shop/posts`)
    expect(server.journal!.records(projectId(server))).toHaveLength(1)
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('masks secrets in what it sends out, keeps them raw in process', async () => {
    const { server, dbPath, auth } = await shop()
    const bearer = `Bearer ${'eyJhbGciOiJIUzI1NiJ9'.repeat(4)}`
    await send(`${server.url}/api/shop/keyed?token=qwertyuiopasdf&page=2`, {
      headers: { authorization: bearer, cookie: 'sid=s3cr3t-session-value; theme=dark', 'x-shop-key': 'k-123456789012', 'x-trace': 'visible' },
    })
    const raw = entryOf(server.journal!.records(projectId(server))[0]!, { mask: null })
    expect(raw.headers).toMatchObject({ authorization: bearer, 'x-shop-key': 'k-123456789012', 'x-trace': 'visible' })
    expect(raw.cookies).toEqual({ sid: 's3cr3t-session-value', theme: 'dark' })
    expect(raw.query).toEqual({ token: 'qwertyuiopasdf', page: '2' })
    const [listed] = (await send(`${server.url}/api/projects/${projectId(server)}/requests`, { headers: auth })).json
    expect(listed.headers.authorization).toBe(`Bearer eyJh… (80 chars)`)
    expect(listed.headers['x-shop-key']).toBe('k-12… (14 chars)')
    expect(listed.headers['x-trace']).toBe('visible')
    expect(listed.headers.cookie).toBe('sid=s3cr… (20 chars); theme=… (4 chars)')
    expect(listed.cookies).toEqual({ sid: 's3cr… (20 chars)', theme: '… (4 chars)' })
    expect(listed.query).toEqual({ token: 'qwer… (14 chars)', page: '2' })
    expect(JSON.stringify(listed)).not.toContain('s3cr3t-session-value')
    await send(`${server.url}/api/shop/login`)
    const [login] = (await send(`${server.url}/api/projects/${projectId(server)}/requests?limit=1`, { headers: auth })).json
    expect(login.answer.headers['set-cookie']).toBe('session=abcd… (24 chars); Path=/; HttpOnly')
    expect(entryOf(server.journal!.records(projectId(server)).at(-1)!, { mask: null }).answer.headers['set-cookie']).toBe('session=abcdefghijklmnopqrstuvwx; Path=/; HttpOnly')
    await expectAliveAndIntact(server.url, dbPath)
  })
})

describe('requests the mock handler used not to see', () => {
  it('keeps OPTIONS to the mocks (a CORS preflight or a plain one) as answered by the server; the management API\'s, the inbox\'s and the dashboard\'s stay out', async () => {
    const { server, dbPath, auth } = await shop()
    const preflight = { Origin: 'http://app.test', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' }
    for (const path of ['/api/shop/posts', '/api/shop/nothing']) {
      const answer = await send(`${server.url}${path}`, { method: 'OPTIONS', headers: preflight, overSocket: true })
      expect([answer.status, answer.headers.get('access-control-allow-headers')]).toEqual([204, 'content-type'])
    }
    expect((await send(`${server.url}/api/shop/posts/1`, { method: 'OPTIONS', overSocket: true })).status).toBe(204)
    for (const path of [`/api/projects/${projectId(server)}/requests`, `/api/projects/${projectId(server)}/nothing`, '/api/webhooks/inbox/no-such-token', '/api/health']) {
      expect([path, (await send(`${server.url}${path}`, { method: 'OPTIONS', headers: preflight, overSocket: true })).status]).toEqual([path, 204])
    }
    await send(`${server.url}/_mockapi/`, { method: 'OPTIONS', overSocket: true })
    const listed = (await send(`${server.url}/api/projects/${projectId(server)}/requests?method=OPTIONS`, { headers: auth })).json
    expect(listed.map((e: { path: string }) => e.path)).toEqual(['/api/shop/posts/1', '/api/shop/nothing', '/api/shop/posts'])
    expect(listed[2]).toMatchObject({ method: 'OPTIONS', status: 204, matched: true, endpointId: null, response: null, note: 'CORS preflight' })
    // Answered whatever the path: no near misses, even where no endpoint is.
    expect(listed.map((e: { nearMisses?: unknown }) => e.nearMisses)).toEqual([undefined, undefined, undefined])
    expect(listed[2].headers.origin).toBe('http://app.test')
    expect(listed[2].answer.headers['access-control-allow-methods']).toBe('GET, POST, PUT, PATCH, DELETE, OPTIONS')
    expect(server.journal!.records(projectId(server))).toHaveLength(3)
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('keeps a client that left during the delay as status 0 with a note, and no answer', async () => {
    const { server, dbPath, auth } = await shop()
    const served: RequestServed[] = []
    server.events.on('request.served', (one) => served.push(one))
    const leaving = new AbortController()
    // Held for 5 s: the client gives up long before, well after its request arrived.
    const gone = fetch(`${server.url}/api/shop/slow?gaveUp=1`, { signal: leaving.signal, headers: { Prefer: 'delay=5000' } })
    setTimeout(() => leaving.abort(), 200)
    await expect(gone).rejects.toThrow()
    const [entry] = await waitFor(() => (served.length > 0 ? server.journal!.records(projectId(server)).map((r) => entryOf(r, { mask: null })) : null))
    expect(entry).toMatchObject({ path: '/api/shop/slow', status: 0, matched: true, note: 'client closed the connection', answer: { headers: {}, body: null } })
    expect(entry!.fault).toBeUndefined()
    // The webhook events stay mock.request and mock.error, now with the status the client got: none.
    expect(served).toMatchObject([{ path: '/api/shop/slow', status: 0, failed: true, fault: null, note: 'client closed the connection' }])
    const listed = async (status: string) => (await send(`${server.url}/api/projects/${projectId(server)}/requests?status=${status}`, { headers: auth })).json
    expect(await listed('4xx')).toEqual([])
    expect((await listed('0')).map((e: { query: unknown }) => e.query)).toEqual([{ gaveUp: '1' }])
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('keeps a chunked body no stage read (unmatched, a simulated error), within the body limit, and never waits long for one that stops', async () => {
    const { server, dbPath } = await shop()
    /** A chunked request (no Content-Length), sent in `chunks`; `stall`: the last chunk never comes. */
    const chunked = (path: string, chunks: string[], options: { headers?: Record<string, string>; stall?: boolean } = {}) =>
      new Promise<{ status: number; ms: number }>((resolve, reject) => {
        const started = performance.now()
        const request = httpRequest(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...options.headers } }, (response) => {
          response.resume()
          response.on('end', () => {
            resolve({ status: response.statusCode!, ms: performance.now() - started })
            request.destroy()
          })
        })
        request.on('error', reject)
        for (const chunk of chunks) request.write(chunk)
        if (!options.stall) request.end()
      })
    expect((await chunked('/api/shop/nowhere', ['{"user":', '"chunked-unmatched"}'])).status).toBe(404)
    expect((await chunked('/api/shop/posts', ['{"never":', '"read"}'], { headers: { Prefer: 'code=503' } })).status).toBe(503)
    const stalled = await chunked('/api/shop/nowhere?stalled=1', ['{"half":'], { stall: true })
    expect(stalled.status).toBe(404)
    expect(stalled.ms).toBeLessThan(UNREAD_BODY_WAIT_MS + 1500)
    // Past the body limit (1 MiB) nothing is kept, and the answer does not wait for the rest.
    expect((await chunked('/api/shop/nowhere?big=1', Array.from({ length: 24 }, () => 'x'.repeat(64 * 1024)))).status).toBe(404)
    const entries = server.journal!.records(projectId(server)).map((r) => entryOf(r, { mask: null }))
    expect(entries.map((e) => [e.status, e.body, e.bodySize])).toEqual([
      [404, '{"user":"chunked-unmatched"}', 28],
      [503, '{"never":"read"}', 16],
      [404, null, 0],
      [404, null, 0],
    ])
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('keeps a path with a malformed percent-escape as unmatched, answered with the mocks\' clear 400', async () => {
    const { server, dbPath, auth } = await shop()
    const answer = await send(`${server.url}/api/shop/posts/%zz`, { overSocket: true })
    expect(answer.status).toBe(400)
    expect(answer.json.error.message).toBe('path "/api/shop/posts/%zz" has a malformed percent-encoding')
    // No project can be told from a path that does not decode: the one at its own paths keeps it.
    const [entry] = server.journal!.records(projectId(server)).map((r) => entryOf(r, { mask: null }))
    expect(entry).toMatchObject({ method: 'GET', path: '/api/shop/posts/%zz', status: 400, matched: false, endpointId: null })
    // The management API names the parameter, and is not journalled.
    const admin = await send(`${server.url}/api/projects/${projectId(server)}/webhooks/%zz`, { headers: auth, overSocket: true })
    expect([admin.status, admin.json.error.message]).toEqual([400, 'path parameter "%zz" has a malformed percent-encoding'])
    expect(server.journal!.records(projectId(server))).toHaveLength(1)
    await expectAliveAndIntact(server.url, dbPath)
  })
})

describe('the management API and inbox namespaces', () => {
  it('answer a path no route of theirs matches with their own 404, kept out of the journal', async () => {
    const { server, dbPath, auth } = await shop()
    for (const path of [`/api/projects/${projectId(server)}/nothing`, '/api/projects/1/requests/nowhere', '/api/webhooks/inbox', '/api/webhooks/other/thing']) {
      const answer = await send(`${server.url}${path}`, { headers: auth, overSocket: true })
      expect([path, answer.status, answer.json.error.code]).toEqual([path, 404, 'NOT_FOUND'])
      expect(answer.json.error.message).toContain(`GET ${path}`)
    }
    expect((await send(`${server.url}/api/projects/${projectId(server)}/nothing`, { method: 'DELETE', headers: auth })).status).toBe(404)
    // The routes next to them still answer.
    expect((await send(`${server.url}/api/projects/${projectId(server)}`, { headers: auth })).status).toBe(200)
    expect((await send(`${server.url}/api/projects`, { headers: auth })).status).toBe(200)
    expect(server.journal!.projects()).toEqual([])
    await expectAliveAndIntact(server.url, dbPath)
  })
})

describe('what a HEAD answer sent', () => {
  it('is its headers and no body', async () => {
    const { server, dbPath, auth } = await shop()
    await send(`${server.url}/api/shop/posts`, { method: 'POST', body: { title: 'kept' } })
    const head = await fetch(`${server.url}/api/shop/posts`, { method: 'HEAD' })
    expect([head.status, await head.text()]).toEqual([200, ''])
    const [listed] = (await send(`${server.url}/api/projects/${projectId(server)}/requests?method=HEAD`, { headers: auth })).json
    expect(listed).toMatchObject({ method: 'HEAD', status: 200, answer: { body: null } })
    expect(listed.answer.headers['content-type']).toMatch(/json/)
    expect(server.journal!.records(projectId(server)).at(-1)!.answer).toMatchObject({ body: null, bodySize: 0 })
    await expectAliveAndIntact(server.url, dbPath)
  })
})

describe('a deleted project', () => {
  it('loses its journal within seconds, whichever process deleted it', async () => {
    const { server, dbPath } = await shop()
    const other = projectId(server, 'other')
    await send(`${server.url}/api/other/notes`)
    expect(server.journal!.projects()).toContain(other)
    // The CLI beside serve: another connection to the same file.
    deleteProject(openStore(dbPath).context, 'other')
    await waitFor(() => !server.journal!.projects().includes(other), 8000, 'the deleted project\'s journal dropped')
    await expectAliveAndIntact(server.url, dbPath)
  })
})

describe('bounds from the command line', () => {
  it('--journal 3 keeps the last three, with distinct increasing ids', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    createProject(context, { name: 'Shop', slug: 'shop' })
    createResource(context, { project: 'shop', path: '/api/posts' })
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const run = await serveCli(['--db', dbPath, 'serve', '--port', '0', '--journal', '3', '--quiet'])
    for (let i = 0; i < 7; i++) await fetch(`${run.url}/api/shop/posts?n=${i}`)
    const listed = (await (await fetch(`${run.url}/api/projects/1/requests`, { headers: auth })).json()) as { id: number; query: { n: string } }[]
    expect(listed.map((e) => e.query.n)).toEqual(['6', '5', '4'])
    expect(new Set(listed.map((e) => e.id)).size).toBe(3)
    expect(listed[0]!.id).toBeGreaterThan(listed[1]!.id)
    // A limit past what is kept gives what is kept; past the most any query gives, it is refused.
    expect(((await (await fetch(`${run.url}/api/projects/1/requests?limit=4`, { headers: auth })).json()) as unknown[])).toHaveLength(3)
    expect((await fetch(`${run.url}/api/projects/1/requests?limit=10001`, { headers: auth })).status).toBe(400)
    await expectAliveAndIntact(run.url, dbPath)
  })

  it('--journal 0 keeps none: the routes answer 409, the mocks answer as ever', async () => {
    const on = await shop()
    const off = await shop({ journal: 0 })
    expect(off.server.journal).toBeNull()
    for (const path of ['/api/shop/posts', '/api/shop/nothing', '/api/shop/echoes']) {
      const [a, b] = [await send(`${on.server.url}${path}`), await send(`${off.server.url}${path}`)]
      expect([b.status, b.text]).toEqual([a.status, a.text])
    }
    for (const method of ['GET', 'DELETE']) {
      const refused = await send(`${off.server.url}/api/projects/1/requests`, { method, headers: off.auth })
      expect(refused.status).toBe(409)
      expect(refused.json.error.message).toMatch(/--journal 0/)
    }
    const run = await serveCli(['--db', tempDb(), 'serve', '--port', '0', '--journal', '-1', '--quiet']).catch((error: Error) => error)
    expect(String(run)).toMatch(/journal/)
    await expectAliveAndIntact(off.server.url, off.dbPath)
  })
})
