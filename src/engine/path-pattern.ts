/**
 * Route paths as patterns (docs/mocking.md, "Path rules"): per segment a literal, a parameter
 * (`:id`), a wildcard (`*`, one segment), the rest (`**`, every remaining segment, only last), or a
 * mixed segment of text and parameters (`:name.json`, `:id:activate`, `*.png`).
 *
 * Inside a segment, `:` starts a parameter only when a name follows and it opens the segment or
 * follows a character that cannot be in a name, so `/v1/things:batchGet` stays literal while
 * `:id:activate` is `id` then `:activate`. A name is letters, digits and `_`, with inner hyphens
 * (`:user-id`, as imported OpenAPI paths write `{user-id}`); `\` makes the next character literal.
 * `{name}` is a parameter too, anywhere in a segment, as OpenAPI and WireMock write them (the path
 * rules store it as `:name` where that reads the same).
 *
 * Literal text is read percent-decoded, as request segments are before matching: `/search/a%20b`
 * answers `/search/a%20b`. The stored path keeps the text as written (so an export gives it back
 * byte for byte); a `%` not starting a valid escape stays as it is, which keeps paths stored before
 * the path rules refused them answering what they answered.
 */

export type SegmentPart = { kind: 'literal'; text: string } | { kind: 'param'; name: string }

export type SegmentPattern =
  | { kind: 'literal'; text: string }
  | { kind: 'param'; name: string }
  | { kind: 'wildcard'; name: string }
  | { kind: 'rest'; name: string }
  | { kind: 'mixed'; parts: SegmentPart[] }

const NAME_START = /[A-Za-z_]/
const NAME_CHAR = /[A-Za-z0-9_]/

/** Where a parameter name starting at `from` ends: name characters, with hyphens only between them. */
function nameEnd(segment: string, from: number): number {
  let end = from
  while (end < segment.length) {
    const char = segment[end]!
    if (NAME_CHAR.test(char)) end += 1
    else if (char === '-' && end + 1 < segment.length && NAME_CHAR.test(segment[end + 1]!)) end += 2
    else break
  }
  return end
}

const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g

/** Literal text as a request segment reads after decoding; runs that are not valid UTF-8 stay as written. */
export function decodeLiteral(text: string): string {
  if (!text.includes('%')) return text
  return text.replace(ESCAPES, (run) => {
    try {
      return decodeURIComponent(run)
    } catch {
      return run
    }
  })
}

/** Where a `{name}` opening at `from` ends (after its `}`), or 0 when none does. */
function bracedEnd(segment: string, from: number): number {
  if (!NAME_START.test(segment[from + 1] ?? '')) return 0
  const end = nameEnd(segment, from + 1)
  return segment[end] === '}' ? end + 1 : 0
}

/** The parts of one segment, in order; adjacent literal text is joined and percent-decoded. */
export function parseSegment(segment: string, nextAnonymous: () => string): SegmentPart[] {
  const parts: SegmentPart[] = []
  let text = ''
  const flush = () => {
    if (text) parts.push({ kind: 'literal', text: decodeLiteral(text) })
    text = ''
  }
  for (let i = 0; i < segment.length;) {
    const char = segment[i]!
    if (char === '\\' && i + 1 < segment.length) {
      text += segment[i + 1]
      i += 2
    } else if (char === '*') {
      flush()
      parts.push({ kind: 'param', name: nextAnonymous() })
      i += 1
    } else if (char === '{' && bracedEnd(segment, i) > 0) {
      flush()
      const end = bracedEnd(segment, i)
      parts.push({ kind: 'param', name: segment.slice(i + 1, end - 1) })
      i = end
    } else if (char === ':' && i + 1 < segment.length && NAME_START.test(segment[i + 1]!) && (i === 0 || !NAME_CHAR.test(segment[i - 1]!))) {
      flush()
      const end = nameEnd(segment, i + 1)
      parts.push({ kind: 'param', name: segment.slice(i + 1, end) })
      i = end
    } else {
      text += char
      i += 1
    }
  }
  flush()
  return parts
}

/** The patterns of a route path's segments (empty segments are dropped). Never throws: any path has a reading. */
export function parseRoutePath(path: string): SegmentPattern[] {
  let anonymous = 0
  const nextAnonymous = () => String(anonymous++)
  return path.split('/').filter((segment) => segment !== '').map((segment): SegmentPattern => {
    if (segment === '**') return { kind: 'rest', name: nextAnonymous() }
    if (segment === '*') return { kind: 'wildcard', name: nextAnonymous() }
    const parts = parseSegment(segment, nextAnonymous)
    if (parts.length === 1 && parts[0]!.kind === 'param') return { kind: 'param', name: parts[0]!.name }
    if (parts.length === 1) return { kind: 'literal', text: (parts[0] as { text: string }).text }
    return { kind: 'mixed', parts }
  })
}

// `/` too: a decoded `%2F` is text inside its segment, not a boundary.
const escapeText = (text: string) => text.replace(/[\\:*/]/g, (char) => `\\${char}`)

/** A segment pattern written back, parameters without their names: equal keys match the same segments. */
export function segmentKey(pattern: SegmentPattern): string {
  switch (pattern.kind) {
    case 'literal': return escapeText(pattern.text)
    case 'param':
    case 'wildcard': return ':'
    case 'rest': return '**'
    case 'mixed': return pattern.parts.map((part) => (part.kind === 'param' ? ':' : escapeText(part.text))).join('')
  }
}

/** Two paths with the same shape answer the same requests: `/files/:name` and `/files/*` do, `/files/:name.json` does not. */
export function routeShape(path: string): string {
  const shape = parseRoutePath(path).map(segmentKey).join('/')
  return path.startsWith('/') ? `/${shape}` : shape
}

/** The names of the values a path captures, in order (`*` and `**` are `0`, `1`, … as they come). */
export function paramNames(patterns: readonly SegmentPattern[]): string[] {
  return patterns.flatMap((pattern) => {
    if (pattern.kind === 'literal') return []
    if (pattern.kind === 'mixed') return pattern.parts.flatMap((part) => (part.kind === 'param' ? [part.name] : []))
    return [pattern.name]
  })
}

/**
 * The values of a mixed segment's parameters, or null when it does not match. No regex and no
 * backtracking: the text before the first parameter and after the last is anchored, each inner
 * text is the leftmost occurrence after at least one character of its parameter (which leaves the
 * most room for what follows, so it finds a match whenever one exists). Linear in the segment.
 */
export function matchMixed(parts: readonly SegmentPart[], segment: string): string[] | null {
  let start = 0
  let end = segment.length
  let first = 0
  let last = parts.length
  const head = parts[0]
  if (head?.kind === 'literal') {
    if (!segment.startsWith(head.text)) return null
    start = head.text.length
    first = 1
  }
  const tail = parts.at(-1)
  if (tail?.kind === 'literal' && last > first) {
    if (!segment.endsWith(tail.text) || segment.length - tail.text.length < start) return null
    end = segment.length - tail.text.length
    last -= 1
  }
  const values: string[] = []
  let position = start
  for (let i = first; i < last; i += 1) {
    const part = parts[i]!
    if (part.kind === 'literal') return null
    const next = parts[i + 1]
    if (i + 1 >= last || next === undefined) {
      if (end - position < 1) return null
      values.push(segment.slice(position, end))
      position = end
    } else if (next.kind === 'literal') {
      const found = segment.indexOf(next.text, position + 1)
      if (found < 0 || found + next.text.length > end) return null
      values.push(segment.slice(position, found))
      position = found + next.text.length
      i += 1
    } else {
      // Two parameters side by side: the first takes one character (the path rules refuse writing this).
      if (end - position < 2) return null
      values.push(segment.slice(position, position + 1))
      position += 1
    }
  }
  return position === end ? values : null
}
