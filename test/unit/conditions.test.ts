import { describe, expect, it } from 'vitest'
import { compileWhen, ConditionError, requestBudget, REGEX_TEST_LIMIT, VALUE_REQUEST_BUDGET, type RequestFacts } from '../../src/engine/conditions.ts'
import { parsePath, valuesAt } from '../../src/engine/json-path.ts'
import { parseCookies } from '../../src/engine/request-facts.ts'

const facts = (over: Partial<RequestFacts> = {}): RequestFacts => ({ params: {}, query: {}, headers: {}, cookies: {}, body: undefined, bodyText: null, ...over })
const holds = (when: unknown, over: Partial<RequestFacts>) => compileWhen(when).test(facts(over), requestBudget())

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

  it('refuses a when that always holds or never can, saying why', () => {
    const message = (when: unknown) => {
      try {
        compileWhen(when)
      } catch (caught) {
        return caught instanceof ConditionError ? caught.message : 'not a ConditionError'
      }
      return 'accepted'
    }
    expect(message({})).toBe('when: is empty: an empty condition always holds: leave "when" out for the fallback')
    expect(message({ any: [{ query: { a: '1' } }, {}] })).toBe('when.any[1]: is empty: an empty condition always holds: leave "when" out for the fallback')
    expect(message({ query: {} })).toBe('when.query: is empty: an empty condition always holds: name the fields to test, or leave it out')
    expect(message({ headers: {}, query: { a: 1 } })).toMatch(/^when\.headers: is empty/)
    expect(message({ body: {} })).toBe('when.body: is empty: name the fields to test, or use {"present": true} for any body')
    expect(message({ query: { a: { not: {} } } })).toBe('when.query.a.not: is empty: give a condition to negate')
    expect(message({ body: { a: { not: {} } } })).toBe('when.body.a.not: is empty: give a condition to negate')
    expect(message({ query: { a: {} } })).toMatch(/^when\.query\.a: is empty: give a value, or operators \(equals, /)
    expect(message({ headers: { 'bad name': 'x' } })).toBe("when.headers.bad name: is not a header name: use letters, digits and !#$%&'*+-.^_`|~")
    expect(message({ headers: { 'x:y': 'x' } })).toMatch(/is not a header name/)
    expect(message({ body: { 'a.': 1 } })).toBe('when.body.a.: "a." has an empty step: name every step (customer.tier), or quote a key that has dots ($[\'a.\'])')
    expect(message({ body: { '.a': 1 } })).toMatch(/^when\.body\.\.a: "\.a" has an empty step/)
    expect(message({ body: { 'a..b': 1 } })).toMatch(/has an empty step/)
    expect(message({ body: { c: { 'x.': 1 } } })).toMatch(/^when\.body\.c\.x\.: "x\." has an empty step/)
    // What still holds: a quoted key with dots, headers with token characters, present on the body.
    for (const when of [{ body: { "$['a.']": 1 } }, { headers: { 'X-Trace_id.v2': { present: true } } }, { body: { present: true } }, { body: { a: { not: 1 } } }]) {
      expect(message(when), JSON.stringify(when)).toBe('accepted')
    }
    const quoted = compileWhen({ body: { "$['a.']": 1 } })
    expect(quoted.test({ params: {}, query: {}, headers: {}, cookies: {}, body: { 'a.': 1 }, bodyText: '{"a.":1}' }, requestBudget())).toBe(true)
  })

  it('a costly pattern test over a long value does not hold, spends no time, and says it was skipped', () => {
    const { test } = compileWhen({ body: { matches: '[a-z]{400}[0-9]' } })
    const text = 'a'.repeat(1_000_000)
    const budget = requestBudget()
    const started = performance.now()
    expect(test(facts({ body: text, bodyText: text }), budget)).toBe(false)
    expect(budget.skipped).toBe('pattern skipped: value too long')
    // A hang is the bug here, not a slow machine: generous.
    expect(performance.now() - started).toBeLessThan(2_000)
  })

  it('the per-request budget bounds many tests under the single-test limit', () => {
    const conditions = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`h${i}`, { matches: '(?:ab|cd){50}x' }]))
    const { test } = compileWhen({ headers: conditions })
    const value = 'ab'.repeat(8_000)
    const headers = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`h${i}`, value]))
    const budget = requestBudget()
    const started = performance.now()
    expect(test(facts({ headers }), budget)).toBe(false)
    expect(budget.left).toBeGreaterThanOrEqual(0)
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(REGEX_TEST_LIMIT).toBeLessThan(16_000_000)
  })
})

describe('hostile requests', () => {
  it('[*] over a 150,000-element array reaches every element (no stack overflow)', () => {
    const items = Array.from({ length: 150_000 }, () => 1)
    expect(valuesAt({ items }, parsePath('$.items[*]'))).toHaveLength(150_000)
    expect(holds({ body: { '$.items[*]': { in: [7, 'x'] } } }, { body: { items } })).toBe(false)
    expect(holds({ body: { '$.items[*]': { in: [7, 1] } } }, { body: { items } })).toBe(true)
  })

  it('an in list of 1,000 over 60,000 values is looked up once per value and finishes', () => {
    const skus = Array.from({ length: 1_000 }, (_, i) => `SKU-${i}`)
    const items = Array.from({ length: 60_000 }, () => ({ sku: 'z' }))
    const started = performance.now()
    expect(holds({ body: { '$.items[*].sku': { in: skus } } }, { body: { items } })).toBe(false)
    expect(holds({ body: { '$.items[*].sku': { in: skus } } }, { body: { items: [...items, { sku: 'SKU-999' }] } })).toBe(true)
    // A hang is the bug here (11 s before), not a slow machine: generous.
    expect(performance.now() - started).toBeLessThan(2_000)
  })

  it('in and equals keep their meaning: numbers by value, booleans, lists and objects deeply', () => {
    expect(holds({ query: { n: { in: [1, 42] } } }, { query: { n: '42.0' } })).toBe(true)
    expect(holds({ query: { n: { in: ['42'] } } }, { query: { n: '042' } })).toBe(false)
    expect(holds({ body: { n: { in: ['42'] } } }, { body: { n: 42 } })).toBe(false)
    expect(holds({ query: { on: { in: [true] } } }, { query: { on: 'true' } })).toBe(true)
    expect(holds({ body: { v: { in: [null] } } }, { body: { v: null } })).toBe(true)
    expect(holds({ body: { v: { in: [{ a: [1] }, 'x'] } } }, { body: { v: { a: [1] } } })).toBe(true)
    expect(holds({ body: { v: { in: [{ a: [1] }] } } }, { body: { v: { a: [2] } } })).toBe(false)
    expect(holds({ body: { tags: { equals: 'b' } } }, { body: { tags: ['a', 'b'] } })).toBe(true)
  })

  it('past the per-request value budget a test is not run and its response does not hold', () => {
    const items = Array.from({ length: VALUE_REQUEST_BUDGET + 1 }, () => 0)
    expect(holds({ body: { '$.items[*]': 0 } }, { body: { items } })).toBe(false)
    expect(holds({ body: { '$.items[*]': { not: 5 } } }, { body: { items } })).toBe(false)
    // One budget across a request's tests: a value counts when reached and when compared, so two
    // tests over a third of a budget's values are one too many.
    const third = Array.from({ length: Math.ceil(VALUE_REQUEST_BUDGET / 3) }, () => 0)
    const budget = requestBudget()
    const { test } = compileWhen({ body: { '$.items[*]': { not: 5 } } })
    expect(test(facts({ body: { items: third } }), budget)).toBe(true)
    expect(budget.skipped).toBeNull()
    expect(test(facts({ body: { items: third } }), budget)).toBe(false)
    // The request log says why.
    expect(budget.skipped).toBe('rule skipped: too many values to compare')
  })

  it('lists and objects compare by one walk of the value: a large or deep one neither freezes nor overflows', () => {
    const literals = Array.from({ length: 1_000 }, (_, i) => ({ id: i }))
    const wide = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i]))
    const started = performance.now()
    expect(holds({ body: { v: { in: literals } } }, { body: { v: wide } })).toBe(false)
    expect(holds({ body: { v: { in: literals } } }, { body: { v: { id: 999 } } })).toBe(true)
    expect(holds({ body: { v: { contains: { id: 3 } } } }, { body: { v: [{ id: 1 }, { id: 3 }] } })).toBe(true)
    expect(performance.now() - started).toBeLessThan(2_000)
    let deep: unknown = 1
    for (let i = 0; i < 100_000; i += 1) deep = [deep]
    expect(holds({ body: { v: [[1]] } }, { body: { v: deep } })).toBe(false)
    let deepLiteral: unknown = 1
    for (let i = 0; i < 70; i += 1) deepLiteral = [deepLiteral]
    expect(() => compileWhen({ body: { v: { equals: deepLiteral } } })).toThrow(/when\.body\.v\.equals: .*deeper than 64/)
  })

  it('a skipped pattern rules out the response: not and any do not turn it into a match', () => {
    const text = 'user=admin' + 'a'.repeat(900_000)
    const budget = requestBudget()
    expect(compileWhen({ body: { not: { matches: 'admin' } } }).test(facts({ body: text, bodyText: text }), budget)).toBe(false)
    expect(budget.skipped).toBe('pattern skipped: value too long')
    expect(holds({ any: [{ body: { not: { matches: 'admin' } } }, { query: { a: 1 } }] }, { body: text, bodyText: text })).toBe(false)
    expect(holds({ body: { not: { matches: 'admin' } } }, { body: 'user=bob', bodyText: 'user=bob' })).toBe(true)
  })

  it('a repeated query value is tested one by one: contains is a substring of any', () => {
    expect(holds({ query: { tag: { contains: 'foo' } } }, { query: { tag: ['xfoo', 'bar'] } })).toBe(true)
    expect(holds({ query: { tag: { contains: 'baz' } } }, { query: { tag: ['xfoo', 'bar'] } })).toBe(false)
    expect(holds({ body: { tags: { contains: 'fo' } } }, { body: { tags: ['foo'] } })).toBe(false)
  })

  it('a repeated header holds when its joined line or any single value does', () => {
    expect(holds({ headers: { 'X-A': '2' } }, { headers: { 'x-a': ['1, 2', '1', '2'] } })).toBe(true)
    expect(holds({ headers: { 'X-A': '1, 2' } }, { headers: { 'x-a': ['1, 2', '1', '2'] } })).toBe(true)
    expect(holds({ headers: { 'X-A': { not: '2' } } }, { headers: { 'x-a': ['1, 2', '1', '2'] } })).toBe(false)
  })

  it('numbers in a request are read in decimal notation only', () => {
    expect(holds({ query: { id: 42 } }, { query: { id: '0x2A' } })).toBe(false)
    expect(holds({ query: { id: 1000 } }, { query: { id: '1e3' } })).toBe(false)
    expect(holds({ query: { id: { gt: 10 } } }, { query: { id: 'Infinity' } })).toBe(false)
    expect(holds({ query: { id: { gt: 10 } } }, { query: { id: '0b11111' } })).toBe(false)
    expect(holds({ query: { id: -1.5 } }, { query: { id: ' -1.50 ' } })).toBe(true)
    expect(holds({ query: { id: 0.5 } }, { query: { id: '.5' } })).toBe(true)
  })
})

describe('the JSONPath subset', () => {
  it('refuses brackets in a path without $ rather than never matching', () => {
    expect(() => parsePath('items[0].sku')).toThrow(/start it with \$/)
    expect(() => compileWhen({ body: { 'items[0].sku': 'A' } })).toThrow(/when\.body\.items\[0\]\.sku: .*brackets/)
  })

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
