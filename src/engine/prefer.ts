import { AppError } from '../errors.ts'
import { FAULTS, type Fault } from '../model.ts'
import type { DelaySpec } from './delay.ts'

/**
 * `Prefer: code=503, delay=800, example=name` (as Prism reads it), plus `delay=100-300` and
 * `fault=reset`; parts that do not parse are ignored. A 1xx code is refused: it is informational,
 * never a final answer a client could read. A backwards delay range and an unknown fault are
 * refused too: the client clearly asked for one, and ignoring it would hide the typo.
 */
export interface Preferences {
  code?: number
  delay?: DelaySpec
  example?: string
  fault?: Fault
}

export const MAX_PREFER_DELAY_MS = 60_000

const capped = (ms: number) => Math.min(ms, MAX_PREFER_DELAY_MS)

function preferDelay(value: string): DelaySpec | undefined {
  if (/^[0-9]{1,9}$/.test(value)) {
    const ms = capped(Number(value))
    return { min: ms, max: ms }
  }
  const range = /^([0-9]{1,9})-([0-9]{1,9})$/.exec(value)
  if (!range) return undefined
  const [min, max] = [Number(range[1]), Number(range[2])]
  if (min > max) throw new AppError('BAD_REQUEST', `Prefer: delay=${value} must go from low to high (delay=${max}-${min})`)
  return { min: capped(min), max: capped(max) }
}

function checkFault(value: string): Fault {
  if (!(FAULTS as readonly string[]).includes(value)) throw new AppError('BAD_REQUEST', `Prefer: fault=${value} is not a fault: ask for one of ${FAULTS.join(', ')}`)
  return value as Fault
}

/** Only `fault=` of a `Prefer` header: what GraphQL and SOAP mounts read of it (they answer no preferred code or delay). */
export function preferredFault(header: string | null): Fault | undefined {
  if (!header || !/fault/i.test(header)) return undefined
  let fault: Fault | undefined
  for (const part of header.split(/[,;]/)) {
    const [rawKey, ...rest] = part.split('=')
    const value = rest.join('=').trim().replace(/^"(.*)"$/, '$1')
    if (rawKey?.trim().toLowerCase() === 'fault' && value) fault = checkFault(value)
  }
  return fault
}

export function parsePrefer(header: string | null): Preferences {
  const preferences: Preferences = {}
  if (!header) return preferences
  for (const part of header.split(/[,;]/)) {
    const [rawKey, ...rest] = part.split('=')
    const key = rawKey?.trim().toLowerCase()
    const value = rest.join('=').trim().replace(/^"(.*)"$/, '$1')
    if (!key || !value) continue
    if (key === 'code' && /^1[0-9]{2}$/.test(value)) {
      throw new AppError('BAD_REQUEST', `Prefer: code=${value} cannot be answered: a 1xx status is informational, never a final response (ask for 200 to 599)`)
    }
    if (key === 'code' && /^[2-5][0-9]{2}$/.test(value)) preferences.code = Number(value)
    else if (key === 'delay') {
      const delay = preferDelay(value)
      if (delay) preferences.delay = delay
    } else if (key === 'fault') preferences.fault = checkFault(value)
    else if (key === 'example') preferences.example = value
  }
  return preferences
}
