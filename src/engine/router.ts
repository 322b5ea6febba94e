import { matchMixed, paramNames, parseRoutePath, segmentKey, type SegmentPart, type SegmentPattern } from './path-pattern.ts'

/**
 * Matches request paths against endpoint paths like `/api/posts/:id`, `/files/:name.json`,
 * `/assets/*` or `/docs/**`. At each segment, from the left, the most specific pattern is tried
 * first: a literal, then a mixed segment (more literal text first), then a parameter or `*`, then
 * `**` (which also answers zero segments, after a route of its own). When the first matching path
 * lacks the method, later matches are tried before answering 405, so `/api/users/me` (GET) and
 * `/api/users/:id` (DELETE) both work; the 405's `Allow` lists the methods of every route matching
 * the path. HEAD is answered by a path's GET unless the path has its own HEAD (as HTTP requires of
 * GET resources), so `Allow` names HEAD wherever it names GET.
 *
 * The walk backtracks, but every node of the tree sits at one depth and is reached by one path,
 * so a match visits each node at most once: its cost is bounded by the routes' tree (a mixed
 * segment's test being linear in the segment), whatever the routes or the request.
 */
export interface Route<T> {
  method: string
  /** Path segments as written (`:name`, `*`, `**`, `:name.json`). */
  segments: string[]
  value: T
}

interface Entry<T> {
  value: T
  paramNames: string[]
}

interface Node<T> {
  literals: Map<string, Node<T>>
  mixed: { key: string; parts: SegmentPart[]; node: Node<T> }[]
  param: Node<T> | null
  /** `**`: the routes answering whatever is left of the path. */
  rest: Map<string, Entry<T>> | null
  methods: Map<string, Entry<T>>
}

export type RouteMatch<T> =
  | { kind: 'found'; value: T; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' }

function createNode<T>(): Node<T> {
  return { literals: new Map(), mixed: [], param: null, rest: null, methods: new Map() }
}

export function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '')
}

export interface Router<T> {
  match(method: string, segments: readonly string[]): RouteMatch<T>
}

const literalLength = (parts: readonly SegmentPart[]) => parts.reduce((sum, part) => sum + (part.kind === 'literal' ? part.text.length : 0), 0)
const paramCount = (parts: readonly SegmentPart[]) => parts.filter((part) => part.kind === 'param').length

/** More literal text first, then fewer parameters; otherwise in the order added. */
function byMixedSpecificity(a: { parts: SegmentPart[] }, b: { parts: SegmentPart[] }): number {
  return literalLength(b.parts) - literalLength(a.parts) || paramCount(a.parts) - paramCount(b.parts)
}

function childFor<T>(node: Node<T>, pattern: SegmentPattern): Node<T> {
  switch (pattern.kind) {
    case 'literal': {
      let next = node.literals.get(pattern.text)
      if (!next) node.literals.set(pattern.text, (next = createNode<T>()))
      return next
    }
    case 'mixed': {
      const key = segmentKey(pattern)
      let found = node.mixed.find((m) => m.key === key)
      if (!found) {
        found = { key, parts: pattern.parts, node: createNode<T>() }
        node.mixed.push(found)
        node.mixed.sort(byMixedSpecificity)
      }
      return found.node
    }
    default:
      return (node.param ??= createNode<T>())
  }
}

/** The methods answering a path, from the method maps of every route matching it, sorted. */
function allowed(pathMatches: readonly Map<string, unknown>[]): string[] {
  const methods = new Set<string>()
  for (const map of pathMatches) for (const method of map.keys()) methods.add(method)
  if (methods.has('GET')) methods.add('HEAD')
  return [...methods].sort()
}

export function createRouter<T>(routes: Iterable<Route<T>>): Router<T> {
  const root = createNode<T>()
  for (const route of routes) {
    const patterns = parseRoutePath(route.segments.join('/'))
    const entry = { value: route.value, paramNames: paramNames(patterns) }
    let node = root
    let restAt = patterns.findIndex((p) => p.kind === 'rest')
    if (restAt < 0) restAt = patterns.length
    for (const pattern of patterns.slice(0, restAt)) node = childFor(node, pattern)
    // A `**` before the end is refused by the path rules; a stored one answers as if it ended there.
    const methods = restAt < patterns.length ? (node.rest ??= new Map()) : node.methods
    if (!methods.has(route.method)) methods.set(route.method, entry)
  }

  const entryIn = (methods: Map<string, Entry<T>> | null, method: string) =>
    methods?.get(method) ?? (method === 'HEAD' ? methods?.get('GET') : undefined)

  return {
    match(method, segments) {
      const captured: string[] = []
      // The method maps of the paths matched without the method: recorded only on the way to a 405.
      const pathMatches: Map<string, Entry<T>>[] = []
      const tryRest = (node: Node<T>, index: number): { entry: Entry<T>; values: string[] } | null => {
        if (!node.rest) return null
        const entry = entryIn(node.rest, method)
        if (entry) return { entry, values: [...captured, segments.slice(index).join('/')] }
        pathMatches.push(node.rest)
        return null
      }
      const walk = (node: Node<T>, index: number): { entry: Entry<T>; values: string[] } | null => {
        if (index === segments.length) {
          if (node.methods.size > 0) {
            const entry = entryIn(node.methods, method)
            if (entry) return { entry, values: [...captured] }
            pathMatches.push(node.methods)
          }
          return tryRest(node, index)
        }
        const segment = segments[index]!
        const literal = node.literals.get(segment)
        if (literal) {
          const found = walk(literal, index + 1)
          if (found) return found
        }
        for (const mixed of node.mixed) {
          const values = matchMixed(mixed.parts, segment)
          if (!values) continue
          captured.push(...values)
          const found = walk(mixed.node, index + 1)
          captured.length -= values.length
          if (found) return found
        }
        if (node.param) {
          captured.push(segment)
          const found = walk(node.param, index + 1)
          captured.pop()
          if (found) return found
        }
        return tryRest(node, index)
      }
      const found = walk(root, 0)
      if (found) {
        const params: Record<string, string> = {}
        found.entry.paramNames.forEach((name, i) => {
          // An own property even for a parameter named `__proto__`.
          if (name === '__proto__') Object.defineProperty(params, name, { value: found.values[i]!, enumerable: true, writable: true, configurable: true })
          else params[name] = found.values[i]!
        })
        return { kind: 'found', value: found.entry.value, params }
      }
      if (pathMatches.length > 0) return { kind: 'method-not-allowed', allow: allowed(pathMatches) }
      return { kind: 'not-found' }
    },
  }
}
