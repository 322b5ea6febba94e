import { getRequestIP, getRouterParam, type H3, type H3Event } from 'h3'
import { AppError } from '../errors.ts'
import type { Context } from '../domain/context.ts'
import { projectForInbox, receivePayload } from '../domain/inbox.ts'
import { whenStoreFree } from '../domain/transaction.ts'
import type { MockEvents } from '../events.ts'
import { inboxItemJson } from '../store/inbox.ts'
import { isJsonContentType, parseJson, readRawBody } from './body.ts'
import { withPreflight } from './cors.ts'
import { jsonResponse } from './http-response.ts'

const decoder = new TextDecoder()

/** `POST /api/webhooks/inbox/{token}`: public; stores any JSON value exactly as sent. */
export function mountInbox(app: H3, deps: { context: Context; events: MockEvents; bodyLimit: number }): void {
  // Senders in a browser (another origin) ask first: the preflight is answered before the method check.
  app.all('/api/webhooks/inbox/:token', withPreflight(async (event: H3Event) => {
    if (event.req.method !== 'POST') {
      throw new AppError('METHOD_NOT_ALLOWED', 'the inbox takes POST only', { headers: { Allow: 'POST' } })
    }
    const project = projectForInbox(deps.context, getRouterParam(event, 'token') ?? '')
    if (!isJsonContentType(event.req.headers.get('content-type'))) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'the inbox takes JSON only (Content-Type: application/json)')
    }
    const bytes = await readRawBody(event, deps.bodyLimit)
    parseJson(bytes)
    const payload = {
      method: event.req.method,
      headers: Object.fromEntries(event.req.headers),
      // Decoding again after the strict check drops a leading BOM, so the stored text is plain JSON.
      body: decoder.decode(bytes),
      sizeBytes: bytes.byteLength,
      sourceIp: getRequestIP(event) ?? null,
    }
    const received = await whenStoreFree(deps.context.db, () => receivePayload(deps.context, project, payload))
    if (deps.events.listenerCount('inbox.received') > 0) {
      deps.events.emit('inbox.received', {
        projectId: project.id,
        json: inboxItemJson({ ...payload, id: Number(received.id), receivedAt: received.receivedAt, headers: JSON.stringify(payload.headers) }),
      })
    }
    return jsonResponse(201, received)
  }))
  // `/api/webhooks/…` is the inbox's namespace: a mistyped inbox address is its 404, not a mock request.
  app.all('/api/webhooks/**', withPreflight((event: H3Event) => {
    throw new AppError('NOT_FOUND', `no route matches ${event.req.method} ${event.url.pathname}; the inbox is POST /api/webhooks/inbox/{token}`)
  }))
}
