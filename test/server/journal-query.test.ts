import { afterAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { createProject } from '../../src/domain/projects.ts'
import { searchJournal } from '../../src/domain/journal-query.ts'
import type { JournalRecord } from '../../src/domain/journal.ts'
import { createResource } from '../../src/domain/resources.ts'
import type { JournalEntry } from '../../src/events.ts'
import { cleanup, cliWorkspace, expectAliveAndIntact, openStore, send, serve, tempDb, waitFor } from '../_helpers.ts'
import { openEvents } from './_events.ts'

afterAll(cleanup)

/** A shop with orders (a resource), a login with rules, and a second project; its journal queried over the management API. */
async function shop(options: { journal?: number } = {}) {
  const dbPath = tempDb()
  const { context } = openStore(dbPath)
  createProject(context, { name: 'Shop', slug: 'shop' })
  createProject(context, { name: 'Other', slug: 'other' })
  createResource(context, { project: 'shop', path: '/api/orders' })
  addEndpoint(context, { project: 'shop', method: 'POST', path: '/api/sessions', body: '{"ok":true}' })
  const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
  const server = await serve(dbPath, options)
  const id = server.project('shop').id
  const requests = (query = '') => send(`${server.url}/api/projects/${id}/requests${query}`, { headers: auth })
  const find = (body: unknown) => send(`${server.url}/api/projects/${id}/requests/find`, { method: 'POST', headers: auth, body })
  return { server, dbPath, auth, id, requests, find }
}

const order = (sku: string, qty = 1) => ({ items: [{ sku, qty }] })

describe('GET …/requests with filters', () => {
  it('filters by method, path pattern, status and matched, newest first, X-Total-Count the number matching', async () => {
    const { server, dbPath, requests } = await shop()
    await send(`${server.url}/api/shop/orders`, { method: 'POST', body: order('A-1') })
    await send(`${server.url}/api/shop/orders`, { method: 'POST', body: order('B-2') })
    await send(`${server.url}/api/shop/orders/1`)
    await send(`${server.url}/api/shop/order`, { method: 'POST', body: order('C-3') })
    const posts = await requests('?method=post&path=/api/shop/orders&status=2xx')
    expect(posts.status).toBe(200)
    expect(posts.headers.get('x-total-count')).toBe('2')
    expect(posts.headers.get('x-journal-size')).toBe('5000')
    expect((posts.json as JournalEntry[]).map((e) => JSON.parse(e.body!).items[0].sku)).toEqual(['B-2', 'A-1'])
    expect(((await requests('?path=/api/shop/orders/*')).json as JournalEntry[]).map((e) => e.path)).toEqual(['/api/shop/orders/1'])
    expect(((await requests('?path=/api/shop/**&limit=2')).json as JournalEntry[]).map((e) => e.path)).toEqual(['/api/shop/order', '/api/shop/orders/1'])
    const unmatched = (await requests('?matched=false')).json as JournalEntry[]
    expect(unmatched.map((e) => [e.method, e.path, e.status])).toEqual([['POST', '/api/shop/order', 404]])
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('pages from the cursor with after and limit: a poller sees every entry once, each page newest first', async () => {
    const { server, dbPath, requests } = await shop()
    await send(`${server.url}/api/shop/orders?n=0`)
    let cursor = ((await requests()).json as JournalEntry[])[0]!.id
    for (let n = 1; n <= 5; n += 1) await send(`${server.url}/api/shop/orders?n=${n}`)
    const seen: string[] = []
    const totals: string[] = []
    for (let poll = 0; poll < 4; poll += 1) {
      const page = await requests(`?after=${cursor}&limit=2`)
      totals.push(page.headers.get('x-total-count')!)
      const entries = page.json as JournalEntry[]
      expect(entries.map((e) => e.id)).toEqual(entries.map((e) => e.id).sort((a, b) => b - a))
      seen.push(...entries.map((e) => e.query.n as string).reverse())
      cursor = Math.max(cursor, ...entries.map((e) => e.id))
    }
    expect(seen).toEqual(['1', '2', '3', '4', '5'])
    // What waited after each cursor: the last poll found nothing new.
    expect(totals).toEqual(['5', '3', '1', '0'])
    // Without after, limit keeps the newest.
    expect(((await requests('?limit=2')).json as JournalEntry[]).map((e) => e.query.n)).toEqual(['5', '4'])
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('refuses a bad filter with 400 naming the field, and a project other than the path\'s', async () => {
    const { server, dbPath, requests } = await shop()
    for (const [query, field] of [['?status=abc', 'status'], ['?limit=0', 'limit'], ['?path=api', 'path'], ['?method=FOO', 'method'], ['?since=yesterday', 'since'], ['?matched=maybe', 'matched'], ['?project=other', 'project']]) {
      const refused = await requests(query)
      expect(refused.status, query).toBe(400)
      expect(refused.json.error.code, query).toBe('INVALID_QUERY')
      expect(refused.json.error.message, query).toContain(`"${field}"`)
    }
    await expectAliveAndIntact(server.url, dbPath)
  })
})

describe('near misses and rule misses', () => {
  it('an unmatched request carries the endpoints it came closest to and what differed', async () => {
    const { server, requests } = await shop()
    expect((await send(`${server.url}/api/shop/order`, { method: 'POST', body: {} })).status).toBe(404)
    expect((await send(`${server.url}/api/shpo/orders`)).status).toBe(404)
    const [, typo] = (await requests('?matched=false')).json as JournalEntry[]
    expect(typo!.nearMisses![0]).toMatchObject({ method: 'POST', path: '/api/shop/orders', differences: [{ what: 'segment', expected: 'orders', received: 'order' }] })
    // Under the project's slug, only its routes there are meant, not the same ones at its own paths.
    expect(typo!.nearMisses!.every((miss) => miss.path.startsWith('/api/shop/'))).toBe(true)
    // A slug typo lands in the project at its own paths (the first, Shop), and names the slug.
    const stray = ((await requests('?path=/api/shpo/**')).json as JournalEntry[])[0]!
    expect(stray.nearMisses!.some((miss) => miss.path === '/api/shop/orders' && miss.differences.some((d) => d.what === 'project'))).toBe(true)
  })

  it('a reset by another process (mockapi reset) empties the journal, as one through the API does', async () => {
    const workspace = cliWorkspace()
    await workspace.ok('init', '--yes', '--slug', 'shop', '--resource', '/api/orders')
    const server = await serve(workspace.db)
    const { context } = openStore(workspace.db)
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const id = server.project('shop').id
    for (let n = 0; n < 3; n += 1) await send(`${server.url}/api/shop/orders?n=${n}`)
    await workspace.ok('reset')
    // The API reads the project as it is now: the reset is seen at once.
    expect((await send(`${server.url}/api/projects/${id}/requests`, { headers: auth })).json).toEqual([])
    for (let n = 0; n < 2; n += 1) await send(`${server.url}/api/shop/orders?n=${n}`)
    await workspace.ok('reset')
    // A request sees it once the server sees the change (within its 50 ms recheck): what came before goes.
    // The request that brings the news is kept: once the earlier ones are gone, it is there.
    await waitFor(async () => {
      await send(`${server.url}/api/shop/orders?after=reset`)
      return server.journal!.records(id).every((record) => record.search === '?after=reset')
    }, 8000, 'the reset seen by a request')
    expect(server.journal!.records(id).map((record) => record.search)).toEqual(['?after=reset'])
    await expectAliveAndIntact(server.url, workspace.db)
  })

  it('a fallback answer carries which rules did not hold and why; a rule that held carries none', async () => {
    const workspace = cliWorkspace()
    await workspace.ok('init', '--yes', '--slug', 'shop')
    await workspace.ok('add-endpoint', 'POST', '/api/sessions', '--body', '{}')
    await workspace.ok('response', 'add', 'POST', '/api/sessions', '--name', 'admin', '--when', '{"body":{"username":"admin"}}', '--status', '201')
    await workspace.ok('response', 'add', 'POST', '/api/sessions', '--status', '401')
    const server = await serve(workspace.db)
    await send(`${server.url}/api/shop/sessions`, { method: 'POST', body: { username: 'ada' } })
    await send(`${server.url}/api/shop/sessions`, { method: 'POST', body: { username: 'admin' } })
    const [held, fell] = server.journal!.records(server.project('shop').id).slice().reverse()
    expect(held!.ruleMisses).toBeNull()
    expect(fell!.ruleMisses).toEqual([{ response: { position: 1, name: 'admin' }, failed: ['body.username = admin (received "ada")'] }])
    await expectAliveAndIntact(server.url, workspace.db)
  })
})

describe('POST …/requests/find', () => {
  it('counts what a when holds for; none held: the closest requests with what differed', async () => {
    const { server, dbPath, find } = await shop()
    await send(`${server.url}/api/shop/orders`, { method: 'POST', body: order('A-1', 2) })
    await send(`${server.url}/api/shop/orders`, { method: 'POST', body: order('A-2') })
    await send(`${server.url}/api/shop/orders`)
    const found = await find({ method: 'POST', path: '/api/shop/orders', when: { body: { '$.items[0].sku': 'A-1' } } })
    expect(found.status).toBe(200)
    expect(found.json.count).toBe(1)
    expect(found.json.closest).toBeUndefined()
    expect(JSON.parse(found.json.requests[0].body).items[0].qty).toBe(2)
    const none = await find({ method: 'POST', when: { body: { '$.items[0].sku': 'Z-9' } } })
    expect(none.json).toMatchObject({ count: 0, requests: [] })
    expect(none.json.closest).toHaveLength(3)
    // The two POSTs differ by their sku only; the GET by its method as well.
    expect(none.json.closest.map((c: { differences: unknown[] }) => c.differences.length)).toEqual([1, 1, 2])
    expect(none.json.closest[0].differences[0].text).toContain('received "A-2"')
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('masks a secret the closest requests received, as the entries are masked', async () => {
    const { server, find } = await shop()
    const token = 'Bearer eyJhbGciOiJIUzI1NiJ9.secret-part-nobody-should-see'
    await send(`${server.url}/api/shop/orders`, { headers: { authorization: token } })
    const none = await find({ when: { headers: { authorization: 'Bearer other' } } })
    expect(none.json.count).toBe(0)
    expect(JSON.stringify(none.json)).not.toContain('secret-part-nobody-should-see')
    expect(none.json.closest[0].differences[0].received).toMatch(/Bearer eyJh… \(\d+ chars\)/)
  })

  it('reads each request once when none matched, and stops explaining once three differ in one thing', async () => {
    const { server, find } = await shop()
    await send(`${server.url}/api/shop/orders`)
    await send(`${server.url}/api/shop/orders/1`)
    for (let n = 1; n <= 6; n += 1) await send(`${server.url}/api/shop/orders`, { method: 'POST', body: order(`A-${n}`) })
    // A record's facts (headers, query, body) are built from a copy of it: each read of its body is one build.
    const reads = new Map<number, number>()
    const records = server.journal!.records(server.project('shop').id).map((record) => new Proxy(record, {
      get(target, property, receiver) {
        if (property === 'body') reads.set(target.id, (reads.get(target.id) ?? 0) + 1)
        return Reflect.get(target, property, receiver) as unknown
      },
    }) as JournalRecord)
    const filter = { method: 'POST', when: { body: { '$.items[0].sku': 'Z-9' } } }
    const search = searchJournal(records, filter, Date.now())
    expect(search.matching).toEqual([])
    const closest = search.closest()
    const builds = records.map((record) => reads.get(record.id) ?? 0)
    expect(closest.map(({ record, differences }) => [JSON.parse(new TextDecoder().decode(record.body!)).items[0].sku, differences.length])).toEqual([['A-6', 1], ['A-5', 1], ['A-4', 1]])
    // A-1 to A-6 once, by the query, and not again to be explained; the two older GETs, whose method
    // differs, not at all: nothing older than three requests differing in one thing can come closer.
    expect(builds).toEqual([0, 0, 1, 1, 1, 1, 1, 1])
    // The API shows the same.
    const none = await find(filter)
    expect(none.json.closest.map((c: { request: JournalEntry }) => c.request.id)).toEqual(closest.map(({ record }) => record.id))
  })

  it('refuses a bad when (naming it), another method, and answers 409 with no journal; nothing is cleared', async () => {
    const { server, dbPath, find, requests, auth, id } = await shop()
    await send(`${server.url}/api/shop/orders`)
    const refused = await find({ when: { cookie: { a: 1 } } })
    expect([refused.status, refused.json.error.code]).toEqual([400, 'INVALID_INPUT'])
    expect(refused.json.error.message).toContain('when')
    expect((await send(`${server.url}/api/projects/${id}/requests/find`, { headers: auth })).status).toBe(405)
    expect((await find(['not', 'an', 'object'])).status).toBe(400)
    expect((await requests()).json).toHaveLength(1)
    const off = await shop({ journal: 0 })
    expect((await off.find({})).status).toBe(409)
    expect((await off.requests()).status).toBe(409)
    await expectAliveAndIntact(server.url, dbPath)
  })
})

describe('masking on the live stream', () => {
  it('masks with the apiKey names configured while the stream is open, not only those known when it opened', async () => {
    const { server, dbPath, id, requests } = await shop()
    const token = await mintToken(openStore(dbPath).context, { expiresInMs: 60_000 })
    const stream = await openEvents(`${server.url}/api/projects/${id}/events?access_token=${token}`)
    try {
      const key = 'lateKEYlateKEY123'
      await send(`${server.url}/api/shop/orders`, { headers: { 'x-late': key } })
      expect(JSON.parse((await stream.next('request')).data).headers['x-late']).toBe(key)
      addEndpoint(openStore(dbPath).context, { project: 'shop', method: 'GET', path: '/api/late', body: '{}', auth: [{ type: 'apiKey', in: 'header', name: 'X-Late', keys: [key] }] })
      expect((await send(`${server.url}/api/shop/late`, { headers: { 'x-late': key } })).status).toBe(200)
      const live = JSON.parse((await stream.next('request')).data) as JournalEntry
      expect(live.headers['x-late']).toBe(`late… (${key.length} chars)`)
      expect(live).toEqual(((await requests('?limit=1')).json as JournalEntry[])[0])
    } finally {
      stream.close()
    }
    await expectAliveAndIntact(server.url, dbPath)
  })
})

describe('masking', () => {
  it('masks headers named like a credential and any Bearer or Basic value, but shows a challenge', async () => {
    const { server, dbPath, find, requests } = await shop()
    addEndpoint(openStore(dbPath).context, { project: 'shop', method: 'GET', path: '/api/secure', body: '{}', auth: [{ type: 'bearer', tokens: ['right-token-0123456789'] }] })
    const sent = {
      'x-authorization': 'Bearer xauth-secret-token-123456',
      'x-session-id': 'sess-abcdef-0123456789',
      'x-user-credential': 'cred-0123456789abcdef',
      'x-passwd': 'passwd-0123456789',
      'x-forwarded-auth': 'Basic dXNlcjpwYXNzd29yZA==',
      'x-upstream': 'Bearer upstream-secret-987654321',
    }
    const shown = { 'x-request-id': 'req-0123456789abcdef', 'x-author': 'Ada Lovelace' }
    expect((await send(`${server.url}/api/shop/secure?author=ada&authorId=7&oauth_state=state-0123456789`, { headers: { ...sent, ...shown } })).status).toBe(401)
    const [entry] = (await requests('?limit=1')).json as JournalEntry[]
    // The scheme, four characters, the length of the rest.
    const masked = (value: string) => {
      const [scheme, secret] = value.includes(' ') ? value.split(' ') as [string, string] : ['', value]
      return `${scheme ? `${scheme} ` : ''}${secret.slice(0, 4)}… (${secret.length} chars)`
    }
    expect(entry!.headers).toMatchObject({ ...Object.fromEntries(Object.entries(sent).map(([name, value]) => [name, masked(value)])), ...shown })
    // An author is no credential; an OAuth parameter is.
    expect(entry!.query).toEqual({ author: 'ada', authorId: '7', oauth_state: masked('state-0123456789') })
    // A challenge is no secret: it says why the 401 came.
    expect(entry!.answer.headers['www-authenticate']).toMatch(/^Bearer realm=/)
    // What a `when` received from a header carrying a Bearer value is masked as the header is.
    const none = await find({ when: { headers: { 'x-upstream': 'Bearer other' } } })
    expect(none.json.closest[0].differences[0].received).toBe(JSON.stringify(masked(sent['x-upstream'])))
    const listed = JSON.stringify([entry, none.json])
    for (const secret of Object.values(sent)) expect(listed).not.toContain(secret.split(' ').at(-1))
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('masks a secret query value inside the URLs of Link, Location and Content-Location, as the query shows it', async () => {
    const { server, dbPath, requests } = await shop()
    const { context } = openStore(dbPath)
    addEndpoint(context, { project: 'shop', method: 'GET', path: '/api/keyed', body: '{}', auth: [{ type: 'apiKey', in: 'query', name: 'shop_pass', keys: ['shop-pass-0123456789'] }] })
    addEndpoint(context, { project: 'shop', method: 'GET', path: '/api/moved', status: 302, headers: { Location: '/api/shop/keyed?shop_pass=shop-pass-0123456789&x=1#top', 'Content-Location': '/api/shop/moved?session=sess-0123456789abc' } })
    await send(`${server.url}/api/shop/orders`, { method: 'POST', body: order('A-1') })
    await send(`${server.url}/api/shop/orders`, { method: 'POST', body: order('A-2') })
    const listed = await send(`${server.url}/api/shop/orders?access_token=supersecretvalue123&page=1&limit=1`)
    expect(listed.headers.get('link')).toContain('access_token=supersecretvalue123')
    await send(`${server.url}/api/shop/moved`)
    const [moved, list] = (await requests('?method=GET')).json as JournalEntry[]
    expect(list!.query).toMatchObject({ access_token: 'supe… (19 chars)', page: '1' })
    const link = list!.answer.headers.link!
    expect(link).toContain('access_token=supe… (19 chars)&page=')
    expect(link.match(/access_token=/g)!.length).toBe(listed.headers.get('link')!.match(/access_token=/g)!.length)
    expect(moved!.answer.headers).toMatchObject({ location: '/api/shop/keyed?shop_pass=shop… (20 chars)&x=1#top', 'content-location': '/api/shop/moved?session=sess… (18 chars)' })
    expect(JSON.stringify([list, moved])).not.toMatch(/supersecretvalue123|shop-pass-0123456789|sess-0123456789abc/)
    await expectAliveAndIntact(server.url, dbPath)
  })
})
