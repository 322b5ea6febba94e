/**
 * Matches request paths against endpoint paths like `/api/posts/:id`. Literal segments beat
 * parameters; when the first matching path lacks the method, later matches are tried before
 * answering 405, so `/api/users/me` (GET) and `/api/users/:id` (DELETE) both work. HEAD is
 * answered by a path's GET unless the path has its own HEAD (as HTTP requires of GET resources).
 */
export interface Route<T> {
  method: string
  /** Path segments, `:name` for a parameter. */
  segments: string[]
  value: T
}

interface Node<T> {
  literals: Map<string, Node<T>>
  param: Node<T> | null
  paramName: string | null
  methods: Map<string, { value: T; paramNames: string[] }>
}

export type RouteMatch<T> =
  | { kind: 'found'; value: T; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' }

function createNode<T>(): Node<T> {
  return { literals: new Map(), param: null, paramName: null, methods: new Map() }
}

export function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '')
}

export interface Router<T> {
  match(method: string, segments: readonly string[]): RouteMatch<T>
}

export function createRouter<T>(routes: Iterable<Route<T>>): Router<T> {
  const root = createNode<T>()
  for (const route of routes) {
    let node = root
    const paramNames: string[] = []
    for (const segment of route.segments) {
      if (segment.startsWith(':')) {
        node.param ??= createNode<T>()
        node = node.param
        paramNames.push(segment.slice(1))
      } else {
        let next = node.literals.get(segment)
        if (!next) {
          next = createNode<T>()
          node.literals.set(segment, next)
        }
        node = next
      }
    }
    if (!node.methods.has(route.method)) node.methods.set(route.method, { value: route.value, paramNames })
  }

  const entryOf = (node: Node<T>, method: string) => node.methods.get(method) ?? (method === 'HEAD' ? node.methods.get('GET') : undefined)

  return {
    match(method, segments) {
      const captured: string[] = []
      let firstPathMatch: Node<T> | null = null
      const walk = (node: Node<T>, index: number): { node: Node<T>; values: string[] } | null => {
        if (index === segments.length) {
          if (node.methods.size === 0) return null
          firstPathMatch ??= node
          return entryOf(node, method) ? { node, values: [...captured] } : null
        }
        const segment = segments[index]!
        const literal = node.literals.get(segment)
        if (literal) {
          const found = walk(literal, index + 1)
          if (found) return found
        }
        if (node.param) {
          captured.push(segment)
          const found = walk(node.param, index + 1)
          captured.pop()
          if (found) return found
        }
        return null
      }
      const found = walk(root, 0)
      if (found) {
        const entry = entryOf(found.node, method)!
        const params: Record<string, string> = {}
        entry.paramNames.forEach((name, i) => {
          params[name] = found.values[i]!
        })
        return { kind: 'found', value: entry.value, params }
      }
      if (firstPathMatch) return { kind: 'method-not-allowed', allow: [...(firstPathMatch as Node<T>).methods.keys()].sort() }
      return { kind: 'not-found' }
    },
  }
}
