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

export async function listenApp(app: H3, options: { port: number; host: string }): Promise<Listening> {
  const listener = await listen(toNodeHandler(app), {
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
  server.requestTimeout = REQUEST_TIMEOUT_MS
  server.headersTimeout = HEADERS_TIMEOUT_MS
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host
  return {
    url: `http://${shownHost}:${port}`,
    port,
    close: () => listener.close(),
  }
}
