import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { storeOperations as importDefinition } from '../../src/domain/import-operations.ts'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { eventStream, formatEvent, type Send } from '../../src/server/sse.ts'
import type { RunningServer } from '../../src/server/start.ts'
import { cleanup, openStore, send, serve, startReceiver, tempDb, waitFor } from '../_helpers.ts'
import { clientFor, loadFixture, unary } from '../grpc/_helpers.ts'
import { openEvents } from './_events.ts'

let server: RunningServer
let api: string
let token: string
let otherToken: string
let auth: Record<string, string>

beforeAll(async () => {
  const dbPath = tempDb()
  const { context } = openStore(dbPath)
  const shop = createProject(context, { name: 'Shop', slug: 'shop' })
  createProject(context, { name: 'Other', slug: 'other' })
  createResource(context, { project: 'shop', path: '/api/posts' })
  createResource(context, { project: 'other', path: '/api/notes' })
  addEndpoint(context, { project: 'shop', method: 'POST', path: '/api/echoes', body: '{"ok":true}' })
  importDefinition(context, shop, { format: 'graphql', title: 'hello', version: 'SDL', source: 'hello.graphql', document: 'type Query { hello: String }', operations: ['/graphql#Query.hello'] })
  token = await mintToken(context, { expiresInMs: 60_000 })
  otherToken = await mintToken(context, { expiresInMs: 60_000, projectId: 2 })
  auth = { Authorization: `Bearer ${token}` }
  server = await serve(dbPath, { retryDelaysMs: [50] })
  api = `${server.url}/api/projects`
})
afterAll(cleanup)

describe('GET /api/projects/{id}/requests', () => {
  it('keeps each mock request from the start, with headers and bodies, newest first', async () => {
    // On from the start: nothing had to ask for it first.
    const first = await send(`${server.url}/api/shop/posts`)
    const before = await send(`${api}/1/requests`, { headers: auth })
    expect(before.status).toBe(200)
    expect(before.headers.get('content-type')).toMatch(/^application\/json/)
    expect(before.json).toHaveLength(1)
    expect(before.json[0]).toMatchObject({ method: 'GET', path: '/api/shop/posts', status: 200, matched: true, answer: { body: first.text } })
    expect((await send(`${api}/1/requests`, { method: 'DELETE', headers: auth })).status).toBe(204)

    const created = await send(`${server.url}/api/shop/posts?x=1&tag=a&tag=b`, { method: 'POST', body: { title: 'Hi' }, headers: { 'x-trace': 't1' } })
    expect(created.status).toBe(201)
    const listed = await send(`${server.url}/api/shop/posts`)
    const journal = await send(`${api}/1/requests`, { headers: auth })
    expect(journal.headers.get('x-total-count')).toBe('2')
    const [list, post] = journal.json
    expect(list.id).toBeGreaterThan(post.id)
    expect(post).toMatchObject({
      projectId: 1,
      protocol: 'http',
      method: 'POST',
      path: '/api/shop/posts',
      query: { x: '1', tag: ['a', 'b'] },
      status: 201,
      matched: true,
      endpointId: expect.any(Number),
      response: null,
      body: '{"title":"Hi"}',
      bodySize: 14,
      bodyCut: false,
      answer: { body: created.text },
    })
    expect(Object.keys(post).sort()).toEqual(['answer', 'body', 'bodyCut', 'bodySize', 'cookies', 'durationMs', 'endpointId', 'headers', 'id', 'matched', 'method', 'path', 'projectId', 'protocol', 'query', 'response', 'status', 'time'])
    expect(Date.parse(post.time)).not.toBeNaN()
    expect(typeof post.durationMs).toBe('number')
    expect(post.headers['x-trace']).toBe('t1')
    expect(post.headers['content-type']).toBe('application/json')
    expect(post.answer.headers['content-type']).toMatch(/^application\/json/)
    expect(list).toMatchObject({ method: 'GET', query: {}, status: 200, body: null, bodySize: 0, answer: { body: listed.text } })
    expect(list.answer.headers['x-total-count']).toBe('1')
  })

  it('keeps unmatched paths, errors and bodies the answer never read; cuts bodies at 64 KiB', async () => {
    await send(`${api}/1/requests`, { method: 'DELETE', headers: auth })
    await send(`${server.url}/api/shop/nothing-here`)
    await send(`${server.url}/api/shop/posts`, { method: 'POST', body: { never: 'read' }, headers: { Prefer: 'code=503' } })
    const big = JSON.stringify({ text: 'x'.repeat(100_000) })
    await send(`${server.url}/api/shop/echoes`, { method: 'POST', body: big, headers: { 'content-type': 'application/json' } })
    const [echo, simulated, unmatched] = (await send(`${api}/1/requests`, { headers: auth })).json
    expect(unmatched).toMatchObject({ path: '/api/shop/nothing-here', status: 404, endpointId: null, matched: false })
    expect(JSON.parse(unmatched.answer.body).error.code).toBe('ROUTE_NOT_MATCHED')
    expect(simulated).toMatchObject({ status: 503, body: '{"never":"read"}', matched: true })
    expect(echo.body).toHaveLength(64 * 1024)
    expect(echo).toMatchObject({ bodySize: big.length, bodyCut: true })
    expect(big.startsWith(echo.body)).toBe(true)
    expect(echo.answer.body).toBe('{"ok":true}')
  })

  it('lists the newest 100 unless a limit says otherwise, apart from other projects', async () => {
    await send(`${api}/1/requests`, { method: 'DELETE', headers: auth })
    await Promise.all(Array.from({ length: 210 }, (_, i) => send(`${server.url}/api/shop/posts?n=${i}`)))
    await send(`${server.url}/api/other/notes`)
    const page = await send(`${api}/1/requests`, { headers: auth })
    expect(page.json).toHaveLength(100)
    expect(page.headers.get('x-total-count')).toBe('210')
    const all = (await send(`${api}/1/requests?limit=500`, { headers: auth })).json
    expect(all).toHaveLength(210)
    const ids = all.map((entry: { id: number }) => entry.id)
    expect(ids).toEqual([...ids].sort((a, b) => b - a))
    expect(all.every((entry: { path: string }) => entry.path.startsWith('/api/shop/'))).toBe(true)
    const other = (await send(`${api}/2/requests`, { headers: auth })).json
    expect(other).toHaveLength(1)
    expect(other[0].path).toBe('/api/other/notes')
  })

  it('answers 400, 401, 403, 404 and 405 like the rest of the management API', async () => {
    expect((await send(`${api}/1/requests`)).status).toBe(401)
    expect((await send(`${api}/1/requests`, { headers: { Authorization: `Bearer ${otherToken}` } })).status).toBe(403)
    expect((await send(`${api}/9/requests`, { headers: auth })).status).toBe(404)
    for (const limit of ['0', '-1', 'x', '10001']) {
      const bad = await send(`${api}/1/requests?limit=${limit}`, { headers: auth })
      expect(bad.status).toBe(400)
      expect(bad.json.error.code).toBe('INVALID_QUERY')
    }
    const wrong = await send(`${api}/1/requests`, { method: 'PUT', headers: auth })
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get('allow')).toBe('DELETE, GET')
  })
})

describe('GET /api/projects/{id}/events (server-sent events)', () => {
  it('streams request, inbox and delivery events of the project only', async () => {
    const receiver = await startReceiver()
    const stream = await openEvents(`${api}/1/events?access_token=${token}`)
    try {
      expect(stream.status).toBe(200)
      expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
      expect(stream.headers.get('cache-control')).toMatch(/no-cache/)

      // Another project's traffic does not show on this stream.
      await send(`${server.url}/api/other/notes`)
      await send(`${server.url}/api/webhooks/inbox/other`, { method: 'POST', body: { other: true } })
      const posted = await send(`${server.url}/api/shop/posts`, { method: 'POST', body: { title: 'live' } })
      const request = JSON.parse((await stream.next('request')).data)
      expect(request).toMatchObject({ method: 'POST', path: '/api/shop/posts', status: 201, body: '{"title":"live"}', answer: { body: posted.text } })
      const logged = (await send(`${api}/1/requests`, { headers: auth })).json[0]
      expect(request).toEqual(logged)

      const sent = '{"big": 12345678901234567890,\n "n": 1}'
      const inbox = await send(`${server.url}/api/webhooks/inbox/shop`, { method: 'POST', body: sent, headers: { 'content-type': 'application/json' } })
      expect(inbox.status).toBe(201)
      const received = await stream.next('inbox')
      // The body is the JSON as sent (big numbers intact; a multi-line body comes as several data lines).
      expect(received.data).toContain('"body":{"big": 12345678901234567890,\n "n": 1}')
      const item = JSON.parse(received.data)
      expect(Object.keys(item).sort()).toEqual(['body', 'headers', 'id', 'receivedAt', 'sizeBytes', 'sourceIp'])
      expect(item).toMatchObject({ id: inbox.json.id, receivedAt: inbox.json.receivedAt, body: { n: 1 }, sizeBytes: Buffer.byteLength(sent) })
      const stored = (await send(`${api}/1/webhook-inbox`, { headers: auth })).json[0]
      expect(item).toEqual(stored)

      const subscription = (await send(`${api}/1/webhooks`, { method: 'POST', body: { name: 'live', targetUrl: receiver.url, events: ['mock.request'] }, headers: auth })).json
      await send(`${server.url}/api/shop/posts`)
      const delivery = JSON.parse((await stream.next('delivery')).data)
      expect(delivery).toEqual({ subscriptionId: subscription.id, deliveryId: expect.any(Number), attempt: 1, statusCode: 200, succeeded: true, error: null, durationMs: expect.any(Number), outcome: 'succeeded' })
      expect(receiver.requests).toHaveLength(1)

      // Nothing from the other project came through.
      const seen = [request, item]
      expect(seen.some((e) => JSON.stringify(e).includes('other'))).toBe(false)
    } finally {
      stream.close()
    }
  })

  it('streams GraphQL requests too', async () => {
    const stream = await openEvents(`${api}/1/events`, auth)
    try {
      const answer = await send(`${server.url}/api/shop/graphql`, { method: 'POST', body: { query: '{ hello }' } })
      expect(answer.status).toBe(200)
      const entry = JSON.parse((await stream.next('request')).data)
      expect(entry).toMatchObject({ method: 'POST', path: '/api/shop/graphql', status: 200, body: '{"query":"{ hello }"}', answer: { body: answer.text } })
      expect(entry.endpointId).toEqual(expect.any(Number))
    } finally {
      stream.close()
    }
  })

  it('refuses without a token (401), with another project\'s token (403), another method (405)', async () => {
    const none = await send(`${api}/1/events`)
    expect(none.status).toBe(401)
    expect(none.json.error.code).toBe('UNAUTHORIZED')
    expect((await send(`${api}/1/events?access_token=garbage`)).status).toBe(401)
    expect((await send(`${api}/1/events?access_token=${otherToken}`)).status).toBe(403)
    expect((await send(`${api}/99/events?access_token=${token}`)).status).toBe(404)
    const post = await send(`${api}/1/events?access_token=${token}`, { method: 'POST' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET')
    // The query token is for the event stream only.
    expect((await send(`${api}/1/requests?access_token=${token}`)).status).toBe(401)
  })

  it('removes its listeners when the client goes away', async () => {
    const before = server.events.listenerCount('inbox.received')
    const stream = await openEvents(`${api}/1/events?access_token=${token}`)
    await waitFor(() => server.events.listenerCount('inbox.received') === before + 1)
    expect(server.events.listenerCount('delivery.attempted')).toBeGreaterThan(0)
    stream.close()
    await waitFor(() => server.events.listenerCount('inbox.received') === before, 3000, 'listeners removed')
  })
})

describe('deliveries', () => {
  it('lists a subscription\'s attempts newest first and redelivers one (202)', async () => {
    const receiver = await startReceiver((n) => (n === 1 ? 500 : 200))
    const subscription = (await send(`${api}/1/webhooks`, { method: 'POST', body: { name: 'retry', targetUrl: receiver.url, events: ['mock.error'] }, headers: auth })).json
    await send(`${server.url}/api/shop/posts/404`)
    const attempts = await waitFor(async () => {
      const listed = await send(`${api}/1/webhooks/${subscription.id}/deliveries`, { headers: auth })
      return listed.json.length === 2 ? listed : null
    })
    expect(attempts.status).toBe(200)
    const [second, first] = attempts.json
    expect(first).toMatchObject({ attempt: 1, statusCode: 500, succeeded: false, outcome: 'retrying', eventType: 'mock.error' })
    expect(second).toMatchObject({ attempt: 2, statusCode: 200, succeeded: true, outcome: 'succeeded' })
    expect(Object.keys(first).sort()).toEqual(['attempt', 'durationMs', 'error', 'eventId', 'eventType', 'id', 'outcome', 'statusCode', 'succeeded', 'timestamp'])
    expect((await send(`${api}/1/webhooks/${subscription.id}/deliveries?limit=1`, { headers: auth })).json).toEqual([second])

    const stream = await openEvents(`${api}/1/events?access_token=${token}`)
    try {
      const sentAt = Date.now()
      const redelivered = await send(`${api}/1/deliveries/${first.id}/redeliver`, { method: 'POST', headers: auth })
      expect(redelivered.status).toBe(202)
      expect(redelivered.json).toEqual({ deliveryId: expect.any(Number), attempt: first })
      const delivery = JSON.parse((await stream.next('delivery')).data)
      expect(delivery).toMatchObject({ subscriptionId: subscription.id, deliveryId: redelivered.json.deliveryId, attempt: 1, succeeded: true, outcome: 'succeeded' })
      // The worker is woken at once, not at its next poll.
      expect(Date.now() - sentAt).toBeLessThan(400)
      expect(receiver.requests).toHaveLength(3)
      expect(receiver.requests[2]!.headers['webhook-id']).toBe(first.eventId)
    } finally {
      stream.close()
    }
  })

  it('refuses bad limits, unknown ids, another project\'s ids and other methods', async () => {
    const subscription = (await send(`${api}/1/webhooks`, { headers: auth })).json[0]
    for (const limit of ['0', 'abc', '-1', '1001', '1.5']) {
      const refused = await send(`${api}/1/webhooks/${subscription.id}/deliveries?limit=${limit}`, { headers: auth })
      expect(refused.status, limit).toBe(400)
      expect(refused.json.error.message).toContain('limit')
    }
    expect((await send(`${api}/1/webhooks/999/deliveries`, { headers: auth })).status).toBe(404)
    expect((await send(`${api}/2/webhooks/${subscription.id}/deliveries`, { headers: auth })).status).toBe(404)
    const post = await send(`${api}/1/webhooks/${subscription.id}/deliveries`, { method: 'POST', headers: auth })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET')
    expect((await send(`${api}/1/webhooks/${subscription.id}/deliveries`)).status).toBe(401)
    expect((await send(`${api}/1/webhooks/${subscription.id}/deliveries`, { headers: { Authorization: `Bearer ${otherToken}` } })).status).toBe(403)

    const attempt = (await send(`${api}/1/webhooks/${subscription.id}/deliveries`, { headers: auth })).json[0]
    const before = (await send(`${api}/1/webhooks/${subscription.id}/deliveries`, { headers: auth })).json.length
    // A redelivery is queued and the worker woken within the request: none may happen below.
    let queued = 0
    const countQueued = () => void (queued += 1)
    server.events.on('delivery.queued', countQueued)
    const foreign = await send(`${api}/2/deliveries/${attempt.id}/redeliver`, { method: 'POST', headers: auth })
    expect(foreign.status).toBe(404)
    expect(foreign.json.error.code).toBe('NOT_FOUND')
    expect((await send(`${api}/1/deliveries/99999/redeliver`, { method: 'POST', headers: auth })).status).toBe(404)
    expect((await send(`${api}/1/deliveries/${attempt.id}/redeliver`, { method: 'POST' })).status).toBe(401)
    expect((await send(`${api}/1/deliveries/abc/redeliver`, { method: 'POST', headers: auth })).status).toBe(404)
    const get = await send(`${api}/1/deliveries/${attempt.id}/redeliver`, { headers: auth })
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST')
    expect((await send(`${api}/2/deliveries/${attempt.id}/redeliver`, { method: 'POST', headers: { Authorization: `Bearer ${otherToken}` } })).status).toBe(404)
    expect((await send(`${api}/1/deliveries/${attempt.id}/redeliver`, { method: 'POST', headers: { Authorization: `Bearer ${otherToken}` } })).status).toBe(403)
    // Nothing was queued by the refused calls.
    server.events.off('delivery.queued', countQueued)
    expect(queued).toBe(0)
    expect((await send(`${api}/1/webhooks/${subscription.id}/deliveries`, { headers: auth })).json).toHaveLength(before)
  })
})

describe('gRPC calls', () => {
  it('are journalled and streamed with their metadata and messages as JSON', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    const project = createProject(context, { name: 'Rpc', slug: 'rpc' })
    const proto = await loadFixture('helloworld')
    importDefinition(context, project, { format: 'grpc', title: 'helloworld', version: 'proto', source: 'helloworld.proto', document: JSON.stringify(proto.descriptor), operations: proto.methods.map((m) => m.path) })
    const rpc = await serve(dbPath, { grpcPort: 0 })
    const stream = await openEvents(`${rpc.url}/api/projects/1/events?access_token=${await mintToken(context, { expiresInMs: 60_000 })}`)
    const client = clientFor('helloworld', 'helloworld.Greeter', rpc.grpcPort!)
    try {
      const reply = await unary(client, 'SayHello', { name: 'x' })
      const entry = JSON.parse((await stream.next('request')).data)
      expect(entry).toMatchObject({
        protocol: 'grpc', method: 'POST', path: '/helloworld.Greeter/SayHello', query: {}, status: 200, endpointId: expect.any(Number), matched: true,
        body: '{"name":"x"}',
      })
      expect(JSON.parse(entry.answer.body)).toEqual(reply)
    } finally {
      client.close()
      stream.close()
    }
  })
})

describe('the event stream itself', () => {
  it('pings, splits multi-line data, unsubscribes once on abort', async () => {
    const abort = new AbortController()
    let unsubscribed = 0
    let send: Send = () => {}
    const response = eventStream(abort.signal, (s) => {
      send = s
      return () => (unsubscribed += 1)
    }, { pingMs: 20 })
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    const readUntil = async (wanted: string) => {
      while (!text.includes(wanted)) text += decoder.decode((await reader.read()).value)
    }
    await readUntil(': ping\n\n')
    send('note', 'a\nb')
    await readUntil('event: note\ndata: a\ndata: b\n\n')
    expect(formatEvent('x', 'one\r\ntwo')).toBe('event: x\ndata: one\ndata: two\n\n')
    abort.abort()
    abort.abort()
    while (!(await reader.read()).done);
    expect(unsubscribed).toBe(1)
  })
})

describe('closing the server', () => {
  it('ends open event streams and closes promptly', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    createProject(context, { name: 'Solo', slug: 'solo' })
    const own = await serve(dbPath)
    const stream = await openEvents(`${own.url}/api/projects/1/events?access_token=${await mintToken(context, { expiresInMs: 60_000 })}`)
    expect(stream.status).toBe(200)
    const started = Date.now()
    await own.close()
    expect(Date.now() - started).toBeLessThan(1000)
    await stream.ended
    expect(stream.comments).toContain('connected')
  })
})
