import { AppError } from '../errors.ts'

/**
 * `Prefer: code=503, delay=800, example=name` (as Prism reads it); parts that do not parse are
 * ignored. A 1xx code is refused: it is informational, never a final answer a client could read.
 */
export interface Preferences {
  code?: number
  delayMs?: number
  example?: string
}

export const MAX_PREFER_DELAY_MS = 60_000

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
    else if (key === 'delay' && /^[0-9]{1,9}$/.test(value)) preferences.delayMs = Math.min(Number(value), MAX_PREFER_DELAY_MS)
    else if (key === 'example') preferences.example = value
  }
  return preferences
}
