import type { H3 } from 'h3'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { NodeRequest, sendNodeResponse } from 'srvx/node'

/** What srvx's `FastResponse` hands a Node response: its status, flat header list and body. */
interface NodeParts {
  status: number
  statusText: string | undefined
  headers: string[]
  body: unknown
}

type FastAnswer = Response & { _toNodeResponse?: () => NodeParts }

const INVALID_REASON = /[^\t\u0020-\u007E\u0080-\u00FF]/g

/**
 * The app as Node's request listener: srvx's adapter (h3's `toNodeHandler`) but for one thing. A
 * whole body (text or bytes) goes out with `end(body)`, its headers and body in one write. srvx
 * sends it with `write(body)` then `end()`, and Node corks a write made outside `end` until the
 * next tick: a second tick, a `writev` and about 1.5 KB of garbage per request, on every mock
 * answer. Streams, pipes and plain `Response`s are sent by srvx as before.
 */
export function toNodeHandler(app: H3, onError: (error: Error) => void): (req: IncomingMessage, res: ServerResponse) => void {
  const fail = (res: ServerResponse, error: unknown) => {
    onError(error instanceof Error ? error : new Error(String(error)))
    // As srvx does: a response begun is cut off, one not begun is a bare 500.
    if (res.writableEnded) return
    if (res.headersSent) res.destroy()
    else {
      res.statusCode = 500
      res.end()
    }
  }
  const send = (res: ServerResponse, response: Response) => {
    const parts = res.headersSent || res.destroyed ? undefined : (response as FastAnswer)._toNodeResponse?.()
    const { body } = parts ?? {}
    if (!parts || !(body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array)) {
      // A FastResponse gives its parts once: srvx gets them back as one.
      const whole = parts ? ({ _toNodeResponse: () => parts } as unknown as Response) : response
      sendNodeResponse(res, whole).catch((error: unknown) => fail(res, error))
      return
    }
    try {
      const reason = parts.statusText ? parts.statusText.replace(INVALID_REASON, '') : parts.statusText
      res.writeHead(parts.status, reason, parts.headers)
      if (body === undefined || body === null) res.end()
      else res.end(body)
    } catch (error) {
      fail(res, error)
    }
  }
  return (req, res) => {
    const answer = app.fetch(new NodeRequest({ req, res }))
    if (answer instanceof Promise) answer.then((response) => send(res, response), (error: unknown) => fail(res, error))
    else send(res, answer)
  }
}
