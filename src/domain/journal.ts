import type { AnsweredBy, NearMiss, RuleMiss } from '../events.ts'
import { AppError } from '../errors.ts'
import type { Clock, Fault } from '../model.ts'

/** Entries kept per project unless `serve --journal N` (or `startMockApi({ journal })`) says otherwise. */
export const DEFAULT_JOURNAL_SIZE = 5_000
/** Text kept per project (bodies, answers, header lines): past it the oldest entries go, whatever their number. */
export const DEFAULT_JOURNAL_BYTES = 32 * 1024 * 1024
/** Bodies (the request's and the answer's) are kept up to here; `bodyCut` says when one was longer. */
export const MAX_JOURNAL_BODY = 64 * 1024

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
   * name or value holds a line break): one string, where Node's list would keep two objects per
   * header alive for as long as the record, which the garbage collector copies and promotes.
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


export interface Journal {
  /** Entries kept per project; 0 when the journal is off (`--journal 0`). */
  readonly size: number
  /** The clear epoch now: a transport reads it when a request arrives, and hands it back with the record. */
  readonly epoch: number
  /** Arrival time, in ms since the epoch (the server's clock). */
  now(): number
  /**
   * Keeps one request, given its id here (the transport's object is kept as it is: no copy per
   * request); dropped when a clear came after its arrival.
   */
  record(record: JournalRecord): JournalRecord | null
  /** The project's records, oldest first. */
  records(projectId: number): readonly JournalRecord[]
  /** Forgets the project's records, or every project's; what arrived before and ends later is dropped too. */
  clear(projectId?: number): void
  /**
   * The project's reset count as read now (`Project.sequenceEpoch`: `resetProject` raises it,
   * whichever process reset): when it has grown since last seen, the project's journal is cleared,
   * as a reset through the API clears it. The first sighting only remembers it.
   */
  seenReset(projectId: number, resets: number): void
  /** Forgets a project for good (it was deleted). */
  drop(projectId: number): void
  /** Calls `listener` with each record of the project from now on; returns the unsubscribe. */
  subscribe(projectId: number, listener: (record: JournalRecord) => void): () => void
  /** The projects with a ring (any traffic since the start or their last drop). */
  projects(): number[]
}

/** Per-record bookkeeping (the object, numbers, strings we do not count one by one). */
const RECORD_OVERHEAD = 256

function sizeOf(input: JournalRecord): number {
  let bytes = RECORD_OVERHEAD + input.path.length + input.search.length + (input.body?.byteLength ?? 0)
  bytes += input.headerLines.length
  const answer = input.answer
  if (answer) {
    bytes += typeof answer.body === 'string' ? answer.body.length * 2 : (answer.body?.byteLength ?? 0)
    for (const name in answer.headers) bytes += name.length + answer.headers[name]!.length
  }
  return bytes
}

/** One project's records: an array read from `start`, compacted now and then instead of shifted per request. */
interface Ring {
  records: (JournalRecord | undefined)[]
  sizes: number[]
  start: number
  bytes: number
  /** Records that arrived before this epoch are not kept. */
  clearedAt: number
}

/** Compact once this many dropped slots lead the array (and they are at least half of it). */
const COMPACT_AFTER = 1024

/**
 * Every request to a project's mocks, kept in memory for this server run: per project at most
 * `size` entries and `maxBytes` of text, the oldest dropped first.
 */
export function createJournal(options: { size?: number; maxBytes?: number; clock?: Clock } = {}): Journal {
  const size = options.size ?? DEFAULT_JOURNAL_SIZE
  if (!Number.isSafeInteger(size) || size < 0) throw new AppError('INVALID_INPUT', `the journal's size must be an integer of 0 or more (0: off), got ${size}`)
  const maxBytes = options.maxBytes ?? DEFAULT_JOURNAL_BYTES
  const clock = options.clock
  const rings = new Map<number, Ring>()
  const listeners = new Map<number, Set<(record: JournalRecord) => void>>()
  /** Clears of projects without a ring yet, and of all projects: what arrived before them stays out. */
  const clearedWithoutRing = new Map<number, number>()
  let clearedAll = 0
  let epoch = 1
  let nextId = 1
  const resetsSeen = new Map<number, number>()

  const evict = (ring: Ring) => {
    const { records, sizes } = ring
    while (records.length - ring.start > size || (ring.bytes > maxBytes && records.length - ring.start > 1)) {
      ring.bytes -= sizes[ring.start]!
      records[ring.start] = undefined
      ring.start += 1
    }
    if (ring.start >= COMPACT_AFTER && ring.start * 2 >= records.length) {
      ring.records = records.slice(ring.start)
      ring.sizes = sizes.slice(ring.start)
      ring.start = 0
    }
  }

  function clear(projectId?: number): void {
    epoch += 1
    if (projectId === undefined) {
      clearedAll = epoch
      for (const ring of rings.values()) Object.assign(ring, { records: [], sizes: [], start: 0, bytes: 0, clearedAt: epoch })
      return
    }
    const ring = rings.get(projectId)
    if (ring) Object.assign(ring, { records: [], sizes: [], start: 0, bytes: 0, clearedAt: epoch })
    else clearedWithoutRing.set(projectId, epoch)
  }

  return {
    size,
    get epoch() {
      return epoch
    },
    now: () => (clock ? clock.now().getTime() : Date.now()),
    record(input) {
      if (size === 0 || input.epoch < clearedAll) return null
      let ring = rings.get(input.projectId)
      if (!ring) {
        ring = { records: [], sizes: [], start: 0, bytes: 0, clearedAt: clearedWithoutRing.get(input.projectId) ?? 0 }
        clearedWithoutRing.delete(input.projectId)
        rings.set(input.projectId, ring)
      }
      if (input.epoch < ring.clearedAt) return null
      const record = input
      record.id = nextId++
      const bytes = sizeOf(input)
      ring.records.push(record)
      ring.sizes.push(bytes)
      ring.bytes += bytes
      evict(ring)
      const subscribed = listeners.get(input.projectId)
      if (subscribed) for (const listener of subscribed) listener(record)
      return record
    },
    records(projectId) {
      const ring = rings.get(projectId)
      return ring ? (ring.records.slice(ring.start) as JournalRecord[]) : []
    },
    clear,
    seenReset(projectId, resets) {
      const known = resetsSeen.get(projectId)
      if (known !== undefined && resets <= known) return
      resetsSeen.set(projectId, resets)
      // What was kept goes; the clear epoch stays: the request that brought the news arrived after the reset.
      const ring = rings.get(projectId)
      if (known !== undefined && ring) Object.assign(ring, { records: [], sizes: [], start: 0, bytes: 0 })
    },
    drop(projectId) {
      rings.delete(projectId)
      resetsSeen.delete(projectId)
      clearedWithoutRing.delete(projectId)
    },
    subscribe(projectId, listener) {
      let set = listeners.get(projectId)
      if (!set) listeners.set(projectId, (set = new Set()))
      set.add(listener)
      return () => {
        set.delete(listener)
        if (set.size === 0 && listeners.get(projectId) === set) listeners.delete(projectId)
      }
    },
    projects: () => [...rings.keys()],
  }
}

/** A flat `[name, value, name, value, …]` list (Node's `rawHeaders`) as a record's header lines. */
export function headerLinesOf(rawHeaders: readonly string[]): string {
  return rawHeaders.join('\n')
}

/** Header pairs of a record (`[name, value]`, a repeated header once per line), for facts and views. */
export function* headerPairs(headerLines: string): Generator<[string, string]> {
  if (headerLines === '') return
  const lines = headerLines.split('\n')
  for (let i = 0; i + 1 < lines.length; i += 2) yield [lines[i]!, lines[i + 1]!]
}

/** A body as the journal keeps it: the first 64 KiB, copied when longer so the rest can go. */
export function keptBody(bytes: Uint8Array | null): Uint8Array | null {
  if (!bytes || bytes.byteLength === 0) return null
  return bytes.byteLength > MAX_JOURNAL_BODY ? bytes.slice(0, MAX_JOURNAL_BODY) : bytes
}

/** An answer's body as the journal keeps it: a long string is copied, since a slice would keep the whole alive. */
export function keptAnswerBody(body: string | Uint8Array | null): string | Uint8Array | null {
  if (body === null) return null
  if (typeof body !== 'string') return keptBody(body)
  if (body.length <= MAX_JOURNAL_BODY) return body
  return Buffer.from(body.slice(0, MAX_JOURNAL_BODY)).toString()
}

/** An answer's full size in bytes. */
export function answerBodySize(body: string | Uint8Array | null): number {
  if (body === null) return 0
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
}
