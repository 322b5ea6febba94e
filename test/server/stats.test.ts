import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { storeOperations as importDefinition } from '../../src/domain/import-operations.ts'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import type { RunningServer } from '../../src/server/start.ts'
import type { RequestBucketView } from '../../src/views.ts'
import { cleanup, openStore, send, serve, startReceiver, tempDb, testClock, waitFor } from '../_helpers.ts'
import { clientFor, loadFixture, unary } from '../grpc/_helpers.ts'

/** Each bin of the request histogram is this much wider than the one before: a percentile read from it is within this factor of the exact one. */
const RESOLUTION = 2 ** (1 / 3)
const BUCKET_MS = 10_000

let server: RunningServer
let api: string
let auth: Record<string, string>
let clock: ReturnType<typeof testClock>
let otherToken: string

/** The nearest-rank percentile of the durations, as the journal has them. */
function exact(durations: number[], q: number): number {
  const sorted = [...durations].sort((a, b) => a - b)
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!
}

function expectWithinResolution(value: number | null, exactValue: number): void {
  expect(value).not.toBeNull()
  expect(value!).toBeGreaterThanOrEqual(exactValue / RESOLUTION)
  expect(value!).toBeLessThanOrEqual(exactValue * RESOLUTION)
}

/** Moves the server's clock to 100 ms into the next 10 s bucket: what is sent now lands in that bucket. */
function startOfNextBucket(): number {
  const now = clock.now().getTime()
  const next = (Math.floor(now / BUCKET_MS) + 1) * BUCKET_MS
  clock.advance(next + 100 - now)
  return next
}

const stats = async (projectId: number, query = '') => send(`${api}/${projectId}/stats${query}`, { headers: auth })

beforeAll(async () => {
  const dbPath = tempDb()
  const { context } = openStore(dbPath)
  createProject(context, { name: 'Shop', slug: 'shop' })
  createProject(context, { name: 'Hooks', slug: 'hooks' })
  createResource(context, { project: 'shop', path: '/api/posts' })
  addEndpoint(context, { project: 'shop', method: 'GET', path: '/api/moved', status: 302, headers: { location: '/api/posts' } })
  addEndpoint(context, { project: 'shop', method: 'GET', path: '/api/broken', status: 503, body: '{"down":true}' })
  addEndpoint(context, { project: 'shop', method: 'GET', path: '/api/slow', delayMs: 120 })
  addEndpoint(context, { project: 'shop', method: 'GET', path: '/api/reset', fault: 'reset' })
  addEndpoint(context, { project: 'hooks', method: 'POST', path: '/api/orders', status: 201, body: '{"ok":true}' })
  const token = await mintToken(context, { expiresInMs: 10 * 60_000 })
  otherToken = await mintToken(context, { expiresInMs: 10 * 60_000, projectId: 2 })
  auth = { Authorization: `Bearer ${token}` }
  clock = testClock()
  server = await serve(dbPath, { clock, retryDelaysMs: [50] })
  api = `${server.url}/api/projects`
})
afterAll(cleanup)

describe('GET /api/projects/{id}/stats: requests', () => {
  it('counts known traffic per bucket by status class, faults in the total only, percentiles within the histogram\'s resolution', async () => {
    const first = startOfNextBucket()
    const started = Date.now()
    for (let i = 0; i < 6; i++) expect((await send(`${server.url}/api/shop/posts`)).status).toBe(200)
    expect((await send(`${server.url}/api/shop/posts`, { method: 'POST', body: { title: 'Hi' } })).status).toBe(201)
    expect((await send(`${server.url}/api/shop/moved`)).status).toBe(302)
    expect((await send(`${server.url}/api/shop/posts/999`)).status).toBe(404)
    expect((await send(`${server.url}/api/shop/nothing-here`)).status).toBe(404)
    expect((await send(`${server.url}/api/shop/broken`)).status).toBe(503)
    await expect(send(`${server.url}/api/shop/reset`)).rejects.toThrow('fetch failed')
    // Slow ones, sent together: the top of the distribution.
    const slow = await Promise.all(Array.from({ length: 4 }, () => send(`${server.url}/api/shop/slow`)))
    expect(slow.map((answer) => answer.status)).toEqual([200, 200, 200, 200])

    const second = startOfNextBucket()
    for (let i = 0; i < 3; i++) expect((await send(`${server.url}/api/shop/broken`)).status).toBe(503)
    // Both bursts stayed within their bucket as long as the test took less than a bucket for them.
    expect(Date.now() - started).toBeLessThan(BUCKET_MS - 500)

    const answer = await stats(1)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
    const body = answer.json
    expect(body).toMatchObject({ window: '15m', bucketSeconds: 10 })
    expect(body.requests).toHaveLength(90)
    expect(Date.parse(body.to) - Date.parse(body.from)).toBe(15 * 60_000)
    // Oldest first, one per bucket, the last the one under way.
    expect(body.requests.at(-1).at).toBe(new Date(second).toISOString())
    const requests = body.requests as RequestBucketView[]
    const firstBucket = requests.find((bucket) => bucket.at === new Date(first).toISOString())!
    const secondBucket = requests.find((bucket) => bucket.at === new Date(second).toISOString())!
    expect(firstBucket).toMatchObject({ total: 16, '2xx': 11, '3xx': 1, '4xx': 2, '5xx': 1, noAnswer: 1 })
    expect(secondBucket).toMatchObject({ total: 3, '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 3, noAnswer: 0 })
    const others = requests.filter((bucket) => bucket !== firstBucket && bucket !== secondBucket)
    expect(others.every((bucket) => bucket.total === 0 && bucket.p50 === null)).toBe(true)

    // The journal has every request's duration, exactly: the stats' percentiles are within a bin of them.
    const journal = (await send(`${api}/1/requests?limit=100`, { headers: auth })).json as { time: string; durationMs: number }[]
    const inFirst = journal.filter((entry) => Date.parse(entry.time) < second).map((entry) => entry.durationMs)
    expect(inFirst).toHaveLength(16)
    expectWithinResolution(firstBucket.p50!, exact(inFirst, 0.5))
    expectWithinResolution(firstBucket.p95!, exact(inFirst, 0.95))
    expectWithinResolution(firstBucket.p99!, exact(inFirst, 0.99))
    expect(firstBucket.p95!).toBeGreaterThanOrEqual(120 / RESOLUTION)
    expect(firstBucket.p50!).toBeLessThan(120)
    console.log('first bucket', JSON.stringify(firstBucket), 'exact p50/p95/p99', exact(inFirst, 0.5), exact(inFirst, 0.95), exact(inFirst, 0.99))
  })

  it('counts a request no project\'s path names for the project served at its own paths, and nothing of the management API', async () => {
    const at = startOfNextBucket()
    expect((await send(`${server.url}/favicon.ico`)).status).toBe(404)
    const bucket = (await stats(1)).json.requests.find((b: { at: string }) => b.at === new Date(at).toISOString())
    expect(bucket).toMatchObject({ total: 1, '4xx': 1 })
    expect((await stats(2)).json.requests.every((b: { total: number }) => b.total === 0)).toBe(true)
  })

  it('takes a window from 1m to 24h and a bucket, keeping at most 120 buckets', async () => {
    const cases: [string, number, number][] = [['?window=1m', 1, 60], ['?window=5m', 5, 60], ['?window=1h', 30, 120], ['?window=24h', 900, 96], ['?window=1d', 900, 96], ['?window=90s', 1, 90], ['?window=1h&bucket=1m', 60, 60], ['?window=6h&bucket=5m', 300, 72], ['?window=90s&bucket=30s', 30, 3], ['?window=121m', 660, 11]]
    for (const [query, bucketSeconds, count] of cases) {
      const answer = await stats(1, query)
      expect(answer.status, query).toBe(200)
      expect(answer.json.bucketSeconds, query).toBe(bucketSeconds)
      expect(answer.json.requests, query).toHaveLength(count)
      // The buckets cover the window asked for, no more.
      const { window, from, to } = answer.json
      expect((Date.parse(to) - Date.parse(from)) / 1000, query).toBe(bucketSeconds * count)
      expect(bucketSeconds * count, query).toBe(Number(window.slice(0, -1)) * ({ s: 1, m: 60, h: 3600, d: 86_400 } as Record<string, number>)[window.at(-1)]!)
    }
    // A longer window reads the per-minute counts: the traffic of the test above is there too.
    const day = (await stats(1, '?window=24h')).json
    expect(day.requests.reduce((sum: number, b: { total: number }) => sum + b.total, 0)).toBe(20)
  })

  it('refuses a bad window or bucket, or another parameter, with 400 INVALID_QUERY naming it', async () => {
    const cases: [string, string][] = [
      ['?window=30s', 'window'], ['?window=25h', 'window'], ['?window=15', 'window'], ['?window=', 'window'], ['?window=1w', 'window'],
      ['?window=1h&bucket=7s', 'bucket'], ['?window=1h&bucket=1s', 'bucket'], ['?window=5m&bucket=10m', 'bucket'], ['?window=1h&bucket=90s', 'bucket'],
      ['?window=90s&bucket=1m', 'bucket'], ['?window=121s', 'window'],
      ['?window=5m&window=1h', 'window'], ['?since=5m', 'since'],
    ]
    for (const [query, parameter] of cases) {
      const answer = await stats(1, query)
      expect(answer.status, query).toBe(400)
      expect(answer.json.error.code, query).toBe('INVALID_QUERY')
      expect(answer.json.error.details, query).toEqual([expect.objectContaining({ parameter })])
    }
    expect((await stats(1, '?window=30s')).json.error.message).toBe('query parameter "window" must be a span from 1m to 24h such as 90s, 15m, 2h or 1d, got "30s"')
    expect((await stats(1, '?window=90s&bucket=1m')).json.error.message).toBe('query parameter "bucket" must divide the window (90s) into whole buckets, got "1m"')
  })

  it('answers as the rest of the management API: 401 without a token, 404 for an unknown project, 403 for another project\'s token, 405 for another method', async () => {
    expect((await send(`${api}/1/stats`)).status).toBe(401)
    const unknown = await stats(99)
    expect(unknown.status).toBe(404)
    expect(unknown.json.error.code).toBe('PROJECT_NOT_FOUND')
    expect((await send(`${api}/1/stats`, { headers: { Authorization: `Bearer ${otherToken}` } })).status).toBe(403)
    expect((await send(`${api}/2/stats`, { headers: { Authorization: `Bearer ${otherToken}` } })).status).toBe(200)
    const posted = await send(`${api}/1/stats`, { method: 'POST', headers: auth })
    expect(posted.status).toBe(405)
    expect(posted.headers.get('allow')).toBe('GET')
    expect((await send(`${api}/1/stats`, { method: 'HEAD', headers: auth })).status).toBe(200)
  })
})

describe('GET /api/projects/{id}/stats: deliveries', () => {
  it('buckets each subscription\'s attempts by outcome, with the attempt log\'s latency percentiles', async () => {
    const good = await startReceiver(() => 204)
    const bad = await startReceiver(() => 500)
    const created = []
    for (const [name, receiver] of [['good', good], ['bad', bad]] as const) {
      const answer = await send(`${api}/2/webhooks`, { method: 'POST', headers: auth, body: { name, targetUrl: receiver.url, events: ['mock.request'] } })
      expect(answer.status).toBe(201)
      created.push(answer.json.id as number)
    }
    const [goodId, badId] = created as [number, number]
    expect((await send(`${server.url}/api/hooks/orders`, { method: 'POST', body: {} })).status).toBe(201)
    // The bad one is tried again once (retryDelaysMs: [50]), then given up.
    const log = async (id: number) => (await send(`${api}/2/webhooks/${id}/deliveries`, { headers: auth })).json as { durationMs: number; timestamp: string }[]
    await waitFor(async () => (await log(goodId)).length === 1 && (await log(badId)).length === 2, 8000, 'three attempts')
    const answer = await stats(2, '?window=1h')
    expect(answer.status).toBe(200)
    const { deliveries, bucketSeconds } = answer.json
    expect(bucketSeconds).toBe(30)
    expect(deliveries).toHaveLength(2 * 120)
    // By subscription, then time.
    expect(deliveries.slice(0, 120).every((b: { subscriptionId: number }) => b.subscriptionId === goodId)).toBe(true)
    expect(deliveries.slice(120).every((b: { subscriptionId: number }) => b.subscriptionId === badId)).toBe(true)
    const sums = (id: number) => deliveries.filter((b: { subscriptionId: number }) => b.subscriptionId === id)
      .reduce((sum: Record<string, number>, b: Record<string, number>) => ({ succeeded: sum.succeeded! + b.succeeded!, retrying: sum.retrying! + b.retrying!, failed: sum.failed! + b.failed! }), { succeeded: 0, retrying: 0, failed: 0 })
    expect(sums(goodId)).toEqual({ succeeded: 1, retrying: 0, failed: 0 })
    expect(sums(badId)).toEqual({ succeeded: 0, retrying: 1, failed: 1 })
    // Latency: exact, from the same log the deliveries API lists.
    const bucketOf = (timestamp: string) => new Date(Math.floor(Date.parse(timestamp) / 30_000) * 30_000).toISOString()
    for (const id of [goodId, badId]) {
      const attempts = await log(id)
      for (const at of new Set(attempts.map((attempt) => bucketOf(attempt.timestamp)))) {
        const inBucket = attempts.filter((attempt) => bucketOf(attempt.timestamp) === at).map((attempt) => attempt.durationMs)
        const bucket = deliveries.find((b: { subscriptionId: number; at: string }) => b.subscriptionId === id && b.at === at)
        expect(bucket).toMatchObject({ p50: exact(inBucket, 0.5), p95: exact(inBucket, 0.95) })
      }
    }
    const empty = deliveries.find((b: { succeeded: number; retrying: number; failed: number }) => b.succeeded + b.retrying + b.failed === 0)
    expect(empty).toMatchObject({ p50: null, p95: null })
    // Another project's stats have none of them.
    expect((await stats(1)).json.deliveries).toEqual([])
  })
})

describe('GET /api/projects/{id}/stats with the journal off', () => {
  it('still counts the requests (serve --journal 0), gRPC calls by the HTTP status their code stands for', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    const project = createProject(context, { name: 'Quiet', slug: 'quiet' })
    createResource(context, { project: 'quiet', path: '/api/notes' })
    const proto = await loadFixture('helloworld')
    importDefinition(context, project, { format: 'grpc', title: 'helloworld', version: 'proto', source: 'helloworld.proto', document: JSON.stringify(proto.descriptor), operations: proto.methods.map((m) => m.path) })
    const token = await mintToken(context, { expiresInMs: 60_000 })
    const quiet = await serve(dbPath, { journal: 0, grpcPort: 0 })
    for (let i = 0; i < 3; i++) await send(`${quiet.url}/api/quiet/notes`)
    await send(`${quiet.url}/api/quiet/notes/1`)
    const client = clientFor('helloworld', 'helloworld.Greeter', quiet.grpcPort!)
    try {
      await unary(client, 'SayHello', { name: 'x' })
    } finally {
      client.close()
    }
    const headers = { Authorization: `Bearer ${token}` }
    expect((await send(`${quiet.url}/api/projects/1/requests`, { headers })).status).toBe(409)
    const buckets = (await send(`${quiet.url}/api/projects/1/stats?window=1m`, { headers })).json.requests as Record<string, number>[]
    const sum = (key: string) => buckets.reduce((total, bucket) => total + bucket[key]!, 0)
    expect([sum('total'), sum('2xx'), sum('4xx')]).toEqual([5, 4, 1])
  })
})
