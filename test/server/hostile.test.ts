import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from 'node:net'
import { request } from 'node:http'
import { mintToken } from '../../src/domain/auth.ts'
import { configureEndpoint, requireEndpoint } from '../../src/domain/endpoint-config.ts'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { loadFaker } from '../../src/engine/generators.ts'
import { startServer } from '../../src/server/start.ts'
import { cleanup, openStore, send, tempDb } from '../_helpers.ts'

let url: string
let inboxList: () => Promise<string>
let records: () => Promise<string>
let close: () => Promise<void>

const json = { 'content-type': 'application/json' }
const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`
const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`

beforeAll(async () => {
  const dbPath = tempDb()
  const { context } = openStore(dbPath)
  const project = createProject(context, { name: 'Hostile', slug: 'h' })
  createResource(context, { path: '/api/items' })
  createResource(context, { path: '/api/checked-items' })
  configureEndpoint(context, requireEndpoint(context, { method: 'POST', path: '/api/checked-items' }), { schema: '{"type":"object"}' }, await loadFaker())
  const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
  const server = await startServer({ dbPath, port: 0, host: '127.0.0.1', demo: false, timeouts: { headersMs: 1000, requestMs: 2000 } })
  close = () => server.close()
  url = server.url
  inboxList = async () => (await send(`${url}/api/projects/${project.id}/webhook-inbox`, { headers: auth })).text
  await send(`${url}/api/h/items`, { method: 'POST', body: { id: 'keep', name: 'kept' } })
  records = async () => (await send(`${url}/api/h/items`)).text
})
afterAll(async () => {
  await close()
  await cleanup()
})

describe('inbox keeps any JSON byte for byte', () => {
  it.each([
    ['null', 'null'],
    ['10,000 nested arrays', deepArray(10_000)],
    ['10,000 nested objects', deepObject(10_000)],
    ['numbers past 2^53 and 1e400', '{"big":9007199254740993123,"inf":1e400,"neg":-0.0000000000000000000001}'],
    ['duplicate keys', '{"a":1,"a":2}'],
    ['__proto__ and constructor keys', '{"__proto__":{"x":1},"constructor":{"prototype":{"y":2}}}'],
    ['unicode escapes and astral characters', '{"s":"\\ud83d\\ude00 😀 \\u0000"}'],
  ])('%s', async (_name, body) => {
    const before = await inboxList()
    const response = await send(`${url}/api/webhooks/inbox/h`, { method: 'POST', body, headers: json })
    expect(response.status).toBe(201)
    const after = await inboxList()
    expect(after).toContain(`"body":${body},"sizeBytes":${Buffer.byteLength(body)}`)
    expect(after.length).toBeGreaterThan(before.length)
    expect(({} as Record<string, unknown>).x).toBeUndefined()
  })

  it.each([
    'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON', 'application/json; charset="utf-8"', 'application/cloudevents+json',
  ])('accepts the content type %s', async (contentType) => {
    expect((await send(`${url}/api/webhooks/inbox/h`, { method: 'POST', body: '{"ok":1}', headers: { 'content-type': contentType } })).status).toBe(201)
  })

  it('strips a BOM and takes exactly 1 MiB, refusing 1 MiB + 1', async () => {
    expect((await send(`${url}/api/webhooks/inbox/h`, { method: 'POST', body: '\uFEFF{"bom":true}', headers: json })).status).toBe(201)
    expect(await inboxList()).toContain('"body":{"bom":true}')
    const exact = `"${'x'.repeat(1024 * 1024 - 2)}"`
    expect((await send(`${url}/api/webhooks/inbox/h`, { method: 'POST', body: exact, headers: json })).status).toBe(201)
    const before = await inboxList()
    expect((await send(`${url}/api/webhooks/inbox/h`, { method: 'POST', body: `${exact} `, headers: json })).status).toBe(413)
    expect(await inboxList()).toBe(before)
  })
})

describe('records refuse what they cannot context, and keep what they have', () => {
  it.each([
    ['10,000 nested arrays inside an object', `{"deep":${deepArray(10_000)}}`, 400],
    ['10,000 nested objects', deepObject(10_000), 400],
  ])('POST and PUT with %s', async (_name, body, status) => {
    const before = await records()
    for (const [method, target] of [['POST', `${url}/api/h/items`], ['PUT', `${url}/api/h/items/keep`]] as const) {
      const response = await send(target, { method, body, headers: json })
      expect(response.status, `${method}: ${response.text.slice(0, 200)}`).toBe(status)
      expect(response.json.error.code).toMatch(/INVALID_(BODY|ID)/)
    }
    expect(await records()).toBe(before)
  })

  it('refuses a 10 KB id on POST (PUT keeps the id of its path)', async () => {
    const before = await records()
    const response = await send(`${url}/api/h/items`, { method: 'POST', body: { id: 'x'.repeat(10_240) } })
    expect(response.status).toBe(400)
    expect(response.json.error.code).toBe('INVALID_ID')
    expect(await records()).toBe(before)
  })

  it('refuses a deep body before schema validation too', async () => {
    expect((await send(`${url}/api/h/checked-items`, { method: 'POST', body: `{"d":${deepArray(10_000)}}`, headers: json })).status).toBe(400)
  })

  it('stores numbers past 2^53 with the digits sent, and duplicate keys as the last one', async () => {
    const created = await send(`${url}/api/h/items`, { method: 'POST', body: '{"n":9007199254740993,"d":1,"d":2}', headers: json })
    expect(created.status).toBe(201)
    expect(created.text).toContain('"n":9007199254740993')
    expect(created.json.d).toBe(2)
    await send(`${url}/api/h/items/${created.json.id}`, { method: 'DELETE' })
  })

  it.each(['limit=1e9', 'page=1e2', 'limit=-5', "sort=a')--", 'order=asc;DROP'])('answers %s without harm', async (query) => {
    const before = await records()
    const response = await send(`${url}/api/h/items?${query}`)
    expect([200, 400]).toContain(response.status)
    expect(await records()).toBe(before)
  })
})

describe('slow clients', () => {
  it('a client sending headers one byte at a time does not block others, and is cut off', async () => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1')
    const request = 'GET /api/h/items HTTP/1.1\r\nHost: x\r\nX-Slow: '
    let sent = 0
    const drip = setInterval(() => {
      if (socket.writable) socket.write(request[sent++ % request.length]!)
    }, 100)
    const closed = new Promise<number>((resolve) => {
      const started = Date.now()
      socket.on('close', () => resolve(Date.now() - started))
      socket.on('error', () => {})
    })
    try {
      const started = performance.now()
      for (let i = 0; i < 10; i += 1) expect((await send(`${url}/api/h/items`)).status).toBe(200)
      expect(performance.now() - started).toBeLessThan(1000)
      // headersTimeout is 1 s in this test (10 s by default).
      expect(await closed).toBeLessThan(5000)
    } finally {
      clearInterval(drip)
      socket.destroy()
    }
  })

  it('a body sent at one byte per 100 ms does not block others', async () => {
    const slow = request(`${url}/api/h/items`, { method: 'POST', headers: { ...json, 'content-length': '100' } })
    slow.on('error', () => {})
    slow.write('{')
    const drip = setInterval(() => slow.write(' '), 100)
    try {
      const started = performance.now()
      for (let i = 0; i < 10; i += 1) expect((await send(`${url}/api/h/items`)).status).toBe(200)
      expect(performance.now() - started).toBeLessThan(1000)
    } finally {
      clearInterval(drip)
      slow.destroy()
    }
  })
})
