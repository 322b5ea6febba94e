import { Webhook } from 'standardwebhooks'
import { AppError } from '../errors.ts'

/**
 * Standard Webhooks headers: the message id, the time in Unix seconds, and `v1,<base64>` of
 * HMAC-SHA256 over "{id}.{timestamp}.{body}" keyed by the base64 part of a `whsec_` secret. One
 * function for deliveries and for `mockapi webhooks send --standard`, so a receiver that verifies
 * one verifies the other.
 */
export function standardWebhookHeaders(secret: string, id: string, sentAt: Date, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, sentAt, body),
  }
}

/** A secret the `standardwebhooks` library can key with (subscriptions' `whsec_` secrets are); else a refusal saying what it takes. */
export function checkStandardSecret(secret: string, flag: string): string {
  try {
    new Webhook(secret)
    return secret
  } catch {
    throw new AppError('INVALID_INPUT', `${flag} takes a Standard Webhooks secret: "whsec_" followed by base64, as \`mockapi webhooks list\` shows a subscription's (e.g. whsec_YSBzZWNyZXQgb2YgeW91cnM=)`)
  }
}
