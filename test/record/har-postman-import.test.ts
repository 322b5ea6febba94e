import { afterAll, describe, expect, it } from 'vitest'
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { mintToken } from '../../src/domain/auth.ts'
import { createProject } from '../../src/domain/projects.ts'
import { cleanup, cliWorkspace, openStore, ROOT, send, serve, tempDb } from '../_helpers.ts'

afterAll(cleanup)

const HAR = join(ROOT, 'test', 'fixtures', 'har', 'shop.har')
const POSTMAN = join(ROOT, 'test', 'fixtures', 'postman', 'shop.postman_collection.json')

function workspaceWith(...files: string[]) {
  const workspace = cliWorkspace()
  for (const file of files) copyFileSync(file, join(workspace.cwd, file.split('/').at(-1)!))
  return workspace
}

/** The database's bytes, its write-ahead log included. */
const storedBytes = (db: string) => Buffer.concat([db, `${db}-wal`].filter(existsSync).map((file) => readFileSync(file))).toString('latin1')

describe('mockapi import of a HAR file', () => {
  it('records its JSON collections as resources and every other entry as an endpoint answering as recorded, secrets left out', async () => {
    const { db, ok, run } = workspaceWith(HAR)
    const first = await run('import', 'shop.har')
    expect(first.stdout).toContain('imported HAR file shop.har (HAR 1.2, 7 exchanges) into project shop')
    expect(first.stdout).toContain('1 resource with 3 records, 11 endpoints created')
    expect(first.stdout).toMatch(/GET\s+\/api\/products\/:productId\/image\s+custom\s+200 image\/png \(70 bytes\)/)
    expect(first.stderr).toContain('! log.entries[6]: GET /api/recommendations got no answer (status 0): not recorded')
    const result = JSON.parse(await ok('import', 'shop.har', '--json'))
    expect(result.import).toEqual({ title: 'shop', format: 'har', version: 'HAR 1.2' })
    expect(result.warnings.join('\n')).toContain('log.entries[6]: GET /api/recommendations got no answer (status 0): not recorded')
    expect(result.warnings.join('\n')).toContain('entries from 2 hosts (api.shop.test, cdn.shop.test)')
    // Recording the same file again updates what it made.
    expect(result.created).toEqual([])
    expect(result.updated.map((e: { method: string; path: string }) => `${e.method} ${e.path}`).sort()).toEqual([
      'GET /api/me', 'GET /api/products/:productId/image', 'GET /old-catalog', 'GET /static/logo.svg', 'POST /api/carts/current/items',
    ])
    // The list read with ?limit=2 is a rule of its own on the resource's list, unchanged by the second import.
    expect(result.updated.map((e: { path: string }) => e.path)).not.toContain('/api/products')

    const server = await serve(db)
    const at = (path: string) => `${server.url}/api/shop${path.replace(/^\/api/, '')}`
    const products = await send(at('/api/products'))
    expect(products.json).toEqual([{ id: 1, name: 'Mug', price: 12.5 }, { id: 2, name: 'Tee', price: 20 }, { id: 3, name: 'Cap', price: 9 }])
    expect((await send(at('/api/products/3'))).json).toEqual({ id: 3, name: 'Cap', price: 9 })

    const cart = await send(at('/api/carts/current/items'), { method: 'POST', body: { productId: 3, qty: 1 } })
    expect(cart.status).toBe(201)
    expect(cart.text).toBe('{"cartId":"c-77","items":[{"productId":3,"qty":1}],"total":9}')
    expect(cart.headers.get('x-request-id')).toBe('req-1')
    // The HAR holds the content decoded: no Content-Encoding goes with it.
    expect(cart.headers.get('content-encoding')).toBeNull()

    const image = await fetch(at('/api/products/8/image'))
    expect(image.headers.get('content-type')).toBe('image/png')
    expect(image.headers.get('etag')).toBe('"img-1"')
    const png = JSON.parse(readFileSync(HAR, 'utf8')).log.entries[3].response.content.text as string
    expect(Buffer.from(await image.arrayBuffer())).toEqual(Buffer.from(png, 'base64'))

    const moved = await send(`${server.url}/api/shop/old-catalog`)
    expect(moved.status).toBe(301)
    expect(moved.headers.get('location')).toBe('https://api.shop.test/api/products')
    expect((await send(`${server.url}/api/shop/static/logo.svg`)).text).toBe('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>')
    const me = await send(at('/api/me'))
    expect(me.json).toEqual({ name: 'Ada', plan: 'pro' })
    expect(me.headers.get('x-csrf-token')).toBeNull()
    await server.close()

    const stored = storedBytes(db)
    for (const secret of ['har-sekr1t-bearer', 'har-sekr1t-session', 'har-sekr1t-query', 'har-sekr1t-cookie', 'har-sekr1t-csrf']) expect(stored).not.toContain(secret)
  })

  it('makes a project whose export applies to another database and answers the same there', async () => {
    const { cwd, ok } = workspaceWith(HAR)
    await ok('import', 'shop.har')
    await ok('export', '-o', 'shop.yaml')
    const other = join(cwd, 'other.db')
    const applied = await cliWorkspace().run('--db', other, 'apply', join(cwd, 'shop.yaml'))
    expect(applied.code, applied.stderr).toBe(0)
    const server = await serve(other)
    const image = await fetch(`${server.url}/api/shop/products/1/image`)
    const png = JSON.parse(readFileSync(HAR, 'utf8')).log.entries[3].response.content.text as string
    expect(Buffer.from(await image.arrayBuffer())).toEqual(Buffer.from(png, 'base64'))
    expect((await send(`${server.url}/api/shop/carts/current/items`, { method: 'POST', body: {} })).text).toBe('{"cartId":"c-77","items":[{"productId":3,"qty":1}],"total":9}')
    expect((await send(`${server.url}/api/shop/products`)).json).toHaveLength(3)
    await server.close()
  })

  it('refuses a .har that is not JSON, an entry without a response, and a HAR version it does not read', async () => {
    const { cwd, run } = cliWorkspace()
    writeFileSync(join(cwd, 'broken.har'), '<html>not a har</html>')
    const notJson = await run('import', 'broken.har')
    expect(notJson.code).toBe(1)
    expect(notJson.stderr).toContain('broken.har (read as a HAR file): is not JSON; a HAR file is a JSON object {"log": {"version": "1.2", "entries": […]}}')

    const har = JSON.parse(readFileSync(HAR, 'utf8'))
    delete har.log.entries[2].response
    writeFileSync(join(cwd, 'cut.json'), JSON.stringify(har))
    const cut = await run('import', 'cut.json')
    expect(cut.code).toBe(1)
    expect(cut.stderr).toContain('log.entries[2] (POST https://api.shop.test/api/carts/current/items) has no response')

    writeFileSync(join(cwd, 'empty.har'), JSON.stringify({ log: { version: '1.2', entries: [] } }))
    const empty = await run('import', 'empty.har')
    expect(empty.code).toBe(0)
    expect(empty.stderr).toContain('empty.har holds no answer to record: nothing to serve')
    expect((await run('import', 'empty.har', '--stateful')).stderr).toContain('--stateful does not go with a HAR file: a recording makes resources where its answers show collections, and only adds or updates')
    writeFileSync(join(cwd, 'old.har'), JSON.stringify({ log: { version: '0.9', entries: [] } }))
    expect((await run('import', 'old.har')).stderr).toContain('is HAR 0.9; mockapi reads HAR 1.2 (and 1.1)')
    // Nothing was stored by any of them.
    expect((await run('endpoints', '--json')).stdout).not.toContain('/api/')
  })
})

describe('mockapi import of a Postman collection', () => {
  it('records every example response, folders walked, {{baseUrl}} dropped save its path, path variables given their example values', async () => {
    const { db, run } = workspaceWith(POSTMAN)
    const imported = await run('import', 'shop.postman_collection.json')
    const out = imported.stdout
    expect(out).toContain('imported Postman collection shop.postman_collection.json (Postman v2.1.0, 5 exchanges) into project shop-api')
    expect(out).toContain('1 resource with 3 records')
    expect(imported.stderr).toContain('1 request(s) have no example response, so nothing to answer: not recorded (save a response as an example in Postman): Health')
    expect(imported.stderr).not.toContain('/v1/users')
    expect(out).toMatch(/GET\s+\/v1\/orders\/:orderId\/receipt\s+custom\s+200 text\/plain; charset=utf-8/)

    const server = await serve(db)
    const at = (path: string) => `${server.url}/api/shop-api${path}`
    expect((await send(at('/v1/users'))).json).toEqual([{ id: 1, name: 'Ada' }, { id: 2, name: 'Grace Hopper' }, { id: 3, name: 'Linus' }])
    // Each example answers its own URL as saved: the list for ?page=1 (indented as in Postman); user 99 is missing, as the resource says it.
    const missing = await send(at('/v1/users/99'))
    expect([missing.status, missing.json]).toEqual([404, { error: { code: 'NOT_FOUND', message: 'no record with id "99"' } }])
    expect((await send(at('/v1/users?page=1'))).text).toBe(JSON.stringify([{ id: 1, name: 'Ada' }, { id: 2, name: 'Grace' }], null, 2))
    const receipt = await send(at('/v1/orders/1002/receipt'))
    expect(receipt.text).toBe('Order 1001\nMug x1  12.50\nTotal   12.50\n')
    expect(receipt.headers.get('set-cookie')).toBeNull()
    await server.close()
    const stored = storedBytes(db)
    for (const secret of ['pm-sekr1t-token', 'pm-sekr1t-key', 'pm-sekr1t-cookie']) expect(stored).not.toContain(secret)
  })

  it('reads URLs written as text: a variable host dropped save its path, a literal host dropped, a {{variable}} segment a parameter', async () => {
    const { cwd, db, ok } = cliWorkspace()
    const example = (url: string, body: string) => ({
      name: url, request: { method: 'GET', url },
      response: [{ name: 'ok', originalRequest: { method: 'GET', url }, code: 200, header: [{ key: 'Content-Type', value: 'text/plain' }], body }],
    })
    writeFileSync(join(cwd, 'text-urls.json'), JSON.stringify({
      info: { name: 'Text URLs', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
      variable: [{ key: 'baseUrl', value: 'https://api.example.com/v1/' }],
      item: [example('{{baseUrl}}/status?verbose=1', 'up'), example('https://other.example.com/v2/ping', 'pong'), example('{{host}}/tenants/{{tenant}}/plan', 'gold')],
    }))
    const out = await ok('import', 'text-urls.json')
    expect(out).toMatch(/GET\s+\/v1\/status\s/)
    expect(out).toMatch(/GET\s+\/v2\/ping\s/)
    expect(out).toMatch(/GET\s+\/tenants\/:tenantId\/plan\s/)
    const server = await serve(db)
    expect((await send(`${server.url}/api/text-urls/tenants/acme/plan`)).text).toBe('gold')
    await server.close()
  })

  it('refuses a v2.0 or v1 collection naming its version and the way out', async () => {
    const { cwd, run } = cliWorkspace()
    const collection = JSON.parse(readFileSync(POSTMAN, 'utf8'))
    collection.info.schema = 'https://schema.getpostman.com/json/collection/v2.0.0/collection.json'
    writeFileSync(join(cwd, 'v2.json'), JSON.stringify(collection))
    const v2 = await run('import', 'v2.json')
    expect(v2.code).toBe(1)
    expect(v2.stderr).toContain('v2.json (read as a Postman collection): is a Postman collection v2.0.0; mockapi reads v2.1: in Postman, Export the collection as "Collection v2.1"')

    writeFileSync(join(cwd, 'v1.json'), JSON.stringify({ id: 'abc', name: 'Old', order: ['r1'], requests: [{ id: 'r1', url: 'https://x.test/a', method: 'GET' }] }))
    const v1 = await run('import', 'v1.json')
    expect(v1.code).toBe(1)
    expect(v1.stderr).toContain('is a Postman collection v1; mockapi reads v2.1')
  })
})

describe('the other ways in: the management API and startMockApi', () => {
  it('POST …/imports takes a HAR as text with its file name; startMockApi imports a Postman collection before serving', async () => {
    const db = tempDb()
    const { context } = openStore(db)
    const project = createProject(context, { name: 'Shop', slug: 'shop' })
    const headers = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const server = await serve(db)
    const imported = await send(`${server.url}/api/projects/${project.id}/imports`, { method: 'POST', headers, body: { text: readFileSync(HAR, 'utf8'), filename: 'shop.har' } })
    expect(imported.status).toBe(201)
    expect(imported.json.import).toEqual({ id: null, title: 'shop', format: 'har', version: 'HAR 1.2' })
    expect((await send(`${server.url}/api/shop/products/3`)).json).toEqual({ id: 3, name: 'Cap', price: 9 })
    const formats = await send(`${server.url}/api/projects/${project.id}/imports/formats`, { headers })
    expect(formats.json.slice(0, 2)).toEqual([
      { name: 'har', label: 'HAR file', described: 'HAR 1.2 (browser devtools, "Save all as HAR")', extensions: ['.har'] },
      { name: 'postman', label: 'Postman collection', described: 'Postman collection v2.1 (with example responses)', extensions: [] },
    ])
    await server.close()

    const { startMockApi } = await import('../../src/index.ts')
    const api = await startMockApi({ imports: [POSTMAN] })
    try {
      expect(api.project()).toMatchObject({ slug: 'shop-api' })
      expect(await (await fetch(`${api.url}/api/shop-api/v1/orders/7/receipt`)).text()).toBe('Order 1001\nMug x1  12.50\nTotal   12.50\n')
    } finally {
      await api.close()
    }
  })
})
