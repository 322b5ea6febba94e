import { AppError } from '../errors.ts'
import type { Clock } from '../model.ts'
import { epochMs, systemClock } from './context.ts'
import type { JournalRecord } from './journal-record.ts'
import { JournalRing } from './journal-ring.ts'

/** Entries kept per project unless `serve --journal N` (or `startMockApi({ journal })`) says otherwise. */
export const DEFAULT_JOURNAL_SIZE = 5_000
/** Bytes kept per project (ASCII text at one byte a character, other text as UTF-16 at two; bodies as bytes): past it the oldest entries go, whatever their number. */
export const DEFAULT_JOURNAL_BYTES = 32 * 1024 * 1024
/** Bodies (the request's and the answer's) are kept up to here; `bodyCut` says when one was longer. */
export const MAX_JOURNAL_BODY = 64 * 1024

export type { JournalAnswer, JournalRecord } from './journal-record.ts'

export interface Journal {
  /** Entries kept per project; 0 when the journal is off (`--journal 0`). */
  readonly size: number
  /** The clear epoch now: a transport reads it when a request arrives, and hands it back with the record. */
  readonly epoch: number
  /** Arrival time, in ms since the epoch (the server's clock). */
  now(): number
  /**
   * Keeps one request, given its id here: packed once this turn of the event loop is over (the
   * transport's object is not kept past it; listeners get it as it is, at once); dropped when a
   * clear came after its arrival.
   */
  record(record: JournalRecord): JournalRecord | null
  /** The project's records, oldest first (rebuilt from the packed ring as objects, once each). */
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

/**
 * Every request to a project's mocks, kept in memory for this server run: per project at most
 * `size` entries and `maxBytes` of text, the oldest dropped first.
 */
export function createJournal(options: { size?: number; maxBytes?: number; clock?: Clock; later?: (task: () => void) => void } = {}): Journal {
  const size = options.size ?? DEFAULT_JOURNAL_SIZE
  if (!Number.isSafeInteger(size) || size < 0) throw new AppError('INVALID_INPUT', `the journal's size must be an integer of 0 or more (0: off), got ${size}`)
  const maxBytes = options.maxBytes ?? DEFAULT_JOURNAL_BYTES
  const clock = options.clock
  const rings = new Map<number, JournalRing>()
  const listeners = new Map<number, Set<(record: JournalRecord) => void>>()
  /** Clears of projects without a ring yet, and of all projects: what arrived before them stays out. */
  const clearedWithoutRing = new Map<number, number>()
  let clearedAll = 0
  let epoch = 1
  let nextId = 1
  const resetsSeen = new Map<number, number>()
  /**
   * Records kept but not packed yet. A request's record is packed once this turn of the event loop
   * has answered every request it read (`later`, default `setImmediate`): packing one record after
   * another's answer costs each request about twice what packing them together does (measured:
   * docs/performance.md). Whatever reads or changes a ring packs what waits first, so no one sees
   * the difference.
   */
  let waiting: JournalRecord[] = []
  const later = options.later ?? setImmediate

  function packWaiting(): void {
    if (waiting.length === 0) return
    const records = waiting
    waiting = []
    for (const record of records) {
      let ring = rings.get(record.projectId)
      if (!ring) {
        ring = new JournalRing(record.projectId, size, maxBytes, clearedWithoutRing.get(record.projectId) ?? 0)
        clearedWithoutRing.delete(record.projectId)
        rings.set(record.projectId, ring)
      }
      ring.push(record)
    }
  }

  function clear(projectId?: number): void {
    packWaiting()
    epoch += 1
    if (projectId === undefined) {
      clearedAll = epoch
      for (const ring of rings.values()) {
        ring.empty()
        ring.clearedAt = epoch
      }
      return
    }
    const ring = rings.get(projectId)
    if (!ring) {
      clearedWithoutRing.set(projectId, epoch)
      return
    }
    ring.empty()
    ring.clearedAt = epoch
  }

  return {
    size,
    get epoch() {
      return epoch
    },
    now: () => epochMs(clock ?? systemClock),
    record(record) {
      if (size === 0 || record.epoch < clearedAll) return null
      const ring = rings.get(record.projectId)
      if (record.epoch < (ring ? ring.clearedAt : clearedWithoutRing.get(record.projectId) ?? 0)) return null
      record.id = nextId++
      if (waiting.push(record) === 1) later(packWaiting)
      const subscribed = listeners.get(record.projectId)
      if (subscribed) for (const listener of subscribed) listener(record)
      return record
    },
    records(projectId) {
      packWaiting()
      return rings.get(projectId)?.records() ?? []
    },
    clear,
    seenReset(projectId, resets) {
      const known = resetsSeen.get(projectId)
      if (known !== undefined && resets <= known) return
      resetsSeen.set(projectId, resets)
      if (known === undefined) return
      // What was kept goes; the clear epoch stays: the request that brought the news arrived after the reset.
      packWaiting()
      rings.get(projectId)?.empty()
    },
    drop(projectId) {
      packWaiting()
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
    projects: () => {
      packWaiting()
      return [...rings.keys()]
    },
  }
}

/** A flat `[name, value, name, value, …]` list (Node's `rawHeaders`) as a record's header lines. */
export function headerLinesOf(rawHeaders: readonly string[]): string {
  // Added up, not joined: join's set-up costs more than the few strings a request has.
  let lines = rawHeaders[0] ?? ''
  for (let i = 1; i < rawHeaders.length; i++) lines += '\n' + rawHeaders[i]!
  return lines
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
