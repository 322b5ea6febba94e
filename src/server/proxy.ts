import { getRequestIP, type H3Event } from 'h3'
import { request as httpRequest, STATUS_CODES, type ClientRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { Readable } from 'node:stream'
import { FastResponse } from 'srvx'
import { MAX_JOURNAL_BODY } from '../domain/journal.ts'
import { endToEndHeaders, forwardedRequestHeaders } from '../engine/proxy-headers.ts'
import { rewriteProxyPath } from '../engine/proxy-path.ts'
import { AppError } from '../errors.ts'
import { nodeRequestOf } from './body.ts'
import { CORS_HEADERS } from './cors.ts'
import { rawHeadersOf } from './request-capture.ts'

/** Paths that are mockapi's own: never forwarded, whatever their method. */
const MANAGEMENT_PREFIXES = ['/api/projects', '/api/webhooks', '/api/health', '/_mockapi']

export function isManagementPath(pathname: string): boolean {
  return MANAGEMENT_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`))
}

/** How long a proxy target may stay silent unless `serve --proxy-timeout` says otherwise. */
export const DEFAULT_PROXY_TIMEOUT_MS = 30_000

/** Where one project's forwarded requests go, with what, and how long the target may stay silent. */
export interface ProxySettings {
  target: URL
  timeoutMs: number
  /** Sent with every forwarded request, replacing the client's of the same name. */
  headers: Record<string, string>
  /** Pattern → replacement for the path within the project (`rewriteProxyPath`). */
  pathRewrite: Record<string, string>
}

/** The headers as the target gets them: the project's own replace the client's of the same name. */
function withProjectHeaders(headers: [string, string][], own: Record<string, string>): [string, string][] {
  const names = new Set(Object.keys(own).map((name) => name.toLowerCase()))
  if (names.size === 0) return headers
  return [...headers.filter(([name]) => !names.has(name.toLowerCase())), ...Object.entries(own)]
}

/** A body as it went through: its first 64 KiB for the journal, its size, and the whole of it while within `wholeCap`. */
export interface TappedBody {
  kept: Uint8Array | null
  size: number
  /** Null when it was larger than the cap (or no copy was asked for). */
  whole: Uint8Array | null
}

/** How a forwarded exchange ended, once the answer's body has gone through (or broke off). */
export interface ForwardEnd {
  /** The answer's body reached the client whole. */
  complete: boolean
  /** Why it did not, for the journal. */
  note: string | null
  requestBody: TappedBody
  responseBody: TappedBody
}

export interface Forwarded {
  /** The target's status and headers, its body streaming through. */
  response: Response
  status: number
  /** The answer's headers as sent to the client (hop-by-hop ones dropped, mockapi's CORS header added when the target sent none). */
  headers: [string, string][]
  /** The answer's headers as the target sent them (hop-by-hop ones dropped): what a recording keeps. */
  targetHeaders: [string, string][]
  /** The request's end-to-end headers as the client sent them (not the project's own, nor Host and X-Forwarded-*, which are the target's business). */
  requestHeaders: [string, string][]
  /** Settles once the answer's body has ended, broken off, or the client left; never rejects. */
  done: Promise<ForwardEnd>
}

/** Keeps what the journal shows of a body, and a whole copy up to a cap, as chunks go through. */
function createTap(wholeCap: number) {
  const chunks: Uint8Array[] = []
  let size = 0
  let keptSize = 0
  const kept: Uint8Array[] = []
  return {
    add(chunk: Uint8Array) {
      size += chunk.byteLength
      if (keptSize < MAX_JOURNAL_BODY) {
        const part = chunk.subarray(0, MAX_JOURNAL_BODY - keptSize)
        kept.push(part)
        keptSize += part.byteLength
      }
      if (size <= wholeCap) chunks.push(chunk)
      else chunks.length = 0
    },
    body(): TappedBody {
      return {
        kept: size === 0 ? null : Buffer.concat(kept, keptSize),
        size,
        whole: size <= wholeCap ? Buffer.concat(chunks, size) : null,
      }
    },
  }
}

/** The request's body as a Node stream: the socket's own, or (in process, without one) the Request's. */
function requestBodyOf(event: H3Event): Readable | null {
  const node = nodeRequestOf(event)
  if (node) return node
  return event.req.body ? Readable.fromWeb(event.req.body as import('node:stream/web').ReadableStream<Uint8Array>) : null
}

/** Whether the request says it has a body: one without length or chunking is sent without one (a GET stays a plain GET). */
function hasBody(event: H3Event): boolean {
  const length = event.req.headers.get('content-length')
  return (length !== null && length !== '0') || event.req.headers.has('transfer-encoding')
}

/** The target's path for a request's path within the project: the target's own path prefix, then it. */
function targetPath(target: URL, path: string, search: string): string {
  return `${target.pathname.replace(/\/+$/, '')}${path}${search}`
}

/** The target's answer lacks CORS headers: a browser app talking to the mock still gets them, as from any mock answer. */
function withCors(headers: [string, string][]): [string, string][] {
  if (headers.some(([name]) => name.toLowerCase() === 'access-control-allow-origin')) return headers
  return [...headers, ['Access-Control-Allow-Origin', CORS_HEADERS['Access-Control-Allow-Origin']!]]
}

function failed(target: URL, error: Error): AppError {
  const reason = (error as NodeJS.ErrnoException).code ?? error.message
  return new AppError('PROXY_FAILED', `the proxy target ${target.origin} could not be reached: ${reason}`, { details: { target: target.origin, reason } })
}

function timedOut(target: URL, timeoutMs: number): AppError {
  return new AppError('PROXY_TIMEOUT', `the proxy target ${target.origin} did not answer within ${timeoutMs} ms`, { details: { target: target.origin, timeoutMs } })
}

/**
 * Forwards the request to the target: method, `path` (within the project) and query, end-to-end
 * headers with Host the target's and `X-Forwarded-*`, the body streamed as it comes. Resolves with
 * the target's answer once its headers arrive, the body streaming to the client as the target
 * sends it (never held whole); a redirect is passed through, not followed. Rejects with
 * PROXY_FAILED (unreachable, refused, reset before answering) or PROXY_TIMEOUT (silent longer than
 * `timeoutMs`). `wholeCap`: how much of each body is copied whole for a recording (0: none).
 */
export function forwardRequest(event: H3Event, settings: ProxySettings, path: string, wholeCap: number): Promise<Forwarded> {
  const { target, timeoutMs } = settings
  const sentHeaders = withProjectHeaders(forwardedRequestHeaders(rawHeadersOf(event), target.host, {
    clientIp: getRequestIP(event) ?? null,
    host: event.req.headers.get('host'),
    protocol: event.url.protocol.replace(/:$/, ''),
  }), settings.headers)
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest
  const requestTap = createTap(wholeCap)
  const responseTap = createTap(wholeCap)
  return new Promise<Forwarded>((resolve, reject) => {
    let answered = false
    let upstream: ClientRequest
    try {
      upstream = send({
        hostname: target.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: target.port || undefined,
        method: event.req.method,
        path: targetPath(target, rewriteProxyPath(settings.pathRewrite, path), event.url.search),
        headers: sentHeaders.flat(),
        setHost: false,
      })
    } catch (error) {
      reject(failed(target, error as Error))
      return
    }
    const leave = () => upstream.destroy()
    event.req.signal.addEventListener('abort', leave, { once: true })
    upstream.setTimeout(timeoutMs, () => upstream.destroy(timedOut(target, timeoutMs)))
    // After the answer began, a failure shows as its body breaking off (the response's `close`).
    upstream.on('error', (error) => {
      if (answered) return
      answered = true
      event.req.signal.removeEventListener('abort', leave)
      reject(error instanceof AppError ? error : failed(target, error))
    })
    upstream.once('response', (res: IncomingMessage) => {
      answered = true
      res.on('error', () => {})
      const targetHeaders = endToEndHeaders(res.rawHeaders)
      const headers = withCors(targetHeaders)
      let settle: (end: ForwardEnd) => void = () => {}
      const done = new Promise<ForwardEnd>((resolveDone) => {
        settle = (end) => {
          settle = () => {}
          event.req.signal.removeEventListener('abort', leave)
          resolveDone(end)
        }
      })
      const end = (complete: boolean, note: string | null) => settle({ complete, note, requestBody: requestTap.body(), responseBody: responseTap.body() })
      const bodyless = event.req.method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304
      let body: ReadableStream<Uint8Array> | null = null
      if (bodyless) {
        res.resume()
        res.once('end', () => end(true, null))
        res.once('close', () => end(res.complete, res.complete ? null : 'the proxy target broke off its answer'))
      } else {
        body = new ReadableStream<Uint8Array>({
          start(controller) {
            res.on('data', (chunk: Buffer) => {
              responseTap.add(chunk)
              controller.enqueue(chunk)
              if ((controller.desiredSize ?? 0) <= 0) res.pause()
            })
            res.once('end', () => {
              controller.close()
              end(true, null)
            })
            res.once('close', () => {
              if (res.complete) return
              const note = event.req.signal.aborted
                ? 'client closed the connection'
                : `the proxy target broke off its answer after ${responseTap.body().size} bytes`
              controller.error(new Error(note))
              end(false, note)
            })
          },
          pull() {
            res.resume()
          },
          cancel() {
            upstream.destroy()
            end(false, 'client closed the connection')
          },
        }, { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength })
      }
      const status = res.statusCode ?? 502
      resolve({
        response: new FastResponse(body, { status, statusText: res.statusMessage || STATUS_CODES[status] || '', headers: headers }),
        status,
        headers,
        targetHeaders,
        requestHeaders: endToEndHeaders(rawHeadersOf(event)),
        done,
      })
    })
    const source = hasBody(event) ? requestBodyOf(event) : null
    if (!source) {
      upstream.end()
      return
    }
    source.on('data', (chunk: Buffer) => {
      requestTap.add(chunk)
      if (!upstream.write(chunk)) {
        source.pause()
        upstream.once('drain', () => source.resume())
      }
    })
    source.once('end', () => upstream.end())
    source.once('error', () => upstream.destroy())
  })
}
