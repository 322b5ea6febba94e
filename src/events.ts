import { EventEmitter } from 'node:events'
import type { Attempt, AttemptOutcome, CallbackRequest, Fault } from './model.ts'

/** One answered mock request; the event recorder turns it into `mock.request` / `mock.error` events. */
/** Which of an endpoint's responses answered: its 1-based position and its name. */
export interface AnsweredBy {
  position: number
  name: string | null
}

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
  /** A simulated network fault answered instead (status 0 over HTTP: no response at all); absent or null: none. */
  fault?: Fault | null
  /** The endpoint's response that answered; absent or null: the endpoint itself. */
  answeredBy?: AnsweredBy | null
  /** What the journal should say about how it was answered (`pattern skipped: value too long`). */
  note?: string | null
  durationMs: number
  /** When it was answered, in ms since the epoch (the server's clock): what `…/stats` counts it by, whenever it is told. */
  at: number
  /** OpenAPI callbacks the answer sets off (only a 2xx answer does), queued by the event recorder. */
  callbacks?: CallbackRequest[]
  /** Forwarded to the proxy target (`serve --proxy`): `proxied: true` in its `mock.request` / `mock.error` events. */
  proxied?: boolean
  /** Sent by our own webhook worker: never turned into an event (no delivery storms). */
  fromDelivery: boolean
}

export type DeliveryAttempted = Pick<Attempt, 'deliveryId' | 'subscriptionId' | 'eventType' | 'attempt' | 'statusCode' | 'succeeded' | 'error' | 'durationMs'> & {
  /** What happens next: another attempt at a time, done, or given up. */
  outcome: AttemptOutcome
}

/** Headers and body (text, cut at 64 KiB; null when there is none) of what went back for a journalled request. */
export interface ExchangeSide {
  headers: Record<string, string>
  body: string | null
}

/**
 * What differed between a request and something it was compared with: an endpoint (a near miss of
 * an unmatched request), a response rule that did not hold, or a journal filter (the closest
 * requests of a verify that failed).
 */
export interface Difference {
  what: 'method' | 'project' | 'segment' | 'length' | 'condition' | 'status' | 'matched' | 'time'
  /**
   * Where: a segment's index, from 0 at the path's start as the text counts (`segment 2 is "order"`
   * in `/api/shop/order`), or a field or condition's target (`method`, `body.items[0].sku`).
   */
  at?: number | string
  expected: string
  /** What the request had there; null when it had nothing. */
  received: string | null
  /** The difference in one line, for people: `segment 2 is "order", expected "orders"`. */
  text: string
}

/** An endpoint an unmatched request came close to, and what kept it from matching. */
export interface NearMiss {
  endpointId: number | null
  method: string
  /** As served: `/api/shop/orders/:id`. */
  path: string
  differences: Difference[]
}

/** A response rule that did not hold for a request answered by a fallback, and its failed conditions. */
export interface RuleMiss {
  response: AnsweredBy
  /** Each failed condition in one line, with what was received: `body.sku = "A-1" (received "A-2")`. */
  failed: string[]
}

/** One request to a project's mocks as the journal keeps it (API, live stream, CLI, dashboard, tests). */
export interface JournalEntry {
  /** Increasing per server run, never reused (a clear does not restart it). */
  id: number
  projectId: number
  /** When the request came in (ISO). */
  time: string
  protocol: 'http' | 'grpc'
  method: string
  /** As sent, percent-encoded as sent. */
  path: string
  query: Record<string, string | string[]>
  /** Names in lower case; a secret (credentials, cookies, keys) masked except in process (`startMockApi`). */
  headers: Record<string, string>
  cookies: Record<string, string>
  /** Text, cut at 64 KiB (`bodyCut`); a binary body as `(binary, n bytes, type)`; null when there was none. */
  body: string | null
  bodySize: number
  bodyCut: boolean
  /** 0 when a fault left no response, or the client left before it. */
  status: number
  durationMs: number
  endpointId: number | null
  /** The endpoint's response or rule that answered; null when the endpoint answered itself or nothing matched. */
  response: AnsweredBy | null
  /** False when no endpoint matched the method and path (404 not matched, 405). */
  matched: boolean
  /** The simulated network fault the client got instead of an answer; absent when none. */
  fault?: Fault
  /** How it was answered, where that needs saying (`pattern skipped: value too long`); absent: nothing. */
  note?: string
  /** Forwarded to the proxy target (`serve --proxy`) and answered by it; absent: answered here. */
  proxied?: true
  /** Unmatched requests only: the closest endpoints, closest first (at most 3). */
  nearMisses?: NearMiss[]
  /** When a fallback answered an endpoint with rules: the rules that did not hold, and why. */
  ruleMisses?: RuleMiss[]
  /** What went back. */
  answer: ExchangeSide
}

/** Which journal entries a query, a count or a verify means; every field narrows. */
export interface JournalFilter {
  /** A project's slug (the test API); the management API takes the project from its path. */
  project?: string
  /** One method or several, any case. */
  method?: string | string[]
  /** A path pattern as endpoint paths are written: `*` one segment, `**` the rest, `:name`. */
  path?: string
  /** `201`, `4xx`, `400-499`, or a comma list of these; `0` means a fault. */
  status?: string | number
  matched?: boolean
  endpointId?: number
  /** ISO time, or a span back from now (`30s`, `5m`). */
  since?: string
  /** Entries after this id (polling). */
  after?: number
  limit?: number
  /** The condition language of response rules: headers, query, cookies, body subset, JSONPath, operators. */
  when?: Record<string, unknown>
}

/** How many matching requests `verify` expects; none given means at least one. */
export interface VerifyCount {
  times?: number
  atLeast?: number
  atMost?: number
}

/** A payload the project's inbox stored, as the inbox API lists it (JSON text: the body verbatim). */
export interface InboxReceived {
  projectId: number
  json: string
}

interface EventMap {
  'request.served': [RequestServed]
  'inbox.received': [InboxReceived]
  'delivery.attempted': [DeliveryAttempted]
  /** Deliveries were queued outside the event recorder (a redelivery): the worker looks now, not at its next poll. */
  'delivery.queued': []
}

/** Typed server events: the core emits them; the CLI logs them and the event recorder records them. */
export class MockEvents extends EventEmitter<EventMap> {}
