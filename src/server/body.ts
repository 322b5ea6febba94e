import type { H3Event } from 'h3'
import type { IncomingMessage } from 'node:http'
import { rememberExactNumbers } from '../engine/exact-numbers.ts'
import { isJsonContentType } from '../engine/media-type.ts'
import { AppError } from '../errors.ts'

export const DEFAULT_BODY_LIMIT = 1024 * 1024

export { isJsonContentType }

const decoder = new TextDecoder('utf-8', { fatal: true })

function tooLarge(limit: number): AppError {
  // The rest of the body is still on the wire: this connection cannot carry another request.
  return new AppError('PAYLOAD_TOO_LARGE', `request body is larger than the limit of ${limit} bytes`, { headers: { Connection: 'close' } })
}

/** Straight from Node's stream: several times cheaper than the web-stream Request body. */
function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  const declared = Number(req.headers['content-length'])
  if (declared > limit) return Promise.reject(tooLarge(limit))
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        req.off('data', onData)
        req.pause()
        reject(tooLarge(limit))
        return
      }
      chunks.push(chunk)
    }
    req.on('data', onData)
    req.once('end', () => resolve(Buffer.concat(chunks, size)))
    req.once('error', reject)
    req.once('close', () => {
      if (!req.complete) reject(new AppError('BAD_REQUEST', 'the client closed the connection before the body was complete'))
    })
  })
}

async function readWebBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length'))
  if (declared > limit) throw tooLarge(limit)
  if (!request.body) return new Uint8Array(0)
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength
    if (size > limit) throw tooLarge(limit)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, size)
}

/**
 * Set on `event.context` by the mock handler while the journal keeps requests: `readRawBody` keeps
 * the bytes it read there, so the log shows the body without reading the stream twice.
 */
export const BODY_CAPTURE = 'mockapi:bodyCapture'

export interface BodyCapture {
  /** Reading started (whatever its outcome): the stream cannot be read again. */
  read: boolean
  bytes: Uint8Array | null
}

/** Node's request under the event; none without a socket (`RunningServer.fetch`). */
export function nodeRequestOf(event: H3Event): IncomingMessage | undefined {
  return (event.req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req
}

/** The raw request body, refused past `limit` bytes whether or not Content-Length was sent. */
export function readRawBody(event: H3Event, limit: number): Promise<Uint8Array> {
  const node = nodeRequestOf(event)
  const reading = node ? readNodeBody(node, limit) : readWebBody(event.req, limit)
  const capture = event.context[BODY_CAPTURE] as BodyCapture | undefined
  if (capture) {
    capture.read = true
    reading.then((bytes) => (capture.bytes = bytes), () => {})
  }
  return reading
}

/** The body as text; bytes that are not UTF-8 are refused with `code` (400). */
export function utf8Text(bytes: Uint8Array, code: 'BAD_REQUEST' | 'INVALID_JSON' = 'BAD_REQUEST'): string {
  try {
    return decoder.decode(bytes)
  } catch {
    throw new AppError(code, 'request body is not valid UTF-8')
  }
}

export function parseJson(bytes: Uint8Array): unknown {
  const text = utf8Text(bytes, 'INVALID_JSON')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new AppError('INVALID_JSON', `request body is not valid JSON: ${(error as Error).message}`)
  }
  // A record stored from this body keeps numbers past a double's precision as they were sent.
  rememberExactNumbers(value, text)
  return value
}

/**
 * Reads a body that must be JSON: empty → undefined (the caller decides), another content
 * type → 415, too large → 413, malformed → 400.
 */
export async function readJsonBody(event: H3Event, limit: number): Promise<unknown> {
  const bytes = await readRawBody(event, limit)
  if (bytes.byteLength === 0) return undefined
  if (!isJsonContentType(event.req.headers.get('content-type'))) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'request body must be JSON (Content-Type: application/json)')
  }
  return parseJson(bytes)
}
