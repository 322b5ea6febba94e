import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Webhook } from 'standardwebhooks'
import { mintToken } from '../../src/domain/auth.ts'
import { createProject } from '../../src/domain/projects.ts'
import type { RequestServed } from '../../src/events.ts'
import type { RunningServer } from '../../src/server/start.ts'
import { resolveCallbackUrl, type CallbackRuntime } from '../../src/kinds/openapi/callbacks.ts'
import { SPEC } from './_callbacks-spec.ts'
import { cleanup, expectAliveAndIntact, openStore, send, serve, startReceiver, tempDb, waitFor } from '../_helpers.ts'

const RETRY = [60, 60]

let server: RunningServer
let url: string
let headers: Record<string, string>
let dbPath: string
let seq = 0

beforeAll(async () => {
  dbPath = tempDb()
  const { context } = openStore(dbPath)
  headers = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 600_000 })}` }
  server = await serve(dbPath, { retryDelaysMs: RETRY, deliveryTimeoutMs: 2000 })
  url = server.url
})
afterAll(cleanup)

/** A fresh project with the spec imported, so each test reads only its own deliveries. */
async function importedProject(): Promise<{ id: number; slug: string }> {
  const { context } = openStore(dbPath)
  seq += 1
  const project = createProject(context, { name: `C${seq}`, slug: `c${seq}` })
  const imported = await send(`${url}/api/projects/${project.id}/imports`, { method: 'POST', body: { text: JSON.stringify(SPEC), filename: 'callbacks.json' }, headers })
  expect(imported.status, JSON.stringify(imported.json)).toBe(201)
  return project
}

/** Resolves once the server answered a request to `path` and the event recorder has had its turn. */
function answered(path: string): Promise<RequestServed> {
  return new Promise((resolve) => {
    const listener = (served: RequestServed) => {
      if (served.path !== path) return
      server.events.off('request.served', listener)
      setImmediate(() => resolve(served))
    }
    server.events.on('request.served', listener)
  })
}

async function subscribe(slug: string, body: unknown, query = ''): Promise<{ status: number; served: RequestServed }> {
  const path = `/api/${slug}/subscribe`
  const served = answered(path)
  const response = await send(`${url}${path}${query}`, { method: 'POST', body })
  return { status: response.status, served: await served }
}

async function callbackDeliveries(projectId: number) {
  const list = await send(`${url}/api/projects/${projectId}/webhooks?deliveries=true`, { headers })
  expect(list.status).toBe(200)
  return list.json as { id: number; enabled: boolean; kind: string; name: string; targetUrl: string; events: string[]; secret: string; deliveries: { eventType: string; attempt: number; statusCode: number | null; succeeded: boolean; error: string | null }[] }[]
}

async function journalNote(projectId: number): Promise<string | null> {
  const list = await send(`${url}/api/projects/${projectId}/requests?limit=1`, { headers })
  return (list.json as { note: string | null }[])[0]!.note
}

describe('OpenAPI callbacks through the delivery queue', () => {
  it('sends each callback to the URL its expression names, with a body generated from its schema and its documented headers', async () => {
    const project = await importedProject()
    const receiver = await startReceiver()
    const base = receiver.url.replace(/\/hook$/, '')
    const { status } = await subscribe(project.slug, { callbackUrl: `${base}/events`, id: 'x' }, `?cb=${encodeURIComponent(base)}`)
    expect(status).toBe(201)
    await waitFor(() => receiver.requests.length >= 2, 5000, 'two callbacks')
    const events = receiver.requests.find((request) => request.body.includes('event'))!
    const done = receiver.requests.find((request) => request.body.includes('done'))!
    expect(JSON.parse(events.body)).toEqual({ event: 'created', count: 3 })
    expect(events.headers['content-type']).toBe('application/json')
    expect(events.headers['x-event-kind']).toBe('created')
    expect(events.headers['user-agent']).toBe('mockapi-callbacks')
    expect(events.headers['x-mockapi-delivery']).toMatch(/^\d+$/)
    expect(JSON.parse(done.body)).toEqual({ done: true })
    const subscriptions = await waitFor(async () => {
      const list = await callbackDeliveries(project.id)
      return list[0]?.deliveries.length === 2 ? list : null
    }, 5000, 'two logged attempts')
    expect(subscriptions).toHaveLength(1)
    expect(subscriptions[0]).toMatchObject({ kind: 'callbacks', name: 'openapi-callbacks', events: [] })
    expect(subscriptions[0]!.deliveries.every((d) => d.eventType === 'openapi.callback' && d.succeeded)).toBe(true)
    // Signed with the callbacks subscription's secret, as webhook deliveries are.
    expect(new Webhook(subscriptions[0]!.secret).verify(events.body, events.headers as Record<string, string>)).toEqual({ event: 'created', count: 3 })
    console.log('callback attempts:', JSON.stringify(subscriptions[0]!.deliveries.map((d) => [d.attempt, d.statusCode, d.succeeded])))
  })

  it('sends the PUT callback to a URL built from the query and the answer body', async () => {
    const project = await importedProject()
    const receiver = await startReceiver()
    const base = receiver.url.replace(/\/hook$/, '')
    const { createServer } = await import('node:http')
    const paths: string[] = []
    const target = createServer((req, res) => {
      paths.push(`${req.method} ${req.url}`)
      req.resume()
      req.on('end', () => res.writeHead(204).end())
    })
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
    try {
      const cb = `http://127.0.0.1:${(target.address() as { port: number }).port}/hooks`
      await subscribe(project.slug, { callbackUrl: `${base}/events` }, `?cb=${encodeURIComponent(cb)}`)
      await waitFor(() => paths.length >= 1, 5000, 'the PUT callback')
      expect(paths).toEqual(['PUT /hooks/done/sub-7'])
    } finally {
      await new Promise<void>((resolve) => target.close(() => resolve()))
    }
  })

  it('retries a callback answered 500, through the same queue and log as webhooks', async () => {
    const project = await importedProject()
    const receiver = await startReceiver((n) => (n === 1 ? 500 : 200))
    await subscribe(project.slug, { callbackUrl: receiver.url })
    await waitFor(() => receiver.requests.length >= 2, 5000, 'a retry')
    expect(receiver.requests[1]!.body).toBe(receiver.requests[0]!.body)
    const [subscription] = await waitFor(async () => {
      const list = await callbackDeliveries(project.id)
      return list[0]?.deliveries.length === 2 ? list : null
    }, 5000, 'two logged attempts')
    const log = subscription!.deliveries.map((d) => [d.attempt, d.statusCode, d.succeeded, d.error])
    console.log('retried callback log (newest first):', JSON.stringify(log))
    expect(log).toEqual([[2, 200, true, null], [1, 500, false, 'HTTP 500']])
  })

  it('stops a callback answered 410 without turning the callbacks subscription off', async () => {
    const project = await importedProject()
    const gone = await startReceiver(() => 410)
    await subscribe(project.slug, { callbackUrl: gone.url })
    const [subscription] = await waitFor(async () => {
      const list = await callbackDeliveries(project.id)
      return list[0]?.deliveries.length === 1 ? list : null
    }, 5000, 'the 410 logged')
    expect(subscription!.deliveries[0]).toMatchObject({ attempt: 1, statusCode: 410, succeeded: false, error: 'HTTP 410 Gone: this callback is not sent again' })
    const receiver = await startReceiver()
    await subscribe(project.slug, { callbackUrl: receiver.url })
    await waitFor(() => receiver.requests.length >= 1, 5000, 'the next callback')
    const [after] = await callbackDeliveries(project.id)
    expect(after).toMatchObject({ id: subscription!.id, enabled: true })
    expect(gone.requests).toHaveLength(1)
  })

  it('logs a callback whose URL expression resolves to nothing in the journal note, and sends nothing for it', async () => {
    const project = await importedProject()
    const receiver = await startReceiver()
    // No `cb` in the query: onDone cannot be sent; onEvent still is.
    const { served } = await subscribe(project.slug, { callbackUrl: receiver.url })
    expect(served.callbacks?.map((c) => c.name)).toEqual(['onEvent {$request.body#/callbackUrl}'])
    const note = await journalNote(project.id)
    console.log('journal note:', note)
    expect(note).toBe('callback onDone {$request.query.cb}/done/{$response.body#/id} not sent: $request.query.cb resolves to nothing')
    await waitFor(() => receiver.requests.length >= 1, 5000, 'the onEvent callback')
  })

  it('refuses a hostile callback URL (another scheme, credentials, unparsable) and queues nothing for it', async () => {
    const project = await importedProject()
    for (const [hostile, reason] of [
      ['file:///etc/passwd', 'must use http or https, not file'],
      ['http://user:secret@127.0.0.1:9/x', 'must not carry credentials'],
      ['not a url', 'must be an absolute http(s) URL, got "not a url"'],
    ] as const) {
      const { status, served } = await subscribe(project.slug, { callbackUrl: hostile })
      expect(status).toBe(201)
      expect(served.callbacks).toBeUndefined()
      const note = await journalNote(project.id)
      expect(note).toContain(`callback onEvent {$request.body#/callbackUrl} not sent: URL ${reason}`)
    }
    expect(await callbackDeliveries(project.id)).toEqual([])
  })

  it('sends no callback after an error answer', async () => {
    const project = await importedProject()
    const receiver = await startReceiver()
    const path = `/api/${project.slug}/subscribe`
    const served = answered(path)
    const response = await send(`${url}${path}`, { method: 'POST', body: { callbackUrl: receiver.url }, headers: { Prefer: 'code=400' } })
    expect(response.status).toBe(400)
    expect((await served).callbacks).toBeUndefined()
    expect(await callbackDeliveries(project.id)).toEqual([])
  })

  it('sends no callback for a HEAD answered by the GET that declares it; the GET itself sends it', async () => {
    const { context } = openStore(dbPath)
    seq += 1
    const project = createProject(context, { name: `C${seq}`, slug: `c${seq}` })
    const spec = {
      openapi: '3.0.3',
      info: { title: 'Poll', version: '1' },
      paths: {
        '/poll': {
          get: {
            parameters: [{ name: 'cb', in: 'query', schema: { type: 'string' } }],
            responses: { '200': { description: 'ok', content: { 'application/json': { example: { polled: true } } } } },
            callbacks: { polled: { '{$request.query.cb}': { post: { requestBody: { content: { 'application/json': { example: { seen: 1 } } } }, responses: { '200': { description: 'ok' } } } } } },
          },
        },
      },
    }
    expect((await send(`${url}/api/projects/${project.id}/imports`, { method: 'POST', body: { text: JSON.stringify(spec), filename: 'poll.json' }, headers })).status).toBe(201)
    const receiver = await startReceiver()
    const path = `/api/${project.slug}/poll`
    const query = `?cb=${encodeURIComponent(receiver.url)}`
    const viaHead = answered(path)
    expect((await send(`${url}${path}${query}`, { method: 'HEAD', overSocket: true })).status).toBe(200)
    expect((await viaHead).callbacks).toBeUndefined()
    expect(await callbackDeliveries(project.id)).toEqual([])
    const viaGet = answered(path)
    expect((await send(`${url}${path}${query}`)).status).toBe(200)
    expect((await viaGet).callbacks?.map((c) => c.name)).toEqual(['polled {$request.query.cb}'])
    await waitFor(() => receiver.requests.length >= 1, 5000, 'the GET\'s callback')
    expect(receiver.requests.map((r) => r.body)).toEqual(['{"seen":1}'])
  })

  it('lists the callbacks subscription with the webhooks, lets it be turned off (and nothing else: the journal note says a callback was not sent), and leaves it out of exports', async () => {
    const project = await importedProject()
    const receiver = await startReceiver()
    await subscribe(project.slug, { callbackUrl: receiver.url })
    await waitFor(() => receiver.requests.length >= 1, 5000, 'the first callback')
    const [callbacks] = await callbackDeliveries(project.id)
    const patch = (body: unknown) => send(`${url}/api/projects/${project.id}/webhooks/${callbacks!.id}`, { method: 'PATCH', body, headers })
    const refused = await patch({ targetUrl: 'http://127.0.0.1:9/elsewhere' })
    expect(refused.status).toBe(409)
    expect(refused.json.error.message).toContain('only "enabled" can change, not targetUrl')
    expect((await patch({ enabled: false })).status).toBe(200)
    // Off: the callback is not sent, and the request's journal note says why and how to turn it on.
    const { served } = await subscribe(project.slug, { callbackUrl: receiver.url })
    expect(served.callbacks).toBeUndefined()
    expect(served.note).toContain(`1 callback not sent: callbacks are off for this project (mockapi webhooks toggle ${callbacks!.id} turns them on)`)
    const { context } = openStore(dbPath)
    const queued = context.db.prepare('SELECT count(*) FROM deliveries WHERE subscription_id = ?').pluck().get(callbacks!.id)
    expect(queued).toBe(1)
    const { exportProject } = await import('../../src/domain/export.ts')
    const exported = exportProject(context, context.repos.projects.byId(project.id)!)
    expect(exported.webhooks).toEqual([])
  })

  it('keeps serving when the import is deleted while its callback is queued, and still delivers it', async () => {
    const project = await importedProject()
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => { release = resolve })
    let attempts = 0
    const { createServer } = await import('node:http')
    const receiver = createServer((req, res) => {
      attempts += 1
      req.resume()
      // The first attempt fails once the import is gone: the retry is queued with nothing of the import left.
      if (attempts === 1) void held.then(() => res.writeHead(503).end())
      else res.writeHead(200).end()
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    try {
      const target = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/cb`
      await subscribe(project.slug, { callbackUrl: target })
      await waitFor(() => attempts >= 1, 5000, 'the first attempt')
      const list = await send(`${url}/api/projects/${project.id}/endpoints`, { headers })
      for (const endpoint of list.json as { id: number }[]) {
        expect((await send(`${url}/api/projects/${project.id}/endpoints/${endpoint.id}`, { method: 'DELETE', headers })).status).toBe(204)
      }
      const { context } = openStore(dbPath)
      expect(context.repos.specs.listByProject(project.id)).toEqual([])
      release()
      await waitFor(() => attempts >= 2, 5000, 'the retry after the import was deleted')
      const [subscription] = await waitFor(async () => {
        const logged = await callbackDeliveries(project.id)
        return logged[0]?.deliveries.length === 2 ? logged : null
      }, 5000, 'two logged attempts')
      expect(subscription!.deliveries.map((d) => [d.attempt, d.statusCode])).toEqual([[2, 200], [1, 503]])
      expect((await send(`${url}/api/${project.slug}/subscribe`, { method: 'POST', body: { callbackUrl: target } })).status).toBe(404)
      await expectAliveAndIntact(url, dbPath)
    } finally {
      receiver.closeAllConnections()
      await new Promise<void>((resolve) => receiver.close(() => resolve()))
    }
  })
})

describe('callback URL expressions', () => {
  const runtime: CallbackRuntime = {
    url: new URL('http://127.0.0.1:3000/api/shop/orders/42?cb=http%3A%2F%2Fq.test%2Fhook'),
    method: 'POST',
    params: { orderId: '42' },
    query: new URLSearchParams('cb=http%3A%2F%2Fq.test%2Fhook'),
    headers: new Headers({ 'X-Cb': 'http://h.test/cb' }),
    body: { callbackUrl: 'http://b.test/in', id: 'ord-1', nested: { 'a/b': 'x' }, count: 7, list: [1] },
    status: 201,
    responseHeaders: { Location: 'http://r.test/loc' },
    responseBody: '{"id":"sub-9"}',
  }
  const url = (key: string) => resolveCallbackUrl(key, runtime)

  it.each([
    ['{$request.body#/callbackUrl}', 'http://b.test/in'],
    ['$request.body#/callbackUrl', 'http://b.test/in'],
    ['{$request.query.cb}', 'http://q.test/hook'],
    ['{$request.header.X-Cb}', 'http://h.test/cb'],
    ['{$request.header.x-cb}/again', 'http://h.test/cb/again'],
    ['{$response.body#/id}', 'sub-9'],
    ['{$response.header.location}', 'http://r.test/loc'],
    ['{$url}', 'http://127.0.0.1:3000/api/shop/orders/42?cb=http%3A%2F%2Fq.test%2Fhook'],
    ['http://x.test/{$method}/{$statusCode}', 'http://x.test/POST/201'],
    ['http://x/{$request.body#/id}/done', 'http://x/ord-1/done'],
    ['http://x/{$request.path.orderId}/{$request.body#/count}', 'http://x/42/7'],
    ['http://x/{$request.body#/nested/a~1b}', 'http://x/x'],
  ])('%s → %s', (key, expected) => {
    expect(url(key)).toEqual({ url: expected })
  })

  it.each([
    ['{$request.body#/missing}', '$request.body#/missing resolves to nothing'],
    ['{$request.body#/nested}', '$request.body#/nested resolves to nothing'],
    ['{$request.query.none}', '$request.query.none resolves to nothing'],
    ['{$request.header.X-None}', '$request.header.X-None resolves to nothing'],
    ['{$request.cookie.a}', '$request.cookie.a resolves to nothing'],
  ])('%s resolves to nothing', (key, problem) => {
    expect(url(key)).toEqual({ problem })
  })
})
