import { afterAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { configureEndpoint, requireEndpoint, type SettingsInput } from '../../src/domain/endpoint-config.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { loadFaker } from '../../src/engine/generators.ts'
import { decidePolicy, NO_PREFERENCES, type PolicySettings } from '../../src/engine/policy.ts'
import type { Preferences } from '../../src/engine/prefer.ts'
import { seededRandom } from '../../src/server/pipeline/random.ts'
import { startServer, type StartOptions } from '../../src/server/start.ts'
import { startMockApi } from '../../src/index.ts'
import { cleanup, cliWorkspace, openStore, ROOT, tempDb } from '../_helpers.ts'
import { clientFor, failureOf, loadFixture, startTestServer, TestSnapshot, unary } from '../grpc/_helpers.ts'

afterAll(cleanup)

const SETTINGS: PolicySettings = { status: 200, delayMs: 40, delayMaxMs: null, errorRate: 30, errorStatus: 503, fault: null }
const always = (value: number) => () => value

describe('the policy decision (pure)', () => {
  const cases: [string, PolicySettings, Preferences, number, unknown][] = [
    ['no preference, the draw misses: the configured status, the configured delay', SETTINGS, {}, 0.5, { delayMs: 40, outcome: { kind: 'answer', status: 200 } }],
    ['no preference, the draw hits: the error status', SETTINGS, {}, 0.29, { delayMs: 40, outcome: { kind: 'simulated-error', status: 503, cause: 'error-rate', reason: 'error rate 30 %' } }],
    ['the draw at the rate exactly misses (rate 30 %: [0, 0.3) hits)', SETTINGS, {}, 0.3, { delayMs: 40, outcome: { kind: 'answer', status: 200 } }],
    ['error rate 0 never fails, whatever the draw', { ...SETTINGS, errorRate: 0 }, {}, 0, { delayMs: 40, outcome: { kind: 'answer', status: 200 } }],
    ['error rate 100 always fails', { ...SETTINGS, errorRate: 100 }, {}, 0.9999, { delayMs: 40, outcome: { kind: 'simulated-error', status: 503, cause: 'error-rate', reason: 'error rate 100 %' } }],
    ['Prefer: code=418 fails with it, no draw', SETTINGS, { code: 418 }, 0, { delayMs: 40, outcome: { kind: 'simulated-error', status: 418, cause: 'prefer', reason: 'Prefer: code' } }],
    ['Prefer: code=202 answers it, no draw', SETTINGS, { code: 202 }, 0, { delayMs: 40, outcome: { kind: 'answer', status: 202 } }],
    ['Prefer: delay=5 replaces the configured delay', SETTINGS, { delay: { min: 5, max: 5 } }, 0.5, { delayMs: 5, outcome: { kind: 'answer', status: 200 } }],
    ['Prefer: delay=0 means no delay', SETTINGS, { delay: { min: 0, max: 0 }, code: 500 }, 0.5, { delayMs: 0, outcome: { kind: 'simulated-error', status: 500, cause: 'prefer', reason: 'Prefer: code' } }],
    ['a configured error status is the status to answer (the transport decides what that means)', { ...SETTINGS, status: 404, errorRate: 0 }, {}, 0, { delayMs: 40, outcome: { kind: 'answer', status: 404 } }],
  ]
  for (const [name, settings, prefer, draw, expected] of cases) {
    it(name, () => {
      expect(decidePolicy({ settings, prefer }, always(draw))).toEqual(expected)
    })
  }

  it('draws once per decision, and not at all when the client preferred a code or the rate is 0', () => {
    let draws = 0
    const counting = () => (draws++, 0.5)
    decidePolicy({ settings: SETTINGS, prefer: NO_PREFERENCES }, counting)
    decidePolicy({ settings: SETTINGS, prefer: { code: 201 } }, counting)
    decidePolicy({ settings: { ...SETTINGS, errorRate: 0 }, prefer: NO_PREFERENCES }, counting)
    expect(draws).toBe(1)
  })

  it('a seeded random repeats its sequence, stays in [0, 1), and another seed gives another', async () => {
    const first = Array.from({ length: 1000 }, await seededRandom(7))
    const again = Array.from({ length: 1000 }, await seededRandom(7))
    const other = Array.from({ length: 1000 }, await seededRandom(8))
    expect(again).toEqual(first)
    expect(other).not.toEqual(first)
    expect(first.every((value) => value >= 0 && value < 1)).toBe(true)
  })
})

const CALLS = 24

/** Starts a server on `dbPath`, sends `count` requests through `request`, closes it; the statuses in order. */
async function statusesOf(options: Pick<StartOptions, 'dbPath' | 'seed' | 'clock'>, request: (url: string) => Promise<number>): Promise<number[]> {
  const server = await startServer({ port: 0, host: '127.0.0.1', demo: false, ...options })
  try {
    const statuses: number[] = []
    // One after another: the draws are taken in the order the requests arrive.
    for (let i = 0; i < CALLS; i += 1) statuses.push(await request(server.url))
    return statuses
  } finally {
    await server.close()
  }
}

async function configure(dbPath: string, method: string, path: string, input: SettingsInput): Promise<void> {
  const { context } = openStore(dbPath)
  configureEndpoint(context, requireEndpoint(context, { method, path }), input, await loadFaker())
}

describe('a seeded serve repeats its simulated errors', () => {
  it('HTTP: the same seed gives the same sequence of simulated errors twice; another seed another', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    createProject(context, { name: 'Seeded', slug: 'seeded' })
    createResource(context, { path: '/api/flaky-things' })
    await configure(dbPath, 'GET', '/api/flaky-things', { errorRate: 50, errorStatus: 503 })
    const get = async (url: string) => (await fetch(`${url}/api/seeded/flaky-things`)).status
    const first = await statusesOf({ dbPath, seed: 42 }, get)
    const second = await statusesOf({ dbPath, seed: 42 }, get)
    const other = await statusesOf({ dbPath, seed: 43 }, get)
    expect(new Set(first)).toEqual(new Set([200, 503]))
    expect(second).toEqual(first)
    expect(other).not.toEqual(first)
  })

  it('startMockApi({ seed }): a test suite sees the same simulated errors on every run', async () => {
    const config = {
      name: 'Seeded',
      slug: 'seeded',
      endpoints: [{ method: 'GET', path: '/api/coin', body: { ok: true }, errorRate: 50, errorStatus: 503 }],
    }
    const run = async () => {
      const api = await startMockApi({ config, seed: 1234 })
      try {
        const statuses: number[] = []
        for (let i = 0; i < CALLS; i += 1) statuses.push((await fetch(`${api.project().url}/coin`)).status)
        return statuses
      } finally {
        await api.close()
      }
    }
    const first = await run()
    expect(new Set(first)).toEqual(new Set([200, 503]))
    expect(await run()).toEqual(first)
  })

  it('GraphQL: the same seed fails the same root fields in the same order', async () => {
    const { ok, db } = cliWorkspace()
    await ok('import', join(ROOT, 'fixtures', 'graphql', 'swapi', 'schema.graphql'))
    await ok('endpoint', 'set', 'POST', '/graphql#Query.person', '--error-rate', '50')
    const query = async (url: string) => {
      const response = await fetch(`${url}/api/swapi/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ person(id: "1") { name } }' }),
      })
      const body = (await response.json()) as { errors?: unknown[] }
      // 200 either way: a failed field is an error entry, so the sequence is read from the entries.
      return body.errors ? 500 : response.status
    }
    const first = await statusesOf({ dbPath: db, seed: 9 }, query)
    const second = await statusesOf({ dbPath: db, seed: 9 }, query)
    expect(new Set(first)).toEqual(new Set([200, 500]))
    expect(second).toEqual(first)
  })

  it('gRPC: the listener draws from the random it is given, so a seeded one repeats its failures', async () => {
    const spec = await loadFixture('helloworld')
    const snapshot = new TestSnapshot()
    snapshot.set([spec])
    snapshot.settings('/helloworld.Greeter/SayHello', { errorRate: 50, errorStatus: 503 })
    const run = async (seed: number) => {
      const server = await startTestServer(snapshot, { random: await seededRandom(seed) })
      const client = clientFor('helloworld', 'helloworld.Greeter', server.port)
      try {
        const codes: number[] = []
        for (let i = 0; i < CALLS; i += 1) {
          codes.push(await unary(client, 'SayHello', { name: 'x' }).then(() => 0, (error: { code: number }) => error.code))
        }
        return codes
      } finally {
        client.close()
        await server.close()
      }
    }
    const first = await run(5)
    expect(new Set(first)).toEqual(new Set([0, 14]))
    expect(await run(5)).toEqual(first)
    // The same decision reaches the failure's text.
    const server = await startTestServer(snapshot, { random: () => 0 })
    const client = clientFor('helloworld', 'helloworld.Greeter', server.port)
    const failure = await failureOf(unary(client, 'SayHello', { name: 'x' }))
    client.close()
    await server.close()
    expect(failure.details).toBe('mockapi: simulated error UNAVAILABLE (error rate 50%)')
  })
})

describe('the injected clock', () => {
  it('reaches the time templates print, without waiting', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    createProject(context, { name: 'Clocked', slug: 'clocked' })
    addEndpoint(context, { method: 'GET', path: '/api/now', body: '{"at":"{{now}}","ms":"{{nowMs}}","s":"{{nowSeconds}}"}' })
    const at = new Date('2031-05-06T07:08:09.010Z')
    const clock = { now: () => new Date(at) }
    const server = await startServer({ dbPath, port: 0, host: '127.0.0.1', demo: false, clock })
    let body: unknown
    try {
      body = await (await fetch(`${server.url}/api/clocked/now`)).json()
    } finally {
      await server.close()
    }
    expect(body).toEqual({ at: '2031-05-06T07:08:09.010Z', ms: at.getTime(), s: Math.floor(at.getTime() / 1000) })
  })
})

describe('serve --seed', () => {
  it('takes a 32-bit seed and refuses one out of range, naming the flag', async () => {
    const { run } = cliWorkspace()
    const refused = await run('serve', '--port', '0', '--seed', '-1')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('--seed -1 must be from 0 to 4294967295')
  })
})
