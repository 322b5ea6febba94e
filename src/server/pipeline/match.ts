import type { Catalog, ProtocolRoute, RoutedEndpoint } from '../../domain/catalog.ts'
import type { MockRequest } from '../../engine/exchange.ts'
import { AppError } from '../../errors.ts'
import type { Project } from '../../model.ts'

/** The match stage's output: an endpoint with its path parameters, an operations route (GraphQL, SOAP), or why nothing answers. */
export type Match =
  | { kind: 'endpoint'; project: Project; route: RoutedEndpoint; params: Record<string, string> }
  | { kind: 'operations'; project: Project; route: ProtocolRoute }
  /** `project`: whose route was missed (under `/api/{slug}`), else null; `segments`: the path decoded, for the near misses. */
  | { kind: 'unmatched'; project: Project | null; error: AppError; segments: readonly string[] }

function decodeSegments(pathname: string): string[] {
  const segments = pathname.split('/').filter(Boolean)
  if (!pathname.includes('%')) return segments
  try {
    return segments.map(decodeURIComponent)
  } catch {
    throw new AppError('BAD_REQUEST', `path "${pathname}" has a malformed percent-encoding`)
  }
}

/** Finds what answers a request in the route catalog; throws only for a path that cannot be decoded. */
export function matchRequest(catalog: Catalog, request: Pick<MockRequest, 'method' | 'url'>): Match {
  const { method, url } = request
  const segments = decodeSegments(url.pathname)
  const resolution = catalog.resolve(method, segments)
  switch (resolution.kind) {
    case 'found':
      return { kind: 'endpoint', project: resolution.project, route: resolution.route, params: resolution.params }
    case 'protocol':
      return { kind: 'operations', project: resolution.project, route: resolution.route }
    case 'method-not-allowed': {
      const allow = resolution.allow.join(', ')
      const error = new AppError('METHOD_NOT_ALLOWED', `${method} is not allowed on ${url.pathname}; allowed: ${allow}`, { headers: { Allow: allow } })
      return { kind: 'unmatched', project: resolution.project, error, segments }
    }
    case 'not-found':
      return { kind: 'unmatched', project: resolution.project, error: new AppError('ROUTE_NOT_MATCHED', `no mock endpoint matches ${method} ${url.pathname}`), segments }
  }
}
