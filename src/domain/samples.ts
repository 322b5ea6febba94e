import type { Faker } from '@faker-js/faker'
import { createHmac, randomUUID } from 'node:crypto'
import { renderTemplate } from '../engine/template.ts'
import { AppError } from '../errors.ts'
import { loadTemplate } from './templates.ts'
import { checkStandardSecret, standardWebhookHeaders } from './webhook-signature.ts'

/** The sample events of the `webhooks` template, by event name → its body template. */
function sampleBodies(): Map<string, unknown> {
  const samples = new Map<string, unknown>()
  for (const endpoint of loadTemplate('webhooks').endpoints) {
    const event = (endpoint.body as { event?: unknown } | undefined)?.event
    if (typeof event === 'string') samples.set(event, endpoint.body)
  }
  return samples
}

export function sampleEvents(): string[] {
  return [...sampleBodies().keys()]
}

/** A freshly generated payload for a sample event, as the `webhooks` template's endpoint answers it. */
export function samplePayload(event: string, faker: Faker): string {
  const body = sampleBodies().get(event)
  if (body === undefined) throw new AppError('INVALID_INPUT', `unknown event "${event}"; samples: ${sampleEvents().join(', ')}`)
  return renderTemplate(JSON.stringify(body), { params: {}, query: {}, body: undefined, headers: {}, cookies: {}, faker, now: new Date() })
}

/** How `mockapi webhooks send` signs: `sign`, the X-Webhook-* convention's secret; `standard`, a Standard Webhooks `whsec_` secret. Both may be given. */
export interface SampleSigning {
  sign?: string | undefined
  standard?: string | undefined
}

/**
 * Headers of `mockapi webhooks send`: X-Webhook-ID and an epoch-ms X-Webhook-Timestamp, with `sign`
 * a hex HMAC-SHA256 of "{timestamp}.{body}" (X-Webhook-Signature); with `standard` the Standard
 * Webhooks headers as deliveries send them. One id and one instant for both conventions.
 */
export function sampleHeaders(body: string, signing: SampleSigning, now = new Date()): Record<string, string> {
  const id = randomUUID()
  const timestamp = String(now.getTime())
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'mockapi-webhooks',
    'x-webhook-id': id,
    'x-webhook-timestamp': timestamp,
  }
  if (signing.sign !== undefined) headers['x-webhook-signature'] = createHmac('sha256', signing.sign).update(`${timestamp}.${body}`).digest('hex')
  if (signing.standard !== undefined) Object.assign(headers, standardWebhookHeaders(checkStandardSecret(signing.standard, '--standard'), id, now, body))
  return headers
}
