/**
 * A deterministic string for a JSON Schema `pattern`. openapi-sampler's own pattern support (from
 * faker) knows no groups, anchors, `{n,}` or `\d`, and returns e.g. `CA{2,}` for `^[C][A-Z0-9]{2,}$`.
 * This covers what API specs write: literals, escapes, classes, groups with `|`, and all quantifiers;
 * lookarounds and backreferences produce nothing, and the result is always checked against the pattern.
 * The check runs on RE2 (linear time): a pattern RE2 cannot run because of lookarounds is checked
 * without them; one with backreferences gives no sample. A sample longer than MAX_SAMPLE_LENGTH is
 * given up rather than built (`((a+)+)+` with many repetitions would otherwise grow without bound).
 */
import { compileSafeRegex, type SafeRegex } from '../../engine/safe-regex.ts'

export const MAX_SAMPLE_LENGTH = 10_000

class TooLong extends Error {}

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'class'; ranges: [number, number][]; negated: boolean }
  | { kind: 'group'; alternatives: Node[][] }
  | { kind: 'repeat'; node: Node; min: number; max: number }

const DIGIT: [number, number][] = [[48, 57]]
const WORD: [number, number][] = [[97, 122], [65, 90], [48, 57], [95, 95]]
const SPACE: [number, number][] = [[32, 32], [9, 13]]
const CLASS_ESCAPES: Record<string, [number, number][]> = { d: DIGIT, w: WORD, s: SPACE, D: [[97, 122]], W: [[45, 45]], S: [[97, 122]] }
const CONTROL: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v', '0': '\0' }
// Tried in order for a negated class: readable characters first.
const FALLBACK_CHARS = 'aA0-_ .x'

function _parse(pattern: string): Node[][] {
  let i = 0
  const escape = (): Node => {
    const c = pattern[i++] ?? ''
    if (CLASS_ESCAPES[c]) return { kind: 'class', ranges: CLASS_ESCAPES[c], negated: false }
    if (c === 'b' || c === 'B' || /[1-9]/.test(c)) return { kind: 'text', text: '' } // boundaries, backreferences
    if (c === 'u' || c === 'x') {
      const hex = pattern.slice(i, i + (c === 'u' ? 4 : 2))
      i += hex.length
      return { kind: 'text', text: String.fromCharCode(parseInt(hex, 16)) }
    }
    return { kind: 'text', text: CONTROL[c] ?? c }
  }
  const charClass = (): Node => {
    const negated = pattern[i] === '^'
    if (negated) i++
    const ranges: [number, number][] = []
    let first = true
    while (i < pattern.length && (pattern[i] !== ']' || first)) {
      first = false
      let low: number
      if (pattern[i] === '\\') {
        i++
        const node = escape()
        if (node.kind === 'class') { ranges.push(...node.ranges); continue }
        low = (node as { text: string }).text.charCodeAt(0)
      } else low = pattern.charCodeAt(i++)
      if (pattern[i] === '-' && pattern[i + 1] !== ']' && i + 1 < pattern.length) {
        i++
        const high = pattern[i] === '\\' ? (i++, (escape() as { text?: string }).text?.charCodeAt(0) ?? low) : pattern.charCodeAt(i++)
        ranges.push([low, high])
      } else ranges.push([low, low])
    }
    i++ // ]
    return { kind: 'class', ranges, negated }
  }
  const alternatives = (): Node[][] => {
    const result: Node[][] = [[]]
    while (i < pattern.length && pattern[i] !== ')') {
      const c = pattern[i++] as string
      let node: Node
      if (c === '|') { result.push([]); continue }
      if (c === '^' || c === '$') continue
      if (c === '(') {
        const lookaround = /^\?[=!]|^\?<[=!]/.test(pattern.slice(i, i + 3))
        if (pattern[i] === '?') i = pattern[i + 1] === '<' && !/[=!]/.test(pattern[i + 2] ?? '') ? pattern.indexOf('>', i) + 1 : i + (pattern[i + 1] === '<' ? 3 : 2)
        const inner = alternatives()
        i++ // )
        node = lookaround ? { kind: 'text', text: '' } : { kind: 'group', alternatives: inner }
      } else if (c === '[') node = charClass()
      else if (c === '\\') node = escape()
      else if (c === '.') node = { kind: 'class', ranges: [[97, 97]], negated: false }
      else node = { kind: 'text', text: c }
      const quantifier = /^(?:([?*+])|\{(\d+)(?:(,)(\d*))?\})[?+]?/.exec(pattern.slice(i))
      if (quantifier) {
        i += quantifier[0].length
        const [, symbol, min, comma, max] = quantifier
        const low = symbol ? (symbol === '+' ? 1 : 0) : Number(min)
        const high = symbol === '?' ? 1 : symbol ? Infinity : comma ? (max ? Number(max) : Infinity) : low
        node = { kind: 'repeat', node, min: low, max: high }
      }
      ;(result[result.length - 1] as Node[]).push(node)
    }
    return result
  }
  return alternatives()
}

function _generate(node: Node, extra: number): string {
  const text = _generateUnchecked(node, extra)
  if (text.length > MAX_SAMPLE_LENGTH) throw new TooLong()
  return text
}

function _generateUnchecked(node: Node, extra: number): string {
  switch (node.kind) {
    case 'text': return node.text
    case 'class': {
      const inside = (code: number) => node.ranges.some(([low, high]) => code >= low && code <= high)
      if (!node.negated) return String.fromCharCode(node.ranges[0]?.[0] ?? 97)
      return [...FALLBACK_CHARS].find((c) => !inside(c.charCodeAt(0))) ?? ''
    }
    case 'group': return (node.alternatives[0] ?? []).map((child) => _generate(child, extra)).join('')
    case 'repeat': {
      const one = _generate(node.node, extra)
      const count = Math.min(node.min + extra, node.max)
      if (one.length * count > MAX_SAMPLE_LENGTH) throw new TooLong()
      return one.repeat(count)
    }
  }
}

/** A string matching `pattern` within the length bounds, or undefined when none of the tries fits. */
export function patternSample(pattern: string, minLength = 0, maxLength = Infinity): string | undefined {
  let regex: SafeRegex
  let tree: Node[][]
  try {
    new RegExp(pattern, 'u') // a pattern JavaScript refuses is no pattern the spec could mean
    regex = _checker(pattern)
    tree = _parse(pattern)
  } catch {
    return undefined
  }
  // More repetitions of the open-ended parts until the length fits; every try is checked.
  for (const extra of [0, 1, 2, 3, 5, 8, 13, 21, 34, 55]) {
    for (const alternative of tree) {
      let text: string
      try {
        text = alternative.map((node) => _generate(node, extra)).join('')
      } catch (error) {
        if (error instanceof TooLong) return undefined
        throw error
      }
      const length = [...text].length
      if (length >= minLength && length <= maxLength && regex.test(text)) return text
    }
  }
  return undefined
}

function _checker(pattern: string): SafeRegex {
  try {
    return compileSafeRegex(pattern)
  } catch {
    return compileSafeRegex(_withoutLookarounds(pattern))
  }
}

/** `pattern` with its `(?=…)`, `(?!…)`, `(?<=…)` and `(?<!…)` groups removed: a looser pattern RE2 may run. */
function _withoutLookarounds(pattern: string): string {
  let out = ''
  let i = 0
  while (i < pattern.length) {
    if (/^\(\?<?[=!]/.test(pattern.slice(i, i + 4))) {
      i = _groupEnd(pattern, i)
      continue
    }
    const next = _tokenEnd(pattern, i)
    out += pattern.slice(i, next)
    i = next
  }
  return out
}

/** The index after the group opening at `start`, nested groups, classes and escapes skipped. */
function _groupEnd(pattern: string, start: number): number {
  let depth = 0
  let i = start
  while (i < pattern.length) {
    const c = pattern[i]
    if (c === '(') depth += 1
    else if (c === ')' && --depth === 0) return i + 1
    i = _tokenEnd(pattern, i)
  }
  return i
}

/** The index after one token at `i`: an escape, a whole class, or one character. */
function _tokenEnd(pattern: string, i: number): number {
  if (pattern[i] === '\\') return i + 2
  if (pattern[i] !== '[') return i + 1
  let j = i + 1
  if (pattern[j] === '^') j += 1
  if (pattern[j] === ']') j += 1
  while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1
  return j + 1
}
