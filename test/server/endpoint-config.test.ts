import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { configureEndpoint, requireEndpoint, type SettingsInput } from '../../src/domain/endpoint-config.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { loadFaker } from '../../src/engine/generators.ts'
import type { Context } from '../../src/domain/context.ts'
import { cleanup, openStore, send, serve, tempDb } from '../_helpers.ts'

let base: string
let context: Context

beforeAll(async () => {
  const dbPath = tempDb()
  context = openStore(dbPath).context
  createProject(context, { name: 'Config', slug: 'cfg' })
  for (const path of ['/api/notes', '/api/users', '/api/flaky-things', '/api/fair-things', '/api/steady-things']) createResource(context, { path })
  addEndpoint(context, { method: 'GET', path: '/api/users/:id/cards', body: '{}' })
  base = `${(await serve(dbPath)).url}/api/cfg`
})
afterAll(cleanup)

async function set(method: string, path: string, input: SettingsInput) {
  configureEndpoint(context, requireEndpoint(context, { method, path }), input, await loadFaker())
}

describe('per-endpoint settings', () => {
  it('answers the configured status and headers, and leaves the other four endpoints as they were', async () => {
    await set('GET', '/api/notes', { status: 203, headers: { 'X-A': '1', 'Cache-Control': 'no-store' } })
    const list = await send(`${base}/notes`)
    expect(list.status).toBe(203)
    expect(list.headers.get('x-a')).toBe('1')
    expect(list.headers.get('cache-control')).toBe('no-store')
    expect(Array.isArray(list.json)).toBe(true)
    const created = await send(`${base}/notes`, { method: 'POST', body: { text: 'x' } })
    expect(created.status).toBe(201)
    expect(created.headers.get('x-a')).toBeNull()
    const read = await send(`${base}/notes/${created.json.id}`)
    expect(read.status).toBe(200)
    expect(read.headers.get('x-a')).toBeNull()
  })

  it('waits the configured delay', async () => {
    await set('GET', '/api/notes/:id', { delayMs: 250 })
    const started = performance.now()
    await send(`${base}/notes/1`)
    expect(performance.now() - started).toBeGreaterThanOrEqual(245)
    const quick = performance.now()
    await send(`${base}/notes`)
    expect(performance.now() - quick).toBeLessThan(245)
  })

  it('renders body templates fresh on every call with faker, path, query and body values', async () => {
    const template = {
      id: '{{params.id}}',
      name: '{{faker.person.fullName}}',
      n: '{{faker.number.int({"min":1,"max":1000000})}}',
      page: '{{query.page}}',
      echo: 'hello {{body.user.name}}',
      at: '{{now}}',
      token: '{{uuid}}',
    }
    await set('POST', '/api/users', { body: JSON.stringify(template), status: 202 })
    const call = () => send(`${base}/users?page=3`, { method: 'POST', body: { user: { name: 'Ada' } } })
    const [a, b] = [await call(), await call()]
    expect(a.status).toBe(202)
    expect(a.json.page).toBe('3')
    expect(a.json.echo).toBe('hello Ada')
    expect(typeof a.json.n).toBe('number')
    expect(a.json.name).toMatch(/\S+ \S+/)
    expect(Date.parse(a.json.at)).not.toBeNaN()
    expect(a.json.token).not.toBe(b.json.token)
    expect(a.json.name === b.json.name && a.json.n === b.json.n).toBe(false)
    // A fixed body replaces the records; nothing was created.
    expect((await send(`${base}/users`)).json).toEqual([])
    await set('GET', '/api/users/:id/cards', { body: JSON.stringify({ owner: '{{params.id}}' }) })
    expect((await send(`${base}/users/42/cards`)).json).toEqual({ owner: '42' })
  })

  it('validates the request body against a JSON Schema: 422 with every path and message', async () => {
    const schema = { type: 'object', required: ['title', 'views'], properties: { title: { type: 'string', minLength: 2 }, views: { type: 'integer', minimum: 0 }, email: { type: 'string', format: 'email' } } }
    await set('POST', '/api/notes', { schema: JSON.stringify(schema) })
    const bad = await send(`${base}/notes`, { method: 'POST', body: { title: 'x', email: 'nope' } })
    expect(bad.status).toBe(422)
    expect(bad.json.error.code).toBe('VALIDATION_FAILED')
    expect(bad.json.error.details).toEqual(expect.arrayContaining([
      { path: '/views', message: "must have required property 'views'" },
      { path: '/title', message: 'must NOT have fewer than 2 characters' },
      { path: '/email', message: 'must match format "email"' },
    ]))
    const before = (await send(`${base}/notes`)).json.length
    const good = await send(`${base}/notes`, { method: 'POST', body: { title: 'ok', views: 1 } })
    expect(good.status).toBe(201)
    expect((await send(`${base}/notes`)).json.length).toBe(before + 1)
    const notObject = await send(`${base}/notes`, { method: 'POST', body: [1] })
    expect(notObject.status).toBe(422)
  })

  it('error rate 100 % always fails with the error status, 0 % never', async () => {
    await set('GET', '/api/flaky-things', { errorRate: 100, errorStatus: 503 })
    for (let i = 0; i < 20; i += 1) {
      const response = await send(`${base}/flaky-things`)
      expect(response.status).toBe(503)
      expect(response.json.error.code).toBe('SIMULATED_ERROR')
    }
    await set('GET', '/api/steady-things', { errorRate: 0, errorStatus: 503 })
    for (let i = 0; i < 20; i += 1) expect((await send(`${base}/steady-things`)).status).toBe(200)
  })

  it('error rate 50 % fails about half of 200 calls', async () => {
    await set('GET', '/api/fair-things', { errorRate: 50, errorStatus: 500 })
    let failures = 0
    for (let i = 0; i < 200; i += 1) if ((await send(`${base}/fair-things`)).status === 500) failures += 1
    // Outside 60–140 has a probability below one in a billion.
    expect(failures).toBeGreaterThan(60)
    expect(failures).toBeLessThan(140)
  })

  it('refuses bad settings and keeps the old ones', async () => {
    const faker = await loadFaker()
    const endpoint = requireEndpoint(context, { method: 'GET', path: '/api/notes' })
    for (const input of [
      { status: 99 }, { delayMs: -1 }, { errorRate: 101 }, { errorStatus: 200 }, { schema: '{"type": 12}' },
      { body: '{"a": "{{nope.x}}"}' }, { body: '{"a": "{{faker.person.nope}}"}' }, { headers: { 'Bad Header': 'x' } },
    ] satisfies SettingsInput[]) {
      expect(() => configureEndpoint(context, endpoint, input, faker), JSON.stringify(input)).toThrow()
    }
    expect(requireEndpoint(context, { method: 'GET', path: '/api/notes' }).status).toBe(203)
  })
})

describe('Prefer header', () => {
  it('Prefer: code=503 answers that status with the error body; code=202 overrides a success', async () => {
    const failed = await send(`${base}/notes`, { headers: { Prefer: 'code=503' } })
    expect(failed.status).toBe(503)
    expect(failed.json.error.code).toBe('SIMULATED_ERROR')
    const accepted = await send(`${base}/notes`, { headers: { Prefer: 'code=202' } })
    expect(accepted.status).toBe(202)
    expect(Array.isArray(accepted.json)).toBe(true)
  })

  it('Prefer: delay=300 waits, capped at 60 s, and combines with code', async () => {
    const started = performance.now()
    const response = await send(`${base}/notes`, { headers: { Prefer: 'delay=300, code=429' } })
    expect(performance.now() - started).toBeGreaterThanOrEqual(295)
    expect(response.status).toBe(429)
    expect((await send(`${base}/notes`, { headers: { Prefer: 'code=abc, delay=x' } })).status).toBe(203)
  })
})
