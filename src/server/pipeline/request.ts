import type { H3Event } from 'h3'
import type { MockRequest } from '../../engine/exchange.ts'
import { parseJson, readRawBody, utf8Text } from '../body.ts'

/** The h3 request as the answerers see it; the body is read from the stream once, at most `bodyLimit` bytes. */
export function toMockRequest(event: H3Event, bodyLimit: number): MockRequest {
  let reading: Promise<Uint8Array> | null = null
  const body = () => (reading ??= readRawBody(event, bodyLimit))
  return {
    method: event.req.method,
    url: event.url,
    headers: event.req.headers,
    body,
    text: async () => utf8Text(await body()),
    json: async () => {
      const bytes = await body()
      return bytes.byteLength === 0 ? undefined : parseJson(bytes)
    },
  }
}
