import type { H3Event } from 'h3'
import type { IncomingMessage } from 'node:http'
import { keptBody } from '../domain/journal.ts'
import { BODY_CAPTURE, readRawBody, type BodyCapture } from './body.ts'

/** From here on `readRawBody` keeps what it reads of this request, for the journal. */
export function startCapture(event: H3Event): BodyCapture {
  const body: BodyCapture = { read: false, bytes: null }
  event.context[BODY_CAPTURE] = body
  return body
}

/**
 * Node's own header list, referenced rather than copied (the array outlives its request without
 * keeping the socket); without a socket (`RunningServer.fetch`) a copy of the Headers.
 */
export function rawHeadersOf(event: H3Event): readonly string[] {
  const node = (event.req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req
  if (node) return node.rawHeaders
  const lines: string[] = []
  for (const [name, value] of event.req.headers) lines.push(name, value)
  return lines
}

function declaredLength(event: H3Event): number {
  return Number(event.req.headers.get('content-length') ?? 0) || 0
}

/**
 * Reads the body answering did not need (a simulated error, a fixed answer), so the journal shows
 * it: only a declared length within the limit, so a body cut short or too large never stalls the
 * connection. Null (no promise) when there is nothing to read: most requests.
 */
export function readUnread(event: H3Event, capture: BodyCapture, bodyLimit: number): Promise<unknown> | null {
  if (capture.read) return null
  const declared = declaredLength(event)
  if (declared <= 0 || declared > bodyLimit) return null
  return readRawBody(event, bodyLimit).catch(() => null)
}

/** What the journal keeps of the request body: the first 64 KiB, and the whole size (declared, when it was never read whole). */
export function capturedBody(event: H3Event, capture: BodyCapture): { body: Uint8Array | null; bodySize: number } {
  const bytes = capture.bytes
  return { body: keptBody(bytes), bodySize: bytes ? bytes.byteLength : declaredLength(event) }
}
