import { assertBodySize, type H3Event } from 'h3'
import { AppError } from '../errors.ts'

export const DEFAULT_BODY_LIMIT = 1024 * 1024

const decoder = new TextDecoder('utf-8', { fatal: true })

export function isJsonContentType(contentType: string | null): boolean {
  if (!contentType) return false
  const mime = contentType.split(';', 1)[0]!.trim().toLowerCase()
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'))
}

/** The raw request body, refused past `limit` bytes whether or not Content-Length was sent. */
export async function readRawBody(event: H3Event, limit: number): Promise<Uint8Array> {
  try {
    assertBodySize(event, limit)
    return new Uint8Array(await event.req.arrayBuffer())
  } catch (error) {
    const status = (error as { status?: number }).status ?? (error as { cause?: { status?: number } }).cause?.status
    if (status === 413) throw new AppError('PAYLOAD_TOO_LARGE', `request body is larger than the limit of ${limit} bytes`)
    throw error
  }
}

export function parseJson(bytes: Uint8Array): unknown {
  let text: string
  try {
    text = decoder.decode(bytes)
  } catch {
    throw new AppError('INVALID_JSON', 'request body is not valid UTF-8')
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new AppError('INVALID_JSON', `request body is not valid JSON: ${(error as Error).message}`)
  }
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
