import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { connect } from 'node:net'
import { join } from 'node:path'
import { mintToken } from '../../src/domain/auth.ts'
import type { RequestServed } from '../../src/events.ts'
import { startServer, type RunningServer, type StartOptions } from '../../src/server/start.ts'
import { cleanup, cliWorkspace, expectAliveAndIntact, openStore, ROOT, waitFor } from '../_helpers.ts'
import { clientFor, failureOf, loadFixture, startTestServer, TestSnapshot, unary } from '../grpc/_helpers.ts'

afterAll(cleanup)

const running: RunningServer[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()))
})

/** A server over a database the CLI filled: `/api/flaky` answers `{"ok":true}` until a fault is set. */
async function flakyServer(options: Partial<StartOptions> = {}) {
  const workspace = cliWorkspace()
  await workspace.ok('init', '--yes', '--slug', 'f')
  await workspace.ok('add-endpoint', 'GET', '/api/flaky', '--body', '{"ok":true}', '--header', 'X-Mock: yes')
  const server = await startServer({ dbPath: workspace.db, port: 0, host: '127.0.0.1', demo: false, ...options })
  running.push(server)
  const served: RequestServed[] = []
  server.events.on('request.served', (entry) => served.push(entry))
  return { ...workspace, server, served }
}

/** What a raw TCP client gets for one request: every byte, and how the connection ended. */
function rawExchange(url: string, request: string, leaveAfterMs?: number): Promise<{ bytes: string; ended: 'end' | 'reset' | 'left'; error: string | null }> {
  const { port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1')
    let bytes = ''
    let error: string | null = null
    let left = false
    socket.on('data', (chunk) => void (bytes += chunk.toString('latin1')))
    socket.on('error', (e: NodeJS.ErrnoException) => void (error = e.code ?? e.message))
    socket.on('close', () => resolve({ bytes, ended: left ? 'left' : error === 'ECONNRESET' ? 'reset' : 'end', error }))
    socket.write(request)
    if (leaveAfterMs !== undefined) {
      setTimeout(() => {
        left = true
        socket.destroy()
      }, leaveAfterMs)
    }
  })
}

const get = (path: string, headers = '') => `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n${headers}\r\n`

/** fetch's rejection: the message and the code of its cause. */
async function fetchFailure(url: string, init?: RequestInit): Promise<{ message: string; cause: string }> {
  try {
    const response = await fetch(url, init)
    await response.text()
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    return { message: (error as Error).message, cause: cause?.code ?? cause?.message ?? '' }
  }
  throw new Error(`expected fetch ${url} to fail`)
}

describe('faults over a real socket: what a client sees', () => {
  it('reset: the connection is reset, no byte of a response', async () => {
    const { ok, server, served, db } = await flakyServer()
    await ok('endpoint', 'set', 'GET', '/api/flaky', '--fault', 'reset')
    const raw = await rawExchange(server.url, get('/api/flaky'))
    expect(raw).toEqual({ bytes: '', ended: 'reset', error: 'ECONNRESET' })
    const viaFetch = await fetchFailure(`${server.url}/api/flaky`)
    expect(viaFetch).toEqual({ message: 'fetch failed', cause: 'ECONNRESET' })
    await waitFor(() => served.length === 2)
    expect(served.map((s) => [s.status, s.fault, s.failed])).toEqual([[0, 'reset', true], [0, 'reset', true]])
    await expectAliveAndIntact(server.url, db)
  })

  it('empty: the connection closes without a byte (curl: empty reply)', async () => {
    const { ok, server, served } = await flakyServer()
    await ok('endpoint', 'set', 'GET', '/api/flaky', '--fault', 'empty')
    expect(await rawExchange(server.url, get('/api/flaky'))).toEqual({ bytes: '', ended: 'end', error: null })
    const viaFetch = await fetchFailure(`${server.url}/api/flaky`)
    expect(viaFetch.message).toBe('fetch failed')
    expect(viaFetch.cause).toMatch(/other side closed|UND_ERR_SOCKET/)
    await waitFor(() => served.length === 2)
    expect(served.every((s) => s.status === 0 && s.fault === 'empty')).toBe(true)
  })

  it('malformed: a 200 whose chunked body breaks after one chunk; the connection then closes', async () => {
    const { ok, server, served } = await flakyServer()
    await ok('endpoint', 'set', 'GET', '/api/flaky', '--fault', 'malformed')
    const raw = await rawExchange(server.url, get('/api/flaky'))
    expect(raw.ended).toBe('end')
    expect(raw.bytes).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(raw.bytes).toContain('Transfer-Encoding: chunked\r\n')
    // The endpoint's own headers, as a real answer would have started.
    expect(raw.bytes).toContain('X-Mock: yes\r\n')
    expect(raw.bytes.endsWith('\r\n\r\n5\r\nhello\r\nzz\r\n')).toBe(true)
    const viaFetch = await fetchFailure(`${server.url}/api/flaky`)
    expect(viaFetch.message).toMatch(/fetch failed|terminated/)
    await waitFor(() => served.length === 2)
    expect(served.every((s) => s.status === 0 && s.fault === 'malformed')).toBe(true)
  })

  it('malformed: the headers the answer would have had, rendered and typed; HEAD gets a broken header block, no body', async () => {
    const { ok, server, served } = await flakyServer()
    await ok('add-endpoint', 'POST', '/api/report', '--text', 'a,b', '--content-type', 'text/csv', '--header', 'X-Req: {{uuid}}', '--header', 'X-Name: {{body.name}}', '--fault', 'malformed')
    const post = await rawExchange(server.url, `POST /api/report HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 14\r\n\r\n{"name":"Ada"}`)
    const head = post.bytes.slice(0, post.bytes.indexOf('\r\n\r\n'))
    expect(head).toMatch(/\r\nX-Req: [0-9a-f-]{36}(\r\n|$)/)
    expect(head).toContain('\r\nX-Name: Ada')
    expect(head.match(/^content-type:.*$/gim)).toEqual(['Content-Type: text/csv'])
    expect(post.bytes.endsWith('\r\n\r\n5\r\nhello\r\nzz\r\n')).toBe(true)
    // A Content-Type among the headers, in any case, is the only one written.
    await ok('endpoint', 'set', 'GET', '/api/flaky', '--header', 'content-type: text/x-own', '--fault', 'malformed')
    const own = await rawExchange(server.url, get('/api/flaky'))
    expect(own.bytes.match(/^content-type:.*$/gim)).toEqual(['content-type: text/x-own'])
    const headRaw = await rawExchange(server.url, `HEAD /api/flaky HTTP/1.1\r\nHost: localhost\r\n\r\n`)
    expect(headRaw.ended).toBe('end')
    expect(headRaw.bytes).toBe('HTTP/1.1 200 OK\r\ncontent-type: text/x-own\r\nthis line is not a header\r\n\r\n')
    expect(await fetchFailure(`${server.url}/api/flaky`, { method: 'HEAD' })).toMatchObject({ message: 'fetch failed', cause: 'HPE_INVALID_HEADER_TOKEN' })
    await waitFor(() => served.length === 4)
    expect(served.every((s) => s.status === 0 && s.fault === 'malformed')).toBe(true)
  })

  it('hang: nothing at all until the hang ends (hangMs here), then a close without a byte', async () => {
    const { ok, server, served } = await flakyServer({ hangMs: 300 })
    await ok('endpoint', 'set', 'GET', '/api/flaky', '--fault', 'hang')
    const started = performance.now()
    const raw = await rawExchange(server.url, get('/api/flaky'))
    expect(raw).toEqual({ bytes: '', ended: 'end', error: null })
    expect(performance.now() - started).toBeGreaterThanOrEqual(250)
    await waitFor(() => served.length === 1)
    expect(served[0]).toMatchObject({ status: 0, fault: 'hang', failed: true })
  })

  it('hang: a client that gives up frees everything at once; the request is recorded as the hang it was', async () => {
    const { ok, server, served, db } = await flakyServer()
    await ok('endpoint', 'set', 'GET', '/api/flaky', '--fault', 'hang')
    const raw = await rawExchange(server.url, get('/api/flaky'), 150)
    expect(raw).toMatchObject({ bytes: '', ended: 'left' })
    // The default hang is 60 s: recorded within seconds means the client's leaving ended it.
    await waitFor(() => served.length === 1, 5000, 'the abandoned hang to end')
    expect(served[0]).toMatchObject({ status: 0, fault: 'hang' })
    const controller = new AbortController()
    const aborted = fetch(`${server.url}/api/flaky`, { signal: controller.signal }).catch((error: Error) => error.name)
    setTimeout(() => controller.abort(), 100)
    expect(await aborted).toBe('AbortError')
    await waitFor(() => served.length === 2, 5000, 'the aborted fetch to end its hang')
    await expectAliveAndIntact(server.url, db)
  })

  it('hang: stopping the server cuts a hanging connection within its drain time, not 60 s', async () => {
    const { ok, server } = await flakyServer()
    await ok('endpoint', 'set', 'GET', '/api/flaky', '--fault', 'hang')
    const hanging = rawExchange(server.url, get('/api/flaky'))
    await new Promise((resolve) => setTimeout(resolve, 100))
    const started = performance.now()
    await server.close()
    expect(await hanging).toMatchObject({ bytes: '' })
    // The drain time is 2 s; generous slack, far below the 60 s hang.
    expect(performance.now() - started).toBeLessThan(10_000)
  })

  it('after a fault the connection is never reused; the next request on a new one is answered', async () => {
    const { ok, server } = await flakyServer()
    await ok('endpoint', 'set', 'GET', '/api/flaky', '--fault', 'empty')
    // Two pipelined requests on one keep-alive connection: neither gets a byte.
    const raw = await rawExchange(server.url, get('/api/flaky') + get('/api/flaky'))
    expect(raw.bytes).toBe('')
    await ok('endpoint', 'set', 'GET', '/api/flaky', '--clear-fault')
    const answered = await fetch(`${server.url}/api/flaky`)
    expect([answered.status, await answered.json(), answered.headers.get('x-mock')]).toEqual([200, { ok: true }, 'yes'])
  })

  it.each(['reset', 'empty', 'malformed'])('fault=%s on a pipelined request leaves the answers queued before it whole', async (fault) => {
    const { ok, server, db } = await flakyServer()
    await ok('add-endpoint', 'GET', '/api/slow', '--body', '{"slow":true}', '--delay', '150')
    // The slow answer is still being made when the faulted request behind it is read and handled.
    const raw = await rawExchange(server.url, get('/api/slow') + get('/api/flaky', `Prefer: fault=${fault}\r\n`))
    const [head, ...rest] = raw.bytes.split('\r\n\r\n')
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(rest.join('\r\n\r\n').startsWith('{"slow":true}')).toBe(true)
    await expectAliveAndIntact(server.url, db)
  })

  it('Prefer: fault= faults one request of a healthy endpoint; an unknown fault is refused with 400, changing nothing', async () => {
    const { server, served } = await flakyServer()
    expect(await fetchFailure(`${server.url}/api/flaky`, { headers: { prefer: 'fault=reset' } })).toEqual({ message: 'fetch failed', cause: 'ECONNRESET' })
    const refused = await fetch(`${server.url}/api/flaky`, { headers: { prefer: 'fault=explode' } })
    expect(refused.status).toBe(400)
    expect(await refused.json()).toEqual({ error: { code: 'BAD_REQUEST', message: 'Prefer: fault=explode is not a fault: ask for one of reset, empty, malformed, hang' } })
    const healthy = await fetch(`${server.url}/api/flaky`)
    expect(healthy.status).toBe(200)
    await waitFor(() => served.length === 3)
    expect(served.map((s) => s.fault ?? null)).toEqual(['reset', null, null])
  })

  it('a fault wins over an error rate of 100 % and over Prefer: code; the delay is held before it', async () => {
    const { ok, server, served } = await flakyServer()
    await ok('endpoint', 'set', 'GET', '/api/flaky', '--fault', 'reset', '--error-rate', '100', '--delay', '150')
    const started = performance.now()
    expect((await fetchFailure(`${server.url}/api/flaky`, { headers: { prefer: 'code=503' } })).cause).toBe('ECONNRESET')
    expect(performance.now() - started).toBeGreaterThanOrEqual(140)
    await waitFor(() => served.length === 1)
    expect(served[0]).toMatchObject({ status: 0, fault: 'reset' })
  })

  it('without a socket (RunningServer.fetch) a fault rejects as fetch would, with the fault as its cause', async () => {
    const { ok, server } = await flakyServer()
    await ok('endpoint', 'set', 'GET', '/api/flaky', '--fault', 'malformed')
    const failure = await server.fetch(new Request(`${server.url}/api/flaky`)).then(() => null, (error: TypeError) => error)
    expect(failure).toBeInstanceOf(TypeError)
    expect(failure!.message).toBe('fetch failed')
    expect(failure!.cause).toMatchObject({ code: 'MOCKAPI_FAULT', fault: 'malformed' })
  })

  it('nothing is written to stderr by srvx after any fault', async () => {
    const errors = vi.spyOn(console, 'error')
    try {
      const { ok, server } = await flakyServer({ hangMs: 50 })
      for (const fault of ['reset', 'empty', 'malformed', 'hang']) {
        await ok('endpoint', 'set', 'GET', '/api/flaky', '--fault', fault)
        await rawExchange(server.url, get('/api/flaky'))
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(errors.mock.calls.map((call) => String(call[0]))).toEqual([])
    } finally {
      errors.mockRestore()
    }
  })
})

describe('faults in the journal and events', () => {
  it('a fault is a mock.error event (data carries the fault) and shows in the journal with status 0', async () => {
    const { ok, server, db } = await flakyServer()
    await ok('endpoint', 'set', 'GET', '/api/flaky', '--fault', 'empty')
    const { context } = openStore(db)
    const token = await mintToken(context, { expiresInMs: 60_000 })
    const auth = { Authorization: `Bearer ${token}` }
    const events = await fetch(`${server.url}/api/projects/1/webhooks`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'errors', targetUrl: 'http://127.0.0.1:9/hook', events: ['mock.error'] }),
    })
    expect(events.status).toBe(201)
    await fetchFailure(`${server.url}/api/flaky`)
    const log = await waitFor(async () => {
      const entries = (await (await fetch(`${server.url}/api/projects/1/requests`, { headers: auth })).json()) as { path: string; status: number; fault?: string }[]
      return entries.find((entry) => entry.path === '/api/flaky')
    })
    expect(log).toMatchObject({ status: 0, fault: 'empty' })
    const payload = await waitFor(() => {
      const row = context.db.prepare<[], { type: string; payload: string }>("SELECT type, payload FROM events WHERE type = 'mock.error'").get()
      return row && (JSON.parse(row.payload) as { data: Record<string, unknown> })
    })
    expect(payload.data).toMatchObject({ path: '/api/flaky', status: 0, fault: 'empty' })
  })
})

describe('faults on GraphQL, SOAP and gRPC', () => {
  it('GraphQL: a fault on a root field drops the whole exchange; other fields answer', async () => {
    const { ok, db } = cliWorkspace()
    await ok('import', join(ROOT, 'fixtures', 'graphql', 'swapi', 'schema.graphql'))
    await ok('endpoint', 'set', 'POST', '/graphql#Query.person', '--fault', 'reset')
    const server = await startServer({ dbPath: db, port: 0, host: '127.0.0.1', demo: false })
    running.push(server)
    const query = (text: string) => fetch(`${server.url}/api/swapi/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: text }) })
    await expect(query('{ person(id: "1") { name } }')).rejects.toMatchObject({ cause: { code: 'ECONNRESET' } })
    const other = await query('{ planet(id: "1") { name } }')
    expect(other.status).toBe(200)
    expect((await other.json() as { data: unknown }).data).toBeTruthy()
  })

  it('SOAP: a fault on an operation drops the exchange; the service\'s other operations answer; Prefer: fault= works on the mount', async () => {
    const { ok, db } = cliWorkspace()
    await ok('import', join(ROOT, 'fixtures', 'soap', 'synthetic', 'shop.wsdl'))
    await ok('endpoint', 'set', 'POST', '/soap/ShopService#cancelOrder', '--fault', 'empty')
    const server = await startServer({ dbPath: db, port: 0, host: '127.0.0.1', demo: false })
    running.push(server)
    const post = (operation: string, headers: Record<string, string> = {}) => fetch(`${server.url}/soap/ShopService`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=utf-8', ...headers },
      body: `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><${operation} xmlns="urn:example:shop:types"><orderId>1</orderId></${operation}></soap:Body></soap:Envelope>`,
    })
    await expect(post('cancelOrder')).rejects.toMatchObject({ message: 'fetch failed' })
    const kept = await post('getOrder')
    expect(kept.status).toBe(200)
    expect(await kept.text()).toContain('getOrderResponse')
    await expect(post('getOrder', { prefer: 'fault=reset' })).rejects.toMatchObject({ cause: { code: 'ECONNRESET' } })
  })

  it('gRPC: reset, empty and malformed end the call UNAVAILABLE; hang waits for the deadline', async () => {
    const spec = await loadFixture('helloworld')
    const snapshot = new TestSnapshot()
    snapshot.set([spec])
    const calls: { code: number; fault: string | null }[] = []
    const server = await startTestServer(snapshot, { onServed: (call) => calls.push({ code: call.code, fault: call.fault }) })
    try {
      const client = clientFor('helloworld', 'helloworld.Greeter', server.port)
      for (const fault of ['reset', 'empty', 'malformed'] as const) {
        snapshot.settings('/helloworld.Greeter/SayHello', { fault })
        const failure = await failureOf(unary(client, 'sayHello', { name: 'x' }))
        expect([failure.code, failure.details]).toEqual([14, `mockapi: simulated fault ${fault}`])
      }
      snapshot.settings('/helloworld.Greeter/SayHello', { fault: 'hang' })
      const hung = await failureOf(new Promise((resolve, reject) => {
        (client as unknown as Record<string, (...args: unknown[]) => void>).sayHello!({ name: 'x' }, { deadline: Date.now() + 300 }, (error: Error | null, reply: unknown) => (error ? reject(error) : resolve(reply)))
      }))
      expect(hung.code).toBe(4)
      await waitFor(() => calls.length === 4, 5000, 'the hung call to be recorded')
      expect(calls.map((c) => c.fault)).toEqual(['reset', 'empty', 'malformed', 'hang'])
      client.close()
    } finally {
      await server.close()
    }
  })
})
