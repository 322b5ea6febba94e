import { EventEmitter } from 'node:events'
import type { Attempt } from './model.ts'

/** One answered mock request; the outbox turns it into `mock.request` / `mock.error` events. */
export interface RequestServed {
  projectId: number | null
  endpointId: number | null
  method: string
  path: string
  /** Read only when an event is recorded; most requests never pay for turning it into JSON. */
  query: URLSearchParams
  status: number
  /** An error answered with a success status (GraphQL `errors`, a gRPC status): also a `mock.error`. */
  failed?: boolean
  durationMs: number
  /** Sent by our own webhook worker: never turned into an event (no delivery storms). */
  fromDelivery: boolean
}

export type DeliveryAttempted = Pick<Attempt, 'deliveryId' | 'subscriptionId' | 'eventType' | 'attempt' | 'statusCode' | 'succeeded' | 'error' | 'durationMs'> & {
  /** What happens next: another attempt at a time, done, or given up. */
  outcome: 'succeeded' | 'retrying' | 'failed'
}

interface EventMap {
  'request.served': [RequestServed]
  'delivery.attempted': [DeliveryAttempted]
  /** This process changed projects, endpoints or subscriptions; caches built from them rebuild. */
  'config.changed': []
}

/** Typed server events: the core emits them; the CLI logs them and the outbox records them. */
export class MockEvents extends EventEmitter<EventMap> {}
