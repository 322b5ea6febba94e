import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { writeFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { resolveDelayFloor } from '../../src/config.ts'
import { mintToken } from '../../src/domain/auth.ts'
import { drawDelay, parseDelay } from '../../src/engine/delay.ts'
import { decidePolicy, NO_PREFERENCES, type PolicySettings } from '../../src/engine/policy.ts'
import { parsePrefer } from '../../src/engine/prefer.ts'
import { startMockApi } from '../../src/index.ts'
import { seededRandom } from '../../src/server/pipeline/random.ts'
import { startServer, type RunningServer } from '../../src/server/start.ts'
import { cleanup, cli, cliWorkspace, openStore, serveCli, waitFor } from '../_helpers.ts'
import { clientFor, loadFixture, startTestServer, TestSnapshot, unary } from '../grpc/_helpers.ts'

afterAll(cleanup)

const running: RunningServer[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()))
})

const SETTINGS: PolicySettings = { status: 200, delayMs: 100, delayMaxMs: 300, errorRate: 0, errorStatus: 500, fault: null }

describe('parseDelay: a number or a range', () => {
  it.each([
    [250, { min: 250, max: 250 }],
    ['250', { min: 250, max: 250 }],
    ['100-300', { min: 100, max: 300 }],
    [' 100 - 300 ', { min: 100, max: 300 }],
    ['100-100', { min: 100, max: 100 }],
    ['0-120000', { min: 0, max: 120_000 }],
  ])('%j → %j', (input, expected) => {
    expect(parseDelay(input)).toEqual(expected)
  })

  it.each([
    ['300-100', 'delay range 300-100 must go from low to high (100-300)'],
    ['-5', 'delay -5 must be a whole number of milliseconds from 0 to 120000, or a range such as 100-300'],
    [-5, 'delay -5 must be a whole number of milliseconds from 0 to 120000, or a range such as 100-300'],
    ['1-2-3', 'delay "1-2-3" must be a whole number of milliseconds (250) or a range (100-300)'],
    ['100-200000', 'delay 100-200000 must be a whole number of milliseconds from 0 to 120000, or a range such as 100-300'],
    ['abc', 'delay "abc" must be a whole number of milliseconds (250) or a range (100-300)'],
    ['1e3', 'delay "1e3" must be a whole number of milliseconds (250) or a range (100-300)'],
    [1.5, 'delay 1.5 must be a whole number of milliseconds from 0 to 120000, or a range such as 100-300'],
  ])('refuses %j', (input, message) => {
    expect(() => parseDelay(input)).toThrow(message)
  })
})

describe('drawing a delay', () => {
  it('a fixed delay draws nothing; a range draws once, uniformly from low to high inclusive', () => {
    let draws = 0
    const counting = (value: number) => () => (draws++, value)
    expect(drawDelay({ min: 250, max: 250 }, counting(0.7))).toBe(250)
    expect(draws).toBe(0)
    expect(drawDelay({ min: 100, max: 300 }, counting(0))).toBe(100)
    expect(drawDelay({ min: 100, max: 300 }, counting(0.999999))).toBe(300)
    expect(drawDelay({ min: 100, max: 300 }, counting(0.5))).toBe(200)
    expect(draws).toBe(3)
  })

  it('fixed delays and a fixed floor draw nothing: a seeded run without ranges draws its error rates as before', () => {
    let draws = 0
    const counting = () => (draws++, 0.5)
    const fixed = { ...SETTINGS, delayMaxMs: null, errorRate: 30 }
    decidePolicy({ settings: fixed, prefer: NO_PREFERENCES, floor: { min: 20, max: 20 } }, counting)
    decidePolicy({ settings: fixed, prefer: { delay: { min: 5, max: 5 } } }, counting)
    expect(draws).toBe(2)
    decidePolicy({ settings: SETTINGS, prefer: NO_PREFERENCES, floor: { min: 10, max: 20 } }, counting)
    expect(draws).toBe(4)
  })

  it('a seeded random repeats the same delays; another seed gives others', async () => {
    const delays = async (seed: number) => {
      const random = await seededRandom(seed)
      return Array.from({ length: 20 }, () => decidePolicy({ settings: SETTINGS, prefer: NO_PREFERENCES }, random).delayMs)
    }
    const first = await delays(7)
    expect(await delays(7)).toEqual(first)
    expect(await delays(8)).not.toEqual(first)
    expect(first.every((ms) => ms >= 100 && ms <= 300)).toBe(true)
    expect(new Set(first).size).toBeGreaterThan(5)
  })

  it('the floor holds every answer at least that long; Prefer: delay replaces the endpoint\'s delay, not the floor', () => {
    const fixed = { ...SETTINGS, delayMs: 50, delayMaxMs: null }
    const always = () => 0.5
    expect(decidePolicy({ settings: fixed, prefer: NO_PREFERENCES, floor: { min: 200, max: 200 } }, always).delayMs).toBe(200)
    expect(decidePolicy({ settings: { ...fixed, delayMs: 900 }, prefer: NO_PREFERENCES, floor: { min: 200, max: 200 } }, always).delayMs).toBe(900)
    expect(decidePolicy({ settings: fixed, prefer: { delay: { min: 10, max: 10 } }, floor: { min: 200, max: 200 } }, always).delayMs).toBe(200)
    expect(decidePolicy({ settings: fixed, prefer: { delay: { min: 400, max: 600 } }, floor: { min: 200, max: 200 } }, always).delayMs).toBe(500)
  })

  it('a fault beats Prefer: code and the error rate, and draws no error rate; Prefer: fault beats the configured one', () => {
    let draws = 0
    const counting = () => (draws++, 0)
    const faulty = { ...SETTINGS, delayMaxMs: null, errorRate: 100, fault: 'empty' as const }
    expect(decidePolicy({ settings: faulty, prefer: { code: 503 } }, counting).outcome).toEqual({ kind: 'fault', fault: 'empty', cause: 'configured' })
    expect(decidePolicy({ settings: faulty, prefer: { fault: 'hang' } }, counting).outcome).toEqual({ kind: 'fault', fault: 'hang', cause: 'prefer' })
    expect(draws).toBe(0)
  })
})

describe('Prefer: delay= ranges and fault=', () => {
  it('reads a range, caps it at 60 s, refuses a backwards one and an unknown fault; ignores what does not parse, as before', () => {
    expect(parsePrefer('delay=100-300')).toEqual({ delay: { min: 100, max: 300 } })
    expect(parsePrefer('delay=100-70000')).toEqual({ delay: { min: 100, max: 60_000 } })
    expect(parsePrefer('delay=800, fault=hang')).toEqual({ delay: { min: 800, max: 800 }, fault: 'hang' })
    expect(parsePrefer('delay=abc')).toEqual({})
    expect(() => parsePrefer('delay=300-100')).toThrow('Prefer: delay=300-100 must go from low to high (delay=100-300)')
    expect(() => parsePrefer('fault=explode')).toThrow('Prefer: fault=explode is not a fault: ask for one of reset, empty, malformed, hang')
  })
})

describe('delay ranges and faults through the CLI', () => {
  it('add-endpoint and endpoint set take a range and a fault; endpoint show and --json say them', async () => {
    const { ok } = cliWorkspace()
    await ok('init', '--yes', '--slug', 'd')
    await ok('add-endpoint', 'GET', '/api/stats', '--body', '{"n":1}', '--delay', '100-300', '--fault', 'reset')
    const shown = await ok('endpoint', 'show', 'GET', '/api/stats')
    expect(shown).toContain('delay        100-300 ms (drawn per request)')
    expect(shown).toContain('fault        reset (every call)')
    expect(JSON.parse(await ok('endpoint', 'show', 'GET', '/api/stats', '--json'))).toMatchObject({ delayMs: 100, delay: '100-300', fault: 'reset' })
    await ok('endpoint', 'set', 'GET', '/api/stats', '--delay', '250', '--clear-fault')
    expect(JSON.parse(await ok('endpoint', 'show', 'GET', '/api/stats', '--json'))).toMatchObject({ delayMs: 250, delay: 250, fault: null })
    const shownAgain = await ok('endpoint', 'show', 'GET', '/api/stats')
    expect(shownAgain).toContain('delay        250 ms\n')
    expect(shownAgain).not.toContain('fault')
    expect(await ok('endpoints')).toMatch(/GET\s+\/api\/stats\s+custom\s+200\s+250ms/)
  })

  it('refuses a backwards range, an unknown fault and a bad number, and changes nothing', async () => {
    const { ok, run } = cliWorkspace()
    await ok('init', '--yes', '--slug', 'd')
    await ok('add-endpoint', 'GET', '/api/stats', '--delay', '50')
    const before = await ok('endpoint', 'show', 'GET', '/api/stats', '--json')
    for (const [args, message] of [
      [['--delay', '300-100'], 'delay range 300-100 must go from low to high (100-300)'],
      [['--delay', 'abc'], 'delay "abc" must be a whole number of milliseconds (250) or a range (100-300)'],
      [['--delay', '100-200000'], 'delay 100-200000 must be a whole number of milliseconds from 0 to 120000'],
      [['--fault', 'explode'], 'fault "explode" must be one of reset, empty, malformed, hang'],
      [['--fault', 'reset', '--delay', '9-1'], 'delay range 9-1 must go from low to high (1-9)'],
    ] as const) {
      const refused = await run('endpoint', 'set', 'GET', '/api/stats', ...args)
      expect(refused.code, args.join(' ')).toBe(1)
      expect(refused.stderr).toContain(message)
    }
    expect(await ok('endpoint', 'show', 'GET', '/api/stats', '--json')).toBe(before)
    for (const args of [['--delay', '300-100'], ['--fault', 'explode']]) {
      const refused = await run('add-endpoint', 'GET', '/api/other-stats', ...args)
      expect(refused.code).toBe(1)
    }
    expect(JSON.parse(await ok('endpoints', '--json')).map((e: { path: string }) => e.path)).toEqual(['/api/stats'])
  })
})

describe('delay ranges and faults through the management API', () => {
  it('PATCH takes delay (a number or "100-300") and fault (null clears); refusals name the field and change nothing', async () => {
    const { ok, db } = cliWorkspace()
    await ok('init', '--yes', '--slug', 'd')
    await ok('add-endpoint', 'GET', '/api/stats', '--body', '{"n":1}')
    const server = await startServer({ dbPath: db, port: 0, host: '127.0.0.1', demo: false })
    running.push(server)
    const { context } = openStore(db)
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}`, 'content-type': 'application/json' }
    const id = (JSON.parse(await ok('endpoint', 'show', 'GET', '/api/stats', '--json')) as { id: number }).id
    const patch = async (body: unknown) => {
      const response = await fetch(`${server.url}/api/projects/1/endpoints/${id}`, { method: 'PATCH', headers: auth, body: JSON.stringify(body) })
      return { status: response.status, json: (await response.json()) as Record<string, any> }
    }
    expect((await patch({ delay: '100-300', fault: 'hang' })).json).toMatchObject({ delayMs: 100, delay: '100-300', fault: 'hang' })
    for (const [body, field, message] of [
      [{ delay: '300-100' }, 'delay', 'delay range 300-100 must go from low to high (100-300)'],
      [{ delay: true }, 'delay', 'must be milliseconds (250) or a range ("100-300"), got true'],
      [{ delay: 5, delayMs: 5 }, 'delay', 'and "delayMs" say the same thing: send one of them'],
      [{ fault: 'explode' }, 'fault', 'fault "explode" must be one of reset, empty, malformed, hang'],
      [{ fault: 3 }, 'fault', 'must be one of reset, empty, malformed, hang, or null for none'],
    ] as const) {
      const refused = await patch(body)
      expect(refused.status, JSON.stringify(body)).toBe(400)
      expect(refused.json.error.code).toBe('INVALID_INPUT')
      expect(refused.json.error.details[0].field).toBe(field)
      expect(refused.json.error.details[0].message).toContain(message)
    }
    expect(JSON.parse(await ok('endpoint', 'show', 'GET', '/api/stats', '--json'))).toMatchObject({ delay: '100-300', fault: 'hang' })
    expect((await patch({ delayMs: 40, fault: null })).json).toMatchObject({ delayMs: 40, delay: 40, fault: null })
    expect((await patch({ delay: 250 })).json).toMatchObject({ delayMs: 250, delay: 250 })
  })
})

describe('delay ranges and faults in project files', () => {
  const file = (endpoint: string) => `name: Timing\nslug: timing\nendpoints:\n  - method: GET\n    path: /api/stats\n${endpoint}`

  it('apply stores a range and a fault, export writes them back, applying again changes nothing', async () => {
    const { ok, cwd } = cliWorkspace()
    writeFileSync(join(cwd, 'mockapi.yaml'), file('    delay: 100-300\n    fault: malformed\n    body: { n: 1 }\n'))
    await ok('apply', 'mockapi.yaml')
    expect(JSON.parse(await ok('endpoint', 'show', 'GET', '/api/stats', '--json'))).toMatchObject({ delay: '100-300', fault: 'malformed' })
    await ok('export', '--output', 'out.yaml')
    const exported = readFileSync(join(cwd, 'out.yaml'), 'utf8')
    expect(exported).toContain('delay: 100-300\n')
    expect(exported).toContain('fault: malformed\n')
    expect(await ok('apply', 'out.yaml')).toContain('already matches')
  })

  it('refuses a backwards range and an unknown fault, naming the line, and changes nothing', async () => {
    const { ok, run, cwd } = cliWorkspace()
    writeFileSync(join(cwd, 'mockapi.yaml'), file('    delay: 50\n'))
    await ok('apply', 'mockapi.yaml')
    writeFileSync(join(cwd, 'backwards.yaml'), file('    delay: 300-100\n'))
    const backwards = await run('apply', 'backwards.yaml')
    expect(backwards.code).toBe(1)
    expect(backwards.stderr).toContain('backwards.yaml, line 6: endpoints[0].delay must go from low to high (100-300)')
    writeFileSync(join(cwd, 'explode.yaml'), file('    fault: explode\n'))
    const explode = await run('apply', 'explode.yaml')
    expect(explode.code).toBe(1)
    expect(explode.stderr).toContain('explode.yaml, line 6: endpoints[0].fault must be one of reset, empty, malformed, hang')
    writeFileSync(join(cwd, 'words.yaml'), file('    delay: soon\n'))
    expect((await run('apply', 'words.yaml')).stderr).toMatch(/must be a whole number of milliseconds or a range such as 100-300/)
    expect(JSON.parse(await ok('endpoint', 'show', 'GET', '/api/stats', '--json'))).toMatchObject({ delay: 50, fault: null })
  })
})

describe('serve --delay: a floor under every mock answer', () => {
  it('the flag beats MOCKAPI_DELAY; a bad value names where it came from', () => {
    const environment = (value?: string) => ({ cwd: '/', env: value === undefined ? {} : { MOCKAPI_DELAY: value } })
    expect(resolveDelayFloor(undefined, environment())).toBeUndefined()
    expect(resolveDelayFloor('100-300', environment('5'))).toEqual({ min: 100, max: 300 })
    expect(resolveDelayFloor(undefined, environment('75'))).toEqual({ min: 75, max: 75 })
    expect(() => resolveDelayFloor('300-100', environment())).toThrow('--delay: delay range 300-100 must go from low to high (100-300)')
    expect(() => resolveDelayFloor(undefined, environment('soon'))).toThrow('MOCKAPI_DELAY: delay "soon" must be')
  })

  it('holds an answer and a 404 at least the floor; health is not held', async () => {
    const { ok, db } = cliWorkspace()
    await ok('init', '--yes', '--slug', 'd')
    await ok('add-endpoint', 'GET', '/api/stats', '--body', '{"n":1}')
    const server = await startServer({ dbPath: db, port: 0, host: '127.0.0.1', demo: false, delay: { min: 300, max: 300 } })
    running.push(server)
    const timed = async (path: string) => {
      const started = performance.now()
      const response = await fetch(`${server.url}${path}`)
      await response.text()
      return { status: response.status, ms: performance.now() - started }
    }
    for (const [path, status] of [['/api/stats', 200], ['/api/nothing-here', 404]] as const) {
      const answer = await timed(path)
      expect(answer.status).toBe(status)
      expect(answer.ms).toBeGreaterThanOrEqual(290)
    }
    // Not held: if it were, ten of them one after another would take 3 s or more.
    const started = performance.now()
    for (let i = 0; i < 10; i += 1) expect((await timed('/api/health')).status).toBe(200)
    expect(performance.now() - started).toBeLessThan(3000)
  })

  it('serve --delay and MOCKAPI_DELAY hold answers; a bad one stops serve with its source named; the log line names a fault', async () => {
    const { ok, db, cwd } = cliWorkspace()
    await ok('init', '--yes', '--slug', 'd')
    await ok('add-endpoint', 'GET', '/api/stats', '--body', '{"n":1}')
    await ok('add-endpoint', 'GET', '/api/broken', '--fault', 'reset')
    const refused = await cli(['--db', db, 'serve', '--port', '0', '--delay', '300-100'], { cwd })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('--delay: delay range 300-100 must go from low to high (100-300)')
    const fromEnv = await cli(['--db', db, 'serve', '--port', '0'], { cwd, env: { MOCKAPI_DELAY: 'soon' } })
    expect(fromEnv.code).toBe(1)
    expect(fromEnv.stderr).toContain('MOCKAPI_DELAY: delay "soon" must be')
    const served = await serveCli(['--db', db, 'serve', '--port', '0', '--grpc-port', '0'], { cwd, env: { MOCKAPI_DELAY: '200-250' } })
    const started = performance.now()
    expect(await (await fetch(`${served.url}/api/stats`)).json()).toEqual({ n: 1 })
    expect(performance.now() - started).toBeGreaterThanOrEqual(190)
    await fetch(`${served.url}/api/broken`).catch(() => null)
    await waitFor(() => /GET\s+\/api\/broken ✖ reset/.test(served.output()), 5000, 'the log line of the fault')
    await served.stop()
  })

  it('holds gRPC calls too, and draws a method\'s range per call', async () => {
    const snapshot = new TestSnapshot()
    snapshot.set([await loadFixture('helloworld')])
    const server = await startTestServer(snapshot, { delayFloor: { min: 200, max: 200 } })
    const client = clientFor('helloworld', 'helloworld.Greeter', server.port)
    try {
      let started = performance.now()
      await unary(client, 'sayHello', { name: 'x' })
      expect(performance.now() - started).toBeGreaterThanOrEqual(190)
      snapshot.settings('/helloworld.Greeter/SayHello', { delayMs: 300, delayMaxMs: 350 })
      started = performance.now()
      await unary(client, 'sayHello', { name: 'x' })
      expect(performance.now() - started).toBeGreaterThanOrEqual(290)
    } finally {
      client.close()
      await server.close()
    }
  })

  it('startMockApi({ delay }) takes a number or a range and refuses a bad one', async () => {
    await expect(startMockApi({ delay: '300-100' })).rejects.toThrow('delay range 300-100 must go from low to high (100-300)')
    const api = await startMockApi({ delay: '150-200', config: { name: 'Floor', slug: 'floor', endpoints: [{ method: 'GET', path: '/api/stats', body: { n: 1 } }] } })
    try {
      const started = performance.now()
      const response = await fetch(`${api.url}/api/floor/stats`)
      expect(await response.json()).toEqual({ n: 1 })
      expect(performance.now() - started).toBeGreaterThanOrEqual(140)
    } finally {
      await api.close()
    }
  })
})
