import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { cleanup, openStore, send, serve, tempDb } from '../_helpers.ts'

let base: string
let stored: string

const MiB = 1024 * 1024

/** A JSON object body of exactly `size` bytes. */
function bodyOfSize(size: number): string {
  const shell = '{"pad":""}'
  return `{"pad":"${'x'.repeat(size - shell.length)}"}`
}

beforeAll(async () => {
  const dbPath = tempDb()
  const { context } = openStore(dbPath)
  createProject(context, { name: 'Bad', slug: 'bad' })
  createResource(context, { path: '/api/items' })
  addEndpoint(context, { method: 'POST', path: '/api/echoes', body: '{"ok":true}' })
  base = `${(await serve(dbPath)).url}/api/bad`
  await send(`${base}/items`, { method: 'POST', body: { id: 'keep', name: 'stays as it is' } })
  stored = (await send(`${base}/items`)).text
})
afterAll(cleanup)

async function expectUnchanged(): Promise<void> {
  const now = await send(`${base}/items`)
  expect(now.text).toBe(stored)
}

describe('bad request bodies never change stored data', () => {
  it.each([
    ['malformed JSON', '{"name":', 'application/json', 400, 'INVALID_JSON'],
    ['trailing garbage', '{"a":1} x', 'application/json', 400, 'INVALID_JSON'],
    ['an array', '[1,2]', 'application/json', 400, 'INVALID_BODY'],
    ['null', 'null', 'application/json', 400, 'INVALID_BODY'],
    ['a string', '"text"', 'application/json', 400, 'INVALID_BODY'],
    ['a number', '42', 'application/json', 400, 'INVALID_BODY'],
    ['an empty body', '', 'application/json', 400, 'INVALID_BODY'],
    ['text/plain', '{"a":1}', 'text/plain', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['form data', 'a=1', 'application/x-www-form-urlencoded', 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ])('POST and PUT with %s', async (_name, body, contentType, status, code) => {
    for (const [method, url] of [['POST', `${base}/items`], ['PUT', `${base}/items/keep`]] as const) {
      const response = await send(url, { method, body, headers: { 'content-type': contentType } })
      expect(response.status, `${method} ${response.text}`).toBe(status)
      expect(response.json.error.code).toBe(code)
      expect(typeof response.json.error.message).toBe('string')
    }
    await expectUnchanged()
  })

  it('refuses a body without a content type with 415', async () => {
    const response = await fetch(`${base}/items`, { method: 'POST', body: new Blob(['{"a":1}']) })
    expect(response.status).toBe(415)
    await expectUnchanged()
  })

  it('accepts a +json media type and a charset parameter', async () => {
    const vendor = await send(`${base}/items`, { method: 'POST', body: '{"id":"v"}', headers: { 'content-type': 'application/vnd.api+json' } })
    expect(vendor.status).toBe(201)
    const charset = await send(`${base}/items`, { method: 'POST', body: '{"id":"c"}', headers: { 'content-type': 'application/json; charset=UTF-8' } })
    expect(charset.status).toBe(201)
    await send(`${base}/items/v`, { method: 'DELETE' })
    await send(`${base}/items/c`, { method: 'DELETE' })
    await expectUnchanged()
  })

  it('refuses invalid UTF-8 with 400', async () => {
    const response = await fetch(`${base}/items`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('INVALID_JSON')
    await expectUnchanged()
  })

  it('refuses a 2 MiB body with 413', async () => {
    const response = await send(`${base}/items`, { method: 'POST', body: bodyOfSize(2 * MiB), headers: { 'content-type': 'application/json' } })
    expect(response.status).toBe(413)
    expect(response.json.error.code).toBe('PAYLOAD_TOO_LARGE')
    await expectUnchanged()
  })

  it('refuses a streamed (chunked) body past 1 MiB with 413', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${base}/items`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume()
        resolve(res.statusCode!)
      })
      req.on('error', reject)
      const chunk = 'x'.repeat(64 * 1024)
      req.write('{"pad":"')
      for (let i = 0; i < 20; i += 1) req.write(chunk)
      req.end('"}')
    })
    expect(status).toBe(413)
    await expectUnchanged()
  })

  it('takes exactly 1 MiB and refuses 1 MiB + 1 byte', async () => {
    const fits = await send(`${base}/items`, { method: 'POST', body: bodyOfSize(MiB), headers: { 'content-type': 'application/json' } })
    expect(fits.status).toBe(201)
    await send(`${base}/items/${fits.json.id}`, { method: 'DELETE' })
    const over = await send(`${base}/items`, { method: 'POST', body: bodyOfSize(MiB + 1), headers: { 'content-type': 'application/json' } })
    expect(over.status).toBe(413)
    await expectUnchanged()
  })

  it('still refuses malformed JSON sent to a fixed-body endpoint', async () => {
    const response = await send(`${base}/echoes`, { method: 'POST', body: '{oops', headers: { 'content-type': 'application/json' } })
    expect(response.status).toBe(400)
    const fine = await send(`${base}/echoes`, { method: 'POST', body: { a: 1 } })
    expect(fine.json).toEqual({ ok: true })
  })
})

describe('hostile keys and query syntax', () => {
  it('stores __proto__ and constructor keys as plain data without polluting prototypes', async () => {
    const raw = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"name":"p"}'
    const created = await send(`${base}/items`, { method: 'POST', body: raw, headers: { 'content-type': 'application/json' } })
    expect(created.status).toBe(201)
    expect(created.text).toContain('"__proto__":{"polluted":true}')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined()
    const read = await send(`${base}/items/${created.json.id}`)
    expect(read.text).toBe(created.text)
    const patched = await send(`${base}/items/${created.json.id}`, { method: 'PUT', body: '{"__proto__":{"x":1}}', headers: { 'content-type': 'application/json' } })
    expect(patched.text).toBe(`{"id":${created.json.id},"__proto__":{"x":1}}`)
    await send(`${base}/items/${created.json.id}`, { method: 'DELETE' })
    await expectUnchanged()
  })

  it.each([
    "a') OR 1=1 --",
    "name' OR '1'='1",
    '$[0]',
    '$.name',
    'name); DROP TABLE records; --',
    '*',
  ])('treats the field %j as a plain field name: no match, nothing changed', async (field) => {
    const filtered = await send(`${base}/items?${encodeURIComponent(field)}=1`)
    expect(filtered.status).toBe(200)
    expect(filtered.json).toEqual([])
    const sorted = await send(`${base}/items?sort=${encodeURIComponent(field)}`)
    expect(sorted.status).toBe(200)
    expect(sorted.text).toBe(stored)
    await expectUnchanged()
  })

  it('treats SQL in a filter value as a plain value', async () => {
    const response = await send(`${base}/items?name=${encodeURIComponent("x' OR '1'='1")}`)
    expect(response.json).toEqual([])
    expect((await send(`${base}/items?name=${encodeURIComponent('stays as it is')}`)).json).toHaveLength(1)
  })

  it('answers a malformed percent-encoding in the path with a JSON 400', async () => {
    const response = await send(`${base}/items/%E0%A4%A`)
    expect(response.status).toBe(400)
    expect(response.json.error.code).toBe('BAD_REQUEST')
  })
})
