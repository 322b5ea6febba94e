/**
 * Durations as the request counters keep them: a fixed histogram, each bin 2^(1/3) (about 26 %)
 * wider than the one before, from 0.1 ms to about 105 s. Bin 0 holds what took under 0.1 ms, the
 * last bin what took longer than the others cover. A percentile read from it lies in the same bin
 * as the exact one: within 26 % of it.
 */
const FIRST_BOUND_MS = 0.1
const BINS_PER_DOUBLING = 3
const DOUBLINGS = 20
/** Bin i (1 ≤ i ≤ BOUNDED_BINS) holds [bound(i-1), bound(i)); bin 0 [0, 0.1 ms); the last, the rest. */
const BOUNDED_BINS = BINS_PER_DOUBLING * DOUBLINGS
export const HISTOGRAM_BINS = BOUNDED_BINS + 2

/** The upper bound of bin `bin`, in ms (bin 0's is 0.1 ms). */
function upperBound(bin: number): number {
  return FIRST_BOUND_MS * 2 ** (bin / BINS_PER_DOUBLING)
}

/** The bin a duration falls in. */
export function binOf(durationMs: number): number {
  if (!(durationMs >= FIRST_BOUND_MS)) return 0
  const bin = Math.floor(Math.log2(durationMs / FIRST_BOUND_MS) * BINS_PER_DOUBLING) + 1
  return bin > BOUNDED_BINS ? BOUNDED_BINS + 1 : bin
}

/** To two decimals, as durations are given everywhere else. */
const rounded = (ms: number) => Math.round(ms * 100) / 100

/**
 * The `q` quantile (0 < q ≤ 1, nearest rank) of the durations counted in `bins` (HISTOGRAM_BINS
 * counts from `offset`), `total` of them: placed within its bin as its rank is among the bin's
 * counts (the middle of the bin for a bin of one). Null when there are none.
 */
export function histogramPercentile(bins: ArrayLike<number>, offset: number, total: number, q: number): number | null {
  if (total === 0) return null
  const rank = Math.max(1, Math.ceil(q * total))
  let below = 0
  for (let bin = 0; bin < HISTOGRAM_BINS; bin++) {
    const count = bins[offset + bin]!
    if (below + count < rank) {
      below += count
      continue
    }
    if (bin === BOUNDED_BINS + 1) return rounded(upperBound(BOUNDED_BINS))
    const low = bin === 0 ? 0 : upperBound(bin - 1)
    const high = upperBound(bin)
    return rounded(low + ((high - low) * (rank - below - 0.5)) / count)
  }
  return null
}

/** The `q` quantile (nearest rank) of durations sorted ascending; null when there are none. */
export function exactPercentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!
}
