import { AppError } from '../errors.ts'

/** The longest delay a setting may ask for (2 minutes). */
export const MAX_DELAY_MS = 120_000

/** A delay in ms: fixed when `min === max`, else drawn uniformly from `min` to `max` (both included). */
export interface DelaySpec {
  min: number
  max: number
}

export const NO_DELAY: Readonly<DelaySpec> = Object.freeze({ min: 0, max: 0 })

const RANGE = /^\s*(\d+)\s*-\s*(\d+)\s*$/
const FIXED = /^\s*-?\d+\s*$/

function checkBound(ms: number, text: string, limit: number): number {
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > limit) {
    throw new AppError('INVALID_INPUT', `delay ${text} must be a whole number of milliseconds from 0 to ${limit}, or a range such as 100-300`)
  }
  return ms
}

/** `250`, `"250"` or `"100-300"`; a backwards range, a negative or fractional number, or anything else is refused. */
export function parseDelay(value: string | number, limit = MAX_DELAY_MS): DelaySpec {
  if (typeof value === 'number') {
    const ms = checkBound(value, String(value), limit)
    return { min: ms, max: ms }
  }
  const range = RANGE.exec(value)
  if (range) {
    const min = checkBound(Number(range[1]), value.trim(), limit)
    const max = checkBound(Number(range[2]), value.trim(), limit)
    if (min > max) throw new AppError('INVALID_INPUT', `delay range ${min}-${max} must go from low to high (${max}-${min})`)
    return { min, max }
  }
  if (FIXED.test(value)) return parseDelay(Number(value), limit)
  throw new AppError('INVALID_INPUT', `delay "${value}" must be a whole number of milliseconds (250) or a range (100-300)`)
}

/** The stored pair (`delay_ms`, `delay_max_ms`): null when fixed. */
export function delayOf(stored: { delayMs: number; delayMaxMs: number | null }): DelaySpec {
  return { min: stored.delayMs, max: stored.delayMaxMs ?? stored.delayMs }
}

/** How a project file, `endpoint show` and the API write it: a number when fixed, else `"100-300"`. */
export function formatDelay(delay: DelaySpec): number | string {
  return delay.max > delay.min ? `${delay.min}-${delay.max}` : delay.min
}

/**
 * The delay to hold for: a fixed delay draws nothing from `random`, so the simulated errors of a
 * seeded run stay the same as before ranges existed.
 */
export function drawDelay(delay: DelaySpec, random: () => number): number {
  if (delay.max <= delay.min) return delay.min
  return delay.min + Math.floor(random() * (delay.max - delay.min + 1))
}
