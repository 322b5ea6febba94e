import { createHmac } from 'node:crypto'
import { lazyRequire } from '../engine/lazy-require.ts'
import { AppError } from '../errors.ts'

// Loaded with the first secret that is not a canonical `whsec_` one, not with `serve` (which
// reached it through the delivery worker).
const standardwebhooks = lazyRequire<typeof import('standardwebhooks')>('standardwebhooks')

/**
 * Standard Webhooks headers: the message id, the time in Unix seconds, and `v1,<base64>` of
 * HMAC-SHA256 over "{id}.{timestamp}.{body}" keyed by the base64 part of a `whsec_` secret. One
 * function for deliveries and for `mockapi webhooks send --standard`, so a receiver that verifies
 * one verifies the other.
 */
export function standardWebhookHeaders(secret: string, id: string, sentAt: Date, body: string): Record<string, string> {
  const timestamp = String(Math.floor(sentAt.getTime() / 1000))
  const key = standardKey(secret)
  const signature = key === null
    ? new (standardwebhooks().Webhook)(secret).sign(id, sentAt, body)
    : `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature }
}

/**
 * The HMAC key of a `whsec_` secret in canonical base64, decoded once per secret; null for any
 * other secret, which the library signs as it always did. node:crypto's HMAC gives the same bytes
 * as the library's JavaScript SHA-256 for a fraction of the CPU (that one was 5 % of a delivery's).
 */
const keys = new Map<string, Buffer>()
function standardKey(secret: string): Buffer | null {
  const known = keys.get(secret)
  if (known) return known
  if (!STANDARD_SECRET.test(secret)) return null
  // Secrets are few (one per subscription); a flood of distinct ones cannot grow this for ever.
  if (keys.size >= 1000) keys.clear()
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  keys.set(secret, key)
  return key
}

/** `whsec_` and canonical base64 of at least one byte: what subscriptions are given and docs/webhooks.md asks for. */
const STANDARD_SECRET = /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2}==)$/

/**
 * A Standard Webhooks secret as subscriptions hold one; else a refusal saying what it takes. The
 * `standardwebhooks` library would key with more (a bare base64 string, any prefix-less text it can
 * decode), which would sign with a key no receiver configured with a `whsec_` secret shares.
 */
export function checkStandardSecret(secret: string, flag: string): string {
  if (STANDARD_SECRET.test(secret)) return secret
  throw new AppError('INVALID_INPUT', `${flag} takes a Standard Webhooks secret: "whsec_" followed by base64, as \`mockapi webhooks list\` shows a subscription's (e.g. whsec_YSBzZWNyZXQgb2YgeW91cnM=)`)
}
