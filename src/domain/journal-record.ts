import type { AnsweredBy, NearMiss, RuleMiss } from '../events.ts'
import type { Fault } from '../model.ts'

/** What went back: the answer's status, headers and body as sent (cut at 64 KiB); no body after a fault. */
export interface JournalAnswer {
  /** Names as the answer spelled them; the view lowers them. */
  headers: Record<string, string>
  body: string | Uint8Array | null
  bodySize: number
}

/**
 * One request as the journal keeps it, raw: secrets unmasked (a `when` on `authorization` must see
 * them), headers as one string of lines, query and cookies parsed only when read.
 */
export interface JournalRecord {
  /** Increasing per server run, never reused; 0 until the journal keeps the record. */
  id: number
  readonly projectId: number
  /** Arrival, in ms since the epoch. */
  readonly at: number
  /** The journal's clear epoch at arrival: a clear drops what arrived before it, even if it ends after. */
  readonly epoch: number
  readonly protocol: 'http' | 'grpc'
  readonly method: string
  /** The path as sent (percent-encoded as sent). */
  readonly path: string
  /** The raw query with its `?`, or ''. */
  readonly search: string
  /**
   * The header lines as sent, `name\nvalue\nname\nvalue…` (a repeated header once per line; no
   * name or value holds a line break): one string, which the ring packs as it is.
   */
  readonly headerLines: string
  /** The route's parameters; null when no endpoint matched. */
  readonly params: Record<string, string> | null
  /** At most 64 KiB of it; null when there was none (or it could not be read). */
  readonly body: Uint8Array | null
  readonly bodySize: number
  readonly contentType: string | null
  /** 0 when a fault left the client without an answer. */
  readonly status: number
  readonly durationMs: number
  readonly endpointId: number | null
  readonly answeredBy: AnsweredBy | null
  /** False when no endpoint matched the method and path (404 not matched, 405). */
  readonly matched: boolean
  readonly fault: Fault | null
  readonly note: string | null
  readonly answer: JournalAnswer | null
  readonly nearMisses: NearMiss[] | null
  readonly ruleMisses: RuleMiss[] | null
  /** Forwarded to the proxy target (`serve --proxy`) instead of answered by a mock; absent: not. */
  readonly proxied?: boolean
}
