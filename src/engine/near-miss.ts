import type { Difference, NearMiss } from '../events.ts'
import { matchMixed, parseRoutePath, type SegmentPattern } from './path-pattern.ts'
import { splitPath } from './router.ts'

/**
 * Near misses: the endpoints an unmatched request came closest to, and what kept each from
 * matching (the method, a project's slug, a segment, a segment too many or too few), as WireMock
 * shows them. Segments are aligned with the fewest differences, so `/api/shop/v2/orders` is one
 * extra segment away from `/api/shop/orders`, not two differing ones.
 */

/** A route a request may have meant, as a project serves it. */
export interface NearMissRoute {
  /** null for a GraphQL or SOAP mount (one URL answering several operations). */
  endpointId: number | null
  method: string
  /** Where the project serves its routes: `['api', 'shop']` under its slug, `[]` at its own paths. */
  base: readonly string[]
  /** The project's slug when `base` is `/api/{slug}`. */
  slug: string | null
  /** After `base`, as written (`/orders/:id`). */
  path: string
  patterns: readonly SegmentPattern[]
  /** The segments of `path` as written, for saying what was expected. */
  written: readonly string[]
  /** `base` and `path` together, for a request outside `/api/{slug}`. */
  whole: { patterns: readonly SegmentPattern[]; written: readonly string[] }
}

export function nearMissRoute(route: Pick<NearMissRoute, 'endpointId' | 'method' | 'base' | 'slug' | 'path'>): NearMissRoute {
  const patterns = parseRoutePath(route.path)
  const written = splitPath(route.path)
  const whole = route.base.length === 0 ? { patterns, written } : {
    patterns: [...route.base.map((text) => ({ kind: 'literal' as const, text })), ...patterns],
    written: [...route.base, ...written],
  }
  return { ...route, patterns, written, whole }
}

/** A project over this many routes is compared with its first ones only: a miss costs at most this. */
export const MAX_ROUTES = 5_000
/** Paths longer than this (in segments) are not compared: no endpoint is close to them. */
const MAX_SEGMENTS = 32
/** How many near misses a request gets (as WireMock shows). */
const SHOWN = 3
/** Longer segments are not compared letter by letter: they are as far apart as they are long. */
const MAX_COMPARED_LENGTH = 32

const WIDTH = MAX_COMPARED_LENGTH + 1
/** editDistance's rows, reused: a miss compares thousands of segments. */
const rows = new Int32Array(WIDTH * WIDTH)

/**
 * Letters to change, add, remove or swap with the next to go from one segment to the other, on
 * short segments only; past `limit` it stops, giving more than `limit`. A miss compares thousands
 * of pairs: their common start and end are passed over, and different words stop after a row or two.
 */
function editDistance(a: string, b: string, limit: number): number {
  if (a.length > MAX_COMPARED_LENGTH || b.length > MAX_COMPARED_LENGTH) return Math.max(a.length, b.length)
  let from = 0
  while (from < a.length && from < b.length && a[from] === b[from]) from += 1
  let aEnd = a.length
  let bEnd = b.length
  while (aEnd > from && bEnd > from && a[aEnd - 1] === b[bEnd - 1]) {
    aEnd -= 1
    bEnd -= 1
  }
  const n = aEnd - from
  const m = bEnd - from
  if (n === 0 || m === 0) return n + m
  let before = 0
  for (let j = 0; j <= m; j += 1) rows[j] = j
  for (let i = 1; i <= n; i += 1) {
    rows[i * WIDTH] = i
    let least = i
    const x = a[from + i - 1]
    for (let j = 1; j <= m; j += 1) {
      const at = i * WIDTH + j
      const y = b[from + j - 1]
      let best = Math.min(rows[at - WIDTH]! + 1, rows[at - 1]! + 1, rows[at - WIDTH - 1]! + (x === y ? 0 : 1))
      if (i > 1 && j > 1 && x === b[from + j - 2] && a[from + i - 2] === y) best = Math.min(best, rows[at - 2 * WIDTH - 2]! + 1)
      rows[at] = best
      if (best < least) least = best
    }
    // Every way to the end passes through this row or the one before (a swap skips one row), and never gets cheaper.
    if (Math.min(least, before) > limit) return limit + 1
    before = least
  }
  return rows[n * WIDTH + m]!
}

/** The most letters a typo changes: a third of the word (one, for short words). */
const typoLimit = (received: string, expected: string) => Math.max(1, Math.floor(Math.max(received.length, expected.length) / 3))

/** How many letters apart two segments are, or null when that is more than a typo (then they are as far as they are long). */
function typoDistance(received: string, expected: string): number | null {
  const limit = typoLimit(received, expected)
  if (Math.abs(received.length - expected.length) > limit) return null
  const distance = editDistance(received, expected, limit)
  return distance <= limit ? distance : null
}

function segmentMatches(pattern: SegmentPattern, segment: string): boolean {
  switch (pattern.kind) {
    case 'literal': return pattern.text === segment
    case 'mixed': return matchMixed(pattern.parts, segment) !== null
    default: return true
  }
}

/** How far a path is from a route's patterns, and in what. */
interface Alignment {
  /** Differences: a segment differing (a typo too), missing or extra, and for a route its method and slug. */
  cost: number
  /** Built only when asked for (the routes shown): ranking the others needs the counts alone. */
  differences: Difference[]
  /** Literal segments equal (a leading `api` aside), and differing ones that look like typos. */
  equal: number
  similar: number
  /** Letters apart: across differing literal segments, and the length of a segment missing or extra (typos rank before other words and gaps). */
  distance: number
}

/**
 * Every project is served under `/api/{slug}` and most own paths start with `/api` too: an equal
 * leading `api` says nothing about which endpoint was meant, so it does not count as in common.
 */
const SHARED_BASE = 'api'

/** A difference's score in `align` (a typo aside): above every bonus a path can collect, so fewer differences always win. */
const SCORE_UNIT = 128
/** Bonuses: an equal literal segment, and a typo, which is aligned as if it matched but still counted as a difference. */
const EQUAL_BONUS = -2
const TYPO_BONUS = -1

function pairScore(pattern: SegmentPattern, segment: string): number {
  if (segmentMatches(pattern, segment)) return pattern.kind === 'literal' ? EQUAL_BONUS : 0
  return pattern.kind === 'literal' && typoDistance(segment, pattern.text) !== null ? TYPO_BONUS : SCORE_UNIT
}

/**
 * Aligns request segments with route patterns at the fewest differences other than typos: a
 * segment that matches costs nothing, a differing one, a missing or an extra one a difference each,
 * and a trailing `**` takes whatever is left. A typo of a literal is aligned with it, as a match
 * would be, so `/api/ordrs` against `/api/orders/:id` reads "ordrs" for "orders" and a missing
 * `:id`, not "ordrs" as the `:id` and "orders" missing; it still counts as a difference. Among
 * alignments as good, the one with more equal literals (`/orders/items` misses the `:id` of
 * `/orders/:id/items`, rather than `items` standing for `:id`). With `anyStart` (a pattern that
 * began with `**`), the segments before the best place to start are skipped for nothing. `at` and
 * the text count in the whole path from 0, `skipped` segments (a project's `/api/{slug}`) coming
 * first. Work: segments × patterns, in `table` (reused from route to route).
 */
function align(segments: readonly string[], patterns: readonly SegmentPattern[], written: readonly string[], skipped: number, explain: boolean, table: Int32Array, anyStart = false): Alignment {
  const n = segments.length
  const m = patterns.length
  const width = m + 1
  // table[i * width + j]: the best score aligning segments[i..] with patterns[j..] (SCORE_UNIT per difference but a typo, less the bonuses).
  for (let i = n; i >= 0; i -= 1) {
    for (let j = m; j >= 0; j -= 1) {
      const pattern = patterns[j]
      const at = i * width + j
      if (j === m) table[at] = (n - i) * SCORE_UNIT
      else if (pattern!.kind === 'rest') table[at] = 0
      else if (i === n) table[at] = SCORE_UNIT + table[at + 1]!
      else table[at] = Math.min(pairScore(pattern!, segments[i]!) + table[at + width + 1]!, SCORE_UNIT + table[at + width]!, SCORE_UNIT + table[at + 1]!)
    }
  }
  const result: Alignment = { cost: 0, differences: [], equal: 0, similar: 0, distance: 0 }
  let i = 0
  // From the first start as good as any: a differing segment says more than a missing one.
  if (anyStart) for (let start = 1; start <= n; start += 1) if (table[start * width]! < table[i * width]!) i = start
  let j = 0
  const differ = (difference: Difference) => {
    result.cost += 1
    if (explain) result.differences.push(difference)
  }
  while (i < n || j < m) {
    const pattern = patterns[j]
    if (pattern?.kind === 'rest') break
    const segment = segments[i]
    const at = i * width + j
    if (pattern !== undefined && segment !== undefined) {
      const here = pairScore(pattern, segment)
      if (table[at] === here + table[at + width + 1]!) {
        if (segmentMatches(pattern, segment)) {
          if (pattern.kind === 'literal' && !(j === 0 && pattern.text === SHARED_BASE)) result.equal += 1
        } else {
          const expected = written[j]!
          if (pattern.kind === 'literal') {
            const distance = typoDistance(segment, pattern.text)
            if (distance !== null) result.similar += 1
            result.distance += distance ?? Math.max(segment.length, pattern.text.length)
          }
          differ({ what: 'segment', at: skipped + i, expected, received: segment, text: `segment ${skipped + i} is "${segment}", expected "${expected}"` })
        }
        i += 1
        j += 1
        continue
      }
    }
    if (segment !== undefined && table[at] === SCORE_UNIT + table[at + width]!) {
      result.distance += segment.length
      differ({ what: 'length', at: skipped + i, expected: '', received: segment, text: `extra segment "${segment}"` })
      i += 1
    } else {
      const missing = pattern!
      result.distance += missing.kind === 'literal' ? missing.text.length : 1
      differ({ what: 'length', at: skipped + i, expected: written[j]!, received: null, text: `missing segment "${written[j]!}"` })
      j += 1
    }
  }
  return result
}

const tableFor = (segments: number, patterns: number) => new Int32Array((segments + 1) * (patterns + 1))

/**
 * What differs between a request's path and a path pattern, segment by segment (a journal
 * filter's `path`); a pattern whose first segment is `**` (any prefix) is compared with the end
 * of the path that comes closest.
 */
export function pathDifferences(pattern: string, segments: readonly string[]): Difference[] {
  const parsed = parseRoutePath(pattern)
  const written = splitPath(pattern)
  const anyStart = parsed.length > 1 && parsed[0]!.kind === 'rest'
  const patterns = anyStart ? parsed.slice(1) : parsed
  if (segments.length > MAX_SEGMENTS || patterns.length > MAX_SEGMENTS) {
    return [{ what: 'length', expected: pattern, received: `${segments.length} segments`, text: `path of ${segments.length} segments, too long to compare with ${pattern}` }]
  }
  return align(segments, patterns, anyStart ? written.slice(1) : written, 0, true, tableFor(segments.length, patterns.length), anyStart).differences
}

const sameMethod = (route: string, request: string) => route === request || (request === 'HEAD' && route === 'GET')

interface Scored extends Alignment {
  route: NearMissRoute
  order: number
}

/** A request as every route is compared with it. */
interface Missed {
  method: string
  segments: readonly string[]
  /** Its segments after `/api/{slug}`. */
  afterSlug: readonly string[]
  /** The slugs of the projects compared: a request under one of them meant that project. */
  slugs: ReadonlySet<string>
  limit: number
  table: Int32Array
}

function score(route: NearMissRoute, request: Missed, explain: boolean): Alignment | null {
  const { method, segments, slugs, limit, table } = request
  if (route.whole.patterns.length > MAX_SEGMENTS) return null
  let project: Difference | null = null
  let distance = 0
  let rest = segments
  let patterns = route.patterns
  let written = route.written
  if (route.base.length > 0) {
    const api = segments[0]
    const slug = segments[1]
    if (api === route.base[0] && slug !== undefined && route.slug !== null) {
      if (slug !== route.slug) {
        // A slug another project has was meant for that project; another word is no typo of this one.
        if (slugs.has(slug)) return null
        const typo = typoDistance(slug, route.slug)
        if (typo === null) return null
        project = { what: 'project', at: 1, expected: route.slug, received: slug, text: `project "${slug}", expected "${route.slug}"` }
        distance += typo
      }
      rest = request.afterSlug
    } else {
      // Not under `/api/{slug}`: the whole path is compared with where the route is served.
      patterns = route.whole.patterns
      written = route.whole.written
    }
  }
  // The fewest differences the lengths allow (a `**` takes any number of segments): most routes stop here.
  const restAt = patterns.findIndex((pattern) => pattern.kind === 'rest')
  const fixed = restAt >= 0 ? restAt : patterns.length
  const before = project === null ? 0 : 1
  if ((restAt >= 0 ? Math.max(0, fixed - rest.length) : Math.abs(fixed - rest.length)) + before > limit) return null
  const aligned = align(rest, patterns, written, segments.length - rest.length, explain, table)
  const methodDiffers = !sameMethod(route.method, method)
  const differences = explain ? [
    ...(methodDiffers ? [{ what: 'method' as const, expected: route.method, received: method, text: `method ${method}, expected ${route.method}` }] : []),
    ...(project === null ? [] : [project]),
    ...aligned.differences,
  ] : []
  const pathAgrees = aligned.cost === 0
  return {
    cost: aligned.cost + before + (methodDiffers ? 1 : 0),
    differences,
    equal: aligned.equal,
    // All of the path but the slug's spelling agreeing counts as something in common, as a typo does.
    similar: aligned.similar + (pathAgrees ? 1 : 0),
    distance: distance + aligned.distance,
  }
}

/**
 * The endpoints closest to a request no endpoint matched, closest first: at most 3, none when
 * nothing is close. Close means at most max(2, half the request's segments) differences, and
 * something in common besides the project: an equal or near-equal segment of the route's path
 * (a leading `api` aside), or all of it (only the method or the slug's spelling differ). Ranked by
 * differences, then equal segments, then letters apart. Work: the first MAX_ROUTES
 * routes × the request's segments, on misses only; differences are built for the 3 shown.
 */
export function nearMisses(routes: readonly NearMissRoute[], method: string, segments: readonly string[]): NearMiss[] {
  if (segments.length > MAX_SEGMENTS) return []
  const examined = routes.length > MAX_ROUTES ? routes.slice(0, MAX_ROUTES) : routes
  const slugs = new Set<string>()
  for (const route of examined) if (route.slug !== null) slugs.add(route.slug)
  const limit = Math.max(2, Math.ceil(segments.length / 2))
  const request: Missed = { method, segments, afterSlug: segments.slice(2), slugs, limit, table: tableFor(MAX_SEGMENTS, MAX_SEGMENTS) }
  const rank = (a: Scored, b: Scored) => a.cost - b.cost || b.equal - a.equal || a.distance - b.distance || a.order - b.order
  // The best SHOWN so far, kept sorted: ranking the rest builds nothing.
  const best: Scored[] = []
  examined.forEach((route, order) => {
    const aligned = score(route, request, false)
    if (aligned === null || aligned.cost === 0 || aligned.cost > limit || (aligned.equal === 0 && aligned.similar === 0)) return
    const scored: Scored = Object.assign(aligned, { route, order })
    if (best.length === SHOWN && rank(scored, best[SHOWN - 1]!) >= 0) return
    best.push(scored)
    best.sort(rank)
    if (best.length > SHOWN) best.pop()
  })
  return best.map(({ route }) => ({
    endpointId: route.endpointId,
    method: route.method,
    path: `${route.base.map((segment) => `/${segment}`).join('')}${route.path.startsWith('/') ? route.path : `/${route.path}`}`,
    differences: score(route, request, true)!.differences,
  }))
}
