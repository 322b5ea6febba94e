import { STATUS_CODES } from 'node:http'
// srvx (h3's server layer) writes its Response straight to Node: far cheaper than undici's.
import { FastResponse } from 'srvx'
import { AppError, codeForStatus, toErrorBody } from '../errors.ts'
import { storeFaultError } from '../store/db.ts'
import type { MockAnswer } from '../engine/exchange.ts'
import { CORS_HEADERS } from './cors.ts'

const JSON_TYPE = 'application/json; charset=utf-8'
/** Every 401 names the scheme that would succeed (RFC 9110 §11.6.1). */
export const AUTH_CHALLENGE = 'Bearer realm="mockapi"'
const NO_BODY = new Set([204, 205, 304])

function byteLength(body: string | Uint8Array | null): number {
  return body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
}

/** The headers an answer goes out with: CORS, a JSON Content-Type when it has a body and says no other type, its length. */
function sentHeaders(sent: string | Uint8Array | null, length: number, headers: Record<string, string> | undefined): Record<string, string> {
  const all: Record<string, string> = {
    'Access-Control-Allow-Origin': CORS_HEADERS['Access-Control-Allow-Origin']!,
    'Access-Control-Expose-Headers': CORS_HEADERS['Access-Control-Expose-Headers']!,
  }
  // No body, no type (as Mockoon and WireMock answer): a client that parses by Content-Type
  // (`response.json()`) would fail on an empty body labelled JSON. A type in `headers` is still sent.
  if (length > 0) all['Content-Type'] = JSON_TYPE
  if (sent !== null) all['Content-Length'] = String(length)
  if (headers) {
    // One header however it is spelled: a later `content-type` replaces an earlier `Content-Type`
    // (the default, or a record answer's own), else Node would send both. A few names each: a
    // loop over them, not a map built per answer; lower-cased only when the lengths match, since
    // each lower-casing of a name with capitals makes a new string, on every answer.
    for (const name in headers) {
      let lower: string | null = null
      for (const earlier in all) {
        if (earlier.length !== name.length || earlier === name) continue
        lower ??= name.toLowerCase()
        if (earlier.toLowerCase() === lower) delete all[earlier]
      }
      all[name] = headers[name]!
    }
  }
  return all
}

/** A mock answer as the response it is, with the headers and body that go out (the journal keeps them as they are). */
export function answerResponse(answer: MockAnswer): { response: Response; headers: Record<string, string>; body: string | Uint8Array | null; size: number } {
  const body = NO_BODY.has(answer.status) ? null : answer.body
  // Counted once: a whole collection's text is long to count.
  const size = byteLength(body)
  const headers = sentHeaders(body, size, answer.headers)
  // An empty string would be labelled text/plain by the Response itself.
  const sent = size > 0 ? body : null
  return { response: new FastResponse(sent, { status: answer.status, statusText: STATUS_CODES[answer.status] ?? '', headers }), headers, body, size }
}

export function textResponse(status: number, body: string | Uint8Array | null, headers?: Record<string, string>): Response {
  return answerResponse({ status, body, headers: headers ?? {} }).response
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
export function errorAnswer(error: unknown, options: { debug?: boolean } = {}): MockAnswer {
  const appError = toAppError(error)
  if (appError.code === 'INTERNAL' && options.debug) console.error(error)
  const headers = appError.code === 'UNAUTHORIZED' ? { 'WWW-Authenticate': AUTH_CHALLENGE, ...appError.headers } : (appError.headers ?? {})
  return { status: appError.status, headers, body: JSON.stringify(toErrorBody(appError)) }
}

export function errorResponse(error: unknown, options: { debug?: boolean } = {}): Response {
  return answerResponse(errorAnswer(error, options)).response
}
