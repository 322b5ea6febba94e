import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { Webhook } from 'standardwebhooks'
import { mintToken } from '../../src/domain/auth.ts'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import type { RequestServed } from '../../src/events.ts'
import type { RunningServer } from '../../src/server/start.ts'
import { cleanup, openStore, send, serve, startReceiver, tempDb, waitFor } from '../_helpers.ts'

const RETRY = [60, 60]

let server: RunningServer
let url: string
let headers: Record<string, string>
let projectSeq = 0
let dbPath: string

beforeAll(async () => {
  dbPath = tempDb()
  const { context } = openStore(dbPath)
  headers = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 600_000 })}` }
  server = await serve(dbPath, { retryDelaysMs: RETRY, deliveryTimeoutMs: 300 })
  url = server.url
})
afterAll(cleanup)

/** A fresh project with one resource, so each test reads only its own deliveries. */
async function newProject(): Promise<{ id: number; slug: string }> {
  const { context } = openStore(dbPath)
  projectSeq += 1
  const project = createProject(context, { name: `P${projectSeq}`, slug: `p${projectSeq}` })
  createResource(context, { project: project.slug, path: '/api/items' })
  return project
}

async function subscribe(projectId: number, targetUrl: string, events = ['mock.request', 'mock.error']) {
  const response = await send(`${url}/api/projects/${projectId}/webhooks`, { method: 'POST', body: { name: 't', targetUrl, events }, headers })
  expect(response.status).toBe(201)
  return response.json as { id: number; secret: string }
}

/** The queue's own record of a subscription's deliveries: their states, oldest first. */
function deliveryStates(subscriptionId: number): string[] {
  const { context } = openStore(dbPath)
  return context.db.prepare('SELECT state FROM deliveries WHERE subscription_id = ? ORDER BY id').pluck().all(subscriptionId) as string[]
}

/**
 * Resolves once the server has answered `times` requests matching `which` and the event recorder
 * has had its turn: it buffers a served request as it is answered and writes the batch on the next turn.
 */
function answered(which: (served: RequestServed) => boolean, times = 1): Promise<void> {
  return new Promise((resolve) => {
    let left = times
    const listener = (served: RequestServed) => {
      if (!which(served) || --left > 0) return
      server.events.off('request.served', listener)
      setImmediate(resolve)
    }
    server.events.on('request.served', listener)
  })
}

async function attempts(projectId: number) {
  const list = await send(`${url}/api/projects/${projectId}/webhooks?deliveries=true`, { headers })
  return list.json[0].deliveries as { id: number; eventId: string; eventType: string; attempt: number; statusCode: number | null; succeeded: boolean; error: string | null; durationMs: number }[]
}

describe('webhook deliveries to real local receivers', () => {
  it('delivers mock.request and mock.error with Standard Webhooks signatures a receiver verifies', async () => {
    const project = await newProject()
    const receiver = await startReceiver()
    const subscription = await subscribe(project.id, receiver.url)
    await send(`${url}/api/${project.slug}/items?tag=a&tag=b`)
    await send(`${url}/api/${project.slug}/items/404`)
    await waitFor(() => receiver.requests.length >= 3, 5000, 'three deliveries')
    const verifier = new Webhook(subscription.secret)
    const envelopes = receiver.requests.map((request) => {
      expect(request.headers['content-type']).toBe('application/json')
      expect(request.headers['webhook-id']).toMatch(/^msg_/)
      expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30)
      return verifier.verify(request.body, request.headers as Record<string, string>) as { type: string; timestamp: string; data: Record<string, unknown> }
    })
    const byType = envelopes.map((e) => `${e.type} ${e.data.status}`).sort()
    expect(byType).toEqual(['mock.error 404', 'mock.request 200', 'mock.request 404'])
    const listed = envelopes.find((e) => e.data.status === 200)!
    expect(listed.data).toMatchObject({ projectId: project.id, method: 'GET', path: `/api/${project.slug}/items`, query: { tag: ['a', 'b'] }, status: 200 })
    expect(typeof listed.data.endpointId).toBe('number')
    expect(typeof listed.data.durationMs).toBe('number')
    expect(Date.parse(listed.timestamp)).not.toBeNaN()
    const log = await waitFor(async () => ((await attempts(project.id)).length === 3 ? attempts(project.id) : null))
    expect(log.every((a) => a.succeeded && a.statusCode === 200 && a.attempt === 1 && a.error === null)).toBe(true)
  })

  it('retries a receiver that fails twice: three attempts, the last succeeded, the same webhook-id', async () => {
    const project = await newProject()
    const receiver = await startReceiver((n) => (n <= 2 ? 500 : 200))
    await subscribe(project.id, receiver.url, ['mock.request'])
    await send(`${url}/api/${project.slug}/items`)
    await waitFor(() => receiver.requests.length >= 3, 5000, 'three attempts')
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(1)
    expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1)
    const log = await waitFor(async () => {
      const list = await attempts(project.id)
      return list.length === 3 ? list : null
    })
    expect(log.map((a) => [a.attempt, a.statusCode, a.succeeded])).toEqual([[3, 200, true], [2, 500, false], [1, 500, false]])
    expect(log[2]!.error).toBe('HTTP 500')
  })

  it('gives up on a receiver that always fails after the configured attempts', async () => {
    const project = await newProject()
    const receiver = await startReceiver(() => 503)
    const subscription = await subscribe(project.id, receiver.url, ['mock.request'])
    await send(`${url}/api/${project.slug}/items`)
    const log = await waitFor(async () => {
      const list = await attempts(project.id)
      return list.length === RETRY.length + 1 ? list : null
    })
    // Given up in the queue itself (logged with the last attempt): nothing pending or in flight, so no attempt can follow.
    expect(deliveryStates(subscription.id)).toEqual(['failed'])
    expect(receiver.requests).toHaveLength(RETRY.length + 1)
    expect(log.every((a) => !a.succeeded)).toBe(true)
    const { context } = openStore(dbPath)
    expect(context.db.prepare('SELECT state FROM deliveries WHERE id = (SELECT delivery_id FROM attempts WHERE id = ?)').pluck().get(log[0]!.id)).toBe('failed')
  })

  it('logs a timeout for a receiver that hangs', async () => {
    const project = await newProject()
    const receiver = await startReceiver(() => 'hang')
    await subscribe(project.id, receiver.url, ['mock.request'])
    await send(`${url}/api/${project.slug}/items`)
    const log = await waitFor(async () => {
      const list = await attempts(project.id)
      return list.length >= 1 ? list : null
    })
    expect(log[0]!.statusCode).toBeNull()
    expect(log[0]!.error).toBe('timed out after 300 ms')
    expect(log[0]!.durationMs).toBeGreaterThanOrEqual(250)
    await receiver.close()
  })

  it('logs a connection error, a redirect that is not followed, and turns the subscription off on 410', async () => {
    const project = await newProject()
    let mode = 'redirect'
    const receiver = await startReceiver(() => (mode === 'redirect' ? { status: 302, headers: { location: 'http://127.0.0.1:9/' } } : 410))
    const subscription = await subscribe(project.id, receiver.url, ['mock.request'])
    await send(`${url}/api/${project.slug}/items`)
    const redirected = await waitFor(async () => (await attempts(project.id))[0])
    expect(redirected.statusCode).toBe(302)
    expect(redirected.error).toContain('redirects are not followed')
    mode = 'gone'
    const gone = await waitFor(async () => ((await attempts(project.id)).find((a) => a.statusCode === 410)))
    expect(gone.error).toContain('turned off')
    const after = await send(`${url}/api/projects/${project.id}/webhooks/${subscription.id}`, { headers })
    expect(after.json.enabled).toBe(false)

    const closed = await newProject()
    const down = await startReceiver()
    await down.close()
    await subscribe(closed.id, down.url, ['mock.request'])
    await send(`${url}/api/${closed.slug}/items`)
    const refused = await waitFor(async () => (await attempts(closed.id))[0])
    expect(refused.statusCode).toBeNull()
    expect(refused.error).toMatch(/ECONNREFUSED/)
  })

  it('waits as long as a 429 Retry-After asks before the next attempt', async () => {
    const project = await newProject()
    const receiver = await startReceiver((n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : 200))
    await subscribe(project.id, receiver.url, ['mock.request'])
    await send(`${url}/api/${project.slug}/items`)
    await waitFor(() => receiver.requests.length === 2, 5000, 'the retry')
    // The schedule says 60 ms; Retry-After says 1 s.
    expect(receiver.requests[1]!.at - receiver.requests[0]!.at).toBeGreaterThanOrEqual(950)
    // The attempt is logged once the receiver's answer is in, after the receiver saw the request.
    const log = await waitFor(async () => {
      const logged = await attempts(project.id)
      return logged.length === 2 && logged
    }, 5000, 'the second attempt logged')
    expect(log.map((a) => [a.attempt, a.statusCode])).toEqual([[2, 200], [1, 429]])
  })

  it('turning a subscription off cancels its retries and queues nothing; on again delivers new events', async () => {
    const project = await newProject()
    const receiver = await startReceiver(() => 500)
    const subscription = await subscribe(project.id, receiver.url, ['mock.request'])
    await send(`${url}/api/${project.slug}/items`)
    await waitFor(() => receiver.requests.length >= 1)
    await send(`${url}/api/projects/${project.id}/webhooks/${subscription.id}`, { method: 'PATCH', body: { enabled: false }, headers })
    const seen = receiver.requests.length
    const second = answered((served) => served.projectId === project.id)
    await send(`${url}/api/${project.slug}/items`)
    await second
    // An attempt that was in flight when it was turned off has its outcome logged first.
    const states = await waitFor(() => {
      const now = deliveryStates(subscription.id)
      return now.includes('sending') ? null : now
    }, 5000, 'no attempt in flight')
    // The first event's retries canceled, and the second request queued nothing: nothing is left to send.
    expect(states).toEqual(['canceled'])
    expect(receiver.requests.length).toBe(seen)

    await send(`${url}/api/projects/${project.id}/webhooks/${subscription.id}`, { method: 'PATCH', body: { enabled: true }, headers })
    await send(`${url}/api/${project.slug}/items?again=1`)
    await waitFor(() => receiver.requests.some((r) => r.body.includes('"again":"1"')), 5000, 'delivery after turning on')
  })

  it('an attempt in flight when its subscription is turned off ends canceled, not pending a retry', async () => {
    const project = await newProject()
    const { createServer } = await import('node:http')
    let arrived!: () => void
    const attempting = new Promise<void>((resolve) => (arrived = resolve))
    let answer!: (status: number) => void
    const answered500 = new Promise<number>((resolve) => (answer = resolve))
    // A receiver that holds the attempt until the test lets it fail.
    const receiver = createServer((req, res) => {
      req.resume()
      arrived()
      void answered500.then((status) => res.writeHead(status).end())
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    try {
      const target = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`
      const subscription = await subscribe(project.id, target, ['mock.request'])
      await send(`${url}/api/${project.slug}/items`)
      await attempting
      expect(deliveryStates(subscription.id)).toEqual(['sending'])
      await send(`${url}/api/projects/${project.id}/webhooks/${subscription.id}`, { method: 'PATCH', body: { enabled: false }, headers })
      answer(500)
      const states = await waitFor(() => {
        const now = deliveryStates(subscription.id)
        return now.includes('sending') ? null : now
      }, 5000, 'the attempt in flight ended')
      expect(states).toEqual(['canceled'])
    } finally {
      receiver.closeAllConnections()
      await new Promise<void>((resolve) => receiver.close(() => resolve()))
    }
  })

  it('does not turn its own deliveries into events when a subscription targets a mock endpoint', async () => {
    const project = await newProject()
    const subscription = await subscribe(project.id, `${url}/api/${project.slug}/items`, ['mock.request', 'mock.error'])
    const bothPosted = answered((served) => served.projectId === project.id && served.method === 'POST' && served.fromDelivery, 2)
    await send(`${url}/api/${project.slug}/items/1`)
    // The request (404) raises two events; their deliveries POST to the mock itself (201) and stop there.
    await bothPosted
    const log = await waitFor(async () => {
      const list = await attempts(project.id)
      return list.length >= 2 ? list : null
    })
    // Both POSTs answered and the recorder's turn after each passed: they queued no delivery.
    expect(deliveryStates(subscription.id)).toEqual(['succeeded', 'succeeded'])
    expect(await attempts(project.id)).toHaveLength(2)
    expect(log.every((a) => a.statusCode === 201)).toBe(true)
    const items = await send(`${url}/api/${project.slug}/items`)
    expect(items.json).toHaveLength(2)
  })

  it('under a load of requests (the worker paced) while another connection holds the write lock: every request answered, each event delivered once the lock frees, sent again only after a failed attempt', async () => {
    const project = await newProject()
    // The first 4 sends are never answered: each times out (300 ms here) and is sent again.
    const receiver = await startReceiver((n) => (n <= 4 ? 'hang' : 200))
    const subscription = await subscribe(project.id, receiver.url, ['mock.request'])
    const other = new Database(dbPath)
    other.pragma('busy_timeout = 5000')
    other.exec('BEGIN IMMEDIATE')
    const statuses: number[] = []
    try {
      // 400 reads in waves of 50: well over the 1,000 a second that paces the worker.
      for (let wave = 0; wave < 8; wave += 1) {
        const answers = await Promise.all(Array.from({ length: 50 }, () => send(`${url}/api/${project.slug}/items`)))
        statuses.push(...answers.map((answer) => answer.status))
      }
      expect(receiver.requests).toHaveLength(0)
    } finally {
      other.exec('COMMIT')
      other.close()
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(400)
    await waitFor(() => {
      const states = deliveryStates(subscription.id)
      return states.length === 400 && states.every((state) => state === 'succeeded')
    }, 20_000, 'every delivery to succeed')
    expect(new Set(receiver.requests.map((request) => request.headers['webhook-id'])).size).toBe(400)
    // At least once, never more without a reason: every send beyond one per event is the retry of
    // a logged failed attempt (the 4 hung ones; on a loaded machine an answer may also outlast the
    // timeout), never a second send of an attempt that succeeded.
    const { context } = openStore(dbPath)
    const failedAttempts = context.db.prepare('SELECT count(*) FROM attempts WHERE subscription_id = ? AND succeeded = 0').pluck().get(subscription.id) as number
    expect(failedAttempts).toBeGreaterThanOrEqual(4)
    expect(receiver.requests.length).toBeGreaterThanOrEqual(404)
    expect(receiver.requests.length - 400).toBeLessThanOrEqual(failedAttempts)
  }, 30_000)
})
