import { binOf, histogramPercentile, HISTOGRAM_BINS } from './stats-percentiles.ts'
import type { RequestBucketView } from '../views.ts'
import type { StatsWindow } from './stats-window.ts'

/**
 * A slot's counts: total, 2xx, 3xx, 4xx, 5xx, no answer (status 0), the shortest and longest duration
 * (whole µs; the shortest starts at the largest value), then the duration histogram.
 */
const TOTAL = 0
const CLASSES = 4
const NO_ANSWER = 1 + CLASSES
const MIN_US = NO_ANSWER + 1
const MAX_US = MIN_US + 1
const HISTOGRAM = MAX_US + 1
const SLOT_SIZE = HISTOGRAM + HISTOGRAM_BINS
const NONE_YET = 0xffff_ffff

/** Per-second slots for the last hour (buckets under a minute), per-minute ones for the last day. */
const SECOND = 1000
const MINUTE = 60_000
const SECONDS_KEPT = 3600
const MINUTES_KEPT = 24 * 60 + 1

/** Slots by their start (in units of their span since the epoch), oldest first as they were added. */
interface Ring {
  span: number
  kept: number
  slots: Map<number, Uint32Array>
  /** The slot written last, so that a request in the same second finds it without a lookup. */
  lastKey: number
  last: Uint32Array | null
}

interface ProjectCounters {
  seconds: Ring
  minutes: Ring
}

const ring = (span: number, kept: number): Ring => ({ span, kept, slots: new Map(), lastKey: -1, last: null })

/** Drops slots that fell out of what the ring keeps, the oldest first. */
function evict(ring: Ring, key: number): void {
  for (const oldest of ring.slots.keys()) {
    if (oldest > key - ring.kept) break
    ring.slots.delete(oldest)
  }
}

function slotOf(ring: Ring, atMs: number): Uint32Array {
  const key = Math.floor(atMs / ring.span)
  if (key === ring.lastKey) return ring.last!
  let slot = ring.slots.get(key)
  if (!slot) {
    slot = new Uint32Array(SLOT_SIZE)
    slot[MIN_US] = NONE_YET
    ring.slots.set(key, slot)
    evict(ring, key)
  }
  ring.lastKey = key
  ring.last = slot
  return slot
}

function count(slot: Uint32Array, status: number, bin: number, micros: number): void {
  slot[TOTAL]! += 1
  const statusClass = Math.floor(status / 100) - 1
  if (statusClass >= 1 && statusClass <= CLASSES) slot[statusClass]! += 1
  else if (status === 0) slot[NO_ANSWER]! += 1
  if (micros < slot[MIN_US]!) slot[MIN_US] = micros
  if (micros > slot[MAX_US]!) slot[MAX_US] = micros
  slot[HISTOGRAM + bin]! += 1
}

/**
 * A percentile read from the histogram, kept within the bucket's shortest and longest duration: a
 * bin's interpolation can fall below every sample in it (four requests delayed 300 ms read as 269).
 */
function clamped(value: number | null, minUs: number, maxUs: number): number | null {
  return value === null ? null : Math.round(Math.min(Math.max(value * 1000, minUs), maxUs) / 10) / 100
}

export interface RequestStats {
  /** Counts one request of the project at `atMs` (status 0: no answer, a fault or a client gone, in no class but its own). */
  record(projectId: number, atMs: number, status: number, durationMs: number): void
  /** The project's buckets over the window, oldest first, one per bucket whether or not it had requests. */
  buckets(projectId: number, window: StatsWindow): RequestBucketView[]
  /** Lets go of the slots of every project older than a day at `nowMs`, and of projects left with none. */
  sweep(nowMs: number): void
}

/**
 * Every project's requests as counts per second (the last hour) and per minute (the last day):
 * recording one is a few increments of the slot it falls in, so the serving path stays cheap
 * whatever the traffic; memory follows the seconds and minutes that had traffic.
 */
export function createRequestStats(): RequestStats {
  const projects = new Map<number, ProjectCounters>()

  function sum(ring: Ring, fromMs: number, toMs: number, into: Float64Array): void {
    for (let key = Math.floor(fromMs / ring.span), end = Math.floor(toMs / ring.span); key < end; key++) {
      const slot = ring.slots.get(key)
      if (!slot) continue
      for (let i = 0; i < MIN_US; i++) into[i]! += slot[i]!
      for (let i = HISTOGRAM; i < SLOT_SIZE; i++) into[i]! += slot[i]!
      into[MIN_US] = Math.min(into[MIN_US]!, slot[MIN_US]!)
      into[MAX_US] = Math.max(into[MAX_US]!, slot[MAX_US]!)
    }
  }

  return {
    record(projectId, atMs, status, durationMs) {
      let counters = projects.get(projectId)
      if (!counters) {
        counters = { seconds: ring(SECOND, SECONDS_KEPT), minutes: ring(MINUTE, MINUTES_KEPT) }
        projects.set(projectId, counters)
      }
      const bin = binOf(durationMs)
      const micros = Math.min(Math.round(durationMs * 1000), NONE_YET - 1)
      count(slotOf(counters.seconds, atMs), status, bin, micros)
      count(slotOf(counters.minutes, atMs), status, bin, micros)
    },
    buckets(projectId, window) {
      const counters = projects.get(projectId)
      const bucketMs = window.bucketSeconds * 1000
      // A bucket of whole minutes reads the minutes; a shorter one (within the last hour), the seconds.
      const source = counters && (bucketMs % MINUTE === 0 ? counters.minutes : counters.seconds)
      const totals = new Float64Array(SLOT_SIZE)
      const buckets: RequestBucketView[] = []
      for (let at = window.fromMs; at < window.toMs; at += bucketMs) {
        totals.fill(0)
        totals[MIN_US] = NONE_YET
        if (source) sum(source, at, at + bucketMs, totals)
        const total = totals[TOTAL]!
        const [minUs, maxUs] = [totals[MIN_US]!, totals[MAX_US]!]
        buckets.push({
          at: new Date(at).toISOString(),
          total,
          '2xx': totals[1]!,
          '3xx': totals[2]!,
          '4xx': totals[3]!,
          '5xx': totals[4]!,
          noAnswer: totals[NO_ANSWER]!,
          p50: clamped(histogramPercentile(totals, HISTOGRAM, total, 0.5), minUs, maxUs),
          p95: clamped(histogramPercentile(totals, HISTOGRAM, total, 0.95), minUs, maxUs),
          p99: clamped(histogramPercentile(totals, HISTOGRAM, total, 0.99), minUs, maxUs),
        })
      }
      return buckets
    },
    sweep(nowMs) {
      for (const [projectId, counters] of projects) {
        for (const kept of [counters.seconds, counters.minutes]) {
          evict(kept, Math.floor(nowMs / kept.span))
          if (!kept.slots.has(kept.lastKey)) Object.assign(kept, { lastKey: -1, last: null })
        }
        if (counters.minutes.slots.size === 0) projects.delete(projectId)
      }
    },
  }
}
