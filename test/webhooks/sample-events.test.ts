import { afterAll, describe, expect, it } from 'vitest'
import { createHmac } from 'node:crypto'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { cleanup, cli, send, serve, startReceiver, tempDir } from '../_helpers.ts'

afterAll(cleanup)

/** Every sample event the product names (issue 19), and invoice.paid, which it had before. */
const EVENTS = [
  'payment.succeeded', 'payment.failed', 'payment.refunded', 'subscription.created', 'subscription.canceled', 'invoice.paid',
  'user.created', 'user.updated', 'user.deleted', 'user.login', 'user.logout',
  'order.created', 'order.updated', 'order.shipped', 'order.delivered', 'order.canceled',
  'post.published', 'comment.created', 'file.uploaded', 'notification.sent',
]

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z$/

/** The conventions every sample keeps: its event name, an id, a time, and `data`. */
function expectConventions(event: string, payload: Record<string, unknown>): void {
  expect(payload.event).toBe(event)
  expect(payload.data).toEqual(expect.any(Object))
  if ('created' in payload) {
    expect(payload).toMatchObject({ id: expect.stringMatching(/^evt_\w{24}$/), created: expect.any(Number) })
  } else {
    expect(payload).toMatchObject({ timestamp: expect.stringMatching(ISO), webhook_id: expect.stringMatching(/^[0-9a-f-]{36}$/) })
  }
}

/** The values a call generated: everything but the event name and the fixed statuses. */
function generated(payload: Record<string, unknown>): string {
  return JSON.stringify(payload, (key, value: unknown) => (key === 'event' || key === 'status' ? undefined : value))
}

describe('sample events', () => {
  it('webhooks send --event posts every named event, in its conventions, with fresh values on each call', async () => {
    const receiver = await startReceiver()
    for (const event of EVENTS) {
      for (let call = 0; call < 2; call += 1) {
        const result = await cli(['webhooks', 'send', receiver.url, '--event', event])
        expect(result.code, `${event}: ${result.stderr}`).toBe(0)
      }
    }
    expect(receiver.requests).toHaveLength(EVENTS.length * 2)
    EVENTS.forEach((event, i) => {
      const [first, second] = [receiver.requests[2 * i]!, receiver.requests[2 * i + 1]!].map((r) => JSON.parse(r.body) as Record<string, unknown>)
      expectConventions(event, first!)
      expectConventions(event, second!)
      expect(generated(first!), event).not.toBe(generated(second!))
    })
    const shipped = JSON.parse(receiver.requests[EVENTS.indexOf('order.shipped') * 2]!.body)
    expect(shipped.data).toMatchObject({ id: expect.stringMatching(/^ord_/), status: 'shipped', total: expect.any(Number), items: [{ quantity: expect.any(Number) }], updated_at: expect.stringMatching(ISO) })
    const uploaded = JSON.parse(receiver.requests[EVENTS.indexOf('file.uploaded') * 2]!.body)
    expect(uploaded.data).toMatchObject({ id: expect.stringMatching(/^file_/), size: expect.any(Number), content_type: expect.stringContaining('/') })
    const login = JSON.parse(receiver.requests[EVENTS.indexOf('user.login') * 2]!.body)
    expect(login.data).toMatchObject({ email: expect.stringMatching(/@/), session: { id: expect.stringMatching(/^sess_/), started_at: expect.stringMatching(ISO) } })
  })

  it('the webhooks template answers the same events at /api/webhook-events/{event}', async () => {
    const cwd = tempDir()
    const init = await cli(['init', '--template', 'webhooks', '--yes', '--slug', 'hooks'], { cwd })
    expect(init.code, init.stderr).toBe(0)
    const server = await serve(join(cwd, '.mockapi', 'mockapi.db'))
    for (const event of EVENTS) {
      // The path rules read "post" in "post-published" as a verb.
      const path = event === 'post.published' ? 'posts-published' : event.replace('.', '-')
      const [a, b] = await Promise.all([1, 2].map(async () => (await send(`${server.url}/api/hooks/webhook-events/${path}`)).json))
      expectConventions(event, a)
      expect(generated(a), event).not.toBe(generated(b))
    }
    await server.close()
  })

  it('an unknown event lists every sample', async () => {
    const receiver = await startReceiver()
    const result = await cli(['webhooks', 'send', receiver.url, '--event', 'order.lost'])
    expect(result.code).toBe(1)
    for (const event of EVENTS) expect(result.stderr).toContain(event)
    expect(receiver.requests).toHaveLength(0)
  })
})

describe('webhooks send --standard', () => {
  const secret = `whsec_${Buffer.from('a receiver secret of 24b').toString('base64')}`

  it('signs with the Standard Webhooks headers, which the standardwebhooks library verifies', async () => {
    const receiver = await startReceiver()
    const before = Math.floor(Date.now() / 1000)
    const result = await cli(['webhooks', 'send', receiver.url, '--event', 'order.created', '--standard', secret])
    expect(result.code, result.stderr).toBe(0)
    const [request] = receiver.requests
    const headers = request!.headers as Record<string, string>
    expect(headers['webhook-id']).toBe(headers['x-webhook-id'])
    expect(Number(headers['webhook-timestamp'])).toBeGreaterThanOrEqual(before)
    expect(Number(headers['webhook-timestamp'])).toBeLessThanOrEqual(Math.floor(Date.now() / 1000))
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    expect(headers['x-webhook-signature']).toBeUndefined()
    expect(new Webhook(secret).verify(request!.body, headers)).toMatchObject({ event: 'order.created' })
    // Another secret, or a changed body, does not verify.
    expect(() => new Webhook(`whsec_${Buffer.from('another secret').toString('base64')}`).verify(request!.body, headers)).toThrow(/No matching signature/)
    expect(() => new Webhook(secret).verify(request!.body.replace('order.created', 'order.updated'), headers)).toThrow(/No matching signature/)
  })

  it('goes with --sign: both conventions on one request, one id and one instant', async () => {
    const receiver = await startReceiver()
    const result = await cli(['webhooks', 'send', receiver.url, '--event', 'payment.refunded', '--sign', 'topsecret', '--standard', secret])
    expect(result.code, result.stderr).toBe(0)
    const { headers, body } = receiver.requests[0]!
    const timestampMs = String(headers['x-webhook-timestamp'])
    expect(headers['x-webhook-signature']).toBe(createHmac('sha256', 'topsecret').update(`${timestampMs}.${body}`).digest('hex'))
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(Number(timestampMs) / 1000)))
    expect(new Webhook(secret).verify(body, headers as Record<string, string>)).toMatchObject({ event: 'payment.refunded' })
  })

  // The standardwebhooks library itself keys with a bare base64 text, or any text it can decode ("notwhsec").
  it.each([
    ['not base64', 'not base64!'],
    ['without whsec_', 'notwhsec'],
    ['bare base64', 'c2VjcmV0'],
    ['whsec_ and no key', 'whsec_'],
    ['whsec_ and broken base64', 'whsec_c2VjcmV0='],
  ])('refuses a secret that is not a whsec_ base64 secret (%s), sending nothing', async (_case, given) => {
    const receiver = await startReceiver()
    const result = await cli(['webhooks', 'send', receiver.url, '--event', 'user.login', '--standard', given])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('--standard takes a Standard Webhooks secret: "whsec_" followed by base64')
    expect(receiver.requests).toHaveLength(0)
  })
})
