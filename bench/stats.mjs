// Medians and spreads of a few rounds: the machine is noisy, so every figure is a median with
// the lowest and highest round beside it, and ratios are taken within a round before the median.

export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b)
  if (!sorted.length) return NaN
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/** `{median, min, max}` of the rounds' values. */
export function spread(values) {
  const finite = values.filter((v) => Number.isFinite(v))
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite) }
}

/** The ratio a ÷ b of each round, then their spread. */
export const ratioSpread = (a, b) => spread(a.map((value, round) => value / b[round]))
