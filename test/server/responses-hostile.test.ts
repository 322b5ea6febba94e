import { afterAll, describe, expect, it } from 'vitest'
import { request as httpRequest } from 'node:http'
import { cleanup, cliWorkspace, expectAliveAndIntact, send, serve } from '../_helpers.ts'

afterAll(cleanup)

/** A served workspace whose project `r` holds what `setup` adds with the CLI. */
async function workspaceServer(setup: (ok: (...args: string[]) => Promise<string>) => Promise<void>) {
  const workspace = cliWorkspace()
  await workspace.ok('init', '--yes', '--slug', 'r')
  await setup(workspace.ok)
  const server = await serve(workspace.db)
  return { ...workspace, url: server.url }
}

/** Which rule answered: every response here answers `{"rule": …}`. */
async function rule(url: string, init: Parameters<typeof send>[1]): Promise<unknown> {
  const answer = await send(url, { ...init, overSocket: true })
  expect(answer.status, answer.text.slice(0, 300)).toBe(200)
  return (answer.json as { rule: unknown }).rule
}

describe('a running serve against hostile rule input', () => {
  it('a 150,000-element array under [*] is tested, not a 500', async () => {
    const { url, db } = await workspaceServer(async (ok) => {
      await ok('add-endpoint', 'POST', '/api/orders', '--body', '{"rule":"none"}')
      await ok('response', 'add', 'POST', '/api/orders', '--when', '{"body":{"$.items[*]":{"in":[7,"x"]}}}', '--body', '{"rule":"item"}')
    })
    // About 300 KB, under the body limit.
    const many = (last: unknown) => ({ items: [...Array.from({ length: 150_000 }, () => 1), last] })
    expect(await rule(`${url}/api/orders`, { method: 'POST', body: many(1) })).toBe('none')
    expect(await rule(`${url}/api/orders`, { method: 'POST', body: many('x') })).toBe('item')
    await expectAliveAndIntact(url, db)
  })

  it('an in list of 1,000 over 60,000 values: the request finishes and health answers during it', async () => {
    const skus = Array.from({ length: 1_000 }, (_, i) => `SKU-${i}`)
    const { url, db } = await workspaceServer(async (ok) => {
      await ok('add-endpoint', 'POST', '/api/orders', '--body', '{"rule":"none"}')
      await ok('response', 'add', 'POST', '/api/orders', '--when', JSON.stringify({ body: { '$.items[*].sku': { in: skus } } }), '--body', '{"rule":"sku"}')
    })
    const body = { items: Array.from({ length: 60_000 }, () => ({ sku: 'z' })) }
    let finished = false
    const started = performance.now()
    const hostile = rule(`${url}/api/orders`, { method: 'POST', body }).finally(() => {
      finished = true
    })
    // Health probes, one after another, for as long as the hostile request runs: the slowest is
    // the longest the server was unable to answer.
    let slowestHealthMs = 0
    let probes = 0
    while (!finished) {
      const probeStarted = performance.now()
      expect((await send(`${url}/api/health`, { overSocket: true })).status).toBe(200)
      slowestHealthMs = Math.max(slowestHealthMs, performance.now() - probeStarted)
      probes += 1
    }
    expect(await hostile).toBe('none')
    const hostileMs = performance.now() - started
    // A freeze is the bug here (11 s and a 9 s health before), not a slow machine: generous bounds.
    expect(hostileMs, `hostile request ${Math.round(hostileMs)} ms`).toBeLessThan(5_000)
    expect(slowestHealthMs, `slowest of ${probes} health probes ${Math.round(slowestHealthMs)} ms`).toBeLessThan(2_000)
    expect(await rule(`${url}/api/orders`, { method: 'POST', body: { items: [...body.items, { sku: 'SKU-999' }] } })).toBe('sku')
    await expectAliveAndIntact(url, db)
  }, 60_000)

  it('not over a pattern skipped for a long value does not answer: the response is ruled out', async () => {
    const { url, db } = await workspaceServer(async (ok) => {
      await ok('add-endpoint', 'POST', '/api/login', '--body', '{"rule":"none"}')
      await ok('response', 'add', 'POST', '/api/login', '--when', '{"body":{"not":{"matches":"admin"}}}', '--body', '{"rule":"not admin"}')
    })
    const text = { 'content-type': 'text/plain' }
    expect(await rule(`${url}/api/login`, { method: 'POST', body: 'user=bob', headers: text })).toBe('not admin')
    expect(await rule(`${url}/api/login`, { method: 'POST', body: 'user=admin', headers: text })).toBe('none')
    expect(await rule(`${url}/api/login`, { method: 'POST', body: `user=admin${'a'.repeat(900_000)}`, headers: text })).toBe('none')
    await expectAliveAndIntact(url, db)
  })
})

/** A request with one header sent on several lines, as a proxy may send it. */
function withRepeatedHeader(url: string, name: string, values: string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method: 'GET' }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve((JSON.parse(text) as { rule: unknown }).rule))
    })
    outgoing.setHeader(name, values)
    outgoing.on('error', reject)
    outgoing.end()
  })
}

describe('repeated fields, paths and numbers', () => {
  it('contains on a repeated query or form value is a substring of any (a JSON list: an element); a repeated header equals any of its values', async () => {
    const { url, db } = await workspaceServer(async (ok) => {
      await ok('add-endpoint', 'GET', '/api/tags', '--body', '{"rule":"none"}')
      await ok('response', 'add', 'GET', '/api/tags', '--when', '{"query":{"tag":{"contains":"foo"}}}', '--body', '{"rule":"foo"}')
      await ok('response', 'add', 'GET', '/api/tags', '--when', '{"headers":{"X-A":"2"}}', '--body', '{"rule":"a2"}')
      await ok('add-endpoint', 'POST', '/api/tags', '--body', '{"rule":"none"}')
      await ok('response', 'add', 'POST', '/api/tags', '--when', '{"body":{"tag":{"contains":"foo"}}}', '--body', '{"rule":"form foo"}')
    })
    expect(await rule(`${url}/api/tags?tag=xfoo&tag=bar`, {})).toBe('foo')
    expect(await rule(`${url}/api/tags?tag=xfo&tag=bar`, {})).toBe('none')
    const form = { 'content-type': 'application/x-www-form-urlencoded' }
    expect(await rule(`${url}/api/tags`, { method: 'POST', body: 'tag=xfoo&tag=bar', headers: form })).toBe('form foo')
    expect(await rule(`${url}/api/tags`, { method: 'POST', body: 'tag=xfo&tag=bar', headers: form })).toBe('none')
    expect(await rule(`${url}/api/tags`, { method: 'POST', body: { tag: ['xfoo'] } })).toBe('none')
    expect(await rule(`${url}/api/tags`, { method: 'POST', body: { tag: ['foo'] } })).toBe('form foo')
    expect(await withRepeatedHeader(`${url}/api/tags`, 'X-A', ['1', '2'])).toBe('a2')
    expect(await withRepeatedHeader(`${url}/api/tags`, 'X-A', ['1', '3'])).toBe('none')
    await expectAliveAndIntact(url, db)
  })

  it('a bracket path without $ is refused, changing nothing; 0x2A and 1e3 are not numbers', async () => {
    const { url, db, run } = await workspaceServer(async (ok) => {
      await ok('add-endpoint', 'GET', '/api/items/:id', '--body', '{"rule":"none"}')
      await ok('response', 'add', 'GET', '/api/items/:id', '--when', '{"params":{"id":42}}', '--body', '{"rule":"42"}')
      await ok('response', 'add', 'GET', '/api/items/:id', '--when', '{"query":{"n":{"gte":1000}}}', '--body', '{"rule":"big"}')
    })
    const refused = await run('response', 'add', 'GET', '/api/items/:id', '--when', '{"body":{"items[0].sku":"A"}}', '--body', '{"rule":"bracket"}')
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(/items\[0\]\.sku.*brackets.*\$\.items\[0\]\.sku/)
    expect(await run('response', 'list', 'GET', '/api/items/:id')).toMatchObject({ code: 0, stdout: expect.not.stringContaining('bracket') })
    expect(await rule(`${url}/api/items/42`, {})).toBe('42')
    expect(await rule(`${url}/api/items/0x2A`, {})).toBe('none')
    expect(await rule(`${url}/api/items/1?n=1000`, {})).toBe('big')
    expect(await rule(`${url}/api/items/1?n=1e3`, {})).toBe('none')
    await expectAliveAndIntact(url, db)
  })
})
