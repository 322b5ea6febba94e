import { toNodeHandler, type H3 } from 'h3'
import { listen } from 'listhen'
import type { Server } from 'node:http'

export interface Listening {
  url: string
  port: number
  close(): Promise<void>
}

// Slow or stalled clients must not hold a connection open forever.
const REQUEST_TIMEOUT_MS = 30_000
const HEADERS_TIMEOUT_MS = 10_000
/** How long `close()` lets in-flight requests finish before cutting their connections. */
const DRAIN_MS = 3_000

/**
 * listhen wraps the server with http-shutdown, whose 'finish' hook reads `req.socket` after Node
 * has cleared it for a request cut short (a body over the size limit), which throws and kills the
 * process. Its hook is removed; Node 20's own closeIdleConnections/closeAllConnections replace it.
 */
function dropShutdownHook(server: Server, handler: unknown): void {
  for (const listener of server.listeners('request')) {
    if (listener !== handler) server.removeListener('request', listener as (...args: unknown[]) => void)
  }
}

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

export async function listenApp(app: H3, options: { port: number; host: string }): Promise<Listening> {
  const handler = toNodeHandler(app)
  const listener = await listen(handler, {
    port: options.port,
    hostname: options.host,
    showURL: false,
    open: false,
    clipboard: false,
    qr: false,
    public: false,
    autoClose: false,
    isTest: true,
  })
  const server = listener.server as Server
  dropShutdownHook(server, handler)
  server.requestTimeout = REQUEST_TIMEOUT_MS
  server.headersTimeout = HEADERS_TIMEOUT_MS
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host
  return {
    url: `http://${shownHost}:${port}`,
    port,
    close: () => closeGracefully(server),
  }
}
