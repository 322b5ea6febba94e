import { AppError } from '../errors.ts'

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const
const DURATION = /^(\d+)(ms|s|m|h|d)$/

/** `100ms`, `30s`, `15m`, `1h`, `7d` → milliseconds. */
export function parseDuration(text: string, what = 'duration'): number {
  const match = DURATION.exec(text.trim())
  if (!match) throw new AppError('INVALID_INPUT', `${what} "${text}" must be a number with a unit: ms, s, m, h or d (e.g. 30s, 15m, 1h, 7d)`)
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]
}

/** `5s,30s,2m` → [5000, 30000, 120000]. */
export function parseDurationList(text: string, what = 'delays'): number[] {
  const parts = text.split(',').map((part) => part.trim()).filter(Boolean)
  if (parts.length === 0) throw new AppError('INVALID_INPUT', `${what} "${text}" must list at least one duration, e.g. 5s,30s,2m`)
  return parts.map((part) => parseDuration(part, what))
}
