import type { H3 } from 'h3'
import { createServer, STATUS_CODES, type Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { AppError, errorBody } from '../errors.ts'
import { toNodeHandler } from './node-handler.ts'

export interface Listening {
  url: string
  port: number
  close(): Promise<void>
}

// Slow or stalled clients must not hold a connection open forever.
export const DEFAULT_TIMEOUTS = { requestMs: 30_000, headersMs: 10_000 }
/**
 * How long `close()` lets in-flight requests finish before cutting their connections (which also
 * ends a response held by a `delay`): SIGTERM exits within a few seconds.
 */
const DRAIN_MS = 2_000

/**
 * node:http directly, not listhen: listhen loads node-forge, consola and a QR renderer at import
 * (115 ms of a 200 ms cold-start budget) for HTTPS, tunnels and QR codes mockapi does not use,
 * and its http-shutdown hook crashed the process on a body cut short at the size limit.
 */
function closeGracefully(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), DRAIN_MS)
    force.unref()
    server.close(() => {
      clearTimeout(force)
      resolve()
    })
    server.closeIdleConnections()
  })
}

/**
 * Requests Node's parser refuses (an unknown method, oversized or malformed headers) never reach
 * the app; without this Node answers a bare 400 with no body. They get the project's error shape.
 */
function answerUnparsable(error: NodeJS.ErrnoException & { bytesParsed?: number }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return
  const [status, code, message] = error.code === 'HPE_HEADER_OVERFLOW'
    ? [431, 'BAD_REQUEST', 'request headers are too large']
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'BAD_REQUEST', 'the request did not arrive in time']
      : [400, 'BAD_REQUEST', `malformed HTTP request (${error.code ?? error.message})`]
  const body = JSON.stringify(errorBody(code, message))
  // Destroyed once written, not only ended: a client still dripping bytes must not keep it open.
  socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`, () => socket.destroy())
}

function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening)
      reject(error)
    }
    const onListening = () => {
      server.off('error', onError)
      resolve()
    }
    server.once('error', onError)
    server.once('listening', onListening)
    server.listen(port, host)
  })
}

export async function listenApp(app: H3, options: {
  port: number
  host: string
  fallbackPort?: boolean
  timeouts?: Partial<typeof DEFAULT_TIMEOUTS>
  /** An error of the listening socket (say, EMFILE accepting a connection): reported, not thrown out of the event loop. */
  onError?: (error: Error) => void
}): Promise<Listening> {
  const headersMs = options.timeouts?.headersMs ?? DEFAULT_TIMEOUTS.headersMs
  // Node checks these timeouts only every 30 s by default, which would let a slow client stay ~40 s.
  const server = createServer({ connectionsCheckingInterval: Math.min(1000, headersMs) }, toNodeHandler(app, (error) => options.onError?.(error)))
  server.requestTimeout = options.timeouts?.requestMs ?? DEFAULT_TIMEOUTS.requestMs
  server.headersTimeout = headersMs
  try {
    await listenOn(server, options.port, options.host)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // The default port taken: take any free one (the caller says so); an explicit one is an error.
    if (code === 'EADDRINUSE' && options.fallbackPort) await listenOn(server, 0, options.host)
    else if (code === 'EADDRINUSE') throw new AppError('CONFLICT', `port ${options.port} is in use; pick another with --port`)
    else throw new AppError('INVALID_INPUT', `cannot listen on ${options.host}:${options.port}: ${code ?? (error as Error).message}`)
  }
  server.on('error', (error) => options.onError?.(error))
  server.on('clientError', answerUnparsable)
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host
  return { url: `http://${shownHost}:${port}`, port, close: () => closeGracefully(server) }
}
