import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { AppError, startMockApi, type MockApi } from '../../src/index.ts'
import { cleanup, tempDir } from '../_helpers.ts'

/** A secret by this project's own apiKey scheme (no usual secret name): masked only through the project's masking. */
const SHOP_KEY = 'shop-key-0123456789abcdef'
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.secret-part-of-the-token'

const shop = {
  name: 'Shop',
  slug: 'shop',
  endpoints: [
    { method: 'POST', path: '/api/orders', status: 201, body: { id: 'o-1' }, auth: [{ type: 'apiKey', in: 'header', name: 'X-Shop-Pass', keys: [SHOP_KEY] }] },
    { method: 'GET', path: '/api/orders', body: [] },
    { method: 'GET', path: '/api/orders/:id', body: { id: '{{params.id}}' } },
    { method: 'GET', path: '/api/me', responses: [{ when: { headers: { authorization: 'Bearer admin' } }, body: { admin: true } }, { body: { admin: false } }] },
  ],
}

function postOrder(api: MockApi, sku: string, path = '/api/shop/orders') {
  return fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-shop-pass': SHOP_KEY, authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ items: [{ sku, qty: 1 }] }),
  })
}

/** The error a call throws, for asserting on its code and message together. */
function thrown(call: () => unknown): AppError {
  try {
    call()
  } catch (error) {
    if (error instanceof AppError) return error
    throw error
  }
  throw new Error('expected the call to throw')
}

describe('startMockApi: the journal in a test', () => {
  let api: MockApi

  beforeAll(async () => {
    api = await startMockApi({ config: shop })
  })
  beforeEach(() => api.reset())
  afterAll(() => api.close())

  it('lists the requests oldest first, raw, and counts them through the filters', async () => {
    expect((await fetch(`${api.url}/api/shop/orders`)).status).toBe(200)
    expect((await postOrder(api, 'A-1')).status).toBe(201)
    expect((await fetch(`${api.url}/api/shop/orders/7?expand=items`)).status).toBe(200)

    const requests = api.requests()
    expect(requests.map((entry) => `${entry.method} ${entry.path}`)).toEqual(['GET /api/shop/orders', 'POST /api/shop/orders', 'GET /api/shop/orders/7'])
    expect(requests[1]).toMatchObject({ status: 201, matched: true, body: '{"items":[{"sku":"A-1","qty":1}]}', headers: { 'x-shop-pass': SHOP_KEY, authorization: `Bearer ${TOKEN}` } })
    expect(requests[2]!.query).toEqual({ expand: 'items' })

    expect(api.count()).toBe(3)
    expect(api.count({ method: 'GET' })).toBe(2)
    expect(api.count({ path: '/api/shop/orders/*' })).toBe(1)
    expect(api.count({ path: '/api/shop/**', status: '2xx' })).toBe(3)
    expect(api.count({ method: 'post', when: { body: { '$.items[0].sku': 'A-1' } } })).toBe(1)
    expect(api.count({ when: { query: { expand: 'items' } } })).toBe(1)
    expect(api.requests({ method: 'GET', limit: 1 }).map((entry) => entry.path)).toEqual(['/api/shop/orders/7'])
    expect(api.requests({ project: 'shop', after: requests[1]!.id }).map((entry) => entry.path)).toEqual(['/api/shop/orders/7'])
  })

  it('pages with after and limit from the cursor, oldest first: a poller sees every request once', async () => {
    await fetch(`${api.url}/api/shop/orders?n=0`)
    let cursor = api.requests()[0]!.id
    for (let n = 1; n <= 5; n += 1) await fetch(`${api.url}/api/shop/orders?n=${n}`)
    const seen: unknown[] = []
    for (let poll = 0; poll < 4; poll += 1) {
      const page = api.requests({ after: cursor, limit: 2 })
      seen.push(...page.map((entry) => entry.query.n))
      cursor = page.at(-1)?.id ?? cursor
    }
    expect(seen).toEqual(['1', '2', '3', '4', '5'])
    expect(api.requests({ limit: 2 }).map((entry) => entry.query.n)).toEqual(['4', '5'])
  })

  it('sees a request as soon as its answer came back: verify right after the fetch', async () => {
    await postOrder(api, 'A-1')
    api.verify({ method: 'POST', path: '/api/shop/orders' }, { times: 1 })
  })

  it('counts every request sent concurrently', async () => {
    const sent = await Promise.all(Array.from({ length: 40 }, (_, i) => postOrder(api, `C-${i}`)))
    expect(sent.every((response) => response.status === 201)).toBe(true)
    api.verify({ method: 'POST', path: '/api/shop/orders' }, { times: 40 })
    expect(new Set(api.requests().map((entry) => JSON.parse(entry.body!).items[0].sku)).size).toBe(40)
    expect(new Set(api.requests().map((entry) => entry.id)).size).toBe(40)
  })

  it('verifies times, atLeast and atMost, and refuses a count that means nothing', async () => {
    await postOrder(api, 'A-1')
    await postOrder(api, 'A-1')
    const orders = { method: 'POST', path: '/api/shop/orders' }
    api.verify(orders)
    api.verify(orders, { times: 2 })
    api.verify(orders, { atLeast: 2, atMost: 3 })
    api.verify(orders, { atMost: 2 })
    api.verify({ method: 'DELETE' }, { times: 0 })
    expect(thrown(() => api.verify(orders, { times: 1 })).code).toBe('VERIFICATION_FAILED')
    expect(() => api.verify(orders, { atLeast: 3 })).toThrow(/expected at least 3 requests matching POST \/api\/shop\/orders\nbut 2 matched among 2 requests to project shop/)
    expect(() => api.verify(orders, { atMost: 1 })).toThrow(/expected at most 1 request matching POST \/api\/shop\/orders\nbut 2 matched among 2 requests to project shop:\n {2}#\d+ /)

    for (const [count, message] of [
      [{ times: 1, atLeast: 1 }, /"times" is an exact count/],
      [{ times: 1, atMost: 2 }, /"times" is an exact count/],
      [{ atLeast: -1 }, /"atLeast" must be an integer of 0 or more/],
      [{ times: 1.5 }, /"times" must be an integer of 0 or more/],
      [{ atLeast: 3, atMost: 2 }, /"atLeast" \(3\) is more than atMost \(2\)/],
      [{ exactly: 1 }, /"exactly" is not a count/],
    ] as const) {
      const error = thrown(() => api.verify(orders, count as never))
      expect(error.code).toBe('INVALID_INPUT')
      expect(error.message).toMatch(message)
    }
    expect(thrown(() => api.verify({ method: 'FETCH' })).code).toBe('INVALID_INPUT')
    expect(thrown(() => api.verify({ path: 'orders' })).message).toMatch(/"path" must start with \//)
    expect(thrown(() => api.count({ limit: 5 })).message).toMatch(/"limit" bounds what requests\(\) lists/)
    expect(thrown(() => api.verify({ project: 'nope' })).code).toBe('PROJECT_NOT_FOUND')
  })

  it('fails with the closest requests, what differed in each, and the near misses of an unmatched one', async () => {
    await fetch(`${api.url}/api/shop/orders`)
    await postOrder(api, 'A-2')
    await postOrder(api, 'A-1', '/api/shop/order')
    const verify = () => api.verify({ method: 'POST', path: '/api/shop/orders', when: { body: { '$.items[0].sku': 'A-1' } } }, { times: 1 })
    expect(verify).toThrow(/received "A-2"/)
    const message = thrown(verify).message
    expect(message).toMatch(/^mockapi verify failed: expected exactly 1 request matching POST \/api\/shop\/orders when body\.\$\.items\[0\]\.sku = A-1\nbut 0 matched among 3 requests to project shop\. Closest first:\n/)
    // Closest first: the unmatched POST differs in one segment, the other POST in its body; the GET in two ways.
    const lines = message.split('\n')
    const headers = lines.filter((line) => /^ {2}#\d+ /.test(line))
    expect(headers.map((line) => line.replace(/^ {2}#\d+ \S+ /, ''))).toEqual([
      'POST /api/shop/order → 404 unmatched',
      'POST /api/shop/orders → 201 (endpoint 1)',
      'GET /api/shop/orders → 200 (endpoint 2)',
    ])
    expect(message).toContain('      ✗ segment 2 is "order", expected "orders"\n')
    expect(message).toContain('      near miss: POST /api/shop/orders (segment 2 is "order", expected "orders")\n')
    expect(message).toContain('      ✗ body.$.items[0].sku = A-1 (received "A-2")\n')
    expect(message).toContain('      ✗ method GET, expected POST\n')
    expect(message).toMatch(/\nUnmatched requests: 1 \(#\d+\)\. `api\.requests\(\)` lists them all\.$/)
  })

  it('masks secrets in the message, while requests() keeps them raw', async () => {
    await postOrder(api, 'A-2')
    const error = thrown(() => api.verify({ when: { headers: { authorization: 'Bearer other', 'x-shop-pass': 'other' } } }))
    expect(error.message).toContain(`headers.authorization = Bearer other (received "Bearer ${TOKEN.slice(0, 4)}… (${TOKEN.length} chars)")`)
    expect(error.message).toContain(`headers.x-shop-pass = other (received "${SHOP_KEY.slice(0, 4)}… (${SHOP_KEY.length} chars)")`)
    expect(error.message).not.toContain(TOKEN)
    expect(error.message).not.toContain(SHOP_KEY)
    const [shown] = (error.details as { requests: { headers: Record<string, string> }[] }).requests
    expect(shown!.headers['x-shop-pass']).toBe(`${SHOP_KEY.slice(0, 4)}… (${SHOP_KEY.length} chars)`)
    expect(shown!.headers.authorization).toBe(`Bearer ${TOKEN.slice(0, 4)}… (${TOKEN.length} chars)`)
    expect(api.requests()[0]!.headers).toMatchObject({ 'x-shop-pass': SHOP_KEY, authorization: `Bearer ${TOKEN}` })
  })

  it('masks what a response rule received, in the message as in the rule misses it shows', async () => {
    await fetch(`${api.url}/api/shop/me`, { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(api.requests()[0]!.ruleMisses![0]!.failed).toEqual([`headers.authorization = Bearer admin (received "Bearer ${TOKEN}")`])
    const message = thrown(() => api.verify({ method: 'POST' })).message
    expect(message).toContain(`      rule 1 did not hold: headers.authorization = Bearer admin (received "Bearer ${TOKEN.slice(0, 4)}… (${TOKEN.length} chars)")`)
    expect(message).not.toContain(TOKEN)
  })

  it('verifyNoUnmatched passes on matched traffic and lists the unmatched requests with their near misses', async () => {
    await postOrder(api, 'A-1')
    api.verifyNoUnmatched()
    await fetch(`${api.url}/api/shop/ordres/7`)
    const error = thrown(() => api.verifyNoUnmatched())
    expect(error.code).toBe('VERIFICATION_FAILED')
    expect(error.message).toMatch(/^mockapi verifyNoUnmatched failed: 1 request matched no endpoint, among 2 requests in the journal:\n {2}#\d+ \S+ GET \/api\/shop\/ordres\/7 → 404 unmatched\n/)
    expect(error.message).toContain('      near miss: GET /api/shop/orders/:id (segment 2 is "ordres", expected "orders")')
  })

  it('reset() and clearRequests() empty the journal; ids go on', async () => {
    await postOrder(api, 'A-1')
    const before = api.requests()[0]!.id
    api.reset()
    expect(api.requests()).toEqual([])
    api.verify({}, { times: 0 })
    await postOrder(api, 'A-1')
    expect(api.requests()[0]!.id).toBeGreaterThan(before)
    api.clearRequests('shop')
    expect(api.count()).toBe(0)
    await postOrder(api, 'A-1')
    api.clearRequests()
    expect(api.count()).toBe(0)
    expect(() => api.verify({ method: 'POST' })).toThrow(/expected at least 1 request matching POST any path\nbut the journal holds no request to project shop\./)
  })
})

describe('startMockApi: the journal across projects and when off', () => {
  afterEach(cleanup)

  it('reads, clears and verifies each project by its slug; verifyNoUnmatched looks at all', async () => {
    const db = join(tempDir(), 'two.db')
    await (await startMockApi({ db, config: shop })).close()
    const api = await startMockApi({ db, config: { name: 'Blog', slug: 'blog', endpoints: [{ method: 'GET', path: '/api/posts', body: [] }] } })
    try {
      expect(api.project().slug).toBe('blog')
      await fetch(`${api.url}/api/blog/posts`)
      await postOrder(api, 'A-1')
      await fetch(`${api.url}/api/shop/nothing-here`)
      expect(api.requests().map((entry) => entry.path)).toEqual(['/api/blog/posts'])
      expect(api.count({ project: 'shop' })).toBe(2)
      api.verify({ project: 'shop', method: 'POST', when: { body: { '$.items[0].sku': 'A-1' } } }, { times: 1 })
      expect(() => api.verifyNoUnmatched()).toThrow(/GET \/api\/shop\/nothing-here → 404 unmatched/)
      api.clearRequests('blog')
      expect(api.count()).toBe(0)
      expect(api.count({ project: 'shop' })).toBe(2)
      api.clearRequests()
      expect(api.count({ project: 'shop' })).toBe(0)
      api.verifyNoUnmatched()
    } finally {
      await api.close()
    }
  })

  it('with journal: 0 every journal method says the journal is off', async () => {
    const api = await startMockApi({ config: shop, journal: 0 })
    try {
      expect((await postOrder(api, 'A-1')).status).toBe(201)
      for (const call of [() => api.requests(), () => api.count(), () => api.clearRequests(), () => api.verify({}), () => api.verifyNoUnmatched()]) {
        const error = thrown(call)
        expect(error.code).toBe('CONFLICT')
        expect(error.message).toMatch(/^the journal is off \(journal: 0\)/)
      }
      api.reset()
    } finally {
      await api.close()
    }
  })
})
