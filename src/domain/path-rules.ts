import { decodeLiteral, parseSegment, segmentKey, type SegmentPart } from '../engine/path-pattern.ts'
import { AppError } from '../errors.ts'
import type { PathRules } from '../model.ts'

/**
 * Path rules (docs/mocking.md). Each refusal names its rule so users can tell them apart;
 * `warnings` carry what is allowed but discouraged. A project's `pathRules` says what the naming
 * rules do: refuse (strict), warn (warn) or nothing (off); the structural checks hold in every mode.
 */
export interface PathCheck {
  /** The path with the segments as written, without a trailing slash. */
  path: string
  warnings: string[]
}

const VERBS = new Set([
  'get', 'post', 'put', 'patch', 'delete', 'create', 'update', 'remove', 'list', 'add', 'set', 'fetch',
  'find', 'edit', 'insert', 'save', 'read', 'destroy', 'modify', 'retrieve', 'show', 'make', 'del', 'upsert',
])

// Verbs that are also nouns: alone in a segment (`/api/post`) they read as a singular noun.
const NOUNS_TOO = new Set(['post', 'patch', 'set', 'update', 'show', 'find', 'edit', 'save', 'insert', 'make'])

// Plurals that do not end in "s", and nouns used as plurals as they are.
const IRREGULAR_PLURALS = new Set([
  'people', 'children', 'men', 'women', 'mice', 'geese', 'feet', 'teeth', 'data', 'metadata', 'media', 'criteria',
  'phenomena', 'indices', 'matrices', 'vertices', 'alumni', 'cacti', 'fungi', 'radii', 'sheep', 'fish', 'deer',
  'moose', 'series', 'species', 'news', 'aircraft', 'staff', 'feedback', 'equipment', 'information', 'inventory',
  'software', 'hardware', 'music', 'furniture', 'luggage', 'baggage', 'analytics', 'content', 'stock', 'traffic',
])

const MAX_RESOURCE_LEVELS = 3
const SEGMENT = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
const PARAM = /^:[A-Za-z_][A-Za-z0-9_]*$/
// What a segment starting with `:` needs to be a parameter at all (the name may go on into text: `:name.json`).
const PARAM_START = /^:[A-Za-z_]/
const VERSION = /^v[0-9]+$/
// `{name}`, with the names the route patterns read (inner hyphens only).
const BRACED = /\{([A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*)\}/g

function refuse(rule: string, message: string): never {
  throw new AppError('INVALID_PATH', `${message} (rule: ${rule})`, { details: [{ rule }] })
}

/**
 * `check`, its path refusal turned into what an API caller sent wrong: INVALID_INPUT naming the
 * field `path` and the rule broken.
 */
export function pathField(check: () => PathCheck): PathCheck {
  try {
    return check()
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'INVALID_PATH') throw error
    const rule = (error.details as { rule?: string }[] | undefined)?.[0]?.rule
    throw new AppError('INVALID_INPUT', error.message, { details: [{ field: 'path', message: error.message, ...(rule ? { rule } : {}) }] })
  }
}

/** A naming rule broken: refused in strict, a warning in warn, nothing in off. */
type Report = (rule: string, message: string) => void

function reporter(mode: PathRules, warnings: string[]): Report {
  return (rule, message) => {
    if (mode === 'strict') refuse(rule, message)
    if (mode === 'warn') warnings.push(`${message} (rule: ${rule})`)
  }
}

const MAX_PATH_LENGTH = 2048
const MAX_SEGMENT_LENGTH = 256

/** Splits `getPosts`, `get-posts`, `get_posts` into lowercase words. */
function wordsOf(segment: string): string[] {
  return segment
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase())
}

export function isPlural(word: string): boolean {
  if (IRREGULAR_PLURALS.has(word)) return true
  return word.length > 1 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')
}

/**
 * What every mode checks: a path a router can hold. Returns the segments after `/api` (strict,
 * which requires it) or all of them (warn and off, which only report a missing `/api`).
 */
function checkShape(path: string, mode: PathRules, report: Report): { segments: string[]; prefix: string } {
  if (!path.startsWith('/')) {
    if (mode === 'strict') refuse('starts-with-api', `path "${path}" must start with /api`)
    refuse('starts-with-slash', `path "${path}" must start with /`)
  }
  if (/[?#\s]/.test(path)) refuse('plain-path', `path "${path}" must not contain a query, a fragment or spaces`)
  if (/[\u0000-\u001f\u007f]/.test(path)) refuse('plain-path', `path ${JSON.stringify(path)} must not contain control characters`)
  if (path.length > MAX_PATH_LENGTH) refuse('path-length', `path is ${path.length} characters long; at most ${MAX_PATH_LENGTH}`)
  // Clients turn `\` into `/` before sending: it only escapes `:` or `*` here.
  if (/\\(?![:*])/.test(path)) refuse('plain-path', `path "${path}": "\\" only escapes ":" or "*" (e.g. "\\:"); clients send a backslash as "/", write %5C for one`)
  if (/%(?![0-9A-Fa-f]{2})/.test(path)) refuse('percent-encoding', `path "${path}": "%" must start an escape of two hex digits; write %25 for a percent sign`)
  try {
    decodeURIComponent(path)
  } catch {
    refuse('percent-encoding', `path "${path}" has percent escapes that do not decode to UTF-8 text, so no request could match it`)
  }
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
  const segments = trimmed === '/' ? [] : trimmed.split('/').slice(1).map(withColons)
  if (segments[0] !== 'api') report('starts-with-api', `path "${path}" must start with /api`)
  if (segments.some((s) => s === '')) refuse('no-empty-segments', `path "${path}" has an empty segment`)
  segments.forEach((segment, i) => {
    const decoded = decodeLiteral(segment)
    if (decoded === '.' || decoded === '..') refuse('dot-segments', `path "${path}": clients resolve a "${segment}" segment before sending, so no request could match it`)
    if (segment.length > MAX_SEGMENT_LENGTH) refuse('path-length', `segment "${segment.slice(0, 40)}…" is ${segment.length} characters long; at most ${MAX_SEGMENT_LENGTH}`)
    if (segment !== '**' && segment.includes('**')) refuse('wildcards', `segment "${segment}": "**" must be a segment of its own (e.g. /files/**)`)
    if (segment === '**' && i !== segments.length - 1) refuse('wildcards', `path "${path}": "**" (the rest of the path) must be its last segment`)
    if (segment.startsWith(':') && !PARAM_START.test(segment)) refuse('param-names', `parameter "${segment}" must be ":" followed by a name of letters, digits or _`)
    const parts = segment === '**' ? [] : parseSegment(segment, () => '')
    if (/[{}]/.test(segment.replace(BRACED, ''))) {
      refuse('param-names', `segment "${segment}": a parameter is ":name" or "{name}" (letters, digits and _); write %7B and %7D for braces`)
    }
    if (parts.some((part, j) => part.kind === 'param' && parts[j + 1]?.kind === 'param')) {
      refuse('param-names', `segment "${segment}" has two parameters side by side; put text between them (e.g. ":from-:to")`)
    }
  })
  if (segments[0] === 'api') return { segments: segments.slice(1), prefix: '/api' }
  return { segments, prefix: '' }
}

/** The segment with each `{name}` written `:name`, as imports store them, unless that would read differently (`v{n}`, `{id}x`). */
function withColons(segment: string): string {
  if (!segment.includes('{')) return segment
  const converted = segment.replace(BRACED, ':$1')
  const key = (parts: SegmentPart[]) => JSON.stringify(parts.map((part) => (part.kind === 'param' ? part.name : segmentKey(part))))
  return key(parseSegment(converted, () => '')) === key(parseSegment(segment, () => '')) ? converted : segment
}

const isPattern = (segment: string) => segment === '*' || segment === '**'
const isParam = (segment: string) => PARAM.test(segment)

/** Rules for a resource path: every literal segment a lowercase plural noun, params between them. */
export function checkResourcePath(path: string, mode: PathRules = 'strict'): PathCheck {
  const warnings: string[] = []
  const report = reporter(mode, warnings)
  const { segments, prefix } = checkShape(path, mode, report)
  if (segments.length === 0) refuse('names-a-resource', `path "${path}" must name a resource${prefix ? ' after /api' : ''}, e.g. ${prefix}/posts`)
  let levels = 0
  let previousWasParam = true
  for (const segment of segments) {
    if (segment.startsWith(':')) {
      if (!isParam(segment)) refuse('param-names', `parameter "${segment}" must be ":" followed by a name of letters, digits or _`)
      if (previousWasParam) report('param-after-resource', `parameter "${segment}" must follow a resource segment`)
      if (segment === ':id') refuse('param-names', `parent parameter ":id" is reserved for the item id; name it after its resource, e.g. ":userId"`)
      previousWasParam = true
      continue
    }
    if (isPattern(segment) || parseSegment(segment, () => '').some((part) => part.kind === 'param')) {
      refuse('resource-segments', `segment "${segment}": a resource path is made of names and ":params" only (its records need a collection name); use add-endpoint for wildcards`)
    }
    checkLiteral(segment, { plural: !VERSION.test(segment) }, report)
    if (!VERSION.test(segment)) levels += 1
    previousWasParam = false
  }
  if (previousWasParam) refuse('ends-with-resource', `path "${path}" must end with a resource name; the item path /:id is added for you`)
  if (VERSION.test(segments.at(-1)!)) report('ends-with-resource', `path "${path}" must end with a resource name`)
  if (levels > MAX_RESOURCE_LEVELS) warnings.push(`path "${path}" nests ${levels} resource levels; more than ${MAX_RESOURCE_LEVELS} is hard to use`)
  return { path: `${prefix}/${segments.join('/')}`, warnings }
}

/**
 * Rules for a custom endpoint: the same shape, verbs and case rules, but a literal segment may be
 * singular (`/api/me`, `/api/status`): that is a warning, not a refusal. Wildcards (`*`, `**`) are
 * routing, not naming: every mode takes them.
 */
export function checkEndpointPath(path: string, mode: PathRules = 'strict'): PathCheck {
  const warnings: string[] = []
  const report = reporter(mode, warnings)
  const { segments, prefix } = checkShape(path, mode, report)
  for (const segment of segments) {
    if (isPattern(segment)) continue
    if (segment.startsWith(':')) {
      if (!isParam(segment)) report('param-names', `parameter "${segment}" must be ":" followed by a name of letters, digits or _`)
      continue
    }
    if (!checkLiteral(segment, { plural: false }, report) && !VERSION.test(segment) && mode !== 'off') {
      warnings.push(`segment "${segment}" is not a plural noun (rule: plural-nouns)`)
    }
  }
  return { path: segments.length ? `${prefix}/${segments.join('/')}` : prefix || '/', warnings }
}

/** Refuses verbs and bad case; returns whether the segment reads as a plural noun. */
function checkLiteral(segment: string, options: { plural: boolean }, report: Report): boolean {
  const words = wordsOf(segment)
  const verb = words.find((word) => VERBS.has(word) && !(words.length === 1 && NOUNS_TOO.has(word)))
  if (verb) report('no-verbs', `segment "${segment}" contains the verb "${verb}"; the HTTP method says what happens`)
  if (!SEGMENT.test(segment)) report('lowercase-hyphens', `segment "${segment}" must be lowercase letters and digits separated by hyphens, e.g. "blog-posts"`)
  const plural = isPlural(words.at(-1) ?? '')
  if (options.plural && !plural) report('plural-nouns', `segment "${segment}" must be a plural noun, e.g. "${segment}s"`)
  return plural
}
