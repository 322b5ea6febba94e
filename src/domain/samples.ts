import type { Faker } from '@faker-js/faker'
import { createHmac, randomUUID } from 'node:crypto'
import { renderTemplate } from '../engine/template.ts'
import { AppError } from '../errors.ts'
import { loadTemplate } from './templates.ts'

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

/** Headers of `mockapi webhooks send`: id, epoch-ms timestamp and, with a secret, hex HMAC-SHA256 of "{timestamp}.{body}". */
export function sampleHeaders(body: string, secret: string | undefined, now = Date.now()): Record<string, string> {
  const timestamp = String(now)
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'mockapi-webhooks',
    'x-webhook-id': randomUUID(),
    'x-webhook-timestamp': timestamp,
  }
  if (secret !== undefined) headers['x-webhook-signature'] = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')
  return headers
}
