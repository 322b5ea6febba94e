import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { standardWebhookHeaders } from '../../src/domain/webhook-signature.ts'

describe('Standard Webhooks signatures', () => {
  it('are the bytes the standardwebhooks library signs and verifies, for any whsec_ secret and body', () => {
    const bodies = ['', '{"type":"mock.request"}', 'héllo wörld ✓ 🚀', 'lone \ud800 surrogate', 'x'.repeat(100_000)]
    const sentAt = new Date('2026-11-23T10:00:00.123Z')
    for (const length of [1, 2, 3, 24, 64]) {
      const secret = `whsec_${randomBytes(length).toString('base64')}`
      for (const body of bodies) {
        const headers = standardWebhookHeaders(secret, 'msg_0123', sentAt, body)
        expect(headers).toEqual({
          'webhook-id': 'msg_0123',
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': new Webhook(secret).sign('msg_0123', sentAt, body),
        })
      }
    }
    const now = new Date()
    const secret = `whsec_${randomBytes(24).toString('base64')}`
    expect(new Webhook(secret).verify('{"a":1}', standardWebhookHeaders(secret, 'msg_1', now, '{"a":1}'))).toEqual({ a: 1 })
  })

  it('of a secret that is not canonical whsec_ base64 are still what the library makes of it', () => {
    const sentAt = new Date('2026-11-23T10:00:00Z')
    for (const secret of ['c2VjcmV0', 'whsec_c2VjcmV0MQ', 'whsec_c2VjcmV0MQ==']) {
      expect(standardWebhookHeaders(secret, 'msg_2', sentAt, 'body')['webhook-signature']).toBe(new Webhook(secret).sign('msg_2', sentAt, 'body'))
    }
  })
})
