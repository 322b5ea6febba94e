import { describe, expect, it } from 'vitest'
import type { JournalRecord } from '../../src/domain/journal.ts'
import { verifyRequests, type JournalScope } from '../../src/domain/journal-verify.ts'
import { formatUnmatchedFailure, formatVerifyFailure, type VerifyFailure } from '../../src/domain/verify-report.ts'
import { AppError } from '../../src/errors.ts'
import type { JournalEntry } from '../../src/events.ts'

const entry = (over: Partial<JournalEntry>): JournalEntry => ({
  id: 1,
  projectId: 2,
  time: '2026-01-31T10:02:03.114Z',
  protocol: 'http',
  method: 'POST',
  path: '/api/shop/orders',
  query: {},
  headers: {},
  cookies: {},
  body: null,
  bodySize: 0,
  bodyCut: false,
  status: 201,
  durationMs: 2,
  endpointId: 7,
  response: null,
  matched: true,
  answer: { headers: {}, body: null },
  ...over,
})

const wrongSku = entry({ id: 12, response: { position: 1, name: null }, body: '{"items":[{"sku":"A-2","qty":1}]}', bodySize: 33 })
const typo = entry({
  id: 13,
  time: '2026-01-31T10:02:03.120Z',
  path: '/api/shop/order',
  status: 404,
  endpointId: null,
  matched: false,
  nearMisses: [{ endpointId: 7, method: 'POST', path: '/api/shop/orders', differences: [{ what: 'segment', at: 2, expected: 'orders', received: 'order', text: 'segment 2 is "order", expected "orders"' }] }],
})
const wrongMethod = entry({ id: 11, time: '2026-01-31T10:02:03.101Z', method: 'GET', status: 200, endpointId: 6, query: { page: '2', tag: ['a', 'b'] } })

const failure = (over: Partial<VerifyFailure> = {}): VerifyFailure => ({
  filter: { method: 'POST', path: '/api/shop/orders', when: { body: { '$.items[0].sku': 'A-1' } } },
  count: {},
  matched: 0,
  total: 4,
  project: 'shop',
  entries: [
    { entry: wrongSku, differences: [{ what: 'condition', at: 'body.$.items[0].sku', expected: 'A-1', received: '"A-2"', text: 'body.$.items[0].sku = A-1 (received "A-2")' }] },
    { entry: typo, differences: [{ what: 'segment', at: 2, expected: 'orders', received: 'order', text: 'segment 2 is "order", expected "orders"' }] },
    { entry: wrongMethod, differences: [{ what: 'method', expected: 'POST', received: 'GET', text: 'method GET, expected POST' }] },
  ],
  unmatched: [13],
  ...over,
})

describe('formatVerifyFailure', () => {
  it('says what was expected in one line, how many matched among how many, then the closest with what differed', () => {
    expect(formatVerifyFailure(failure())).toBe([
      'mockapi verify failed: expected at least 1 request matching POST /api/shop/orders when body.$.items[0].sku = A-1',
      'but 0 matched among 4 requests to project shop. Closest first:',
      '  #12 10:02:03.114 POST /api/shop/orders → 201 (endpoint 7, response 1)',
      '      ✗ body.$.items[0].sku = A-1 (received "A-2")',
      '      body {"items":[{"sku":"A-2","qty":1}]}',
      '  #13 10:02:03.120 POST /api/shop/order → 404 unmatched',
      '      ✗ segment 2 is "order", expected "orders"',
      '      near miss: POST /api/shop/orders (segment 2 is "order", expected "orders")',
      '  #11 10:02:03.101 GET /api/shop/orders?page=2&tag=a&tag=b → 200 (endpoint 6)',
      '      ✗ method GET, expected POST',
      'Unmatched requests: 1 (#13). `api.requests()` lists them all.',
    ].join('\n'))
  })

  it('too many: lists the ones that matched under "exactly", "at most", "no request"', () => {
    const matchedOnes = [wrongSku, wrongSku, wrongSku].map((one, i) => ({ entry: { ...one, id: 20 + i }, differences: [] }))
    const exactly = formatVerifyFailure(failure({ count: { times: 1 }, matched: 3, entries: matchedOnes, unmatched: [] }))
    expect(exactly.split('\n').slice(0, 3)).toEqual([
      'mockapi verify failed: expected exactly 1 request matching POST /api/shop/orders when body.$.items[0].sku = A-1',
      'but 3 matched among 4 requests to project shop:',
      '  #20 10:02:03.114 POST /api/shop/orders → 201 (endpoint 7, response 1)',
    ])
    expect(exactly).not.toMatch(/✗|Unmatched/)
    expect(formatVerifyFailure(failure({ count: { atMost: 2 }, matched: 3, entries: matchedOnes }))).toMatch(/^mockapi verify failed: expected at most 2 requests matching/)
    expect(formatVerifyFailure(failure({ count: { atLeast: 2, atMost: 3 }, matched: 1 }))).toMatch(/expected between 2 and 3 requests matching/)
    // A verify of the unmatched requests: no footer repeating the list.
    const none = formatVerifyFailure(failure({ filter: { matched: false }, count: { times: 0 }, matched: 1, entries: [{ entry: typo, differences: [] }] }))
    expect(none.split('\n')[0]).toBe('mockapi verify failed: expected no request matching any method any path, matched by no endpoint')
    expect(none).toMatch(/near miss: POST \/api\/shop\/orders/)
    expect(none).not.toMatch(/Unmatched requests/)
  })

  it('an empty journal, at most 10 entries, bodies cut at 200 characters, cut bodies and faults said, rule misses shown', () => {
    expect(formatVerifyFailure(failure({ total: 0, entries: [], unmatched: [] })).split('\n')[1]).toBe('but the journal holds no request to project shop.')
    const many = Array.from({ length: 14 }, (_, i) => ({ entry: { ...wrongSku, id: 100 + i }, differences: [] }))
    const report = formatVerifyFailure(failure({ entries: many, total: 14, unmatched: Array.from({ length: 12 }, (_, i) => i + 1) }))
    expect(report.match(/^ {2}#\d+ /gm)).toHaveLength(10)
    expect(report).toMatch(/^ {2}… and 4 more$/m)
    expect(report).toMatch(/Unmatched requests: 12 \(#1, #2, #3, #4, #5, #6, #7, #8, #9, #10, …\)/)
    const big = entry({ body: `{"text":"${'z'.repeat(70_000)}"}`, bodySize: 100_000, bodyCut: true, status: 0, fault: 'reset', ruleMisses: [{ response: { position: 2, name: 'gold' }, failed: ['headers.x-tier = gold (received "silver")'] }], note: 'pattern skipped: value too long' })
    const lines = formatVerifyFailure(failure({ entries: [{ entry: big, differences: [] }], unmatched: [] })).split('\n')
    expect(lines[2]).toBe('  #1 10:02:03.114 POST /api/shop/orders → no response (fault reset)')
    expect(lines[3]).toBe('      note: pattern skipped: value too long')
    expect(lines[4]).toMatch(/^ {6}body \{"text":"z+… \(body cut at 64 KiB of 100000 bytes\)$/)
    expect(lines[4]!.indexOf('…') - '      body '.length).toBe(199)
    expect(lines[5]).toBe('      rule 2 "gold" did not hold: headers.x-tier = gold (received "silver")')
  })

  it('verifyNoUnmatched: how many matched no endpoint among how many, each with its near misses, at most 10', () => {
    expect(formatUnmatchedFailure([typo], 4)).toBe([
      'mockapi verifyNoUnmatched failed: 1 request matched no endpoint, among 4 requests in the journal:',
      '  #13 10:02:03.120 POST /api/shop/order → 404 unmatched',
      '      near miss: POST /api/shop/orders (segment 2 is "order", expected "orders")',
    ].join('\n'))
    const lost = entry({ id: 5, path: '/nowhere', status: 404, endpointId: null, matched: false })
    const report = formatUnmatchedFailure(Array.from({ length: 12 }, (_, i) => ({ ...lost, id: i + 1 })), 12)
    expect(report.split('\n')[0]).toBe('mockapi verifyNoUnmatched failed: 12 requests matched no endpoint, among 12 requests in the journal:')
    expect(report.match(/^ {2}#\d+ /gm)).toHaveLength(10)
    expect(report).toMatch(/^ {6}no endpoint is close$/m)
    expect(report.split('\n').at(-1)).toBe('  … and 2 more (`api.requests({ matched: false })` lists them, per project)')
  })
})

describe('verifyRequests on kept records', () => {
  it('a body the journal cut is said to be cut and not tested, not to hold nothing', () => {
    const NOW = Date.parse('2026-01-31T10:02:04.000Z')
    const sent = new TextEncoder().encode(JSON.stringify({ pad: 'x'.repeat(70_000), sku: 'A-1' }))
    const record: JournalRecord = {
      id: 3, projectId: 2, at: NOW - 500, epoch: 0, protocol: 'http', method: 'POST', path: '/api/shop/orders', search: '',
      headerLines: 'Content-Type\napplication/json', params: {}, body: sent.slice(0, 64 * 1024), bodySize: sent.byteLength, contentType: 'application/json',
      status: 201, durationMs: 1, endpointId: 7, answeredBy: null, matched: true, fault: null, note: null, answer: null, nearMisses: null, ruleMisses: null,
    }
    const scope: JournalScope = { slug: 'shop', records: [record], masking: () => ({ names: new Set() }) }
    let message = ''
    try {
      verifyRequests({ now: () => NOW, project: () => scope, all: () => [scope] }, { method: 'POST', when: { body: { sku: 'A-1' } } })
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      message = error.message
    }
    expect(message.split('\n').slice(2, 4)).toEqual([
      '  #3 10:02:03.500 POST /api/shop/orders → 201 (endpoint 7)',
      `      ✗ body.sku = A-1 (body cut at 64 KiB (${sent.byteLength} bytes): not tested)`,
    ])
  })
})
