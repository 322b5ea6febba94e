import { binOf, histogramPercentile, HISTOGRAM_BINS } from './stats-percentiles.ts'
import type { RequestBucketView } from '../views.ts'
import type { StatsWindow } from './stats-window.ts'

/** A slot's counts: total, 2xx, 3xx, 4xx, 5xx, then the duration histogram. */
const TOTAL = 0
const CLASSES = 4
const HISTOGRAM = 1 + CLASSES
const SLOT_SIZE = HISTOGRAM + HISTOGRAM_BINS

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
    ring.slots.set(key, slot)
    evict(ring, key)
  }
  ring.lastKey = key
  ring.last = slot
  return slot
}

function count(slot: Uint32Array, status: number, bin: number): void {
  slot[TOTAL]! += 1
  const statusClass = Math.floor(status / 100) - 1
  if (statusClass >= 1 && statusClass <= CLASSES) slot[statusClass]! += 1
  slot[HISTOGRAM + bin]! += 1
}

export interface RequestStats {
  /** Counts one answered request of the project at `atMs` (status 0: a fault, in no class). */
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
      if (slot) for (let i = 0; i < SLOT_SIZE; i++) into[i]! += slot[i]!
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
      count(slotOf(counters.seconds, atMs), status, bin)
      count(slotOf(counters.minutes, atMs), status, bin)
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
        if (source) sum(source, at, at + bucketMs, totals)
        const total = totals[TOTAL]!
        buckets.push({
          at: new Date(at).toISOString(),
          total,
          '2xx': totals[1]!,
          '3xx': totals[2]!,
          '4xx': totals[3]!,
          '5xx': totals[4]!,
          p50: histogramPercentile(totals, HISTOGRAM, total, 0.5),
          p95: histogramPercentile(totals, HISTOGRAM, total, 0.95),
          p99: histogramPercentile(totals, HISTOGRAM, total, 0.99),
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
