import { STATUS_CODES } from 'node:http'
// srvx (h3's server layer) writes its Response straight to Node: far cheaper than undici's.
import { FastResponse } from 'srvx'
import { AppError, codeForStatus, toErrorBody } from '../errors.ts'
import { storeFaultError } from '../store/db.ts'
import { CORS_HEADERS } from './cors.ts'

const JSON_TYPE = 'application/json; charset=utf-8'
/** Every 401 names the scheme that would succeed (RFC 9110 §11.6.1). */
export const AUTH_CHALLENGE = 'Bearer realm="mockapi"'
const NO_BODY = new Set([204, 205, 304])

export function textResponse(status: number, body: string | Uint8Array | null, headers?: Record<string, string>): Response {
  const sent = NO_BODY.has(status) ? null : body
  const all: Record<string, string> = {
    'Access-Control-Allow-Origin': CORS_HEADERS['Access-Control-Allow-Origin']!,
    'Access-Control-Expose-Headers': CORS_HEADERS['Access-Control-Expose-Headers']!,
  }
  const length = sent === null ? 0 : typeof sent === 'string' ? Buffer.byteLength(sent) : sent.byteLength
  // No body, no type (as Mockoon and WireMock answer): a client that parses by Content-Type
  // (`response.json()`) would fail on an empty body labelled JSON. A type in `headers` is still sent.
  if (length > 0) all['Content-Type'] = JSON_TYPE
  if (sent !== null) all['Content-Length'] = String(length)
  if (headers) {
    // One header however it is spelled: a later `content-type` replaces an earlier `Content-Type`
    // (the default, or a record answer's own), else Node would send both.
    const spelled = new Map(Object.keys(all).map((name) => [name.toLowerCase(), name]))
    for (const [name, value] of Object.entries(headers)) {
      const earlier = spelled.get(name.toLowerCase())
      if (earlier !== undefined && earlier !== name) delete all[earlier]
      spelled.set(name.toLowerCase(), name)
      all[name] = value
    }
  }
  // An empty string would be labelled text/plain by the Response itself.
  return new FastResponse(length > 0 ? sent : null, { status, statusText: STATUS_CODES[status] ?? '', headers: all })
}

export function jsonResponse(status: number, value: unknown, headers: Record<string, string> = {}): Response {
  return textResponse(status, JSON.stringify(value), headers)
}

/**
 * Anything thrown, as our AppError: h3's own errors keep their status, a database another process
 * holds is 503 STORE_BUSY (with Retry-After), one that cannot be written 503 STORE_UNAVAILABLE,
 * the rest INTERNAL.
 */
export function toAppError(error: unknown): AppError {
  const seen = new Set<unknown>()
  let current: unknown = error
  while (current && !seen.has(current)) {
    seen.add(current)
    if (current instanceof AppError) return current
    const fault = storeFaultError(current)
    if (fault) return fault
    const cause = (current as { cause?: unknown }).cause
    if (cause === undefined) break
    current = cause
  }
  const status = (error as { status?: unknown })?.status
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const message = (error as Error).message || 'bad request'
    return new AppError(codeForStatus(status), message)
  }
  return new AppError('INTERNAL', 'internal error')
}

/** The one place an error becomes the project's JSON error body. */
export function errorResponse(error: unknown, options: { debug?: boolean } = {}): Response {
  const appError = toAppError(error)
  if (appError.code === 'INTERNAL' && options.debug) console.error(error)
  return jsonResponse(appError.status, toErrorBody(appError), appError.code === 'UNAUTHORIZED' ? { 'WWW-Authenticate': AUTH_CHALLENGE, ...appError.headers } : (appError.headers ?? {}))
}
