import http from 'node:http'
import https from 'node:https'
import type { Answer, OutgoingRequest, Sender } from '../queue/worker.ts'

/**
 * Sends requests over connections kept open between attempts. node:http rather than fetch: fetch
 * cost about three times the CPU per request (its streams and Request objects), which bounded how
 * many deliveries a second one core could make. Redirects are not followed (neither does
 * node:http). The body of an answer is read off and dropped, so its connection serves the next
 * attempt; one not in by the time the status is known (a long or endless body) is cut with its
 * connection, as fetch's cancel did.
 */
export function createSender(): Sender {
  const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) }
  return {
    send(request: OutgoingRequest, signal: AbortSignal): Promise<Answer> {
      return new Promise((resolve, reject) => {
        const url = new URL(request.url)
        const client = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : null
        if (client === null) throw new TypeError(`unsupported protocol ${url.protocol}`)
        const outgoing = client.request(url, { method: request.method, headers: request.headers, agent: agents[url.protocol as 'http:' | 'https:'], signal }, (response) => {
          response.on('error', () => {})
          response.resume()
          // The parser has read all it received before this runs: an answer that fit is complete.
          queueMicrotask(() => {
            if (!response.complete) response.destroy()
          })
          const retryAfter = response.headers['retry-after']
          resolve({ status: response.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : null })
        })
        outgoing.on('error', reject)
        outgoing.end(request.body ?? undefined)
      })
    },
    /** Closes the connections kept open. */
    close(): void {
      agents['http:'].destroy()
      agents['https:'].destroy()
    },
  }
}
