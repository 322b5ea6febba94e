const SPAN = /^(\d{1,9})(ms|s|m|h|d)$/
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/i

/** What a `since` takes, for the message that refuses anything else. */
export const SINCE_FORMS = 'an ISO time (2026-01-31T10:00:00Z) or a span back from now (30s, 5m, 2h, 1d)'

/** `2026-01-31T10:00:00Z`, or `30m` back from `now`, in ms since the epoch; null for anything else. */
export function sinceTime(raw: unknown, now: number): number | null {
  const text = typeof raw === 'string' ? raw.trim() : ''
  const span = SPAN.exec(text)
  if (span) return now - Number(span[1]) * UNIT_MS[span[2] as keyof typeof UNIT_MS]
  const time = ISO_DATE.test(text) ? Date.parse(text) : Number.NaN
  return Number.isNaN(time) ? null : time
}
