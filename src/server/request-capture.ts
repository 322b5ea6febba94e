import type { H3Event } from 'h3'
import { setTimeout as sleep } from 'node:timers/promises'
import { keptBody } from '../domain/journal.ts'
import { BODY_CAPTURE, nodeRequestOf, readRawBody, type BodyCapture } from './body.ts'

/** From here on `readRawBody` keeps what it reads of this request, for the journal. */
export function startCapture(event: H3Event): BodyCapture {
  const body: BodyCapture = { read: false, bytes: null }
  event.context[BODY_CAPTURE] = body
  return body
}

/** Node's own header list, as sent; without a socket (`RunningServer.fetch`) one made from the Headers. */
export function rawHeadersOf(event: H3Event): readonly string[] {
  const node = nodeRequestOf(event)
  if (node) return node.rawHeaders
  const lines: string[] = []
  for (const [name, value] of event.req.headers) lines.push(name, value)
  return lines
}

/**
 * A request header (its lower-case name) as Node parsed it: asked of every request (`Prefer`, the
 * delivery header) and every journalled one (its length), where the Headers' lookup lower-cases the
 * name and checks it against a pattern when it is absent, as it nearly always is. Without a socket,
 * the Headers'.
 */
function headerOf(event: H3Event, name: 'content-length' | 'transfer-encoding' | 'prefer' | 'x-mockapi-delivery'): string | null {
  const node = nodeRequestOf(event)
  if (!node) return event.req.headers.get(name)
  // Node gives a list for Set-Cookie alone; these it joins or keeps the first of.
  const value = node.headers[name]
  return typeof value === 'string' ? value : null
}

/** Whether the request sent the header. */
export function sentHeader(event: H3Event, name: Parameters<typeof headerOf>[1]): boolean {
  return headerOf(event, name) !== null
}

/**
 * The request's Content-Type as its Headers give it. Most requests (a GET) send none, and Node's
 * parsed headers say so without the Headers' check of the name, made on every absent one.
 */
export function contentTypeOf(event: H3Event): string | null {
  const node = nodeRequestOf(event)
  if (node && !Object.hasOwn(node.headers, 'content-type')) return null
  return event.req.headers.get('content-type')
}

function declaredLength(event: H3Event): number {
  return Number(headerOf(event, 'content-length') ?? 0) || 0
}

/** How long the answer waits for the rest of a body it did not need: a client that stops sending costs it this, then the journal keeps no body. */
export const UNREAD_BODY_WAIT_MS = 1000

/**
 * Reads the body answering did not need (an unmatched request, a simulated error, a fixed answer),
 * so the journal shows it: a declared length within the limit, or a chunked body (refused past the
 * limit as it comes). A body too large to read never is, and a client that stops sending delays its
 * answer by `UNREAD_BODY_WAIT_MS` at most. Null (no promise) when there is nothing to read: most requests.
 */
export function readUnread(event: H3Event, capture: BodyCapture, bodyLimit: number): Promise<unknown> | null {
  if (capture.read) return null
  const declared = declaredLength(event)
  if (declared > bodyLimit || (declared <= 0 && headerOf(event, 'transfer-encoding') === null)) return null
  const waiting = new AbortController()
  return Promise.race([
    readRawBody(event, bodyLimit).catch(() => null),
    sleep(UNREAD_BODY_WAIT_MS, null, { signal: waiting.signal, ref: false }).catch(() => null),
  ]).finally(() => waiting.abort())
}

/** What the journal keeps of the request body: the first 64 KiB, and the whole size (declared, when it was never read whole). */
export function capturedBody(event: H3Event, capture: BodyCapture): { body: Uint8Array | null; bodySize: number } {
  const bytes = capture.bytes
  return { body: keptBody(bytes), bodySize: bytes ? bytes.byteLength : declaredLength(event) }
}
