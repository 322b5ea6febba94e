import { FastResponse } from 'srvx'

/** CORS is open: mocks are called from front ends served on other ports. */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'X-Total-Count, Link, Allow',
}

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS'

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
