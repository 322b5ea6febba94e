import { EventEmitter } from 'node:events'
import type { Attempt, Fault } from './model.ts'

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
  /** What the request log should say about how it was answered (`pattern skipped: value too long`). */
  note?: string | null
  durationMs: number
  /** Sent by our own webhook worker: never turned into an event (no delivery storms). */
  fromDelivery: boolean
}

export type DeliveryAttempted = Pick<Attempt, 'deliveryId' | 'subscriptionId' | 'eventType' | 'attempt' | 'statusCode' | 'succeeded' | 'error' | 'durationMs'> & {
  /** What happens next: another attempt at a time, done, or given up. */
  outcome: 'succeeded' | 'retrying' | 'failed'
}

/** Headers and body (text, cut at 64 KiB; null when there is none) of one side of a mock exchange. */
export interface ExchangeSide {
  headers: Record<string, string>
  body: string | null
}

/** One mock request as the request log and the dashboard's live stream show it. */
export interface RequestEntry {
  /** Increasing per server run. */
  id: number
  /** When the request came in (ISO). */
  time: string
  method: string
  path: string
  query: Record<string, string | string[]>
  /** 0 when a fault left no response. */
  status: number
  durationMs: number
  endpointId: number | null
  /** The simulated network fault the client got instead of an answer; absent when none. */
  fault?: Fault
  /** The endpoint's response that answered; absent when the endpoint answered itself. */
  answeredBy?: AnsweredBy
  /** How it was answered, where that needs saying (`pattern skipped: value too long`); absent: nothing. */
  note?: string
  request: ExchangeSide
  response: ExchangeSide
}

/**
 * A mock request with its headers and bodies. Raised only while something listens (the request log,
 * once the dashboard asked for it): capturing costs a copy of both bodies.
 */
export interface RequestCaptured {
  projectId: number
  entry: Omit<RequestEntry, 'id'>
}

/** A payload the project's inbox stored, as the inbox API lists it (JSON text: the body verbatim). */
export interface InboxReceived {
  projectId: number
  json: string
}

interface EventMap {
  'request.served': [RequestServed]
  'request.captured': [RequestCaptured]
  'inbox.received': [InboxReceived]
  'delivery.attempted': [DeliveryAttempted]
  /** Deliveries were queued outside the event recorder (a redelivery): the worker looks now, not at its next poll. */
  'delivery.queued': []
}

/** Typed server events: the core emits them; the CLI logs them and the event recorder records them. */
export class MockEvents extends EventEmitter<EventMap> {}
