import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { addEndpoint, deleteEndpoint } from '../../src/domain/endpoints.ts'
import { entryOf } from '../../src/domain/journal-view.ts'
import { createProject, deleteProject } from '../../src/domain/projects.ts'
import type { RecordedExchange } from '../../src/domain/recorded-exchange.ts'
import { createSubscription, deleteSubscription } from '../../src/domain/subscriptions.ts'
import type { RequestServed } from '../../src/events.ts'
import { startServer, type RunningServer, type StartOptions } from '../../src/server/start.ts'
import { mintToken } from '../../src/domain/auth.ts'
import { exportProject, toYaml } from '../../src/domain/export.ts'
import { parseProjectFile } from '../../src/domain/project-file.ts'
import { applyProjectFile } from '../../src/domain/apply.ts'
import { configureEndpoint } from '../../src/domain/endpoint-config.ts'
import { loadFaker } from '../../src/engine/generators.ts'
import { cleanup, cliWorkspace, databaseAt, exited, listenLocally, openStore, serveCli, spawnServe, startReceiver, tempDb, waitFor } from '../_helpers.ts'

type Handler = (req: IncomingMessage, res: ServerResponse) => void

interface Upstream {
  url: string
  /** Requests as the upstream saw them, in order. */
  seen: { method: string; url: string; rawHeaders: string[] }[]
  close(): Promise<void>
}

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
  await cleanup()
})

/** A real HTTP server on port 0 that the proxied requests reach; `routes` answer by path. */
async function upstream(routes: Record<string, Handler>): Promise<Upstream> {
  const seen: Upstream['seen'] = []
  const server = createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, rawHeaders: req.rawHeaders })
    const path = new URL(req.url!, 'http://x').pathname
    const handler = routes[path] ?? routes['*']
    if (handler) return handler(req, res)
    res.writeHead(404).end('upstream: no such path')
  })
  const { url, close } = await listenLocally(server)
  closers.push(close)
  return { url, seen, close }
}

/** Echoes what it got: method, URL, headers and body, as JSON. */
const echo: Handler = (req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'X-Upstream': 'yes' })
    res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }))
  })
}

/** A shop with one mocked endpoint, served with `proxy` in front of its own paths. */
async function proxied(proxy: StartOptions['proxy'], extra: Partial<StartOptions> = {}): Promise<{ server: RunningServer; dbPath: string; context: ReturnType<typeof openStore>['context'] }> {
  const dbPath = tempDb()
  const { context } = openStore(dbPath)
  createProject(context, { name: 'Shop', slug: 'shop' })
  addEndpoint(context, { project: 'shop', method: 'GET', path: '/api/mocked', body: '{"mocked":true}' })
  const server = await startServer({ dbPath, port: 0, host: '127.0.0.1', demo: false, ownPathsProject: 'shop', proxy, ...extra })
  closers.push(() => server.close())
  return { server, dbPath, context }
}

/** A JSON answer read whole, as the tests look into it. */
async function json(response: Response | Promise<Response>): Promise<any> {
  return (await response).json()
}

function header(rawHeaders: string[], name: string): string[] {
  const values: string[] = []
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === name) values.push(rawHeaders[i + 1]!)
  return values
}

/** A request over a socket with headers fetch would refuse to send (Connection, Keep-Alive, TE). */
function rawRequest(url: string, options: { method?: string; headers?: Record<string, string> }): Promise<{ status: number; rawHeaders: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode!, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

describe('serve --proxy', () => {
  it('forwards what no endpoint matches, method, path, query and body as sent; what matches is still mocked', async () => {
    const up = await upstream({ '*': echo })
    const { server } = await proxied({ target: `${up.url}/v2` })
    const answer = await fetch(`${server.url}/things/7?a=1&a=2&b=%20x`, { method: 'PATCH', body: '{"name":"n"}', headers: { 'Content-Type': 'application/json' } })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('x-upstream')).toBe('yes')
    const got = await json(answer)
    expect(got).toMatchObject({ method: 'PATCH', url: '/v2/things/7?a=1&a=2&b=%20x', body: '{"name":"n"}' })
    expect(got.headers['content-type']).toBe('application/json')
    // Under the project's /api/{slug}: the slug is the mock's, not the target's.
    expect((await json(fetch(`${server.url}/api/shop/things?q=1`))).url).toBe('/v2/things?q=1')
    // A matched endpoint answers as mocked, at its own paths and under the slug, and the target never hears of it.
    const before = up.seen.length
    expect(await json(fetch(`${server.url}/api/mocked`))).toEqual({ mocked: true })
    expect(await json(fetch(`${server.url}/api/shop/mocked`))).toEqual({ mocked: true })
    // A method the endpoint does not take is not matched: forwarded.
    expect((await json(fetch(`${server.url}/api/mocked`, { method: 'DELETE' }))).method).toBe('DELETE')
    expect(up.seen.length).toBe(before + 1)
  })

  it('rewrites Host, adds X-Forwarded-*, and drops hop-by-hop headers both ways', async () => {
    const up = await upstream({
      '/hop': (req, res) => {
        req.resume()
        res.writeHead(200, [
          ['Connection', 'X-Conn-Only, keep-alive'],
          ['X-Conn-Only', 'hidden'],
          ['Keep-Alive', 'timeout=77'],
          ['Proxy-Authenticate', 'Basic'],
          ['Set-Cookie', 'a=1'],
          ['Set-Cookie', 'b=2'],
          ['X-Kept', 'kept'],
        ].flat())
        res.end('ok')
      },
    })
    const { server } = await proxied({ target: up.url })
    const answer = await rawRequest(`${server.url}/hop`, {
      headers: { Connection: 'keep-alive, X-Mine', 'X-Mine': 'hop only', 'Keep-Alive': 'timeout=5', TE: 'trailers', 'Proxy-Authorization': 'Basic eDp5', 'X-End': 'to end', 'X-Forwarded-For': '10.0.0.1', Authorization: 'Bearer client' },
    })
    const sent = up.seen[0]!.rawHeaders
    expect(header(sent, 'host')).toEqual([new URL(up.url).host])
    expect(header(sent, 'x-mine')).toEqual([])
    expect(header(sent, 'te')).toEqual([])
    expect(header(sent, 'proxy-authorization')).toEqual([])
    expect(header(sent, 'keep-alive')).toEqual([])
    expect(header(sent, 'x-end')).toEqual(['to end'])
    expect(header(sent, 'authorization')).toEqual(['Bearer client'])
    expect(header(sent, 'x-forwarded-for')).toEqual(['10.0.0.1, 127.0.0.1'])
    expect(header(sent, 'x-forwarded-host')).toEqual([new URL(server.url).host])
    expect(header(sent, 'x-forwarded-proto')).toEqual(['http'])
    expect(answer.status).toBe(200)
    expect(answer.body).toBe('ok')
    expect(header(answer.rawHeaders, 'x-conn-only')).toEqual([])
    expect(header(answer.rawHeaders, 'proxy-authenticate')).toEqual([])
    // mockapi's own connection may say Keep-Alive; the target's never passes.
    expect(header(answer.rawHeaders, 'keep-alive').filter((v) => v === 'timeout=77')).toEqual([])
    expect(header(answer.rawHeaders, 'set-cookie')).toEqual(['a=1', 'b=2'])
    expect(header(answer.rawHeaders, 'x-kept')).toEqual(['kept'])
  })

  it('passes a redirect through instead of following it', async () => {
    const up = await upstream({
      '/old': (req, res) => {
        req.resume()
        res.writeHead(302, { Location: '/new?x=1' }).end()
      },
      '/new': echo,
    })
    const { server } = await proxied({ target: up.url })
    const answer = await fetch(`${server.url}/old`, { redirect: 'manual' })
    expect(answer.status).toBe(302)
    expect(answer.headers.get('location')).toBe('/new?x=1')
    expect(up.seen.map((s) => s.url)).toEqual(['/old'])
  })

  it('answers 502 PROXY_FAILED when the target is down, and 504 PROXY_TIMEOUT when it stays silent', async () => {
    const closed = await upstream({})
    await closed.close()
    const { server } = await proxied({ target: closed.url })
    const down = await fetch(`${server.url}/anything`)
    expect(down.status).toBe(502)
    const body = await json(down)
    expect(body.error.code).toBe('PROXY_FAILED')
    expect(body.error.message).toContain(closed.url)
    expect(body.error.message).toContain('ECONNREFUSED')

    const silent = await upstream({ '/slow': () => {} })
    const { server: slowServer } = await proxied({ target: silent.url, timeoutMs: 300 })
    const started = performance.now()
    const late = await fetch(`${slowServer.url}/slow`)
    expect(late.status).toBe(504)
    expect((await json(late)).error).toMatchObject({ code: 'PROXY_TIMEOUT', details: { timeoutMs: 300 } })
    expect(performance.now() - started).toBeGreaterThanOrEqual(290)
    // The mocks answer meanwhile, and afterwards.
    expect((await fetch(`${slowServer.url}/api/mocked`)).status).toBe(200)
  })

  it('streams a 50 MiB body both ways: the target gets the first bytes before the client has sent the rest, and the client the first before the target has sent the rest', async () => {
    const MiB = 1024 * 1024
    let uploadStarted!: () => void
    const uploadArrived = new Promise<void>((resolve) => (uploadStarted = resolve))
    let downloadRead!: () => void
    const downloadArrived = new Promise<void>((resolve) => (downloadRead = resolve))
    const up = await upstream({
      '/upload': (req, res) => {
        let size = 0
        req.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size >= MiB) uploadStarted()
        })
        req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ size })))
      },
      '/download': async (req, res) => {
        req.resume()
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' })
        const chunk = Buffer.alloc(MiB, 7)
        res.write(chunk)
        // The rest only once the client has read the first MiB through the proxy.
        await downloadArrived
        for (let i = 1; i < 50; i++) if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve))
        res.end()
      },
    })
    const { server } = await proxied({ target: up.url })
    let sentChunks = 0
    const upload = new ReadableStream<Uint8Array>({
      async pull(controller) {
        // The rest only once the target has the first MiB: a proxy that buffered whole would wait forever.
        if (sentChunks === 2) await uploadArrived
        if (sentChunks === 50) return controller.close()
        sentChunks += 1
        controller.enqueue(new Uint8Array(MiB).fill(3))
      },
    })
    const uploaded = await fetch(`${server.url}/upload`, { method: 'POST', body: upload, duplex: 'half' } as RequestInit)
    expect(await uploaded.json()).toEqual({ size: 50 * MiB })

    const downloaded = await fetch(`${server.url}/download`)
    let size = 0
    for await (const chunk of downloaded.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength
      if (size >= MiB) downloadRead()
    }
    expect(size).toBe(50 * MiB)
    const entries = server.journal!.records(server.project('shop').id)
    expect(entries.map((e) => [e.path, e.bodySize, e.answer?.bodySize])).toEqual([['/upload', 50 * MiB, '{"size":52428800}'.length], ['/download', 0, 50 * MiB]])
    expect(entries[1]!.answer!.body!.length).toBe(64 * 1024)
  })

  it('raises mock.request and mock.error for a 502 PROXY_FAILED and a 504 PROXY_TIMEOUT at the own paths, for the project its journal entry names', async () => {
    const receiver = await startReceiver()
    const dead = await upstream({})
    await dead.close()
    const silent = await upstream({ '/slow': () => {} })
    const failing = await proxied({ target: dead.url }, { retryDelaysMs: [50] })
    const slow = await proxied({ target: silent.url, timeoutMs: 300 }, { retryDelaysMs: [50] })
    for (const { server, context } of [failing, slow]) createSubscription(context, server.project('shop'), { name: 'all', targetUrl: receiver.url, events: ['mock.request', 'mock.error'] })
    expect((await fetch(`${failing.server.url}/orders?x=1`)).status).toBe(502)
    expect((await fetch(`${slow.server.url}/slow`)).status).toBe(504)
    const journalled = [failing, slow].map(({ server }) => server.journal!.records(server.project('shop').id).map((r) => [r.path, r.status, r.proxied]))
    expect(journalled).toEqual([[['/orders', 502, true]], [['/slow', 504, true]]])
    await waitFor(() => receiver.requests.length >= 4, 8000, 'four webhook deliveries')
    const events = receiver.requests.map((r) => JSON.parse(r.body) as { type: string; data: { projectId: number; path: string; status: number; proxied?: boolean } })
    const shop = failing.server.project('shop').id
    expect(slow.server.project('shop').id).toBe(shop)
    expect(events.map((e) => [e.type, e.data.projectId, e.data.path, e.data.status, e.data.proxied]).sort()).toEqual([
      ['mock.error', shop, '/orders', 502, true],
      ['mock.error', shop, '/slow', 504, true],
      ['mock.request', shop, '/orders', 502, true],
      ['mock.request', shop, '/slow', 504, true],
    ])
  })

  it('journals forwarded requests and raises mock.request / mock.error marked proxied', async () => {
    const receiver = await startReceiver()
    const up = await upstream({ '/ok': echo, '/bad': (req, res) => { req.resume(); res.writeHead(500, { 'Content-Type': 'text/plain' }).end('boom') } })
    const { server, context } = await proxied({ target: up.url }, { retryDelaysMs: [50] })
    createSubscription(context, server.project('shop'), { name: 'all', targetUrl: receiver.url, events: ['mock.request', 'mock.error'] })
    const served: RequestServed[] = []
    server.events.on('request.served', (s) => served.push(s))
    await (await fetch(`${server.url}/ok?x=1`, { method: 'POST', body: 'hello' })).text()
    await (await fetch(`${server.url}/bad`)).text()
    await (await fetch(`${server.url}/api/mocked`)).text()
    const records = server.journal!.records(server.project('shop').id)
    const entries = records.map((record) => entryOf(record, { mask: null }))
    expect(entries.map((e) => [e.method, e.path, e.status, e.proxied ?? false, e.matched])).toEqual([['POST', '/ok', 200, true, false], ['GET', '/bad', 500, true, false], ['GET', '/api/mocked', 200, false, true]])
    expect(entries[0]!.body).toBe('hello')
    expect(JSON.parse(entries[0]!.answer.body!).method).toBe('POST')
    expect(entries[1]!.answer.body).toBe('boom')
    expect(entries[0]!.nearMisses).toBeUndefined()
    expect(served.map((s) => s.proxied ?? false)).toEqual([true, true, false])
    await waitFor(() => receiver.requests.length >= 4, 8000, 'four webhook deliveries')
    const events = receiver.requests.map((r) => JSON.parse(r.body) as { type: string; data: { path: string; proxied?: boolean } })
    expect(events.map((e) => [e.type, e.data.path, e.data.proxied ?? false]).sort()).toEqual([
      ['mock.error', '/bad', true],
      ['mock.request', '/api/mocked', false],
      ['mock.request', '/bad', true],
      ['mock.request', '/ok', true],
    ])
  })

  it('answers a browser preflight itself, unforwarded and not marked proxied; a plain OPTIONS goes to the target', async () => {
    const seen: string[] = []
    const up = await upstream({ '/ok': (req, res) => { seen.push(req.method!); req.resume(); res.writeHead(200).end('up') } })
    const { server } = await proxied({ target: up.url })
    const served: RequestServed[] = []
    server.events.on('request.served', (s) => served.push(s))
    const preflight = await fetch(`${server.url}/ok`, { method: 'OPTIONS', headers: { Origin: 'http://app.test', 'Access-Control-Request-Method': 'POST' } })
    await preflight.arrayBuffer()
    expect(preflight.status).toBe(204)
    const plain = await fetch(`${server.url}/ok`, { method: 'OPTIONS' })
    expect(await plain.text()).toBe('up')
    expect(seen).toEqual(['OPTIONS'])
    expect(served.map((s) => s.proxied ?? false)).toEqual([false, true])
    const entries = server.journal!.records(server.project('shop').id).map((record) => entryOf(record, { mask: null }))
    expect(entries.map((e) => e.proxied ?? false)).toEqual([false, true])
  })

  it('hands the recorder each whole exchange after its answer, and survives a recorder that throws', async () => {
    const up = await upstream({ '/users/1': echo })
    const recorded: RecordedExchange[] = []
    const logged: string[] = []
    let calls = 0
    const { server } = await proxied({ target: up.url }, {
      log: (line) => logged.push(line),
      recorder: (_projectId, exchange) => {
        calls += 1
        if (calls === 2) throw new Error('disk full')
        recorded.push(exchange)
      },
    })
    const answer = await fetch(`${server.url}/api/shop/users/1?v=2`, { method: 'PUT', body: '{"a":1}', headers: { 'Content-Type': 'application/json' } })
    const text = await answer.text()
    await waitFor(() => recorded.length === 1, 2000, 'the recorder')
    expect(recorded[0]).toMatchObject({ method: 'PUT', path: '/users/1', query: '?v=2', status: 200 })
    expect(Buffer.from(recorded[0]!.requestBody!).toString()).toBe('{"a":1}')
    expect(Buffer.from(recorded[0]!.responseBody).toString()).toBe(text)
    expect(recorded[0]!.responseHeaders).toContainEqual(['X-Upstream', 'yes'])
    // The client gets mockapi's CORS header; the recording only what the target sent.
    expect(answer.headers.get('access-control-allow-origin')).toBe('*')
    expect(recorded[0]!.responseHeaders.map(([name]) => name.toLowerCase())).not.toContain('access-control-allow-origin')
    // The client's headers, not what the proxy added for the target.
    expect(recorded[0]!.requestHeaders.map(([name]) => name.toLowerCase())).not.toContain('x-forwarded-for')
    expect(recorded[0]!.requestHeaders.map(([name]) => name.toLowerCase())).toContain('content-type')
    await (await fetch(`${server.url}/users/1`)).text()
    await waitFor(() => logged.some((line) => line.includes('was not recorded: disk full')), 2000, 'the recorder\'s failure logged')
    expect((await fetch(`${server.url}/users/1`)).status).toBe(200)
    await waitFor(() => recorded.length === 2, 2000, 'the recorder again')
  })

  it('proxies a body over 32 MiB whole but does not record it, and the journal says so', async () => {
    const up = await upstream({
      '/big': (req, res) => {
        let size = 0
        req.on('data', (chunk: Buffer) => (size += chunk.length))
        req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ size })))
      },
    })
    const recorded: RecordedExchange[] = []
    const { server } = await proxied({ target: up.url }, { recorder: (_projectId, exchange) => recorded.push(exchange) })
    const size = 33 * 1024 * 1024
    expect(await json(fetch(`${server.url}/big`, { method: 'PUT', body: new Uint8Array(size) }))).toEqual({ size })
    const entry = await waitFor(() => server.journal!.records(server.project('shop').id)[0], 2000, 'the journal entry')
    expect(entry.note).toBe('proxied, not recorded: a body is larger than 32 MiB')
    expect(entry.bodySize).toBe(size)
    await (await fetch(`${server.url}/big`, { method: 'PUT', body: 'small' })).text()
    await waitFor(() => recorded.length === 1, 2000, 'the small one recorded')
    expect(recorded.map((e) => e.requestBody?.byteLength)).toEqual([5])
  })

  it('gives the client a broken answer when the target resets mid-body, says why in mock.error, and keeps serving', async () => {
    const receiver = await startReceiver()
    const up = await upstream({
      '/reset': (req, res) => {
        req.resume()
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '1000000' })
        res.write('x'.repeat(1000), () => res.socket!.destroy())
      },
    })
    const { server, context } = await proxied({ target: up.url }, { retryDelaysMs: [50] })
    createSubscription(context, server.project('shop'), { name: 'errors', targetUrl: receiver.url, events: ['mock.error'] })
    const answer = await fetch(`${server.url}/reset`)
    expect(answer.status).toBe(200)
    await expect(answer.text()).rejects.toThrow()
    const entry = await waitFor(() => server.journal!.records(server.project('shop').id)[0], 2000, 'the journal entry')
    expect(entry.note).toMatch(/broke off its answer after \d+ bytes/)
    await waitFor(() => receiver.requests.length >= 1, 8000, 'the mock.error delivery')
    const event = JSON.parse(receiver.requests[0]!.body) as { type: string; data: Record<string, unknown> }
    expect(event.type).toBe('mock.error')
    expect(event.data).toMatchObject({ path: '/reset', status: 200, proxied: true, note: entry.note })
    expect(event.data.note).toMatch(/^the proxy target broke off its answer after \d+ bytes$/)
    expect((await fetch(`${server.url}/api/mocked`)).status).toBe(200)
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
  })

  it('finishes a proxied request in flight while its project\'s subscription, an endpoint, and then the project are deleted', async () => {
    const receiver = await startReceiver()
    // Each request to /held waits at its own gate, and says it arrived.
    const gates: { arrived: Promise<void>; arrive: () => void; released: Promise<void>; release: () => void }[] = []
    const gate = (n: number) => {
      while (gates.length <= n) {
        const g = {} as (typeof gates)[number]
        g.arrived = new Promise<void>((resolve) => (g.arrive = resolve))
        g.released = new Promise<void>((resolve) => (g.release = resolve))
        gates.push(g)
      }
      return gates[n]!
    }
    let held = 0
    const up = await upstream({
      '/held': async (req, res) => {
        req.resume()
        const g = gate(held++)
        g.arrive()
        await g.released
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"late":true}')
      },
    })
    const { server, context } = await proxied({ target: up.url })
    const shop = server.project('shop')
    const subscription = createSubscription(context, shop, { name: 'all', targetUrl: receiver.url, events: ['mock.request'] })
    const pending = fetch(`${server.url}/held`)
    await gate(0).arrived
    deleteSubscription(context, subscription)
    deleteEndpoint(context, context.repos.endpoints.listByProject(shop.id)[0]!)
    gate(0).release()
    expect(await (await pending).json()).toEqual({ late: true })
    // The endpoint is gone: /api/mocked is forwarded now.
    expect((await fetch(`${server.url}/api/mocked`)).status).toBe(404)
    const heldAgain = fetch(`${server.url}/held`)
    await gate(1).arrived
    deleteProject(context, 'shop')
    gate(1).release()
    expect(await (await heldAgain).json()).toEqual({ late: true })
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
    expect(receiver.requests).toEqual([])
  })

  it('never forwards management paths', async () => {
    const up = await upstream({ '*': echo })
    const { server } = await proxied({ target: up.url })
    expect((await fetch(`${server.url}/api/projects`)).status).toBe(401)
    expect((await fetch(`${server.url}/api/projects/1/nothing-here`)).status).toBeGreaterThanOrEqual(400)
    expect((await fetch(`${server.url}/_mockapi/nothing`, { method: 'POST' })).status).toBe(404)
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
    expect((await fetch(`${server.url}/api/webhooks/nothing`, { method: 'POST' })).status).toBe(404)
    expect(up.seen).toEqual([])
  })

  it('refuses a target that is not plain http(s): file://, ftp://, credentials, a query', async () => {
    const dbPath = tempDb()
    for (const [target, reason] of [
      ['file:///etc/passwd', 'must use http or https, not file'],
      ['ftp://example.com', 'must use http or https, not ftp'],
      ['https://user:secret@example.com', 'must not carry credentials'],
      ['https://example.com/?key=1', 'must not have a query'],
      ['example.com', 'must be an absolute http(s) URL'],
    ] as const) {
      await expect(startServer({ dbPath, port: 0, host: '127.0.0.1', demo: false, proxy: { target } })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining(reason) })
    }
  })
})

describe('mockapi serve --proxy', () => {
  it('forwards through the CLI, says where in its banner, and refuses a bad target', async () => {
    const up = await upstream({ '*': echo })
    const dbPath = tempDb()
    const run = await serveCli(['serve', '--db', dbPath, '--port', '0', '--proxy', up.url, '--proxy-timeout', '2s'])
    expect(run.output()).toContain(`proxy            ${up.url}`)
    expect((await json(fetch(`${run.url}/somewhere?z=9`))).url).toBe('/somewhere?z=9')
    await waitFor(() => run.output().includes('/somewhere ⇢ proxy 200'), 2000, 'the log line')
    expect(await run.stop()).toBe(0)
    const refused = await serveCli(['serve', '--db', dbPath, '--port', '0', '--proxy', 'file:///etc/passwd']).catch((error: Error) => error.message)
    expect(refused).toContain('proxy target must use http or https, not file')
  })
})

describe('the mockapi binary with --proxy', () => {
  it('forwards over real sockets, lists the request as proxied, and stops cleanly', async () => {
    const up = await upstream({ '*': echo })
    const { cwd, db, ok } = cliWorkspace()
    await ok('project', 'create', 'Shop', '--slug', 'shop')
    const serve = await spawnServe(['--db', db, 'serve', '--port', '0', '--proxy', `${up.url}/v1`], { cwd })
    const got = await json(fetch(`${serve.url}/orders?x=1`, { method: 'POST', body: 'hello' }))
    expect(got).toMatchObject({ method: 'POST', url: '/v1/orders?x=1', body: 'hello' })
    expect(await ok('requests')).toMatch(/POST +\/orders\?x=1 +200 .*proxied/)
    serve.child.kill('SIGTERM')
    expect((await exited(serve.child)).code).toBe(0)
  })
})

describe('an endpoint set to proxy: true', () => {
  it('forwards what it matches at its path as written while the others are mocked; journalled as matched and proxied', async () => {
    const up = await upstream({ '*': echo })
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    createProject(context, { name: 'Shop', slug: 'shop' })
    addEndpoint(context, { project: 'shop', method: 'GET', path: '/api/orders/:id', body: '{"mocked":"order"}' })
    addEndpoint(context, { project: 'shop', method: 'GET', path: '/api/users', body: '{"mocked":"users"}' })
    const server = await startServer({ dbPath, port: 0, host: '127.0.0.1', demo: false, ownPathsProject: 'shop', proxy: { target: `${up.url}/real` } })
    closers.push(() => server.close())
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}`, 'Content-Type': 'application/json' }
    const shop = server.project('shop')
    const orders = context.repos.endpoints.listByProject(shop.id).find((e) => e.path === '/api/orders/:id')!
    const patched = await fetch(`${server.url}/api/projects/${shop.id}/endpoints/${orders.id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ proxy: true }) })
    expect(patched.status).toBe(200)
    expect((await json(patched)).proxy).toBe(true)
    // Under the slug and at the own paths alike: the endpoint's own path goes to the target.
    expect((await json(fetch(`${server.url}/api/shop/orders/7?full=1`))).url).toBe('/real/api/orders/7?full=1')
    expect((await json(fetch(`${server.url}/api/orders/8`))).url).toBe('/real/api/orders/8')
    expect(await json(fetch(`${server.url}/api/users`))).toEqual({ mocked: 'users' })
    const entries = server.journal!.records(shop.id).map((record) => entryOf(record, { mask: null }))
    expect(entries.map((e) => [e.path, e.endpointId, e.matched, e.proxied ?? false])).toEqual([
      ['/api/shop/orders/7', orders.id, true, true],
      ['/api/orders/8', orders.id, true, true],
      ['/api/users', expect.any(Number), true, false],
    ])
    // A non-boolean is refused; false answers here again.
    const refused = await fetch(`${server.url}/api/projects/${shop.id}/endpoints/${orders.id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ proxy: 'yes' }) })
    expect(refused.status).toBe(400)
    expect((await json(refused)).error.message).toContain('"proxy" must be true')
    await fetch(`${server.url}/api/projects/${shop.id}/endpoints/${orders.id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ proxy: false }) })
    expect(await json(fetch(`${server.url}/api/orders/9`))).toEqual({ mocked: 'order' })
  })

  it('answers 502 PROXY_FAILED saying why when its project has no proxy target', async () => {
    const { server, context } = await proxied(undefined)
    const endpoint = context.repos.endpoints.listByProject(server.project('shop').id)[0]!
    configureEndpoint(context, endpoint, { proxy: true }, await loadFaker())
    const answer = await fetch(`${server.url}/api/mocked`)
    expect(answer.status).toBe(502)
    const body = await json(answer)
    expect(body.error).toMatchObject({ code: 'PROXY_FAILED', message: expect.stringContaining('GET /api/mocked is set to proxy, but project shop has no proxy target') })
    expect(server.journal!.records(server.project('shop').id)[0]).toMatchObject({ status: 502, endpointId: endpoint.id, matched: true })
  })

  it('is set by endpoint set --proxy on|off, shown, and goes through export and apply', async () => {
    const { ok, run, db } = cliWorkspace()
    await ok('project', 'create', 'Shop', '--slug', 'shop')
    await ok('add-endpoint', 'GET', '/api/orders', '--body', '[]')
    expect(JSON.parse(await ok('endpoint', 'set', 'GET', '/api/orders', '--proxy', 'on', '--json')).proxy).toBe(true)
    expect(await ok('endpoint', 'show', 'GET', '/api/orders')).toMatch(/proxy +on/)
    const refused = await run('endpoint', 'set', 'GET', '/api/orders', '--proxy', 'maybe')
    expect(refused.stderr).toContain('--proxy "maybe" must be on or off')
    const { context } = openStore(db)
    const file = toYaml(exportProject(context, context.repos.projects.bySlug('shop')!))
    expect(file).toMatch(/- method: GET\n +path: \/api\/orders\n +body: \[\]\n +proxy: true\n/)
    const other = tempDb()
    const { context: elsewhere } = openStore(other)
    applyProjectFile(elsewhere, parseProjectFile(file, 'shop.yaml'), await loadFaker(), { prune: true })
    expect(elsewhere.repos.endpoints.listByProject(elsewhere.repos.projects.bySlug('shop')!.id)[0]!.proxy).toBe(true)
    await ok('endpoint', 'set', 'GET', '/api/orders', '--proxy', 'off')
    expect(await ok('endpoint', 'show', 'GET', '/api/orders')).not.toMatch(/proxy/)
  })
})

describe('a project\'s proxy setting', () => {
  it('is set through the management API while serving: its /api/{slug}/ misses go to its target with its headers, paths rewritten', async () => {
    const up = await upstream({ '*': echo })
    const { server, context } = await proxied(undefined)
    createProject(context, { name: 'Other', slug: 'other' })
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}`, 'Content-Type': 'application/json' }
    const other = server.project('other')
    // Not proxied yet: the mock's own 404.
    expect((await fetch(`${server.url}/api/other/v1/users`)).status).toBe(404)
    const patched = await fetch(`${server.url}/api/projects/${other.id}`, {
      method: 'PATCH',
      headers: auth,
      body: JSON.stringify({ proxy: { target: `${up.url}/base`, headers: { 'X-Api-Key': 'real-key' }, pathRewrite: { '^/v1/(.*)': '/v2/$1', '^/old$': '/new' } } }),
    })
    expect(patched.status).toBe(200)
    expect((await json(patched)).proxy).toEqual({ target: `${up.url}/base`, headers: { 'X-Api-Key': 'real-key' }, pathRewrite: { '^/v1/(.*)': '/v2/$1', '^/old$': '/new' } })
    const got = await json(fetch(`${server.url}/api/other/v1/users?x=1`, { headers: { 'x-api-key': 'client-key' } }))
    expect(got.url).toBe('/base/v2/users?x=1')
    expect(got.headers['x-api-key']).toBe('real-key')
    expect((await json(fetch(`${server.url}/api/other/old`))).url).toBe('/base/new')
    expect((await json(fetch(`${server.url}/api/other/else`))).url).toBe('/base/else')
    // The project at its own paths has no proxy: its misses stay 404, and the other's setting is not its.
    expect((await fetch(`${server.url}/nowhere`)).status).toBe(404)
    // Off again: 404.
    const off = await fetch(`${server.url}/api/projects/${other.id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ proxy: null }) })
    expect((await json(off)).proxy).toBeNull()
    expect((await fetch(`${server.url}/api/other/v1/users`)).status).toBe(404)
  })

  it('refuses a target that is not http(s), a pattern RE2 cannot run, a bad header name, a header of the connection (Host, hop-by-hop)', async () => {
    const { server, context } = await proxied(undefined)
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}`, 'Content-Type': 'application/json' }
    const shop = server.project('shop')
    for (const [proxy, message] of [
      [{ target: 'file:///etc/passwd' }, 'proxy.target must use http or https, not file'],
      [{ target: 'http://u:p@example.com' }, 'proxy.target must not carry credentials'],
      [{ target: 'http://example.com', pathRewrite: { '^/(?=a)': '/' } }, 'proxy.pathRewrite pattern'],
      [{ target: 'http://example.com', headers: { 'bad name': 'x' } }, 'is not a valid HTTP header name'],
      [{ target: 'http://example.com', headers: { Host: 'evil.test' } }, '"Host" belongs to the connection'],
      [{ target: 'http://example.com', headers: { Connection: 'close, X-A' } }, '"Connection" belongs to the connection'],
      [{ target: 'http://example.com', headers: { 'Transfer-Encoding': 'chunked' } }, '"Transfer-Encoding" belongs to the connection'],
      [{ target: 'http://example.com', other: 1 }, 'proxy.other is not a proxy setting'],
      ['http://example.com', 'proxy must be an object'],
    ] as const) {
      const refused = await fetch(`${server.url}/api/projects/${shop.id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ proxy }) })
      expect(refused.status).toBe(400)
      const body = await json(refused)
      expect(body.error.code).toBe('INVALID_INPUT')
      expect(body.error.message).toContain(message)
    }
    expect(server.project('shop').proxy).toBeNull()
  })

  it('is set and shown by the CLI, and goes through export and apply', async () => {
    const { ok, run, db } = cliWorkspace()
    await ok('project', 'create', 'Shop', '--slug', 'shop')
    expect(await ok('project', 'set', 'shop', '--proxy', 'https://api.example.com/v1', '--proxy-header', 'X-Api-Key: k-1', '--proxy-path-rewrite', '^/old=/new')).toContain('proxy https://api.example.com/v1; headers X-Api-Key; paths ^/old → /new')
    expect(await ok('project', 'show', 'shop')).toMatch(/proxy +https:\/\/api\.example\.com\/v1; headers X-Api-Key; paths \^\/old → \/new/)
    // Headers alone replace the list and keep the target.
    expect(await ok('project', 'set', 'shop', '--proxy-header', 'Authorization:Bearer real', '--json')).toContain('"Authorization": "Bearer real"')
    const refused = await run('project', 'set', 'shop', '--proxy', 'ftp://example.com')
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('must use http or https, not ftp')
    const { context } = openStore(db)
    const file = toYaml(exportProject(context, context.repos.projects.bySlug('shop')!))
    expect(file).toContain('proxy:\n  target: https://api.example.com/v1\n  headers:\n    Authorization: Bearer real\n  pathRewrite:\n    ^/old: /new\n')
    const parsed = parseProjectFile(file, 'shop.yaml')
    expect(parsed.proxy).toEqual({ target: 'https://api.example.com/v1', headers: { Authorization: 'Bearer real' }, pathRewrite: { '^/old': '/new' } })
    expect(() => parseProjectFile(file.replace('https://api.example.com/v1', 'file:///etc'), 'shop.yaml')).toThrow(/shop\.yaml, line \d+.*must use http or https, not file/)
    await ok('project', 'set', 'shop', '--proxy', 'off')
    expect(await ok('project', 'show', 'shop')).toMatch(/proxy +off/)
  })
})

describe('migration 0230', () => {
  it('gives an older database\'s projects no proxy and its endpoints proxy: false, answering as before', async () => {
    const { path, old } = databaseAt(220)
    old.exec(`
      INSERT INTO projects (id, name, slug, share_token, is_default, created_at) VALUES (1, 'Shop', 'shop', 'share', 1, '2024-01-01');
      INSERT INTO endpoints (project_id, method, path, kind, status, body, created_at) VALUES (1, 'GET', '/api/stats', 'custom', 200, '{"n":1}', '2024-01-01');
    `)
    old.close()
    const { context } = openStore(path)
    const shop = context.repos.projects.bySlug('shop')!
    expect(shop.proxy).toBeNull()
    expect(context.repos.endpoints.listByProject(shop.id).map((e) => e.proxy)).toEqual([false])
    const server = await startServer({ dbPath: path, port: 0, host: '127.0.0.1', demo: false })
    closers.push(() => server.close())
    expect(await json(fetch(`${server.url}/api/shop/stats`))).toEqual({ n: 1 })
    expect((await fetch(`${server.url}/api/shop/other`)).status).toBe(404)
  })
})
