import type { H3Event } from 'h3'
import { isTextual } from '../engine/media-type.ts'
import type { Clock } from '../model.ts'
import { BODY_CAPTURE, readRawBody, type BodyCapture } from './body.ts'
import type { LoggedExchange } from './pipeline/record.ts'

/** Bodies in the request log are cut here. */
export const MAX_LOGGED_BODY = 64 * 1024

// Not fatal: a binary or cut body shows with replacement characters rather than not at all.
const decoder = new TextDecoder()

/**
 * Body bytes as text, cut at 64 KiB; null when there are none. A body whose Content-Type is not
 * text (an image, a PDF) shows as what it is, `(binary, 1234 bytes, image/png)`, not as mojibake.
 */
export function loggedBody(bytes: Uint8Array | null, contentType: string | null = null): string | null {
  if (!bytes || bytes.byteLength === 0) return null
  if (!isTextual(contentType)) return `(binary, ${bytes.byteLength} bytes, ${contentType!.split(';', 1)[0]!.trim()})`
  return decoder.decode(bytes.byteLength > MAX_LOGGED_BODY ? bytes.subarray(0, MAX_LOGGED_BODY) : bytes)
}

export interface Capture {
  time: string
  body: BodyCapture
}

/** Called only while the request log listens: from here on `readRawBody` keeps what it reads. */
export function startCapture(event: H3Event, clock: Clock): Capture {
  const body: BodyCapture = { read: false, bytes: null }
  event.context[BODY_CAPTURE] = body
  return { time: clock.now().toISOString(), body }
}

/**
 * The request body, read now if answering did not need it (a simulated error, a fixed answer):
 * only a declared length within the limit, so a body cut short or too large never stalls the
 * connection.
 */
async function requestBody(event: H3Event, capture: Capture, bodyLimit: number): Promise<string | null> {
  if (!capture.body.read) {
    const declared = Number(event.req.headers.get('content-length') ?? 0)
    if (declared > 0 && declared <= bodyLimit) await readRawBody(event, bodyLimit).catch(() => null)
  }
  return loggedBody(capture.body.bytes, event.req.headers.get('content-type'))
}

async function responseBody(response: Response): Promise<string | null> {
  try {
    return loggedBody(new Uint8Array(await response.clone().arrayBuffer()), response.headers.get('content-type'))
  } catch {
    return null
  }
}

/** What the request log shows of one answered HTTP mock request: headers, and bodies cut at 64 KiB. */
export async function capturedExchange(event: H3Event, capture: Capture, bodyLimit: number, response: Response): Promise<LoggedExchange> {
  const [requestText, responseText] = await Promise.all([requestBody(event, capture, bodyLimit), responseBody(response)])
  return {
    time: capture.time,
    request: { headers: Object.fromEntries(event.req.headers), body: requestText },
    response: { headers: Object.fromEntries(response.headers), body: responseText },
  }
}
