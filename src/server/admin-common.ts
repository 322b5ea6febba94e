import { getRouterParam, type H3, type H3Event } from 'h3'
import { authorizeProject, verifyBearer } from '../domain/auth.ts'
import type { Context } from '../domain/context.ts'
import type { Journal } from '../domain/journal.ts'
import type { RequestStats } from '../engine/stats-requests.ts'
import { AppError } from '../errors.ts'
import type { MockEvents } from '../events.ts'
import type { Project } from '../model.ts'
import { withPreflight } from './cors.ts'

export interface AdminDeps {
  context: Context
  events: MockEvents
  bodyLimit: number
  /** Every mock request per project; null when `serve --journal 0` keeps none. */
  journal: Journal | null
  /** Aborted when the server closes: live streams end then. */
  signal: AbortSignal
  /** The port gRPC methods are served on; null while nothing listens for gRPC. */
  grpcPort: () => number | null
  /** The project served at its own paths, whose stats count requests no project's path names. */
  ownPathsProject: () => Project | null
  /** The requests counted since the server started (`countServedRequests`), for `…/stats`. */
  requests: RequestStats
}

/** Checks the token, then the project of the path; the event stream may take the token as `?access_token=`. */
export type Authorize = (event: H3Event, options?: { queryToken?: boolean }) => Promise<Project>

/** A management API route: any method reaches `handler`, but a CORS preflight is answered first. */
export function route(app: H3, path: string, handler: (event: H3Event) => unknown): void {
  app.all(path, withPreflight(handler))
}

/** GET, or HEAD (answered as GET; Node sends no body for it). */
export function isRead(event: H3Event): boolean {
  return event.req.method === 'GET' || event.req.method === 'HEAD'
}

export function notAllowed(event: H3Event, allow: string[]): never {
  throw new AppError('METHOD_NOT_ALLOWED', `${event.req.method} is not allowed here; allowed: ${allow.join(', ')}`, {
    headers: { Allow: allow.join(', ') },
  })
}

/** The `Authorization` header, or (where allowed: `EventSource` cannot set headers) the `access_token` query parameter. */
export function bearerOf(event: H3Event, queryToken = false): string | null {
  const header = event.req.headers.get('authorization')
  if (header !== null || !queryToken) return header
  const token = event.url.searchParams.get('access_token')
  return token ? `Bearer ${token}` : null
}

export function createAuthorize(context: Context): Authorize {
  return async (event, options = {}) => {
    const claims = await verifyBearer(context, bearerOf(event, options.queryToken))
    return authorizeProject(context, claims, getRouterParam(event, 'projectId') ?? '')
  }
}

/** A path parameter, percent-decoded (`/records/a%2Fb` is the record "a/b", as on the mock routes). */
export function pathParam(event: H3Event, name: string): string {
  const raw = getRouterParam(event, name) ?? ''
  if (!raw.includes('%')) return raw
  try {
    return decodeURIComponent(raw)
  } catch {
    throw new AppError('BAD_REQUEST', `path parameter "${raw}" has a malformed percent-encoding`)
  }
}
