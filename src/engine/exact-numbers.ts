import { randomBytes } from 'node:crypto'

/**
 * JSON numbers a double cannot hold as written (ids past 2^53, `1e400`, decimals of 16 digits or
 * more) keep their digits through a record write. Node 20 has neither `JSON.rawJSON` nor the
 * source text in `JSON.parse` revivers, so such a number is parsed as a marked string and written
 * back as its digits. The mark starts with NUL and holds a random key per process: no string a
 * client sends can pass for one.
 */
const MARK = `\u0000number:${randomBytes(8).toString('hex')}:`
const NUMBER = '-?(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE][+-]?\\d+)?'
const NUMBER_AT = new RegExp(NUMBER, 'y')
const MARKED = new RegExp(`"${JSON.stringify(MARK).slice(1, -1).replaceAll('\\', '\\\\')}(${NUMBER})"`, 'g')
const MARKED_TEXT = JSON.stringify(MARK).slice(1, -1)
// Up to 15 significant digits and no exponent, a number always survives a double.
const MAYBE_INEXACT = /[\d.]{16}|\d[eE]/

/** Digits and decimal exponent without sign, leading or trailing zeros: `120.50` and `1.205e2` agree. */
function canonical(token: string): string {
  const [mantissa = '', exponent = '0'] = token.replace(/^-/, '').split(/[eE]/)
  const [whole = '', fraction = ''] = mantissa.split('.')
  const digits = `${whole}${fraction}`
  const leading = digits.length - digits.replace(/^0+/, '').length
  const significant = digits.slice(leading).replace(/0+$/, '')
  if (significant === '') return '0'
  return `${token.startsWith('-') ? '-' : ''}${significant}e${Number(exponent) + whole.length - leading}`
}

function isInexact(token: string): boolean {
  const value = Number(token)
  return !Number.isFinite(value) || canonical(token) !== canonical(String(value))
}

/** The text with every inexact number replaced by its marked string; null when there is none. */
function markInexactNumbers(text: string): string | null {
  let marked = ''
  let copied = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // Skip the string: to the next quote not escaped by an odd run of backslashes.
      let end = text.indexOf('"', i + 1)
      for (;;) {
        let backslashes = 0
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes += 1
        if (end === -1 || backslashes % 2 === 0) break
        end = text.indexOf('"', end + 1)
      }
      if (end === -1) return null
      i = end
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER_AT.lastIndex = i
      const token = NUMBER_AT.exec(text)?.[0]
      if (!token) return null
      if (isInexact(token)) {
        marked += text.slice(copied, i) + JSON.stringify(MARK + token)
        copied = i + token.length
      }
      i += token.length - 1
    }
  }
  return copied === 0 ? null : marked + text.slice(copied)
}

/** Parses JSON text (already known to be valid) with inexact numbers as marked strings. */
export function parseKeepingNumbers(text: string): unknown {
  const marked = MAYBE_INEXACT.test(text) ? markInexactNumbers(text) : null
  return JSON.parse(marked ?? text)
}

/** JSON text of a value, marked numbers written back as the digits they were sent with. */
export function stringifyKeepingNumbers(value: unknown): string {
  const json = JSON.stringify(value)
  return json.includes(MARKED_TEXT) ? json.replace(MARKED, '$1') : json
}

/** The digits of a marked number; undefined for anything else. */
export function keptNumber(value: unknown): string | undefined {
  return typeof value === 'string' && value.startsWith(MARK) ? value.slice(MARK.length) : undefined
}

const exactTwins = new WeakMap<object, unknown>()

/**
 * Remembers, beside a body parsed the usual way (what validation sees), its reading with inexact
 * numbers kept, for the code that stores it (`exactNumbers`). Only bodies that have such a number
 * cost more than a regular-expression test.
 */
export function rememberExactNumbers(value: unknown, text: string): void {
  if (value === null || typeof value !== 'object' || !MAYBE_INEXACT.test(text)) return
  const marked = markInexactNumbers(text)
  if (marked !== null) exactTwins.set(value, JSON.parse(marked))
}

/** The body with inexact numbers kept, if `rememberExactNumbers` saw it; else the body itself. */
export function exactNumbers(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? (exactTwins.get(value) ?? value) : value
}
