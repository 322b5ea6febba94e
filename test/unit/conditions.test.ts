import { describe, expect, it } from 'vitest'
import { compileWhen, ConditionError, regexBudget, REGEX_TEST_LIMIT, type RequestFacts } from '../../src/engine/conditions.ts'
import { parsePath, valuesAt } from '../../src/engine/json-path.ts'
import { parseCookies } from '../../src/engine/request-facts.ts'

const facts = (over: Partial<RequestFacts> = {}): RequestFacts => ({ params: {}, query: {}, headers: {}, cookies: {}, body: undefined, bodyText: null, ...over })
const holds = (when: unknown, over: Partial<RequestFacts>) => compileWhen(when).test(facts(over), regexBudget())

describe('conditions', () => {
  it('compares numbers and booleans by value, strings exactly, lists and objects deeply', () => {
    expect(holds({ query: { n: 42 } }, { query: { n: '42' } })).toBe(true)
    expect(holds({ query: { n: 42 } }, { query: { n: '42.0' } })).toBe(true)
    expect(holds({ query: { n: '42' } }, { query: { n: '042' } })).toBe(false)
    expect(holds({ query: { on: true } }, { query: { on: 'true' } })).toBe(true)
    expect(holds({ body: { tags: ['a', 'b'] } }, { body: { tags: ['a', 'b'] } })).toBe(true)
    expect(holds({ body: { tags: ['a'] } }, { body: { tags: ['a', 'b'] } })).toBe(false)
    expect(holds({ body: { v: null } }, { body: { v: null } })).toBe(true)
    expect(holds({ body: { v: null } }, { body: {} })).toBe(false)
  })

  it('operators: several AND, not negates the whole, any ORs, absent holds for a missing field', () => {
    expect(holds({ query: { n: { gt: 1, lt: 5 } } }, { query: { n: '3' } })).toBe(true)
    expect(holds({ query: { n: { gt: 1, lt: 5 } } }, { query: { n: '7' } })).toBe(false)
    expect(holds({ query: { tag: { not: 'x' } } }, { query: { tag: ['x', 'y'] } })).toBe(false)
    expect(holds({ query: { tag: 'y' } }, { query: { tag: ['x', 'y'] } })).toBe(true)
    expect(holds({ headers: { 'X-A': { absent: true } } }, { headers: {} })).toBe(true)
    expect(holds({ headers: { 'X-A': { present: true } } }, { headers: { 'x-a': '' } })).toBe(true)
    expect(holds({ body: { tags: { contains: 'b' } } }, { body: { tags: ['a', 'b'] } })).toBe(true)
    expect(holds({ body: { name: { contains: 'li' } } }, { body: { name: 'alice' } })).toBe(true)
    expect(holds({ any: [{ query: { a: 1 } }, { query: { b: 1 } }] }, { query: { b: '1' } })).toBe(true)
    expect(holds({ any: [{ query: { a: 1 } }, { query: { b: 1 } }] }, { query: {} })).toBe(false)
  })

  it('reads own properties only: __proto__ is a plain key, toString is no field', () => {
    const body = JSON.parse('{"__proto__":{"admin":true}}') as unknown
    expect(holds({ body: { '__proto__.admin': true } }, { body })).toBe(true)
    expect(holds({ body: { toString: { present: true } } }, { body: {} })).toBe(false)
    expect(holds({ query: { constructor: { present: true } } }, { query: {} })).toBe(false)
  })

  it('names where a condition is wrong', () => {
    const error = (when: unknown) => {
      try {
        compileWhen(when)
      } catch (caught) {
        return caught instanceof ConditionError ? caught.path : 'not a ConditionError'
      }
      return 'accepted'
    }
    expect(error({ body: { a: { b: { gte: 'x' } } } })).toBe('when.body.a.b.gte')
    expect(error({ any: [] })).toBe('when.any')
    expect(error({ any: [{ cookie: {} }] })).toBe('when.any[0].cookie')
    expect(error({ body: { a: { not: { regex: 1, equals: 2 } } } })).toBe('when.body.a.not')
  })

  it('a costly pattern test over a long value does not hold, spends no time, and says it was skipped', () => {
    const { test } = compileWhen({ body: { matches: '[a-z]{400}[0-9]' } })
    const text = 'a'.repeat(1_000_000)
    const budget = regexBudget()
    const started = performance.now()
    expect(test(facts({ body: text, bodyText: text }), budget)).toBe(false)
    expect(budget.skipped).toBe(true)
    // A hang is the bug here, not a slow machine: generous.
    expect(performance.now() - started).toBeLessThan(2_000)
  })

  it('the per-request budget bounds many tests under the single-test limit', () => {
    const conditions = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`h${i}`, { matches: '(?:ab|cd){50}x' }]))
    const { test } = compileWhen({ headers: conditions })
    const value = 'ab'.repeat(8_000)
    const headers = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`h${i}`, value]))
    const budget = regexBudget()
    const started = performance.now()
    expect(test(facts({ headers }), budget)).toBe(false)
    expect(budget.left).toBeGreaterThanOrEqual(0)
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(REGEX_TEST_LIMIT).toBeLessThan(16_000_000)
  })
})

describe('the JSONPath subset', () => {
  it('parses $.a.b, [n], [*], quoted keys and dotted paths', () => {
    expect(parsePath('$.items[0].sku')).toEqual([{ key: 'items' }, { index: 0 }, { key: 'sku' }])
    expect(parsePath("$['a.b'][*]")).toEqual([{ key: 'a.b' }, { all: true }])
    expect(parsePath('user.name')).toEqual([{ key: 'user' }, { key: 'name' }])
    expect(valuesAt({ items: [{ q: 1 }, { q: 2 }] }, parsePath('$.items[*].q'))).toEqual([1, 2])
    for (const path of ['$..a', '$.a[?(@.b)]', '$.a[0:2]', '$a', "$['a"]) expect(() => parsePath(path), path).toThrow(/JSONPath subset/)
  })
})

describe('cookies', () => {
  it('splits on ;, decodes, keeps a malformed value as sent, the first of a name wins', () => {
    expect(parseCookies('a=1; b=x%20y; c=%E0%A4%A; a=2; bad; d="q"')).toEqual({ a: '1', b: 'x y', c: '%E0%A4%A', d: 'q' })
    expect(parseCookies(null)).toEqual({})
  })
})
