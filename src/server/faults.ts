import type { H3Event } from 'h3'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { FastResponse } from 'srvx'
import { setsContentType } from '../domain/bodies.ts'
import type { Fault } from '../model.ts'

/** How long a `hang` holds a connection whose client never gives up. */
export const HANG_MS = 60_000

/** Marks the answer of a fault given without a socket (`RunningServer.fetch`): no wire ever sees it. */
const FAULTED = Symbol('mockapi.fault')

type FaultedResponse = Response & { [FAULTED]?: Fault }

/** The fault a response stands for, if it is the sentinel of one. */
export function faultOfResponse(response: Response): Fault | null {
  return (response as FaultedResponse)[FAULTED] ?? null
}

interface NodeExchange {
  req?: IncomingMessage
  res?: ServerResponse
}

function nodeExchange(event: H3Event): NodeExchange | null {
  return (event.req as { runtime?: { node?: NodeExchange } }).runtime?.node ?? null
}

/**
 * The socket once this response's turn on it has come. Node queues the responses of pipelined
 * requests and hands the socket to each when the one before has finished; breaking the socket
 * sooner would take the earlier, healthy answers with it. Null when the client left first.
 */
function socketInTurn(exchange: NodeExchange): Promise<Socket | null> {
  const { req, res } = exchange
  if (!res || res.socket) return Promise.resolve(res?.socket ?? req?.socket ?? null)
  const socket = req?.socket ?? null
  if (!socket || socket.destroyed) return Promise.resolve(null)
  return new Promise((resolve) => {
    const settle = (value: Socket | null) => {
      res.off('socket', onTurn)
      socket.off('close', onClose)
      resolve(value)
    }
    const onTurn = (given: Socket) => settle(given)
    const onClose = () => settle(null)
    res.once('socket', onTurn)
    socket.once('close', onClose)
  })
}

function closed(socket: Socket): Promise<void> {
  return socket.destroyed && socket.closed ? Promise.resolve() : new Promise((resolve) => socket.once('close', () => resolve()))
}

/**
 * A 200 that breaks: its chunked body after one chunk (`zz` is not a hexadecimal chunk size); for
 * HEAD, whose answer has no body a client would read, its header block (a line that is no header).
 */
function malformedBytes(method: string, headers: Record<string, string>): string {
  const lines = Object.entries(headers)
    .filter(([name]) => !/^(content-length|transfer-encoding|connection)$/i.test(name))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  const head = `HTTP/1.1 200 OK\r\n${setsContentType(headers) ? '' : 'Content-Type: application/json; charset=utf-8\r\n'}${lines}`
  if (method === 'HEAD') return `${head}this line is not a header\r\n\r\n`
  return `${head}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\n`
}

/** `hang`: nothing until the client leaves (or the server cuts the connection on close), or `hangMs` pass. */
function waitOut(event: H3Event, hangMs: number): Promise<void> {
  const signal = event.req.signal
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    // Never keeps the process alive: SIGTERM does not wait out a hang.
    const timer = setTimeout(done, hangMs)
    timer.unref()
    signal.addEventListener('abort', done, { once: true })
  })
}

export interface FaultOptions {
  /** Headers the answer would have had (its Content-Type among them; else JSON's), written by `malformed` before it breaks. */
  headers?: Record<string, string>
  hangMs?: number
}

/**
 * Answers a fault on the connection itself, then resolves once the socket is gone, with a
 * sentinel response srvx has nothing left to write to. The socket is always destroyed, so a
 * keep-alive connection is never reused after a fault. Without a socket (an in-process `fetch`),
 * the sentinel is marked, and `RunningServer.fetch` rejects as a client's fetch would.
 */
export async function answerFault(event: H3Event, fault: Fault, options: FaultOptions = {}): Promise<Response> {
  const exchange = nodeExchange(event)
  if (fault === 'hang') await waitOut(event, options.hangMs ?? HANG_MS)
  if (!exchange) return Object.assign(new FastResponse(null), { [FAULTED]: fault })
  const socket = await socketInTurn(exchange)
  if (!socket) return new FastResponse(null)
  if (!socket.destroyed) {
    switch (fault) {
      case 'reset':
        socket.resetAndDestroy()
        break
      case 'empty':
        // FIN without a byte, then the descriptor goes once it is sent.
        socket.destroySoon()
        break
      case 'malformed':
        socket.end(malformedBytes(event.req.method, options.headers ?? {}), () => socket.destroy())
        break
      case 'hang':
        socket.destroySoon()
        break
    }
  }
  await closed(socket)
  return new FastResponse(null)
}
