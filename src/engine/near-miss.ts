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
}

export function nearMissRoute(route: Pick<NearMissRoute, 'endpointId' | 'method' | 'base' | 'slug' | 'path'>): NearMissRoute {
  return { ...route, patterns: parseRoutePath(route.path), written: splitPath(route.path) }
}

/** A project over this many routes is compared with its first ones only: a miss costs at most this. */
export const MAX_ROUTES = 5_000
/** Paths longer than this (in segments) are not compared: no endpoint is close to them. */
const MAX_SEGMENTS = 32
/** How many near misses a request gets (as WireMock shows). */
const SHOWN = 3
/** Longer segments are not compared letter by letter: they are as far apart as they are long. */
const MAX_COMPARED_LENGTH = 32

/** Letters to change, add or remove to go from one segment to the other (Levenshtein), on short segments only. */
function editDistance(a: string, b: string): number {
  if (a.length > MAX_COMPARED_LENGTH || b.length > MAX_COMPARED_LENGTH) return Math.max(a.length, b.length)
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i]
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

/** A typo rather than another word: at most a third of the letters differ (one, for short words). */
function isSimilar(received: string, expected: string): { similar: boolean; distance: number } {
  const distance = editDistance(received, expected)
  return { similar: distance <= Math.max(1, Math.floor(Math.max(received.length, expected.length) / 3)), distance }
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
  cost: number
  differences: Difference[]
  /** Literal segments equal, and differing ones that look like typos. */
  equal: number
  similar: number
  /** Letters apart across differing literal segments: ranks typos before other words. */
  distance: number
}

/**
 * Aligns request segments with route patterns at the fewest differences: a segment that matches
 * costs 0, a differing one 1, a missing or extra one 1, and `**` takes whatever is left. `at`
 * counts from the first of `segments`; the text counts in the whole path, `skipped` segments
 * (a project's `/api/{slug}`) coming first. Work: segments × patterns.
 */
function align(segments: readonly string[], patterns: readonly SegmentPattern[], written: readonly string[], skipped = 0): Alignment {
  const n = segments.length
  const m = patterns.length
  // cost[i][j]: the fewest differences aligning segments[i..] with patterns[j..].
  const cost: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0))
  for (let i = n; i >= 0; i -= 1) {
    for (let j = m; j >= 0; j -= 1) {
      const pattern = patterns[j]
      if (j === m) cost[i]![j] = n - i
      else if (pattern!.kind === 'rest') cost[i]![j] = 0
      else if (i === n) cost[i]![j] = 1 + cost[i]![j + 1]!
      else {
        const here = segmentMatches(pattern!, segments[i]!) ? 0 : 1
        cost[i]![j] = Math.min(here + cost[i + 1]![j + 1]!, 1 + cost[i + 1]![j]!, 1 + cost[i]![j + 1]!)
      }
    }
  }
  const result: Alignment = { cost: cost[0]![0]!, differences: [], equal: 0, similar: 0, distance: 0 }
  let i = 0
  let j = 0
  while (i < n || j < m) {
    const pattern = patterns[j]
    if (pattern?.kind === 'rest') break
    const segment = segments[i]
    if (pattern !== undefined && segment !== undefined) {
      const here = segmentMatches(pattern, segment) ? 0 : 1
      if (cost[i]![j] === here + cost[i + 1]![j + 1]!) {
        if (here === 0) {
          if (pattern.kind === 'literal') result.equal += 1
        } else {
          const expected = written[j]!
          if (pattern.kind === 'literal') {
            const { similar, distance } = isSimilar(segment, pattern.text)
            if (similar) result.similar += 1
            result.distance += distance
          }
          result.differences.push({ what: 'segment', at: i, expected, received: segment, text: `segment ${skipped + i} is "${segment}", expected "${expected}"` })
        }
        i += 1
        j += 1
        continue
      }
    }
    if (segment !== undefined && cost[i]![j] === 1 + cost[i + 1]![j]!) {
      result.differences.push({ what: 'length', at: i, expected: '', received: segment, text: `extra segment "${segment}"` })
      i += 1
    } else {
      result.differences.push({ what: 'length', at: i, expected: written[j]!, received: null, text: `missing segment "${written[j]!}"` })
      j += 1
    }
  }
  return result
}

/** What differs between a request's path and a path pattern, segment by segment (a journal filter's `path`). */
export function pathDifferences(pattern: string, segments: readonly string[]): Difference[] {
  if (segments.length > MAX_SEGMENTS) return [{ what: 'length', expected: pattern, received: `${segments.length} segments`, text: `path has ${segments.length} segments, not compared with ${pattern}` }]
  return align(segments, parseRoutePath(pattern), splitPath(pattern)).differences
}

const sameMethod = (route: string, request: string) => route === request || (request === 'HEAD' && route === 'GET')

interface Scored extends Alignment {
  route: NearMissRoute
  order: number
}

function score(route: NearMissRoute, method: string, segments: readonly string[], slugs: ReadonlySet<string>, limit: number): Alignment | null {
  if (route.patterns.length > MAX_SEGMENTS) return null
  const before: Difference[] = []
  let equal = 0
  let similar = 0
  let distance = 0
  let rest = segments
  let patterns = route.patterns
  let written = route.written
  if (route.base.length > 0) {
    const [api, slug] = segments
    if (api === route.base[0] && slug !== undefined && route.slug !== null) {
      if (slug !== route.slug) {
        // A slug another project has was meant for that project; another word is no typo of this one.
        const typo = isSimilar(slug, route.slug)
        if (slugs.has(slug) || !typo.similar) return null
        before.push({ what: 'project', at: 1, expected: route.slug, received: slug, text: `project "${slug}", expected "${route.slug}"` })
        similar += 1
        distance += typo.distance
      } else equal += 1
      rest = segments.slice(2)
    } else {
      // Not under `/api/{slug}`: the whole path is compared with where the route is served.
      patterns = [...route.base.map((text) => ({ kind: 'literal' as const, text })), ...route.patterns]
      written = [...route.base, ...route.written]
    }
  }
  const hasRest = patterns.at(-1)?.kind === 'rest'
  const fixed = hasRest ? patterns.length - 1 : patterns.length
  const atLeast = (hasRest ? Math.max(0, fixed - rest.length) : Math.abs(fixed - rest.length)) + before.length
  if (atLeast > limit) return null
  const aligned = align(rest, patterns, written, segments.length - rest.length)
  if (!sameMethod(route.method, method)) before.unshift({ what: 'method', expected: route.method, received: method, text: `method ${method}, expected ${route.method}` })
  return {
    cost: aligned.cost + before.length,
    differences: [...before, ...aligned.differences],
    equal: equal + aligned.equal,
    similar: similar + aligned.similar,
    distance: distance + aligned.distance,
  }
}

/**
 * The endpoints closest to a request no endpoint matched, closest first: at most 3, none when
 * nothing is close. Close means at most max(2, half the request's segments) differences, and
 * something in common: an equal or near-equal segment, or the whole path (only the method
 * differs). Work: the first MAX_ROUTES routes × the request's segments, on misses only.
 */
export function nearMisses(routes: readonly NearMissRoute[], method: string, segments: readonly string[]): NearMiss[] {
  if (segments.length > MAX_SEGMENTS) return []
  const examined = routes.length > MAX_ROUTES ? routes.slice(0, MAX_ROUTES) : routes
  const slugs = new Set<string>()
  for (const route of examined) if (route.slug !== null) slugs.add(route.slug)
  const limit = Math.max(2, Math.ceil(segments.length / 2))
  const close: Scored[] = []
  examined.forEach((route, order) => {
    const scored = score(route, method, segments, slugs, limit)
    if (scored === null || scored.cost === 0 || scored.cost > limit) return
    const pathAgrees = scored.differences.every((difference) => difference.what === 'method')
    if (pathAgrees || scored.equal > 0 || scored.similar > 0) close.push({ ...scored, route, order })
  })
  close.sort((a, b) => a.cost - b.cost || b.equal - a.equal || a.distance - b.distance || a.order - b.order)
  return close.slice(0, SHOWN).map(({ route, differences }) => ({
    endpointId: route.endpointId,
    method: route.method,
    path: `${route.base.map((segment) => `/${segment}`).join('')}${route.path.startsWith('/') ? route.path : `/${route.path}`}`,
    differences,
  }))
}
