import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { mintToken } from '../../src/domain/auth.ts'
import { createCatalog } from '../../src/domain/catalog.ts'
import type { MockRequest } from '../../src/engine/exchange.ts'
import type { RequestServed } from '../../src/events.ts'
import { matchRequest } from '../../src/server/pipeline/match.ts'
import { createSelector } from '../../src/server/pipeline/select.ts'
import { startServer, type RunningServer, type StartOptions } from '../../src/server/start.ts'
import { cleanup, cliProcessAsync, cliWorkspace, expectAliveAndIntact, openStore, ROOT, send, settle, waitFor } from '../_helpers.ts'

afterAll(cleanup)

const running: RunningServer[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()))
})

async function workspaceServer(setup: (ok: (...args: string[]) => Promise<string>) => Promise<void>, options: Partial<StartOptions> = {}) {
  const workspace = cliWorkspace()
  await workspace.ok('init', '--yes', '--slug', 'r')
  await setup(workspace.ok)
  const server = await startServer({ dbPath: workspace.db, port: 0, host: '127.0.0.1', demo: false, ...options })
  running.push(server)
  const served: RequestServed[] = []
  server.events.on('request.served', (entry) => served.push(entry))
  return { ...workspace, server, url: server.url, served }
}

const sessions = async (ok: (...args: string[]) => Promise<string>) => {
  await ok('add-endpoint', 'POST', '/api/sessions', '--body', '{"note":"endpoint"}', '--header', 'X-Mock: endpoint')
  await ok('response', 'add', 'POST', '/api/sessions', '--name', 'admin', '--when', '{"body":{"username":"admin","password":"secret"}}', '--status', '201', '--body', '{"token":"{{uuid}}"}', '--header', 'X-Mock: admin')
  await ok('response', 'add', 'POST', '/api/sessions', '--name', 'locked', '--when', '{"headers":{"X-Account":{"matches":"^locked-"}}}', '--status', '423')
  await ok('response', 'add', 'POST', '/api/sessions', '--status', '401', '--body', '{"error":{"code":"INVALID_CREDENTIALS","message":"wrong password"}}')
}

describe('pick: rules', () => {
  it('answers the first response whose when holds, else the fallback; events say which', async () => {
    const { url, served } = await workspaceServer(sessions)
    const admin = await send(`${url}/api/sessions`, { method: 'POST', body: { username: 'admin', password: 'secret' } })
    expect(admin.status).toBe(201)
    expect(admin.json.token).toMatch(/^[0-9a-f-]{36}$/)
    expect(admin.headers.get('x-mock')).toBe('admin')
    // Header names in any case; a response without a body answers none.
    const locked = await send(`${url}/api/sessions`, { method: 'POST', body: { username: 'x' }, headers: { 'x-ACCOUNT': 'locked-42' } })
    expect(locked.status).toBe(423)
    expect(locked.text).toBe('')
    expect(locked.headers.get('content-length')).toBe('0')
    // No body, no Content-Type (as Mockoon and WireMock): a client parsing by type would fail on an empty "JSON" body.
    expect(locked.headers.get('content-type')).toBeNull()
    expect(locked.headers.get('x-mock')).toBe('endpoint')
    const wrong = await send(`${url}/api/sessions`, { method: 'POST', body: { username: 'admin', password: 'nope' } })
    expect(wrong.status).toBe(401)
    expect(wrong.json).toEqual({ error: { code: 'INVALID_CREDENTIALS', message: 'wrong password' } })
    // A body that is not JSON: no rule on it holds, selection does not fail; the answer refuses it as before.
    const broken = await send(`${url}/api/sessions`, { method: 'POST', body: '{"username":', headers: { 'content-type': 'application/json' } })
    expect(broken.status).toBe(400)
    expect(broken.json.error.code).toBe('INVALID_JSON')
    expect(served.map((s) => s.answeredBy ?? null)).toEqual([
      { position: 1, name: 'admin' },
      { position: 2, name: 'locked' },
      { position: 3, name: null },
      null,
    ])
  })

  it('Prefer: code answers the first response with that status, passing over rules; a status no response has is simulated as before', async () => {
    const { url } = await workspaceServer(sessions)
    const preferred = (code: number) => send(`${url}/api/r/sessions`, { method: 'POST', headers: { prefer: `code=${code}` }, body: { username: 'x' } })
    const token = await preferred(201)
    expect([token.status, token.headers.get('x-mock')]).toEqual([201, 'admin'])
    expect(token.json.token).toMatch(/^[0-9a-f-]{36}$/)
    const locked = await preferred(423)
    expect([locked.status, locked.text]).toEqual([423, ''])
    const simulated = await preferred(503)
    expect([simulated.status, simulated.json.error.code]).toEqual([503, 'SIMULATED_ERROR'])
  })

  it('without a fallback the endpoint answers: a resource stores unless a rule says 409', async () => {
    const { url, db } = await workspaceServer(async (ok) => {
      await ok('add-resource', '/api/users', '--fields', 'email:internet.email')
      await ok('response', 'add', 'POST', '/api/users', '--when', '{"body":{"email":"taken@example.com"}}', '--status', '409', '--body', '{"error":{"code":"EMAIL_TAKEN","message":"{{body.email}} is taken"}}')
    })
    const taken = await send(`${url}/api/users`, { method: 'POST', body: { email: 'taken@example.com' } })
    expect(taken.status).toBe(409)
    expect(taken.json.error.message).toBe('taken@example.com is taken')
    const stored = await send(`${url}/api/users`, { method: 'POST', body: { email: 'new@example.com' } })
    expect(stored.status).toBe(201)
    const listed = await send(`${url}/api/users`)
    expect(listed.json.map((u: { email: string }) => u.email)).toEqual(['new@example.com'])
    await expectAliveAndIntact(url, db)
  })

  it('reads query (repeated, numbers by value), cookies, params, form bodies, JSONPath, any and not', async () => {
    const { url } = await workspaceServer(async (ok) => {
      await ok('add-endpoint', 'GET', '/api/items/:id', '--body', '{"rule":"none"}')
      await ok('response', 'add', 'GET', '/api/items/:id', '--when', '{"params":{"id":7},"query":{"tag":"b"}}', '--body', '{"rule":"param and repeated query"}')
      await ok('response', 'add', 'GET', '/api/items/:id', '--when', '{"query":{"page":{"gte":10,"lt":20}}}', '--body', '{"rule":"range"}')
      await ok('response', 'add', 'GET', '/api/items/:id', '--when', '{"cookies":{"session":"a b;c"}}', '--body', '{"rule":"cookie"}')
      await ok('response', 'add', 'GET', '/api/items/:id', '--when', '{"any":[{"query":{"v":{"in":[1,2]}}},{"headers":{"x-v":{"not":{"absent":true}}}}]}', '--body', '{"rule":"any"}')
      await ok('add-endpoint', 'POST', '/api/orders', '--body', '{"rule":"none"}')
      await ok('response', 'add', 'POST', '/api/orders', '--when', '{"body":{"$.items[0].sku":"A-1","customer.tier":{"in":["gold"]}}}', '--body', '{"rule":"jsonpath"}')
      await ok('response', 'add', 'POST', '/api/orders', '--when', '{"body":{"$.items[*].qty":{"gt":99}}}', '--body', '{"rule":"any item"}')
      await ok('response', 'add', 'POST', '/api/orders', '--when', '{"body":{"kind":"form","n":3}}', '--body', '{"rule":"form"}')
      await ok('response', 'add', 'POST', '/api/orders', '--when', '{"body":{"__proto__":{"x":1}}}', '--body', '{"rule":"proto"}')
      await ok('response', 'add', 'POST', '/api/orders', '--when', '{"body":{"contains":"<Envelope"}}', '--body', '{"rule":"raw"}')
    })
    const rule = async (path: string, init: Parameters<typeof send>[1] = {}) => (await send(`${url}${path}`, init)).json.rule
    expect(await rule('/api/items/7?tag=a&tag=b')).toBe('param and repeated query')
    expect(await rule('/api/items/8?tag=b')).toBe('none')
    expect(await rule('/api/items/1?page=10')).toBe('range')
    expect(await rule('/api/items/1?page=20')).toBe('none')
    expect(await rule('/api/items/1?page=abc')).toBe('none')
    expect(await rule('/api/items/1', { headers: { cookie: 'other=1; session=a%20b%3Bc' } })).toBe('cookie')
    expect(await rule('/api/items/1', { headers: { cookie: 'session=%E0%A4%A' } })).toBe('none')
    expect(await rule('/api/items/1?v=2')).toBe('any')
    expect(await rule('/api/items/1', { headers: { 'X-V': '' } })).toBe('any')
    expect(await rule('/api/orders', { method: 'POST', body: { items: [{ sku: 'A-1' }], customer: { tier: 'gold' } } })).toBe('jsonpath')
    expect(await rule('/api/orders', { method: 'POST', body: { items: [{ sku: 'A-1' }], customer: { tier: 'silver' } } })).toBe('none')
    expect(await rule('/api/orders', { method: 'POST', body: { items: [{ qty: 1 }, { qty: 100 }] } })).toBe('any item')
    expect(await rule('/api/orders', { method: 'POST', body: 'kind=form&n=3', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).toBe('form')
    expect(await rule('/api/orders', { method: 'POST', body: '{"__proto__":{"x":1}}', headers: { 'content-type': 'application/json' } })).toBe('proto')
    expect(await rule('/api/orders', { method: 'POST', body: { x: 1 } })).toBe('none')
    expect(await rule('/api/orders', { method: 'POST', body: '<Envelope/>', headers: { 'content-type': 'text/xml' } })).toBe('raw')
  })

  it('a costly match over a large body does not hold, answers promptly, and the journal says so', async () => {
    const { url, db } = await workspaceServer(async (ok) => {
      await ok('add-endpoint', 'POST', '/api/big', '--body', '{"rule":"none"}')
      await ok('response', 'add', 'POST', '/api/big', '--when', '{"body":{"matches":"[a-z]{400}[0-9]"}}', '--body', '{"rule":"regex"}')
      await ok('response', 'add', 'POST', '/api/big', '--when', '{"body":{"text":{"matches":"x$"}}}', '--body', '{"rule":"small"}')
    })
    const { context } = openStore(db)
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const body = 'a'.repeat(1_000_000)
    const big = await send(`${url}/api/big`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } })
    expect(big.json.rule).toBe('none')
    const logged = await waitFor(async () => ((await send(`${url}/api/projects/1/requests`, { headers: auth })).json as { path: string; note?: string }[]).find((e) => e.path === '/api/big'))
    expect(logged.note).toBe('pattern skipped: value too long')
    expect((await send(`${url}/api/big`, { method: 'POST', body: { text: 'ax' } })).json.rule).toBe('small')
  })
  it('the select stage says which rules did not hold and why, only when it falls through', async () => {
    const workspace = cliWorkspace()
    await workspace.ok('init', '--yes', '--slug', 'r')
    await sessions(workspace.ok)
    await workspace.ok('add-endpoint', 'GET', '/api/plain', '--body', '{}')
    const catalog = createCatalog(openStore(workspace.db).context)
    const select = createSelector(Math.random)
    const selected = async (method: string, path: string, body: unknown = undefined, headers: Record<string, string> = {}) => {
      const text = body === undefined ? '' : JSON.stringify(body)
      const request: MockRequest = {
        method,
        url: new URL(path, 'http://mock'),
        headers: new Headers({ 'content-type': 'application/json', ...headers }),
        body: async () => new TextEncoder().encode(text),
        text: async () => text,
        json: async () => (text === '' ? undefined : JSON.parse(text)),
      }
      const match = matchRequest(catalog, request)
      if (match.kind !== 'endpoint') throw new Error(`${method} ${path} matched no endpoint`)
      return select(request, match)
    }
    const admin = await selected('POST', '/api/sessions', { username: 'admin', password: 'secret' })
    expect(admin.answeredBy).toEqual({ position: 1, name: 'admin' })
    expect(admin.ruleMisses).toBeNull()
    const fellThrough = await selected('POST', '/api/sessions', { username: 'admin', password: 'nope' }, { 'X-Account': 'open-1' })
    expect(fellThrough.answeredBy).toEqual({ position: 3, name: null })
    expect(fellThrough.ruleMisses).toEqual([
      { response: { position: 1, name: 'admin' }, failed: ['body.password = secret (received "nope")'] },
      { response: { position: 2, name: 'locked' }, failed: ['headers.X-Account matches "^locked-" (received "open-1")'] },
    ])
    expect((await selected('GET', '/api/plain')).ruleMisses).toBeNull()
  })
})

describe('pick: sequence and random', () => {
  const three = async (ok: (...args: string[]) => Promise<string>) => {
    await ok('add-endpoint', 'GET', '/api/polls', '--body', '{"n":0}')
    await ok('add-endpoint', 'GET', '/api/other', '--body', '{}')
    await ok('endpoint', 'set', 'GET', '/api/polls', '--pick', 'sequence')
    for (const n of [1, 2, 3]) await ok('response', 'add', 'GET', '/api/polls', '--body', `{"n":${n}}`)
  }
  const n = async (url: string) => (await send(`${url}/api/polls`)).json.n

  it('answers in turn, wraps, and starts again on reset or when its responses change, not on other edits', async () => {
    const { url, ok } = await workspaceServer(three)
    expect([await n(url), await n(url), await n(url), await n(url)]).toEqual([1, 2, 3, 1])
    await ok('endpoint', 'set', 'GET', '/api/other', '--status', '202')
    expect(await n(url)).toBe(2)
    await ok('reset')
    expect(await n(url)).toBe(1)
    await ok('response', 'add', 'GET', '/api/polls', '--body', '{"n":4}')
    expect([await n(url), await n(url), await n(url), await n(url), await n(url)]).toEqual([1, 2, 3, 4, 1])
    await ok('response', 'remove', 'GET', '/api/polls', '4')
    expect(await n(url)).toBe(1)
  })

  it('a HEAD sees the current turn without taking it', async () => {
    const { url } = await workspaceServer(three)
    expect(await n(url)).toBe(1)
    expect((await fetch(`${url}/api/r/polls`, { method: 'HEAD' })).status).toBe(200)
    expect([await n(url), await n(url)]).toEqual([2, 3])
  })

  it('starts again on a reset from the API or from another process', async () => {
    const { url, db, cwd } = await workspaceServer(three)
    const { context } = openStore(db)
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    expect([await n(url), await n(url)]).toEqual([1, 2])
    expect((await send(`${url}/api/projects/1/reset`, { method: 'POST', headers: auth })).status).toBe(200)
    expect([await n(url), await n(url)]).toEqual([1, 2])
    const other = await cliProcessAsync(['--db', db, 'reset'], { cwd })
    expect(other.code, other.stderr).toBe(0)
    // Another process's commit shows within the cache's recheck (50 ms); without the reset the next would be 3.
    await settle()
    expect(await n(url)).toBe(1)
  })

  it('gives concurrent requests distinct positions', async () => {
    const { url } = await workspaceServer(three)
    const answers = await Promise.all(Array.from({ length: 21 }, () => n(url)))
    expect(answers.filter((x) => x === 1)).toHaveLength(7)
    expect(answers.filter((x) => x === 2)).toHaveLength(7)
    expect(answers.filter((x) => x === 3)).toHaveLength(7)
  })

  it('restarts a re-created endpoint at the first response', async () => {
    const { url, ok } = await workspaceServer(three)
    expect(await n(url)).toBe(1)
    await ok('remove-endpoint', 'GET', '/api/polls')
    expect((await send(`${url}/api/polls`)).status).toBe(404)
    await three(async (...args) => (args[0] === 'add-endpoint' && args[2] === '/api/other' ? '' : ok(...args)))
    expect(await n(url)).toBe(1)
  })

  it('picks at random, the same picks with the same seed', async () => {
    const setup = async (ok: (...args: string[]) => Promise<string>) => {
      await ok('add-endpoint', 'GET', '/api/dice', '--body', '{}')
      await ok('endpoint', 'set', 'GET', '/api/dice', '--pick', 'random')
      for (const side of [1, 2, 3, 4, 5, 6]) await ok('response', 'add', 'GET', '/api/dice', '--body', `{"side":${side}}`)
    }
    const roll = async (seed: number) => {
      const { url } = await workspaceServer(setup, { seed })
      const sides: number[] = []
      for (let i = 0; i < 30; i += 1) sides.push((await send(`${url}/api/dice`)).json.side)
      return sides
    }
    const first = await roll(42)
    expect(new Set(first).size).toBeGreaterThan(3)
    expect(await roll(42)).toEqual(first)
  })
})

describe('a response\'s own delay and fault', () => {
  it('answers the chosen response\'s fault and delay over the endpoint\'s', async () => {
    const { url, served } = await workspaceServer(async (ok) => {
      await ok('add-endpoint', 'GET', '/api/flaky', '--body', '{"ok":true}')
      await ok('response', 'add', 'GET', '/api/flaky', '--when', '{"query":{"mode":"reset"}}', '--fault', 'reset', '--name', 'boom')
      await ok('response', 'add', 'GET', '/api/flaky', '--when', '{"query":{"mode":"slow"}}', '--delay', '150-200', '--body', '{"slow":true}')
    })
    await expect(fetch(`${url}/api/flaky?mode=reset`)).rejects.toThrow()
    const started = performance.now()
    expect((await send(`${url}/api/flaky?mode=slow`)).json).toEqual({ slow: true })
    expect(performance.now() - started).toBeGreaterThanOrEqual(140)
    expect((await send(`${url}/api/flaky`)).json).toEqual({ ok: true })
    expect(served.map((s) => [s.status, s.fault ?? null, s.answeredBy ?? null])).toEqual([
      [0, 'reset', { position: 1, name: 'boom' }],
      [200, null, { position: 2, name: null }],
      [200, null, null],
    ])
  })
})

describe('refusals change nothing', () => {
  it('refuses bad responses with the field and keeps the list', async () => {
    const { run, ok } = cliWorkspace()
    await ok('init', '--yes', '--slug', 'r')
    await ok('add-endpoint', 'GET', '/api/things', '--body', '{}')
    await ok('response', 'add', 'GET', '/api/things', '--when', '{"query":{"a":"1"}}', '--status', '201')
    await ok('response', 'add', 'GET', '/api/things', '--status', '404')
    const before = await ok('response', 'list', 'GET', '/api/things', '--json')
    const refused = async (args: string[], message: string | RegExp) => {
      const result = await run(...args)
      expect(result.code, args.join(' ')).not.toBe(0)
      expect(result.stderr).toMatch(message)
    }
    const add = (...more: string[]) => ['response', 'add', 'GET', '/api/things', ...more]
    await refused(add('--when', '[1]'), /responses\[2\]\.when: must be an object/)
    await refused(add('--when', '{"header":{"a":1}}'), /did you mean headers/)
    await refused(add('--when', '{"query":{"a":{"regex":"x"}}}'), /responses\[2\]\.when\.query\.a: unknown operator "regex"/)
    await refused(add('--when', '{"query":{"a":{"equals":1,"b":2}}}'), /mixes the operator "equals" with field names/)
    await refused(add('--when', '{"query":{"a":{"gt":"a"}}}'), /gt: compares numbers/)
    await refused(add('--when', '{"query":{"a":{"in":5}}}'), /in: must be a list/)
    await refused(add('--when', '{"query":{"a":{"present":false}}}'), /present: takes true only/)
    await refused(add('--when', '{"body":{"$..a":1}}'), /JSONPath subset/)
    await refused(add('--when', '{"body":{"$.a[?(@.b)]":1}}'), /JSONPath subset/)
    await refused(add('--when', `{"body":${'{"a":'.repeat(17)}1${'}'.repeat(17)}}`), /nested deeper than 16/)
    await refused(add('--when', JSON.stringify({ query: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`q${i}`, 1])) })), /at most 100 conditions/)
    await refused(add('--when', JSON.stringify({ query: { a: { in: Array.from({ length: 1001 }, (_, i) => i) } } })), /at most 1000 values/)
    await refused(add('--when', JSON.stringify({ body: { a: 'x'.repeat(17_000) } })), /at most 16384/)
    await refused(add('--when', '{"query":{"a":{"matches":"(?=a)"}}}'), /lookaheads/)
    await refused(add('--when', '{"query":{"a":{"matches":"(a)\\\\1"}}}'), /cannot be used/)
    await refused(add('--when', '{"query":{"a":{"matches":"a{1001}"}}}'), /cannot be used/)
    await refused(add('--when', JSON.stringify({ query: { a: { matches: 'a'.repeat(1001) } } })), /longer than 1000 characters/)
    await refused(add('--when', '{"query":{"a":{"matches":"(?:[a-z]{30}){30}[0-9]"}}}'), /pattern too costly/)
    await refused(add('--when', 'nope'), /--when is not valid JSON/)
    await refused(add('--when', '{}'), /responses\[2\]\.when: is empty: an empty condition always holds: leave "when" out for the fallback/)
    await refused(add('--when', '{"any":[{}]}'), /responses\[2\]\.when\.any\[0\]: is empty/)
    await refused(add('--when', '{"query":{}}'), /responses\[2\]\.when\.query: is empty/)
    await refused(add('--when', '{"headers":{"bad name":"x"}}'), /responses\[2\]\.when\.headers\.bad name: is not a header name/)
    await refused(add('--when', '{"body":{"a.":1}}'), /responses\[2\]\.when\.body\.a\.: "a\." has an empty step/)
    await refused(add('--when', '{"query":{"a":{"not":{}}}}'), /responses\[2\]\.when\.query\.a\.not: is empty: give a condition to negate/)
    await refused(add('--status', '99'), /responses\[2\]\.status/)
    await refused(add('--delay', '300-100'), /responses\[2\]\.delay/)
    await refused(add('--fault', 'explode'), /responses\[2\]\.fault.*reset, empty, malformed, hang/)
    await refused(add('--body', '{"a":"{{nope.x}}"}'), /responses\[2\]\.body/)
    await refused(add('--when', '{"query":{"h":"1"}}', '--header', 'X-Trace: {{nope}}'), /responses\[2\]\.headers\.X-Trace: template \{\{nope\}\}: unknown name "nope"/)
    await refused(add('--when', '{"query":{"h":"1"}}', '--header', 'X-Ok: {{uuid}}', '--header', 'X-C: {{faker.helpers.constructor}}'), /responses\[2\]\.headers\.X-C: .*helpers\.constructor/)
    await refused(add('--header', 'X-A: b', '--name', '12'), /not only digits/)
    await refused(add('--when', '{"query":{"d":"1"}}', '--name', '..'), /responses\[2\]\.name: "\.\." names a URL segment the path resolves away/)
    await refused(add('--when', '{"query":{"d":"1"}}', '--name', '.'), /responses\[2\]\.name: "\." names a URL segment/)
    await refused(add('--status', '500'), /second fallback/)
    await refused(add('--at', '9', '--status', '500', '--when', '{"query":{"b":1}}'), /position 9 must be from 1 to 3/)
    await refused(['endpoint', 'set', 'GET', '/api/things', '--pick', 'sequence'], /"when" applies only with pick: rules/)
    await refused(['endpoint', 'set', 'GET', '/api/things', '--pick', 'loop'], /pick "loop" must be one of rules, sequence, random/)
    await refused(['response', 'remove', 'GET', '/api/things', '3'], /has no response #3 \(it has #1 to #2\)/)
    await refused(['response', 'remove', 'GET', '/api/things', 'ghost'], /has no response "ghost"/)
    expect(await ok('response', 'list', 'GET', '/api/things', '--json')).toBe(before)
  })

  it('names the field over the management API and stores nothing on refusal', async () => {
    const { url, db } = await workspaceServer(async (ok) => {
      await ok('add-endpoint', 'GET', '/api/things', '--body', '{}')
    })
    const { context } = openStore(db)
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const listed = (await send(`${url}/api/projects/1/endpoints`, { headers: auth })).json
    const id = listed.find((e: { path: string }) => e.path === '/api/things').id
    const patch = (body: unknown) => send(`${url}/api/projects/1/endpoints/${id}`, { method: 'PATCH', body, headers: auth })
    const bad = await patch({ responses: [{ status: 201 }, { when: { query: { a: { matches: '(?=x)' } } } }] })
    expect(bad.status).toBe(400)
    expect(bad.json.error.details[0].field).toBe('responses[1].when.query.a.matches')
    expect((await patch({ responses: [{ bdy: 1 }] })).json.error.details[0].field).toBe('responses[0].bdy')
    expect((await patch({ responses: { a: 1 } })).json.error.details[0].field).toBe('responses')
    expect((await patch({ pick: 3 })).json.error.details[0].field).toBe('pick')
    const dots = await patch({ responses: [{ name: '..', when: { query: { a: '1' } } }] })
    expect([dots.status, dots.json.error.details[0].field]).toEqual([400, 'responses[0].name'])
    const badHeader = await patch({ responses: [{ when: { query: { a: '1' } }, headers: { 'X-A': '{{nope}}' } }] })
    expect([badHeader.status, badHeader.json.error.details[0].field]).toEqual([400, 'responses[0].headers.X-A'])
    const responsesUrl = `${url}/api/projects/1/endpoints/${id}/responses`
    const posted = await send(responsesUrl, { method: 'POST', headers: auth, body: { when: { query: { a: '1' } }, headers: { 'X-Id': '{{faker.nope.nope}}' } } })
    expect([posted.status, posted.json.error.details[0].field]).toEqual([400, 'responses[0].headers.X-Id'])
    expect((await send(`${url}/api/things?a=1`)).status).toBe(200)
    expect((await send(responsesUrl, { headers: auth })).json.responses).toEqual([])
    expect((await send(responsesUrl, { method: 'POST', headers: auth, body: { when: { query: { a: '1' } }, headers: { 'X-Id': '{{uuid}}' } } })).status).toBe(201)
    const put = await send(`${responsesUrl}/1`, { method: 'PUT', headers: auth, body: { when: { query: { a: '1' } }, headers: { 'X-Id': '{{nope}}' } } })
    expect([put.status, put.json.error.details[0].field]).toEqual([400, 'responses[0].headers.X-Id'])
    expect((await send(responsesUrl, { headers: auth })).json.responses).toMatchObject([{ headers: { 'X-Id': '{{uuid}}' } }])
    expect((await send(`${url}/api/things?a=1`)).headers.get('x-id')).toMatch(/^[0-9a-f-]{36}$/)
    const ok = await patch({ pick: 'sequence', responses: [{ name: 'one', body: { n: 1 } }, { body: { n: 2 }, delay: '0-5' }] })
    expect(ok.status).toBe(200)
    expect(ok.json).toMatchObject({ pick: 'sequence', responses: [{ name: 'one', body: { n: 1 } }, { body: { n: 2 }, delay: '0-5' }] })
    expect((await send(`${url}/api/things`)).json).toEqual({ n: 1 })
    expect((await send(`${url}/api/things`)).json).toEqual({ n: 2 })
    // Back to rules with a when, in one PATCH.
    const back = await patch({ pick: 'rules', responses: [{ when: { query: { n: 2 } }, body: { n: 2 } }] })
    expect(back.status).toBe(200)
    expect((await send(`${url}/api/things?n=2`)).json).toEqual({ n: 2 })
    expect((await send(`${url}/api/things`)).json).toEqual({})
    await expectAliveAndIntact(url, db)
  })
})

describe('events and the journal', () => {
  it('carry which response answered', async () => {
    const { url, db } = await workspaceServer(sessions)
    const { context } = openStore(db)
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const hook = await send(`${url}/api/projects/1/webhooks`, { method: 'POST', headers: auth, body: { name: 'all', targetUrl: 'http://127.0.0.1:9/hook', events: ['mock.request'] } })
    expect(hook.status).toBe(201)
    expect((await send(`${url}/api/sessions`, { method: 'POST', body: { username: 'admin', password: 'secret' } })).status).toBe(201)
    const log = await waitFor(async () => ((await send(`${url}/api/projects/1/requests`, { headers: auth })).json as { path: string; response: unknown }[]).find((e) => e.path === '/api/sessions'))
    expect(log.response).toEqual({ position: 1, name: 'admin' })
    const payload = await waitFor(() => {
      const row = context.db.prepare<[], { payload: string }>("SELECT payload FROM events WHERE type = 'mock.request'").get()
      return row && (JSON.parse(row.payload) as { data: Record<string, unknown> })
    })
    expect(payload.data).toMatchObject({ path: '/api/sessions', status: 201, answeredBy: { position: 1, name: 'admin' } })
  })
})

describe('where responses apply', () => {
  it('refuses them on a GraphQL operation', async () => {
    const { ok, run } = cliWorkspace()
    await ok('import', join(ROOT, 'fixtures', 'graphql', 'swapi', 'schema.graphql'))
    const refused = await run('response', 'add', 'POST', '/graphql#Query.person', '--status', '200')
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(/responses apply to HTTP routes; this graphql operation answers through its schema/)
  })

  it('an imported OpenAPI operation answers a chosen body, its documented answer for a body-less status, and the spec otherwise', async () => {
    const { url } = await workspaceServer(async (ok) => {
      await ok('import', join(ROOT, 'fixtures', 'openapi', 'swagger-petstore-v3', 'openapi.yaml'), '--project', 'r')
      await ok('response', 'add', 'GET', '/pet/:petId', '--when', '{"params":{"petId":0}}', '--status', '404', '--project', 'r')
      await ok('response', 'add', 'GET', '/pet/:petId', '--when', '{"params":{"petId":7}}', '--body', '{"id":7,"name":"seven"}', '--project', 'r')
    })
    // The spec's security holds before any response is chosen: no key, no answer (auth runs first).
    expect((await send(`${url}/api/r/pet/0`)).status).toBe(401)
    const key = { headers: { api_key: 'k-1' } }
    expect((await send(`${url}/api/r/pet/0`, key)).status).toBe(404)
    expect((await send(`${url}/api/r/pet/7`, key)).json).toEqual({ id: 7, name: 'seven' })
    const documented = await send(`${url}/api/r/pet/1`, key)
    expect([documented.status, documented.json.name]).toEqual([200, 'doggie'])
  })
})

describe('…/endpoints/{eid}/responses', () => {
  it('adds, replaces and removes one response at a time, 404 past the end', async () => {
    const { url, db } = await workspaceServer(async (ok) => {
      await ok('add-endpoint', 'GET', '/api/things', '--body', '{}')
    })
    const { context } = openStore(db)
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const id = (await send(`${url}/api/projects/1/endpoints`, { headers: auth })).json.find((e: { path: string }) => e.path === '/api/things').id
    const base = `${url}/api/projects/1/endpoints/${id}/responses`
    expect((await send(base, { headers: auth })).json).toEqual({ pick: 'rules', responses: [] })
    const added = await send(base, { method: 'POST', body: { status: 404 }, headers: auth })
    expect(added.status).toBe(201)
    const first = await send(`${base}?at=1`, { method: 'POST', body: { name: 'vip', when: { headers: { 'x-tier': 'vip' } }, body: { vip: true } }, headers: auth })
    expect(first.json.responses).toEqual([{ name: 'vip', when: { headers: { 'x-tier': 'vip' } }, body: { vip: true } }, { status: 404 }])
    expect((await send(`${url}/api/things`, { headers: { 'X-Tier': 'vip' } })).json).toEqual({ vip: true })
    expect((await send(`${url}/api/things`)).status).toBe(404)
    const bad = await send(base, { method: 'POST', body: { status: 500 }, headers: auth })
    expect([bad.status, bad.json.error.details[0].field]).toEqual([400, 'responses[2]'])
    expect((await send(`${base}?at=x`, { method: 'POST', body: {}, headers: auth })).json.error.details[0].field).toBe('at')
    const replaced = await send(`${base}/2`, { method: 'PUT', body: { status: 410 }, headers: auth })
    expect(replaced.json.responses[1]).toEqual({ status: 410 })
    expect((await send(`${base}/3`, { method: 'DELETE', headers: auth })).status).toBe(404)
    const removed = await send(`${base}/vip`, { method: 'DELETE', headers: auth })
    expect(removed.json).toEqual({ pick: 'rules', responses: [{ status: 410 }] })
    expect((await send(`${base}/1`, { method: 'PATCH', headers: auth })).status).toBe(405)
    await expectAliveAndIntact(url, db)
  })
})

describe('project files', () => {
  const file = `name: Sessions
slug: s
endpoints:
  - method: POST
    path: /api/sessions
    pick: rules
    responses:
      - name: admin
        when: { body: { username: admin, password: secret } }
        status: 201
        body: { token: '{{uuid}}' }
      - when: { headers: { x-account: { matches: '^locked-' } } }
        status: 423
        delay: 10-20
      - status: 401
        body: { error: { code: INVALID_CREDENTIALS, message: wrong password } }
  - method: GET
    path: /api/polls
    pick: sequence
    body: {}
    responses:
      - body: { n: 1 }
      - body: { n: 2 }
        fault: empty
`

  it('applies, exports the same, and applies again with no change', async () => {
    const { cwd, ok } = cliWorkspace()
    writeFileSync(join(cwd, 'mockapi.yaml'), file)
    await ok('apply', 'mockapi.yaml')
    const exported = await ok('export', '--project', 's')
    expect(exported).toContain('pick: sequence')
    expect(exported).toContain('matches: ^locked-')
    writeFileSync(join(cwd, 'again.yaml'), exported)
    expect(await ok('apply', 'again.yaml')).not.toMatch(/~ endpoint/)
    const other = cliWorkspace()
    writeFileSync(join(other.cwd, 'mockapi.yaml'), exported)
    await other.ok('apply', 'mockapi.yaml')
    expect(await other.ok('export', '--project', 's')).toBe(exported)
    const shown = await ok('endpoint', 'show', 'POST', '/api/sessions', '--project', 's')
    expect(shown).toContain('#1 admin  when body.username = admin, body.password = secret → 201, json')
    expect(shown).toContain('#2  when headers.x-account matches "^locked-" → 423, no body, delay 10-20 ms')
    expect(shown).toContain('#3  otherwise → 401, json')
  })

  it('refuses a bad response with its line and applies nothing', async () => {
    const { cwd, run, ok } = cliWorkspace()
    const refused = async (text: string, message: RegExp) => {
      writeFileSync(join(cwd, 'bad.yaml'), text)
      const result = await run('apply', 'bad.yaml')
      expect(result.code).not.toBe(0)
      expect(result.stderr).toMatch(message)
    }
    await refused(file.replace('matches: \'^locked-\'', 'matches: \'(?=x)\''), /line 12: endpoints\[0\]\.responses\[1\]\.when\.headers\.x-account\.matches .*lookaheads/)
    await refused(file.replace('when: { body: { username', 'whn: { body: { username'), /line 9.*unknown key "whn".*did you mean "when"/)
    await refused(file.replace('pick: sequence', 'pick: sequence\n    responses: []\n    x: 1').replace(/responses:\n {6}- body: \{ n: 1 \}\n {6}- body: \{ n: 2 \}\n {8}fault: empty\n/, ''), /unknown key "x"/)
    await refused(file.replace("      - status: 401\n", "      - status: 401\n      - status: 402\n"), /endpoints\[0\]\.responses\[3\] is a second fallback/)
    await refused(file.replace("      - status: 401\n", "      - status: 401\n        headers: { X-Trace: '{{nope}}' }\n"), /bad\.yaml, line 16: endpoints\[0\]\.responses\[2\]\.headers\.X-Trace is not valid: template \{\{nope\}\}: unknown name "nope"/)
    await refused(file.replace("token: '{{uuid}}'", "token: '{{nope}}'"), /bad\.yaml, line 11: endpoints\[0\]\.responses\[0\]\.body is not valid: template \{\{nope\}\}: unknown name "nope"/)
    await refused(file.replace('pick: sequence', 'pick: sequence\n    x-y: 1'), /unknown key/)
    await refused(file.replace('      - body: { n: 1 }', '      - body: { n: 1 }\n        when: { query: { a: 1 } }'), /endpoints\[1\]\.responses\[0\]\.when "when" applies only with pick: rules/)
    expect(await ok('projects')).not.toMatch(/Sessions/)
  })
})
