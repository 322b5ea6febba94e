import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { createProject } from '../../src/domain/projects.ts'
import type { Project } from '../../src/model.ts'
import { cleanup, openStore, send, serve, tempDb } from '../_helpers.ts'

let url: string
let project: Project
let auth: Record<string, string>

beforeAll(async () => {
  const dbPath = tempDb()
  const { context } = openStore(dbPath)
  project = createProject(context, { name: 'Hooks', slug: 'hooks' })
  createProject(context, { name: 'Other', slug: 'other' })
  auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
  url = (await serve(dbPath)).url
})
afterAll(cleanup)

const inbox = () => send(`${url}/api/projects/${project.id}/webhook-inbox`, { headers: auth })

describe('POST /api/webhooks/inbox/{token}', () => {
  it('stores any JSON value by share token or slug and answers 201 {id, receivedAt}', async () => {
    const values = ['{"event":"payment.succeeded"}', '[1,2,3]', '"text"', '42', 'null', 'true']
    for (const [i, value] of values.entries()) {
      const token = i % 2 === 0 ? project.shareToken : project.slug
      const response = await send(`${url}/api/webhooks/inbox/${token}`, { method: 'POST', body: value, headers: { 'content-type': 'application/json', 'x-source': `n${i}` }, overSocket: true })
      expect(response.status).toBe(201)
      expect(Object.keys(response.json).sort()).toEqual(['id', 'receivedAt'])
      expect(Date.parse(response.json.receivedAt)).not.toBeNaN()
    }
    const list = await inbox()
    expect(list.status).toBe(200)
    expect(list.json.map((item: { body: unknown }) => item.body)).toEqual([true, null, 42, 'text', [1, 2, 3], { event: 'payment.succeeded' }])
    const newest = list.json[0]
    expect(Object.keys(newest).sort()).toEqual(['body', 'headers', 'id', 'receivedAt', 'sizeBytes', 'sourceIp'])
    expect(newest.headers['x-source']).toBe('n5')
    expect(newest.sizeBytes).toBe(4)
    expect(newest.sourceIp).toMatch(/127\.0\.0\.1/)
  })

  it('keeps the body byte for byte: big numbers, 1e400, duplicate keys, a BOM', async () => {
    const raw = '{"big":12345678901234567890123,"huge":1e400,"dup":1,"dup":2,"s":"\\u00e9"}'
    const response = await send(`${url}/api/webhooks/inbox/${project.slug}`, { method: 'POST', body: `\uFEFF${raw}`, headers: { 'content-type': 'application/json; charset=utf-8' } })
    expect(response.status).toBe(201)
    const list = await inbox()
    expect(list.text).toContain(`"body":${raw}`)
  })

  it('pages newest first with page and limit, and X-Total-Count', async () => {
    const all = (await inbox()).json
    const page = await send(`${url}/api/projects/${project.id}/webhook-inbox?page=2&limit=2`, { headers: auth })
    expect(page.json.map((item: { id: string }) => item.id)).toEqual(all.slice(2, 4).map((item: { id: string }) => item.id))
    expect(page.headers.get('x-total-count')).toBe(String(all.length))
    const bad = await send(`${url}/api/projects/${project.id}/webhook-inbox?limit=0`, { headers: auth })
    expect(bad.status).toBe(400)
  })

  it.each([
    ['malformed JSON', '{"a":', 'application/json', 400, 'INVALID_JSON'],
    ['an empty body', '', 'application/json', 400, 'INVALID_JSON'],
    ['invalid UTF-8', new Uint8Array([0x22, 0xff, 0x22]), 'application/json', 400, 'INVALID_JSON'],
    ['text/plain', '{"a":1}', 'text/plain', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['no content type', new Blob(['{"a":1}']), '', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a body over 1 MiB', `"${'x'.repeat(1024 * 1024)}"`, 'application/json', 413, 'PAYLOAD_TOO_LARGE'],
  ])('refuses %s and stores nothing', async (_name, body, contentType, status, code) => {
    const before = (await inbox()).text
    const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {}
    const response = await fetch(`${url}/api/webhooks/inbox/${project.shareToken}`, { method: 'POST', body: body as Blob, headers })
    expect(response.status).toBe(status)
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code)
    expect((await inbox()).text).toBe(before)
  })

  it('answers 404 for an unknown token and 405 for GET, storing nothing', async () => {
    const before = (await inbox()).text
    const unknown = await send(`${url}/api/webhooks/inbox/no-such-token`, { method: 'POST', body: { a: 1 } })
    expect(unknown.status).toBe(404)
    expect(unknown.json.error.code).toBe('NOT_FOUND')
    const get = await send(`${url}/api/webhooks/inbox/${project.slug}`)
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST')
    expect((await inbox()).text).toBe(before)
  })

  it('keeps each project to its own inbox and empties it with DELETE', async () => {
    const other = await send(`${url}/api/projects/2/webhook-inbox`, { headers: auth })
    expect(other.json).toEqual([])
    const cleared = await send(`${url}/api/projects/${project.id}/webhook-inbox`, { method: 'DELETE', headers: auth })
    expect(cleared.status).toBe(204)
    expect((await inbox()).json).toEqual([])
    const put = await send(`${url}/api/projects/${project.id}/webhook-inbox`, { method: 'PUT', headers: auth })
    expect(put.status).toBe(405)
  })
})
