import { FastResponse } from 'srvx'

/**
 * CORS is open: mocks are called from front ends served on other ports. A 401's challenge is
 * exposed so that a front end can read which credentials to send.
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'X-Total-Count, Link, Allow, WWW-Authenticate, X-Deleted-Dependents',
}

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS'

/**
 * A route of its own (the inbox, the management API) matches before the catch-all preflight
 * route: it answers OPTIONS through this, before any method check or authentication.
 */
export function withPreflight<E extends { req: Request }>(handler: (event: E) => unknown): (event: E) => unknown {
  return (event) => (event.req.method === 'OPTIONS' ? preflightResponse(event.req) : handler(event))
}

export function preflightResponse(request: Request): Response {
  const requestedHeaders = request.headers.get('access-control-request-headers')
  return new FastResponse(null, {
    status: 204,
    headers: {
      ...CORS_HEADERS,
      'Access-Control-Allow-Methods': ALLOWED_METHODS,
      'Access-Control-Allow-Headers': requestedHeaders || 'Content-Type, Authorization, Prefer',
      'Access-Control-Max-Age': '86400',
      Vary: 'Access-Control-Request-Headers',
    },
  })
}
