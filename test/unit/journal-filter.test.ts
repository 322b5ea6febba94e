import { describe, expect, it } from 'vitest'
import { AppError } from '../../src/errors.ts'
import type { JournalFilter } from '../../src/events.ts'
import { multipartFields, multipartFieldsNow } from '../../src/engine/form-fields.ts'
import { journalFacts } from '../../src/engine/journal-facts.ts'
import { compileFilter, parseFilter, type JournalSubject } from '../../src/engine/journal-filter.ts'
import { createRouter, splitPath } from '../../src/engine/router.ts'

const NOW = Date.parse('2026-01-31T10:00:00.000Z')

function refusal(run: () => unknown): { code: string; field: string; message: string } {
  try {
    run()
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    const [detail] = error.details as { field: string; message: string }[]
    return { code: error.code, field: detail!.field, message: error.message }
  }
  throw new Error('accepted')
}
const fromQuery = (query: string) => refusal(() => parseFilter(new URLSearchParams(query), NOW))
const fromObject = (filter: unknown) => refusal(() => parseFilter(filter, NOW))

interface Sent {
  id?: number
  at?: number
  method?: string
  path?: string
  search?: string
  headers?: [string, string][]
  body?: string
  contentType?: string
  status?: number
  matched?: boolean
  endpointId?: number | null
  params?: Record<string, string> | null
  /** The whole size of a body the journal kept only `body` of. */
  bodySize?: number
}

function subject(sent: Sent = {}): JournalSubject {
  const request = {
    method: sent.method ?? 'GET',
    path: sent.path ?? '/api/shop/orders',
    search: sent.search ?? '',
    headers: sent.headers ?? [],
    body: sent.body === undefined ? null : new TextEncoder().encode(sent.body),
    contentType: sent.contentType ?? null,
    params: sent.params ?? null,
  }
  return {
    id: sent.id ?? 1,
    at: sent.at ?? NOW - 1000,
    method: request.method,
    path: request.path,
    status: sent.status ?? 200,
    matched: sent.matched ?? true,
    endpointId: sent.endpointId === undefined ? 7 : sent.endpointId,
    bodyCut: sent.bodySize === undefined ? null : { kept: request.body?.byteLength ?? 0, size: sent.bodySize },
    facts: (needsBody) => journalFacts(request, needsBody),
  }
}
const matches = (filter: JournalFilter, sent: Sent = {}) => compileFilter(filter, NOW).matches(subject(sent))

describe('journal filters: bad input is refused naming the field', () => {
  it('from a query string: INVALID_QUERY', () => {
    expect(fromQuery('status=abc')).toMatchObject({ code: 'INVALID_QUERY', field: 'status' })
    expect(fromQuery('status=600')).toMatchObject({ field: 'status' })
    expect(fromQuery('status=499-400')).toMatchObject({ field: 'status', message: expect.stringMatching(/backwards/) })
    expect(fromQuery('status=6xx')).toMatchObject({ field: 'status' })
    expect(fromQuery('limit=0')).toMatchObject({ code: 'INVALID_QUERY', field: 'limit' })
    expect(fromQuery('limit=1e9')).toMatchObject({ field: 'limit' })
    expect(fromQuery('limit=10001')).toMatchObject({ field: 'limit' })
    expect(fromQuery('limit=5&limit=6')).toMatchObject({ field: 'limit', message: expect.stringMatching(/once/) })
    expect(fromQuery('path=api')).toMatchObject({ field: 'path', message: expect.stringMatching(/start with \//) })
    expect(fromQuery('path=/a?b')).toMatchObject({ field: 'path', message: expect.stringMatching(/when\.query/) })
    expect(fromQuery('path=/a/**/b')).toMatchObject({ field: 'path', message: expect.stringMatching(/\*\*/) })
    expect(fromQuery('method=FOO')).toMatchObject({ field: 'method', message: expect.stringMatching(/"FOO" is not an HTTP method/) })
    expect(fromQuery('method=GET,FOO')).toMatchObject({ field: 'method' })
    expect(fromQuery('since=yesterday')).toMatchObject({ field: 'since' })
    expect(fromQuery('since=5 minutes')).toMatchObject({ field: 'since' })
    expect(fromQuery('matched=yes')).toMatchObject({ field: 'matched' })
    expect(fromQuery('endpointId=0')).toMatchObject({ field: 'endpointId' })
    expect(fromQuery('endpointId=x')).toMatchObject({ field: 'endpointId' })
    expect(fromQuery('after=-1')).toMatchObject({ field: 'after' })
    expect(fromQuery('colour=red')).toMatchObject({ field: 'colour', message: expect.stringMatching(/is not a filter/) })
    expect(fromQuery('when={}')).toMatchObject({ field: 'when', message: expect.stringMatching(/POST/) })
    expect(fromQuery('status=abc').message).toMatch(/^query parameter "status"/)
  })

  it('from an object: INVALID_INPUT, a when checked as response rules are (targets, size, costly patterns)', () => {
    expect(fromObject({ status: 'abc' })).toMatchObject({ code: 'INVALID_INPUT', field: 'status' })
    expect(fromObject({ limit: 0 })).toMatchObject({ code: 'INVALID_INPUT', field: 'limit' })
    expect(fromObject({ limit: 2.5 })).toMatchObject({ field: 'limit' })
    expect(fromObject({ method: ['GET', 3] })).toMatchObject({ field: 'method' })
    expect(fromObject({ matched: 'maybe' })).toMatchObject({ field: 'matched' })
    expect(fromObject({ path: 7 })).toMatchObject({ field: 'path' })
    expect(fromObject({ project: '' })).toMatchObject({ field: 'project' })
    expect(fromObject({ nope: 1 })).toMatchObject({ field: 'nope' })
    expect(fromObject([1])).toMatchObject({ field: 'filter' })
    expect(fromObject({ when: { cookie: { a: 1 } } })).toMatchObject({ code: 'INVALID_INPUT', field: 'when.cookie', message: expect.stringMatching(/did you mean cookies/) })
    expect(fromObject({ when: { body: { a: { gte: 'x' } } } })).toMatchObject({ field: 'when.body.a.gte' })
    expect(fromObject({ when: { body: { text: 'x'.repeat(17 * 1024) } } })).toMatchObject({ field: 'when', message: expect.stringMatching(/bytes of JSON/) })
    expect(fromObject({ when: { body: { text: { matches: '(a{100}){100}' } } } })).toMatchObject({ field: 'when.body.text.matches' })
    // compileFilter checks what it is given too: the test API hands it objects.
    expect(refusal(() => compileFilter({ status: 'x' }, NOW))).toMatchObject({ code: 'INVALID_INPUT', field: 'status' })
  })

  it('writes a filter plainly: methods upper case, a span back from now as an ISO time, empty query values not given', () => {
    expect(parseFilter(new URLSearchParams('method=get,Post&method=put&status=2XX,404&matched=false&since=5m&after=12&limit=50&path=/api/*&endpointId=3&project=shop&status='), NOW)).toEqual({
      method: ['GET', 'POST', 'PUT'],
      status: '2xx,404',
      matched: false,
      since: '2026-01-31T09:55:00.000Z',
      after: 12,
      limit: 50,
      path: '/api/*',
      endpointId: 3,
      project: 'shop',
    })
    expect(parseFilter(new URLSearchParams('method=&path='), NOW)).toEqual({})
    expect(parseFilter({ since: '2026-01-31T09:00:00Z', status: 201, method: 'delete' }, NOW)).toEqual({ since: '2026-01-31T09:00:00.000Z', status: '201', method: ['DELETE'] })
    expect(parseFilter(undefined, NOW)).toEqual({})
    expect(compileFilter({ limit: 3 }, NOW).limit).toBe(3)
    expect(compileFilter({}, NOW).limit).toBeUndefined()
  })
})

describe('journal filters: what they match', () => {
  it('path patterns agree with the router on the same patterns', () => {
    const patterns = ['/', '/api/shop/orders', '/api/shop/orders/*', '/api/shop/orders/:id', '/api/**', '/api/shop/**', '/files/:name.json', '/img/*.png', '/v1/users/:id:activate',
      '/a/*/c', '/search/a%20b', '/api/shop/orders/:id/items/*', '/x/{id}', '/**']
    const paths = ['/', '/api', '/api/shop/orders', '/api/shop/orders/', '/api/shop/orders/7', '/api/shop/orders/7/items/2', '/api/shop/order', '/api/shop', '/files/report.json',
      '/files/report.csv', '/files/.json', '/img/cat.png', '/img/cat.gif', '/v1/users/42:activate', '/v1/users/42', '/a/b/c', '/a/b/d', '/search/a%20b', '/search/a b',
      '/x/1', '/x', '/other/deep/path', '/api/shop/orders/%E0%A4%A', '//api//shop/orders']
    for (const pattern of patterns) {
      const router = createRouter([{ method: 'GET', segments: splitPath(pattern), value: true }])
      for (const path of paths) {
        let decoded: string[]
        try {
          decoded = splitPath(path).map((segment) => decodeURIComponent(segment))
        } catch {
          decoded = splitPath(path)
        }
        const expected = router.match('GET', decoded).kind === 'found'
        expect([pattern, path, matches({ path: pattern }, { path })]).toEqual([pattern, path, expected])
      }
    }
  })

  it('a leading ** is any prefix, none included: the same endpoint under the slug and at own paths', () => {
    const held = (path: string) => ['/api/shop/orders', '/api/orders', '/orders', '/api/shop/orders/7', '/api/shop/order', '/v2/api/orders/7/items', '/'].filter((sent) => matches({ path }, { path: sent }))
    expect(held('/**/orders')).toEqual(['/api/shop/orders', '/api/orders', '/orders'])
    expect(held('/**/orders/:id')).toEqual(['/api/shop/orders/7'])
    expect(held('/**/orders/**')).toEqual(['/api/shop/orders', '/api/orders', '/orders', '/api/shop/orders/7', '/v2/api/orders/7/items'])
    expect(held('/**/**')).toHaveLength(7)
    expect(matches({ path: '/**/a%20b' }, { path: '/x/a%20b' })).toBe(true)
    expect(parseFilter(new URLSearchParams('path=/**/orders'), NOW)).toEqual({ path: '/**/orders' })
    // Explained on the end of the path that comes closest.
    const explain = (path: string, sent: string) => compileFilter({ path }, NOW).explain(subject({ path: sent }))
    expect(explain('/**/orders', '/api/shop/order')).toEqual([{ what: 'segment', at: 2, expected: 'orders', received: 'order', text: 'segment 2 is "order", expected "orders"' }])
    expect(explain('/**/orders/:id', '/api/shop/orders').map((d) => d.text)).toEqual(['missing segment ":id"'])
    // Anywhere else, ** is refused, saying where it may stand.
    expect(fromQuery('path=/api/**/orders')).toMatchObject({ field: 'path', message: expect.stringContaining('may start with ** (any prefix: /**/orders) or end with it') })
  })

  it('method, status classes, ranges and lists, faults, matched and endpoint', () => {
    expect(matches({ method: ['POST', 'PUT'] }, { method: 'PUT' })).toBe(true)
    expect(matches({ method: 'get' }, { method: 'HEAD' })).toBe(false)
    expect(matches({ status: '4xx' }, { status: 404 })).toBe(true)
    expect(matches({ status: '4xx' }, { status: 500 })).toBe(false)
    expect(matches({ status: '400-404,201' }, { status: 201 })).toBe(true)
    expect(matches({ status: '400-404' }, { status: 405 })).toBe(false)
    expect(matches({ status: 0 }, { status: 0 })).toBe(true)
    expect(matches({ status: '2xx' }, { status: 0 })).toBe(false)
    expect(matches({ matched: false }, { matched: false })).toBe(true)
    expect(matches({ matched: false }, { matched: true })).toBe(false)
    expect(matches({ endpointId: 7 }, { endpointId: 7 })).toBe(true)
    expect(matches({ endpointId: 7 }, { endpointId: null })).toBe(false)
  })

  it('since (ISO or a span back from now) and after (an id)', () => {
    expect(matches({ since: '30s' }, { at: NOW - 29_000 })).toBe(true)
    expect(matches({ since: '30s' }, { at: NOW - 31_000 })).toBe(false)
    expect(matches({ since: '2h' }, { at: NOW - 3_600_000 })).toBe(true)
    expect(matches({ since: '2026-01-31T09:59:00Z' }, { at: NOW - 30_000 })).toBe(true)
    expect(matches({ since: '2026-01-31T09:59:00Z' }, { at: NOW - 90_000 })).toBe(false)
    expect(matches({ after: 12 }, { id: 13 })).toBe(true)
    expect(matches({ after: 12 }, { id: 12 })).toBe(false)
  })

  it('when: the rules\' condition language on the kept request (JSON, form, multipart, headers, query, cookies, params)', () => {
    const order = { method: 'POST', body: '{"items":[{"sku":"A-1","qty":2}]}', contentType: 'application/json' }
    expect(matches({ when: { body: { '$.items[0].sku': 'A-1' } } }, order)).toBe(true)
    expect(matches({ when: { body: { '$.items[*].qty': { gt: 5 } } } }, order)).toBe(false)
    expect(matches({ when: { body: { kind: 'form', n: 3 } } }, { body: 'kind=form&n=3', contentType: 'application/x-www-form-urlencoded' })).toBe(true)
    const multipart = '--XyZ\r\nContent-Disposition: form-data; name="title"\r\n\r\nhello é\r\n--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nbytes\r\n--XyZ--\r\n'
    expect(matches({ when: { body: { title: 'hello é', file: 'a.txt' } } }, { body: multipart, contentType: 'multipart/form-data; boundary=XyZ' })).toBe(true)
    expect(matches({ when: { body: { contains: 'boundary-less' } } }, { body: multipart, contentType: 'multipart/form-data; boundary=XyZ' })).toBe(false)
    expect(matches({ when: { headers: { 'X-Tier': 'gold' }, query: { tag: 'b' }, cookies: { sid: 'a b' } } }, {
      headers: [['x-tier', 'gold'], ['cookie', 'sid=a%20b']],
      search: '?tag=a&tag=b',
    })).toBe(true)
    expect(matches({ when: { params: { id: 7 } } }, { params: { id: '7' } })).toBe(true)
    expect(matches({ when: { params: { id: 7 } } }, { params: null })).toBe(false)
    // The head is tested first: the body of an entry whose method differs is never read.
    let read = 0
    const lazy = subject({ method: 'GET' })
    const facts = lazy.facts
    lazy.facts = (needsBody) => ((read += 1), facts(needsBody))
    expect(compileFilter({ method: 'POST', when: { body: { a: 1 } } }, NOW).matches(lazy)).toBe(false)
    expect(read).toBe(0)
  })

  it('explains what kept an entry from matching, one difference per field or condition', () => {
    const filter = compileFilter({ method: 'POST', path: '/api/shop/orders', status: '2xx', matched: true, when: { body: { '$.items[0].sku': 'A-1' } } }, NOW)
    const entry = subject({ method: 'GET', path: '/api/shop/order', status: 404, matched: false, endpointId: null, body: '{"items":[{"sku":"A-2"}]}', contentType: 'application/json' })
    expect(filter.explain(entry).map((difference) => difference.text)).toEqual([
      'method GET, expected POST',
      'segment 2 is "order", expected "orders"',
      'status 404, expected 2xx',
      'no endpoint matched it',
      'body.$.items[0].sku = A-1 (received "A-2")',
    ])
    expect(filter.explain(subject({ method: 'POST', body: '{"items":[{"sku":"A-1"}]}', contentType: 'application/json' }))).toEqual([])
    expect(compileFilter({ after: 5, since: '1m' }, NOW).explain(subject({ id: 5, at: NOW - 120_000 })).map((d) => d.what)).toEqual(['time', 'time'])
  })

  it('explains a path as near misses do: a typo as a typo first', () => {
    const texts = (path: string, sent: string) => compileFilter({ path }, NOW).explain(subject({ path: sent })).map((difference) => difference.text)
    expect(texts('/api/shop/orders/:id', '/api/shop/ordrs')).toEqual(['segment 2 is "ordrs", expected "orders"', 'missing segment ":id"'])
    expect(texts('/api/orders/:id', '/api/ordrs')).toEqual(['segment 1 is "ordrs", expected "orders"', 'missing segment ":id"'])
    expect(texts('/api/shop/orders/:id/items', '/api/shop/orders/items')).toEqual(['missing segment ":id"'])
  })

  it('a difference\'s at agrees with its text; a when difference expects the operand', () => {
    const [segment] = compileFilter({ path: '/api/shop/orders' }, NOW).explain(subject({ path: '/api/shop/order' }))
    expect(segment).toEqual({ what: 'segment', at: 2, expected: 'orders', received: 'order', text: 'segment 2 is "order", expected "orders"' })
    const [condition] = compileFilter({ when: { headers: { authorization: 'Bearer other' } } }, NOW).explain(subject({ headers: [['authorization', 'Bearer mine']] }))
    expect(condition).toEqual({ what: 'condition', at: 'headers.authorization', expected: 'Bearer other', received: '"Bearer mine"', text: 'headers.authorization = Bearer other (received "Bearer mine")' })
  })
})

describe('journal filters: a body the journal cut', () => {
  it('a failed body condition says the body was cut and not tested, not that it received nothing', () => {
    const whole = JSON.stringify({ pad: 'x'.repeat(70_000), sku: 'A-1' })
    const kept = whole.slice(0, 64 * 1024)
    const filter = compileFilter({ when: { body: { sku: 'A-1' }, headers: { 'x-tier': 'gold' } } }, NOW)
    const cut = subject({ method: 'POST', body: kept, bodySize: whole.length, contentType: 'application/json', headers: [['x-tier', 'silver']] })
    expect(filter.explain(cut).map((difference) => difference.text)).toEqual([
      `body.sku = A-1 (body cut at 64 KiB (${whole.length} bytes): not tested)`,
      'headers.x-tier = gold (received "silver")',
    ])
    // A body never read (a declared size refused): not kept at all.
    expect(filter.explain(subject({ method: 'POST', bodySize: 5_000_000, headers: [['x-tier', 'gold']] })).map((difference) => difference.text)).toEqual(['body.sku = A-1 (body not kept (5000000 bytes): not tested)'])
    // A whole body that lacks the field still says so.
    expect(filter.explain(subject({ method: 'POST', body: '{"sku":"A-9"}', contentType: 'application/json', headers: [['x-tier', 'gold']] })).map((difference) => difference.text)).toEqual(['body.sku = A-1 (received "A-9")'])
  })
})

describe('journal facts', () => {
  it('read a multipart body as the rules\' parser does, without waiting', async () => {
    const type = (boundary: string) => `multipart/form-data; boundary=${boundary}`
    const bodies: [string, string][] = [
      ['--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n2\r\n--b--\r\n', type('b')],
      ['--b\r\nContent-Disposition: form-data; name="f"; filename="ü.png"\r\nContent-Type: image/png\r\n\r\n\u0089PNG\r\n--b--', type('b')],
      ['preamble\r\n--"q"\r\ncontent-disposition: form-data; name="line"\r\n\r\ntwo\r\nlines\r\n--"q"--\r\n', type('"q"')],
      ['--b\r\nContent-Disposition: form-data; name=plain\r\n\r\nv\r\n--b--\r\n', type('b')],
      ['--b\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--b--\r\n', type('b')],
      ['--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nnever closed', type('b')],
      ['no boundary at all', 'multipart/form-data'],
      ...['form-data; name="a\\"b"', 'form-data; name="a\\\\b"', 'form-data; name="a"x', 'form-data; name="a" ; filename="f"', 'form-data;name="a"', 'form-data; NAME="a"',
        'form-data; name="a%22b%0A"', 'form-data; name="é"', "form-data; filename*=utf-8''x.txt; name=\"a\"", 'attachment; name="a"', 'form-data; name="a"; filename=""',
        'form-data; filename="f.txt"; name="up"', 'form-data; name="a\\"; x="y"']
        .map((disposition): [string, string] => [`--b\r\nContent-Disposition: ${disposition}\r\n\r\nv\r\n--b--\r\n`, type('b')]),
    ]
    for (const [body, contentType] of bodies) {
      const bytes = new TextEncoder().encode(body)
      expect([body, multipartFieldsNow(bytes, contentType)]).toEqual([body, await multipartFields(bytes, contentType)])
    }
  })

  it('keep query, repeated headers and cookies as the rules read them; the body only when asked', () => {
    const facts = journalFacts({ method: 'POST', path: '/x', search: '?a=1&a=2&b=', headers: [['accept', 'a/b'], ['accept', 'c/d'], ['cookie', 'sid=a%20b; x=1']], body: new TextEncoder().encode('{"k":1}'), contentType: 'application/json', params: null }, false)
    expect(facts).toEqual({ params: {}, query: { a: ['1', '2'], b: '' }, headers: { accept: ['a/b, c/d', 'a/b', 'c/d'], cookie: 'sid=a%20b; x=1' }, cookies: { sid: 'a b', x: '1' }, body: undefined, bodyText: null })
    expect(journalFacts({ method: 'POST', path: '/x', search: '', headers: [], body: new TextEncoder().encode('{"k":1}'), contentType: 'application/json', params: { id: '3' } }, true)).toMatchObject({ params: { id: '3' }, body: { k: 1 }, bodyText: '{"k":1}' })
  })
})
