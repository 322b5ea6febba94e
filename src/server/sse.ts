import { FastResponse } from 'srvx'
import { CORS_HEADERS } from './cors.ts'

/** A comment line every 15 s keeps proxies and idle timeouts from closing a quiet stream. */
export const PING_MS = 15_000
/** A client this far behind (bytes queued, unread) is dropped rather than buffered without end. */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024

const encoder = new TextEncoder()
// setTimeout fires at once past this delay (a signed 32-bit count of ms).
const MAX_TIMER_MS = 2 ** 31 - 1
const EXPIRED = JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'the token has expired' } })

/** One server-sent event; a data text with line breaks becomes several `data:` lines. */
export function formatEvent(name: string, data: string): string {
  return `event: ${name}\ndata: ${data.split(/\r\n|\r|\n/).join('\ndata: ')}\n\n`
}

export type Send = (name: string, data: string) => void

const HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  // One stream per connection: when it ends the socket goes too, so closing the server never waits on it.
  Connection: 'close',
  'Access-Control-Allow-Origin': CORS_HEADERS['Access-Control-Allow-Origin']!,
}

/** HEAD on a stream: its headers, and no stream opened. */
export function eventStreamHead(): Response {
  return new FastResponse(null, { status: 200, headers: HEADERS })
}

/**
 * A `text/event-stream` response. `open` subscribes and returns the unsubscribe, called once when
 * the client goes away, the client falls too far behind, `signal` aborts (the server closes), or
 * `endsInMs` passes (the token that opened it expires: an `expired` event is sent first), or
 * `endedBy` gives a reason (what it streams is gone: an `ended` event is sent first).
 */
/** How often `endedBy` is asked whether what the stream is about still exists. */
const RECHECK_MS = 1_000

export function eventStream(
  signal: AbortSignal,
  open: (send: Send) => () => void,
  options: {
    pingMs?: number
    endsInMs?: number
    /** Looked at every second: a reason (sent as an `ended` event) closes the stream. */
    endedBy?: () => string | null
  } = {},
): Response {
  let finish = (): void => {}
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let done = false
      let unsubscribe: (() => void) | null = null
      const write = (text: string) => {
        if (done) return
        if ((controller.desiredSize ?? 0) < -MAX_QUEUED_BYTES) return finish()
        controller.enqueue(encoder.encode(text))
      }
      const ping = setInterval(() => write(': ping\n\n'), options.pingMs ?? PING_MS)
      ping.unref()
      const recheck = options.endedBy && setInterval(() => {
        let reason: string | null
        try {
          reason = options.endedBy!()
        } catch {
          return // a busy or failing database: asked again at the next check
        }
        if (reason === null) return
        write(formatEvent('ended', JSON.stringify({ error: { code: 'NOT_FOUND', message: reason } })))
        finish()
      }, RECHECK_MS)
      recheck?.unref()
      let expiry: NodeJS.Timeout | null = null
      const expireAt = options.endsInMs === undefined ? null : Date.now() + options.endsInMs
      const scheduleExpiry = () => {
        const left = expireAt! - Date.now()
        if (left <= 0) {
          write(formatEvent('expired', EXPIRED))
          return finish()
        }
        expiry = setTimeout(scheduleExpiry, Math.min(left, MAX_TIMER_MS))
        expiry.unref()
      }
      finish = () => {
        if (done) return
        done = true
        clearInterval(ping)
        if (recheck) clearInterval(recheck)
        if (expiry) clearTimeout(expiry)
        signal.removeEventListener('abort', finish)
        unsubscribe?.()
        try {
          controller.close()
        } catch {
          // already closed or errored (the client went away)
        }
      }
      if (signal.aborted) return finish()
      signal.addEventListener('abort', finish)
      // Sent at once, so a client sees the stream open before any event.
      write(': connected\n\n')
      unsubscribe = open((name, data) => write(formatEvent(name, data)))
      if (expireAt !== null && !done) scheduleExpiry()
    },
    cancel() {
      finish()
    },
  }, { highWaterMark: 0, size: (chunk) => chunk.byteLength })
  return new FastResponse(stream, { status: 200, headers: HEADERS })
}
