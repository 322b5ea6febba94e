import { describe, expect, it } from 'vitest'
import { ConditionError, explainWhen, whenMisses, type RequestFacts } from '../../src/engine/conditions.ts'

const facts = (over: Partial<RequestFacts> = {}): RequestFacts => ({ params: {}, query: {}, headers: {}, cookies: {}, body: undefined, bodyText: null, ...over })

describe('explainWhen', () => {
  it('names each failed AND-ed condition with the value received there', () => {
    const when = {
      headers: { 'X-Tier': 'gold', 'X-Ok': { present: true } },
      query: { page: { gte: 2 } },
      cookies: { sid: { matches: '^s-' } },
      params: { id: 7 },
      body: { '$.items[0].sku': 'A-1', customer: { tier: 'gold' }, note: { absent: true } },
    }
    const received = facts({
      headers: { 'x-tier': 'silver', 'x-ok': '1' },
      query: { page: '1' },
      cookies: { sid: 'x-1' },
      params: { id: '7' },
      body: { items: [{ sku: 'A-2' }], customer: { tier: 'gold' } },
    })
    expect(explainWhen(when, received)).toEqual([
      'headers.X-Tier = gold (received "silver")',
      'query.page gte 2 (received "1")',
      'cookies.sid matches "^s-" (received "x-1")',
      'body.$.items[0].sku = A-1 (received "A-2")',
    ])
    expect(whenMisses(when, received)[0]).toEqual({ at: 'headers.X-Tier', expected: 'gold', received: '"silver"', text: 'headers.X-Tier = gold (received "silver")' })
  })

  it('expected holds what the condition asks for there, the text the whole condition', () => {
    const when = {
      headers: { authorization: 'Bearer other' },
      query: { page: { gte: 2, lte: 9 } },
      params: { id: 7 },
      body: { customer: { tier: 'gold' }, total: { gt: 10 } },
      any: [{ query: { a: 1 } }],
    }
    const misses = whenMisses(when, facts({ headers: { authorization: 'Bearer mine' }, query: { page: '1' }, params: { id: '8' }, body: { customer: { tier: 'silver' }, total: 3 } }))
    expect(misses.map(({ at, expected }) => [at, expected])).toEqual([
      ['headers.authorization', 'Bearer other'],
      ['query.page', 'gte 2, lte 9'],
      ['params.id', '7'],
      ['body.customer', '{"tier":"gold"}'],
      ['body.total', 'gt 10'],
      ['any', 'any(query.a = 1)'],
    ])
    expect(misses[0]!.text).toBe('headers.authorization = Bearer other (received "Bearer mine")')
    expect(whenMisses({ body: { contains: '<Envelope' } }, facts({ bodyText: 'x', body: 'x' }))[0]).toMatchObject({ at: 'body', expected: 'contains "<Envelope"', text: 'body contains "<Envelope" (received "x")' })
  })

  it('says "nothing" where the request had nothing, cuts long values at 80 characters, shows a repeated header as sent', () => {
    expect(explainWhen({ headers: { authorization: { present: true } }, body: { sku: 'A-1' } }, facts())).toEqual([
      'headers.authorization present true (received nothing)',
      'body.sku = A-1 (received nothing)',
    ])
    const [long] = whenMisses({ body: { text: 'short' } }, facts({ body: { text: 'y'.repeat(500) } }))
    expect(long!.received).toHaveLength(80)
    expect(long!.received!.endsWith('…')).toBe(true)
    expect(explainWhen({ headers: { accept: 'text/html' } }, facts({ headers: { accept: ['a/b, c/d', 'a/b', 'c/d'] } }))).toEqual(['headers.accept = text/html (received "a/b, c/d")'])
    expect(explainWhen({ body: { contains: '<Envelope' } }, facts({ bodyText: '{"a":1}', body: { a: 1 } }))).toEqual(['body contains "<Envelope" (received "{\\"a\\":1}")'])
  })

  it('reports an any as one condition, nothing when all hold; an empty when is refused as compileWhen refuses it', () => {
    const when = { any: [{ query: { a: 1 } }, { query: { b: 1 } }], query: { c: 1 } }
    expect(explainWhen(when, facts({ query: { c: '1' } }))).toEqual(['any(query.a = 1 | query.b = 1) (none held)'])
    expect(explainWhen(when, facts({ query: { b: '1', c: '1' } }))).toEqual([])
    expect(() => explainWhen({}, facts())).toThrow(ConditionError)
  })

  it('never throws over budget: a test it cannot afford fails and says why', () => {
    const text = 'a'.repeat(1_000_000)
    const when = { body: { matches: '[a-z]{400}[0-9]' }, query: { q: 'x' } }
    expect(explainWhen(when, facts({ bodyText: text, body: text, query: { q: 'x' } }))).toEqual(['body matches "[a-z]{400}[0-9]" (not tested: pattern skipped: value too long)'])
  })

  it('a body the journal cut: its failed conditions were not tested, the others read as ever', () => {
    const when = { body: { sku: 'A-1' }, any: [{ body: { contains: 'A-1' } }], query: { q: 'x' } }
    expect(explainWhen(when, facts({ bodyText: '{"pad":"xx', body: '{"pad":"xx' }))).toEqual([
      'body.sku = A-1 (received nothing)',
      'any(body contains "A-1") (none held)',
      'query.q = x (received nothing)',
    ])
    expect(whenMisses(when, facts({ bodyText: '{"pad":"xx', body: '{"pad":"xx' }), { kept: 65_536, size: 70_026 }).map((miss) => miss.text)).toEqual([
      'body.sku = A-1 (body cut at 64 KiB (70026 bytes): not tested)',
      'any(body contains "A-1") (body cut at 64 KiB (70026 bytes): not tested)',
      'query.q = x (received nothing)',
    ])
    expect(whenMisses({ body: { sku: 'A-1' } }, facts(), { kept: 0, size: 9_000_000 })[0]!.text).toBe('body.sku = A-1 (body not kept (9000000 bytes): not tested)')
  })

  it('refuses a when compileWhen refuses', () => {
    expect(() => explainWhen({ cookie: { a: 1 } }, facts())).toThrow(ConditionError)
  })
})
