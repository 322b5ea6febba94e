import { JsonPathError, parsePath, valuesAt, type PathStep } from './json-path.ts'
import { compileSafeRegex, UnsafePatternError, type SafeRegex } from './safe-regex.ts'
import { isObject } from './json-input.ts'

/*
 * The `when` of a response: conditions on the request's params, query, headers, cookies and body,
 * checked when the endpoint is configured (compileWhen) and tested per request (holds).
 */

export const WHEN_TARGETS = ['params', 'query', 'headers', 'cookies', 'body'] as const
export const OPERATORS = ['equals', 'contains', 'matches', 'present', 'absent', 'gt', 'gte', 'lt', 'lte', 'in', 'not'] as const

export const LIMITS = { whenBytes: 16 * 1024, depth: 16, conditions: 100, inItems: 1_000, patternLength: 1_000, programSize: 500 }

/**
 * RE2's matching costs about program size × input length. A single test over more than this is not
 * run (the condition does not hold); nor is one past the request's budget across all its tests.
 */
export const REGEX_TEST_LIMIT = 4_000_000
export const REGEX_REQUEST_BUDGET = 16_000_000
/**
 * The values one request's tests may reach and compare (a path step's values, a value against an
 * `in` list, a KiB of text searched by `contains`): past it a test is not run and its response does
 * not hold, so a large body under `[*]` cannot hold the server.
 */
export const VALUE_REQUEST_BUDGET = 1_000_000

export class ConditionError extends Error {
  readonly path: string
  constructor(path: string, message: string) {
    super(`${path}: ${message}`)
    this.path = path
    this.name = 'ConditionError'
  }
}

/**
 * What conditions read of one request. Header names are lower case; a repeated query value is an
 * array, a repeated header the joined line followed by each of its values.
 */
export interface RequestFacts {
  params: Record<string, string>
  query: Record<string, string | string[]>
  headers: Record<string, string | string[]>
  cookies: Record<string, string>
  /** Parsed JSON, form fields, or the raw text; undefined without a body. */
  body: unknown
  /** The body as text; null without one. */
  bodyText: string | null
  /** The body is form fields: a repeated field (an array) is several values, not a JSON list. */
  bodyForm?: boolean
}

/** The regex steps and values left to one request; `skipped` says, for the journal, why a test was not run. */
export interface RequestBudget {
  left: number
  values: number
  skipped: string | null
}

export const PATTERN_SKIPPED = 'pattern skipped: value too long'
export const VALUES_SKIPPED = 'rule skipped: too many values to compare'

export function requestBudget(): RequestBudget {
  return { left: REGEX_REQUEST_BUDGET, values: VALUE_REQUEST_BUDGET, skipped: null }
}

/**
 * Thrown by a test that was not run for cost: it rules out the whole response, whatever `not` or
 * `any` surrounds it (a `not` would otherwise turn a skipped pattern into a match).
 */
class OverBudget extends Error {}

/** Ends the test: its response is ruled out, and the journal is told why (the first reason). */
function overBudget(budget: RequestBudget, why: string): never {
  budget.skipped ??= why
  throw new OverBudget()
}

function spend(budget: RequestBudget, values: number): void {
  if (values > budget.values) {
    budget.values = 0
    overBudget(budget, VALUES_SKIPPED)
  }
  budget.values -= values
}

/** A test over the values a condition's field has in the request: none when it is absent, several when repeated. */
type Test = (values: unknown[], budget: RequestBudget, formFields?: boolean) => boolean

export interface CompiledWhen {
  test: (facts: RequestFacts, budget: RequestBudget) => boolean
  /** Whether the body must be read to test it. */
  readsBody: boolean
}

const isOperatorObject = (value: Record<string, unknown>): boolean => {
  const keys = Object.keys(value)
  return keys.length > 0 && keys.every((key) => (OPERATORS as readonly string[]).includes(key))
}

function didYouMean(word: string, among: readonly string[]): string {
  const close = among.find((candidate) => candidate.startsWith(word.slice(0, 3).toLowerCase()))
  return close ? ` (did you mean ${close}?)` : ''
}

/** How deep a list or object literal may nest; a request's value nested deeper equals none. */
const LITERAL_DEPTH = 64

/**
 * A list or object as one string, keys sorted: two are deeply equal when their strings are. `visit`
 * is called per node, so walking a large value spends the request's budget as it goes; null when
 * nested deeper than LITERAL_DEPTH (and no recursion past it).
 */
function canonical(value: unknown, visit: () => void, depth = 0): string | null {
  visit()
  if (value === null || typeof value !== 'object') return JSON.stringify(Object.is(value, -0) ? 0 : value) ?? 'null'
  if (depth >= LITERAL_DEPTH) return null
  const parts: string[] = []
  const record = value as Record<string, unknown>
  const keys = Array.isArray(value) ? null : Object.keys(record).sort()
  for (const key of keys ?? Object.keys(record)) {
    const inner = canonical(record[key], visit, depth + 1)
    if (inner === null) return null
    parts.push(keys ? `${JSON.stringify(key)}:${inner}` : inner)
  }
  return keys ? `{${parts.join(',')}}` : `[${parts.join(',')}]`
}

/** Decimal notation only: Number() would also read `0x2A`, `0b1`, `1e3` and `Infinity`. */
const DECIMAL = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)\s*$/

/** A number as a request carries it: a JSON number, or a query/header/form string in decimal notation. */
function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return value
  if (typeof value === 'string' && value.length <= 400 && DECIMAL.test(value)) return Number(value)
  return null
}

/** A JSON array's elements count as values of the field too (a list equals a list, or holds one of them). */
function flatValues(values: unknown[], budget: RequestBudget): unknown[] {
  const flat: unknown[] = []
  for (const value of values) {
    flat.push(value)
    if (!Array.isArray(value)) continue
    spend(budget, value.length)
    for (const item of value) flat.push(item)
  }
  spend(budget, values.length)
  return flat
}

/** A primitive literal's key. */
const primitiveKey = (value: string | number | boolean | null): string => (value === null ? 'null' : `${typeof value}:${String(Object.is(value, -0) ? 0 : value)}`)

/**
 * The keys a value equals a literal under: numbers and booleans by value (`"42"` from a query
 * equals 42, `"true"` equals true), strings exactly, lists and objects deeply (only walked when
 * some literal is one).
 */
function keysOf(value: unknown, structured: boolean, budget: RequestBudget): string[] {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return [primitiveKey(value)]
  if (typeof value === 'string') {
    const keys = [primitiveKey(value)]
    const number = numberOf(value)
    if (number !== null) keys.push(primitiveKey(number))
    if (value === 'true' || value === 'false') keys.push(primitiveKey(value === 'true'))
    return keys
  }
  if (!structured || typeof value !== 'object') return []
  const key = canonical(value, () => spend(budget, 1))
  return key === null ? [] : [`json:${key}`]
}

/**
 * Literals compiled for `equals`, `in` and `contains` into a Set of keys: each value is looked up
 * once, whatever the list's length. The values given are tested as they are (not flattened).
 */
function literalSet(literals: readonly unknown[], at: string): (values: unknown[], budget: RequestBudget) => boolean {
  const keys = new Set<string>()
  let structured = false
  for (const literal of literals) {
    if (literal !== null && typeof literal === 'object') {
      structured = true
      const key = canonical(literal, () => undefined)
      if (key === null) throw new ConditionError(at, `a list or object to compare nests deeper than ${LITERAL_DEPTH} levels`)
      keys.add(`json:${key}`)
    } else keys.add(primitiveKey(literal as string | number | boolean | null))
  }
  return (values, budget) => values.some((value) => keysOf(value, structured, budget).some((key) => keys.has(key)))
}

/** `equals`/`in`: a literal holds for the value itself (a list equals a list) or any element of a JSON list. */
function literalMatcher(literals: readonly unknown[], at: string): (values: unknown[], budget: RequestBudget) => boolean {
  const matches = literalSet(literals, at)
  return (values, budget) => matches(flatValues(values, budget), budget)
}

function regexTest(regex: SafeRegex, text: string, budget: RequestBudget): boolean {
  const cost = Math.max(1, regex.programSize) * Math.max(1, text.length)
  if (cost > REGEX_TEST_LIMIT || cost > budget.left) {
    overBudget(budget, PATTERN_SKIPPED)
  }
  budget.left -= cost
  return regex.test(text)
}

class Compiler {
  conditions = 0
  readsBody = false

  count(at: string): void {
    this.conditions += 1
    if (this.conditions > LIMITS.conditions) throw new ConditionError(at, `a response may test at most ${LIMITS.conditions} conditions`)
  }

  /** A literal or an operator object, testing a field's values. */
  condition(raw: unknown, at: string, depth: number, inJson = true): Test {
    if (depth > LIMITS.depth) throw new ConditionError(at, `nested deeper than ${LIMITS.depth} levels`)
    this.count(at)
    if (!isObject(raw)) return literalMatcher([raw], at)
    if (!isOperatorObject(raw)) {
      const operatorKey = Object.keys(raw).find((key) => (OPERATORS as readonly string[]).includes(key))
      if (operatorKey !== undefined) throw new ConditionError(at, `mixes the operator "${operatorKey}" with field names; put operators in an object of their own`)
      // Params, query, headers and cookies are text: a mapping there can only be operators.
      const unknown = Object.keys(raw)[0]
      if (!inJson && unknown === undefined) throw new ConditionError(at, `is empty: give a value, or operators (${OPERATORS.join(', ')})`)
      if (!inJson) throw new ConditionError(at, `unknown operator "${unknown}": use ${OPERATORS.join(', ')}${didYouMean(unknown ?? '', OPERATORS)}`)
      return this.subset(raw, at, depth)
    }
    const tests = Object.entries(raw).map(([operator, operand]) => this.operator(operator, operand, `${at}.${operator}`, depth, inJson))
    return (values, budget) => tests.every((test) => test(values, budget))
  }

  /** A mapping that is not an operator object: a subset of a JSON value, keyed by names or paths. */
  subset(raw: Record<string, unknown>, at: string, depth: number): Test {
    const fields = Object.entries(raw).map(([key, condition]) => ({ steps: this.path(key, `${at}.${key}`), test: this.condition(condition, `${at}.${key}`, depth + 1) }))
    // A repeated form field's values are tested one by one, as a repeated query's are.
    return (values, budget, formFields = false) =>
      values.some((value) =>
        fields.every(({ steps, test }) => {
          const reached = valuesAt(value, steps, budget.values)
          if (reached === null) overBudget(budget, VALUES_SKIPPED)
          spend(budget, reached.length)
          return test(formFields ? reached.flatMap((field) => (Array.isArray(field) ? field : [field])) : reached, budget)
        }),
      )
  }

  path(key: string, at: string): PathStep[] {
    // `a.`, `.a`, `a..b`: a step named "" that no body has; `$.` is refused by the JSONPath parser.
    if (!key.startsWith('$') && key.includes('.') && key.split('.').includes('')) {
      throw new ConditionError(at, `"${key}" has an empty step: name every step (customer.tier), or quote a key that has dots ($['${key.replace(/'/g, "\\'")}'])`)
    }
    try {
      return parsePath(key)
    } catch (error) {
      if (error instanceof JsonPathError) throw new ConditionError(at, error.message)
      throw error
    }
  }

  operator(operator: string, operand: unknown, at: string, depth: number, inJson: boolean): Test {
    switch (operator) {
      case 'equals':
        return literalMatcher([operand], at)
      case 'contains':
      {
        const element = literalSet([operand], at)
        return (values, budget) =>
          values.some((value) => {
            if (Array.isArray(value)) {
              spend(budget, value.length)
              return element(value, budget)
            }
            if (typeof operand !== 'string' || typeof value !== 'string') return false
            spend(budget, 1 + Math.floor(value.length / 1024))
            return value.includes(operand)
          })
      }
      case 'matches': {
        if (typeof operand !== 'string') throw new ConditionError(at, `must be a regular expression as a string, got ${JSON.stringify(operand)}`)
        if (operand.length > LIMITS.patternLength) throw new ConditionError(at, `pattern is longer than ${LIMITS.patternLength} characters`)
        let regex: SafeRegex
        try {
          regex = compileSafeRegex(operand)
        } catch (error) {
          if (error instanceof UnsafePatternError) throw new ConditionError(at, error.message)
          throw error
        }
        if (regex.programSize > LIMITS.programSize) {
          throw new ConditionError(at, `pattern too costly (${regex.programSize} RE2 instructions, at most ${LIMITS.programSize}): use fewer or smaller repeats, or contains`)
        }
        return (values, budget) =>
          flatValues(values, budget).some((value) => (typeof value === 'string' || typeof value === 'number') && regexTest(regex, String(value), budget))
      }
      case 'present':
      case 'absent': {
        if (operand !== true) throw new ConditionError(at, `takes true only (to say the opposite, use ${operator === 'present' ? 'absent' : 'present'}: true)`)
        return operator === 'present' ? (values) => values.length > 0 : (values) => values.length === 0
      }
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte': {
        if (typeof operand !== 'number' || !Number.isFinite(operand)) throw new ConditionError(at, `compares numbers: give a number, got ${JSON.stringify(operand)}`)
        const compare = { gt: (n: number) => n > operand, gte: (n: number) => n >= operand, lt: (n: number) => n < operand, lte: (n: number) => n <= operand }[operator]
        return (values, budget) =>
          flatValues(values, budget).some((value) => {
            const number = numberOf(value)
            return number !== null && compare(number)
          })
      }
      case 'in': {
        if (!Array.isArray(operand)) throw new ConditionError(at, `must be a list of values, got ${JSON.stringify(operand)}`)
        if (operand.length > LIMITS.inItems) throw new ConditionError(at, `lists at most ${LIMITS.inItems} values`)
        return literalMatcher(operand, at)
      }
      case 'not': {
        if (isObject(operand) && Object.keys(operand).length === 0) throw new ConditionError(at, 'is empty: give a condition to negate')
        const inner = this.condition(operand, at, depth + 1, inJson)
        return (values, budget) => !inner(values, budget)
      }
      default:
        throw new ConditionError(at, `unknown operator "${operator}"`)
    }
  }

  /** One `when` object: its targets AND, `any` ORs a list of `when`s. */
  when(raw: unknown, at: string, depth: number): (facts: RequestFacts, budget: RequestBudget) => boolean {
    if (depth > LIMITS.depth) throw new ConditionError(at, `nested deeper than ${LIMITS.depth} levels`)
    if (!isObject(raw)) throw new ConditionError(at, `must be an object of ${WHEN_TARGETS.join(', ')} or any, got ${JSON.stringify(raw)}`)
    // It would always hold: a second, hidden fallback.
    if (Object.keys(raw).length === 0) throw new ConditionError(at, 'is empty: an empty condition always holds: leave "when" out for the fallback')
    const parts: ((facts: RequestFacts, budget: RequestBudget) => boolean)[] = []
    for (const [target, conditions] of Object.entries(raw)) {
      const there = `${at}.${target}`
      if (target === 'any') {
        if (!Array.isArray(conditions) || conditions.length === 0) throw new ConditionError(there, 'must be a non-empty list of conditions, any of which may hold')
        const alternatives = conditions.map((alternative, i) => this.when(alternative, `${there}[${i}]`, depth + 1))
        parts.push((facts, budget) => alternatives.some((alternative) => alternative(facts, budget)))
        continue
      }
      if (!(WHEN_TARGETS as readonly string[]).includes(target)) {
        throw new ConditionError(there, `is not something a request has: use ${WHEN_TARGETS.join(', ')} or any${didYouMean(target, [...WHEN_TARGETS, 'any'])}`)
      }
      if (target === 'body') {
        this.readsBody = true
        if (isObject(conditions) && Object.keys(conditions).length === 0) {
          throw new ConditionError(there, 'is empty: name the fields to test, or use {"present": true} for any body')
        }
        if (!isObject(conditions) || isOperatorObject(conditions)) {
          // An operator at `body:` itself tests the raw text (XML, SOAP, anything not JSON).
          const test = this.condition(conditions, there, depth + 1)
          parts.push((facts, budget) => test(facts.bodyText === null ? [] : [facts.bodyText], budget))
        } else {
          const test = this.subset(conditions, there, depth + 1)
          parts.push((facts, budget) => facts.body !== undefined && test([facts.body], budget, facts.bodyForm === true))
        }
        continue
      }
      if (!isObject(conditions)) throw new ConditionError(there, `must be an object of names to conditions, got ${JSON.stringify(conditions)}`)
      if (Object.keys(conditions).length === 0) throw new ConditionError(there, 'is empty: an empty condition always holds: name the fields to test, or leave it out')
      const name = target as 'params' | 'query' | 'headers' | 'cookies'
      const fields = Object.entries(conditions).map(([key, condition]) => {
        // Any other name is no header a request can carry: the condition would never hold.
        if (name === 'headers' && !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(key)) {
          throw new ConditionError(`${there}.${key}`, "is not a header name: use letters, digits and !#$%&'*+-.^_`|~")
        }
        const field = name === 'headers' ? key.toLowerCase() : key
        return { field, test: this.condition(condition, `${there}.${key}`, depth + 1, false) }
      })
      parts.push((facts, budget) =>
        fields.every(({ field, test }) => {
          const source: Record<string, string | string[]> = facts[name]
          // A repeated field's values are tested one by one (`contains` a substring of any), not as a JSON list.
          const value = Object.hasOwn(source, field) ? source[field]! : []
          return test(Array.isArray(value) ? value : [value], budget)
        }),
      )
    }
    return (facts, budget) => parts.every((part) => part(facts, budget))
  }
}

/** Checks a `when` (throws ConditionError naming where) and compiles it to a test of a request. */
export function compileWhen(raw: unknown, at = 'when'): CompiledWhen {
  let size: number
  try {
    size = Buffer.byteLength(JSON.stringify(raw) ?? '')
  } catch {
    throw new ConditionError(at, 'must be plain JSON')
  }
  if (size > LIMITS.whenBytes) throw new ConditionError(at, `is ${size} bytes of JSON; at most ${LIMITS.whenBytes}`)
  const compiler = new Compiler()
  const whole = compiler.when(raw, at, 0)
  const test = (facts: RequestFacts, budget: RequestBudget): boolean => {
    try {
      return whole(facts, budget)
    } catch (error) {
      if (error instanceof OverBudget) return false
      throw error
    }
  }
  return { test, readsBody: compiler.readsBody }
}

/** `when` in a line: `body.username = admin, headers.x-account matches ^locked-`. */
export function describeWhen(raw: Record<string, unknown>): string {
  const parts: string[] = []
  const describe = (path: string, condition: unknown): void => {
    if (isObject(condition) && !isOperatorObject(condition)) {
      for (const [key, inner] of Object.entries(condition)) describe(`${path}.${key}`, inner)
      return
    }
    if (isObject(condition)) {
      for (const [operator, operand] of Object.entries(condition)) parts.push(`${path} ${operator} ${JSON.stringify(operand)}`)
      return
    }
    parts.push(`${path} = ${typeof condition === 'string' ? condition : JSON.stringify(condition)}`)
  }
  for (const [target, conditions] of Object.entries(raw)) {
    if (target === 'any' && Array.isArray(conditions)) parts.push(`any(${conditions.map((c) => (isObject(c) ? describeWhen(c) : '')).join(' | ')})`)
    else describe(target, conditions)
  }
  return parts.join(', ')
}

/** A condition of a `when` that did not hold for a request: where, what it asked, and what the request had there. */
export interface WhenMiss {
  /** `headers.x-tier`, `body.$.items[0].sku`, `body`, `any`. */
  at: string
  /**
   * What the condition asks for there: the value (`Bearer other`), operators with their operands
   * (`gte 2`), a body subset as JSON, or a whole `any(…)`; the text has the condition's line.
   */
  expected: string
  /** The value there, as JSON cut at RECEIVED_LENGTH characters; null when the request had none. */
  received: string | null
  /** In one line: `body.sku = A-1 (received "A-2")`. */
  text: string
}

const RECEIVED_LENGTH = 80
/** How many values a JSONPath may reach for showing them (testing has its own budget). */
const SHOWN_VALUES = 1_000

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > RECEIVED_LENGTH ? `${text.slice(0, RECEIVED_LENGTH - 1)}…` : text
}

/** One AND-ed part of a `when`, with how to read what the request had there. */
interface Leaf {
  at: string
  when: Record<string, unknown>
  /** What `at` is compared with; for an `any`, its line. */
  condition: unknown
  /** undefined: nothing to show (an `any`); null: the request had nothing there. */
  received(facts: RequestFacts): string | null | undefined
}

/** A `when` cut where its parts AND: per field of a target, per key of a body subset; `any` and a test of the raw body stay whole. */
function leavesOf(raw: Record<string, unknown>): Leaf[] {
  const leaves: Leaf[] = []
  for (const [target, conditions] of Object.entries(raw)) {
    if (target === 'any') {
      leaves.push({ at: 'any', when: { any: conditions }, condition: describeWhen({ any: conditions }), received: () => undefined })
    } else if (target === 'body' && isObject(conditions) && !isOperatorObject(conditions)) {
      for (const [key, condition] of Object.entries(conditions)) {
        const steps = parsePath(key)
        leaves.push({
          at: `body.${key}`,
          when: { body: { [key]: condition } },
          condition,
          received: (facts) => {
            if (facts.body === undefined) return null
            const values = valuesAt(facts.body, steps, SHOWN_VALUES)
            if (values === null) return `(more than ${SHOWN_VALUES} values)`
            return values.length === 0 ? null : shown(values.length === 1 ? values[0] : values)
          },
        })
      }
    } else if (target === 'body') {
      leaves.push({ at: 'body', when: { body: conditions }, condition: conditions, received: (facts) => (facts.bodyText === null ? null : shown(facts.bodyText)) })
    } else {
      const name = target as 'params' | 'query' | 'headers' | 'cookies'
      for (const [key, condition] of Object.entries(conditions as Record<string, unknown>)) {
        const field = name === 'headers' ? key.toLowerCase() : key
        leaves.push({
          at: `${name}.${key}`,
          when: { [name]: { [key]: condition } },
          condition,
          received: (facts) => {
            const source: Record<string, string | string[]> = facts[name]
            if (!Object.hasOwn(source, field)) return null
            const value = source[field]!
            // A repeated header is its joined line, then its values: the line is what was sent.
            return shown(name === 'headers' && Array.isArray(value) ? value[0] : value)
          },
        })
      }
    }
  }
  return leaves
}

/** A body the journal kept only the start of: `kept` bytes of `size`. */
export interface CutBody {
  kept: number
  size: number
}

const kib = (bytes: number) => `${Math.round((bytes / 1024) * 10) / 10} KiB`

/** A condition's operand as a difference's `expected`: text as written, operators as describeWhen writes them, anything else as JSON. */
function operandOf(condition: unknown): string {
  if (typeof condition === 'string') return condition
  if (isObject(condition) && isOperatorObject(condition)) return Object.entries(condition).map(([operator, operand]) => `${operator} ${JSON.stringify(operand)}`).join(', ')
  return JSON.stringify(condition)
}

/**
 * The conditions of a `when` that fail for a request, each with what the request had there: for
 * the request journal's explanations (a verify that failed, a rule that did not hold), never to
 * choose a response. Throws ConditionError as compileWhen does; never over budget: the tests share
 * one request's budget, and a test it could not afford fails, saying so. A condition reading a
 * body the journal cut (`cut`) was not tested on what was sent, and says so rather than what the
 * cut body held.
 */
export function whenMisses(raw: unknown, facts: RequestFacts, cut: CutBody | null = null): WhenMiss[] {
  compileWhen(raw)
  const budget = requestBudget()
  const misses: WhenMiss[] = []
  const cutWhy = cut === null ? null : cut.kept === 0 ? `body not kept (${cut.size} bytes): not tested` : `body cut at ${kib(cut.kept)} (${cut.size} bytes): not tested`
  for (const leaf of leavesOf(raw as Record<string, unknown>)) {
    budget.skipped = null
    const compiled = compileWhen(leaf.when)
    if (compiled.test(facts, budget)) continue
    const line = describeWhen(leaf.when)
    const received = leaf.received(facts)
    let why: string
    if (cutWhy !== null && compiled.readsBody) why = cutWhy
    else why = budget.skipped !== null ? `not tested: ${budget.skipped}` : received === undefined ? 'none held' : `received ${received ?? 'nothing'}`
    misses.push({ at: leaf.at, expected: operandOf(leaf.condition), received: received ?? null, text: `${line} (${why})` })
  }
  return misses
}

/** Each failed condition of a `when` in a line, with the value received: `body.sku = A-1 (received "A-2")`. */
export function explainWhen(raw: unknown, facts: RequestFacts): string[] {
  return whenMisses(raw, facts).map((miss) => miss.text)
}
