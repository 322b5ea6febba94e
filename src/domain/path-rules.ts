import { AppError } from '../errors.ts'

/**
 * Path rules (docs/mocking.md). Each refusal names its rule so users can tell them apart;
 * `warnings` carry what is allowed but discouraged.
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
const VERSION = /^v[0-9]+$/

function refuse(rule: string, message: string): never {
  throw new AppError('INVALID_PATH', `${message} (rule: ${rule})`, { details: [{ rule }] })
}

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

function checkShape(path: string): string[] {
  if (!path.startsWith('/')) refuse('starts-with-api', `path "${path}" must start with /api`)
  if (/[?#\s]/.test(path)) refuse('plain-path', `path "${path}" must not contain a query, a fragment or spaces`)
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
  const segments = trimmed.split('/').slice(1)
  if (segments[0] !== 'api') refuse('starts-with-api', `path "${path}" must start with /api`)
  if (segments.some((s) => s === '')) refuse('no-empty-segments', `path "${path}" has an empty segment`)
  return segments.slice(1)
}

/** Rules for a resource path: every literal segment a lowercase plural noun, params between them. */
export function checkResourcePath(path: string): PathCheck {
  const segments = checkShape(path)
  if (segments.length === 0) refuse('names-a-resource', `path "${path}" must name a resource after /api, e.g. /api/posts`)
  let levels = 0
  let previousWasParam = true
  for (const segment of segments) {
    if (segment.startsWith(':')) {
      if (!PARAM.test(segment)) refuse('param-names', `parameter "${segment}" must be ":" followed by a name of letters, digits or _`)
      if (previousWasParam) refuse('param-after-resource', `parameter "${segment}" must follow a resource segment`)
      if (segment === ':id') refuse('param-names', `parent parameter ":id" is reserved for the item id; name it after its resource, e.g. ":userId"`)
      previousWasParam = true
      continue
    }
    checkLiteral(segment, { plural: !VERSION.test(segment) })
    if (!VERSION.test(segment)) levels += 1
    previousWasParam = false
  }
  if (previousWasParam) refuse('ends-with-resource', `path "${path}" must end with a resource name; the item path /:id is added for you`)
  if (segments.length > 0 && VERSION.test(segments.at(-1)!)) refuse('ends-with-resource', `path "${path}" must end with a resource name`)
  const warnings = levels > MAX_RESOURCE_LEVELS
    ? [`path "${path}" nests ${levels} resource levels; more than ${MAX_RESOURCE_LEVELS} is hard to use`]
    : []
  return { path: `/api/${segments.join('/')}`, warnings }
}

/**
 * Rules for a custom endpoint: the same shape, verbs and case rules, but a literal segment may be
 * singular (`/api/me`, `/api/status`): that is a warning, not a refusal.
 */
export function checkEndpointPath(path: string): PathCheck {
  const segments = checkShape(path)
  const warnings: string[] = []
  for (const segment of segments) {
    if (segment.startsWith(':')) {
      if (!PARAM.test(segment)) refuse('param-names', `parameter "${segment}" must be ":" followed by a name of letters, digits or _`)
      continue
    }
    if (!checkLiteral(segment, { plural: false }) && !VERSION.test(segment)) {
      warnings.push(`segment "${segment}" is not a plural noun (rule: plural-nouns)`)
    }
  }
  return { path: segments.length ? `/api/${segments.join('/')}` : '/api', warnings }
}

/** Refuses verbs and bad case; returns whether the segment reads as a plural noun. */
function checkLiteral(segment: string, options: { plural: boolean }): boolean {
  const words = wordsOf(segment)
  const verb = words.find((word) => VERBS.has(word) && !(words.length === 1 && NOUNS_TOO.has(word)))
  if (verb) refuse('no-verbs', `segment "${segment}" contains the verb "${verb}"; the HTTP method says what happens`)
  if (!SEGMENT.test(segment)) refuse('lowercase-hyphens', `segment "${segment}" must be lowercase letters and digits separated by hyphens, e.g. "blog-posts"`)
  const plural = isPlural(words.at(-1) ?? '')
  if (options.plural && !plural) refuse('plural-nouns', `segment "${segment}" must be a plural noun, e.g. "${segment}s"`)
  return plural
}
