import type { RE2JS } from 're2js'
import { lazyRequire } from './lazy-require.ts'

// re2js is a quarter of a megabyte of code that `serve` loaded before its first answer: it loads
// with the first pattern compiled instead.
const re2js = lazyRequire<typeof import('re2js')>('re2js')

/**
 * Patterns written by users (JSON Schema `pattern`/`patternProperties`, imported specs) run on RE2
 * (re2js), whose matching time is linear in the input: a pattern such as `^(a+)+$` cannot stall the
 * server, whatever the value it is tested on. JavaScript syntax is translated first (`\uXXXX`, `\cA`,
 * named groups); what RE2 cannot run in linear time (lookaheads, backreferences, huge repeat counts)
 * is refused with RE2's reason. Lookbehinds are kept: re2js runs them in linear time.
 */
export interface SafeRegex {
  test(text: string): boolean
  /** `text` with its first match replaced (`$1` names a group, as JavaScript's `replace` takes it); null when nothing matches. */
  replaceFirst(text: string, replacement: string): string | null
  toString(): string
  /** RE2's instruction count: matching costs about this times the input's length. */
  programSize: number
}

export class UnsafePatternError extends Error {
  /** Why, without the pattern: for messages that name the pattern in their own words. */
  readonly reason: string
  constructor(pattern: string, reason: string) {
    const why = `${reason} (patterns run on a linear-time engine, RE2: lookaheads and backreferences are not supported)`
    super(`pattern ${JSON.stringify(pattern)} cannot be used: ${why}`)
    this.name = 'UnsafePatternError'
    this.reason = why
  }
}

// Compiled patterns are reused; the map is emptied when it grows past this many (imports add their own).
const MAX_CACHED = 2_000
const cache = new Map<string, SafeRegex>()
const caseBlindCache = new Map<string, SafeRegex>()

/**
 * `pattern` as a linear-time matcher with JavaScript's `test` semantics (a match anywhere), case-blind
 * with `ignoreCase` (the `i` flag); throws UnsafePatternError.
 */
export function compileSafeRegex(pattern: string, options: { ignoreCase?: boolean } = {}): SafeRegex {
  const compiledBefore = options.ignoreCase ? caseBlindCache : cache
  const cached = compiledBefore.get(pattern)
  if (cached) return cached
  let compiled: RE2JS
  try {
    const RE2 = re2js().RE2JS
    compiled = RE2.compile(RE2.translateRegExp(pattern), RE2.LOOKBEHINDS | (options.ignoreCase ? RE2.CASE_INSENSITIVE : 0))
  } catch (error) {
    throw new UnsafePatternError(pattern, String((error as Error).message).replace(/^error parsing regexp: /, ''))
  }
  const regex: SafeRegex = {
    test: (text) => compiled.test(text),
    replaceFirst: (text, replacement) => {
      const matcher = compiled.matcher(text)
      return matcher.find() ? matcher.reset().replaceFirst(replacement) : null
    },
    toString: () => pattern,
    programSize: compiled.programSize(),
  }
  if (compiledBefore.size >= MAX_CACHED) compiledBefore.clear()
  compiledBefore.set(pattern, regex)
  return regex
}

/** ajv's `code.regExp` engine: every `pattern` and `patternProperties` key of a schema compiles here. */
export type RegExpEngine = ((pattern: string, flags: string) => SafeRegex) & { code: string }

/**
 * An ajv engine. `strict` refuses a pattern RE2 cannot run (ajv's compile throws the reason); otherwise
 * such a pattern is not checked at all: imported specs use lookaheads (password rules) that no
 * linear-time engine runs, and refusing the whole spec, or running them on a backtracking engine
 * where a request could stall every other, would be worse than skipping that one constraint.
 */
export function ajvRegExpEngine(options: { strict: boolean }): RegExpEngine {
  const engine = (pattern: string): SafeRegex => {
    try {
      return compileSafeRegex(pattern)
    } catch (error) {
      if (options.strict || !(error instanceof UnsafePatternError)) throw error
      return { test: () => true, replaceFirst: () => null, toString: () => pattern, programSize: 0 }
    }
  }
  // ajv names the engine in standalone code only, which mockapi never generates.
  return Object.assign(engine, { code: 'compileSafeRegex' })
}
