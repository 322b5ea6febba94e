import { describe, expect, it } from 'vitest'
import { binOf, histogramPercentile, HISTOGRAM_BINS } from '../../src/engine/stats-percentiles.ts'
import { createRequestStats } from '../../src/engine/stats-requests.ts'
import { parseStatsWindow } from '../../src/engine/stats-window.ts'

const RESOLUTION = 2 ** (1 / 3)
const HOUR = 3_600_000

describe('the request counters behind GET …/stats', () => {
  it('reads any percentile of a histogram within one bin of the exact one, from 0.1 ms to a minute', () => {
    // A fixed spread of durations (no randomness: the same check every run), over six orders of magnitude.
    const durations = Array.from({ length: 997 }, (_, i) => 0.1 * 10 ** ((((i * 7919) % 997) / 997) * 5.7))
    const bins = new Float64Array(HISTOGRAM_BINS)
    for (const duration of durations) bins[binOf(duration)]! += 1
    const sorted = [...durations].sort((a, b) => a - b)
    for (const q of [0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 1]) {
      const exact = sorted[Math.ceil(q * sorted.length) - 1]!
      const read = histogramPercentile(bins, 0, durations.length, q)!
      expect(read, `q ${q}`).toBeGreaterThanOrEqual(exact / RESOLUTION)
      expect(read, `q ${q}`).toBeLessThanOrEqual(exact * RESOLUTION)
    }
    expect(histogramPercentile(bins, 0, 0, 0.5)).toBeNull()
    // Under 0.1 ms and past the last bin are bins of their own.
    expect(binOf(0)).toBe(0)
    expect(binOf(0.05)).toBe(0)
    expect(binOf(10 * 60_000)).toBe(HISTOGRAM_BINS - 1)
  })

  it('keeps the seconds of the last hour and the minutes of the last day, and lets go of a project a day after its last request', () => {
    const stats = createRequestStats()
    const start = Date.UTC(2026, 0, 1, 12, 0, 30)
    stats.record(7, start, 200, 1)
    stats.record(7, start + 500, 503, 2)
    const at = (nowMs: number, query: string) => parseStatsWindow(new URLSearchParams(query), nowMs)
    const total = (nowMs: number, query: string) => stats.buckets(7, at(nowMs, query)).reduce((sum, bucket) => sum + bucket.total, 0)
    expect(total(start + 1000, 'window=1m')).toBe(2)
    // Within the hour from the seconds; past it, only a window read from the minutes still has them.
    expect(total(start + HOUR - 60_000, 'window=1h')).toBe(2)
    expect(total(start + 2 * HOUR, 'window=1h')).toBe(0)
    expect(total(start + 2 * HOUR, 'window=6h')).toBe(2)
    expect(total(start + 23 * HOUR, 'window=24h')).toBe(2)
    stats.sweep(start + 23 * HOUR)
    expect(total(start + 23 * HOUR, 'window=24h')).toBe(2)
    stats.sweep(start + 25 * HOUR)
    expect(total(start + 25 * HOUR, 'window=24h')).toBe(0)
    // Swept away: new traffic starts the project afresh, and nothing old comes back with it.
    stats.record(7, start + 25 * HOUR, 404, 1)
    const counted = stats.buckets(7, at(start + 25 * HOUR, 'window=1m')).filter((bucket) => bucket.total > 0)
    expect(counted).toEqual([expect.objectContaining({ total: 1, '4xx': 1, '5xx': 0 })])
  })

  it('counts requests that got no answer (status 0) on their own, in the total too', () => {
    const stats = createRequestStats()
    const start = Date.UTC(2026, 0, 1, 12, 0, 30)
    for (const status of [404, 404, 0, 0, 0]) stats.record(3, start, status, 2)
    const [bucket] = stats.buckets(3, parseStatsWindow(new URLSearchParams('window=1m'), start)).filter((b) => b.total > 0)
    expect(bucket).toMatchObject({ total: 5, '2xx': 0, '4xx': 2, '5xx': 0, noAnswer: 3 })
  })

  it('keeps percentiles within the bucket\'s shortest and longest duration: four requests delayed 300 ms never read as faster', () => {
    const stats = createRequestStats()
    const start = Date.UTC(2026, 0, 1, 12, 0, 30)
    const durations = [300.4, 301.2, 302.9, 305.1]
    durations.forEach((duration, i) => stats.record(4, start + i, 200, duration))
    const [bucket] = stats.buckets(4, parseStatsWindow(new URLSearchParams('window=1m'), start)).filter((b) => b.total > 0)
    console.log('four delayed 300 ms:', JSON.stringify(bucket))
    for (const p of [bucket!.p50!, bucket!.p95!, bucket!.p99!]) {
      expect(p).toBeGreaterThanOrEqual(300.4)
      expect(p).toBeLessThanOrEqual(305.1)
    }
    // Within one slot and across slots (a window read from the minutes) alike.
    stats.record(4, start + 61_000, 200, 1000)
    const [minute] = stats.buckets(4, parseStatsWindow(new URLSearchParams('window=2h'), start + 61_000)).filter((b) => b.total > 0)
    expect(minute!.p50!).toBeGreaterThanOrEqual(300.4)
    expect(minute!.p99!).toBeLessThanOrEqual(1000)
  })

  it('aligns buckets to their length, the last one holding now', () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 7, 250)
    expect(parseStatsWindow(new URLSearchParams('window=5m'), now)).toEqual({
      window: '5m', bucketSeconds: 5, bucketCount: 60, fromMs: Date.UTC(2026, 0, 1, 11, 55, 10), toMs: Date.UTC(2026, 0, 1, 12, 0, 10),
    })
  })
})
