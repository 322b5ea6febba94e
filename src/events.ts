import { EventEmitter } from 'node:events'

/** One answered mock request, as later issues turn it into `mock.request` / `mock.error`. */
export interface RequestServed {
  projectId: number | null
  endpointId: number | null
  method: string
  path: string
  query: Record<string, string | string[]>
  status: number
  durationMs: number
}

interface EventMap {
  'request.served': [RequestServed]
}

/** Typed server events; the core emits them, the CLI and later the webhook outbox listen. */
export class MockEvents extends EventEmitter<EventMap> {}
