import { InvalidArgumentError } from 'commander'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { AppError } from '../errors.ts'

export function parseInteger(value: string): number {
  if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`"${value}" is not a whole number`)
  return Number(value)
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value]
}

/** `Name: value` or `Name:value` pairs into a header map. */
export function parseHeaders(pairs: string[] = []): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const pair of pairs) {
    const colon = pair.indexOf(':')
    const name = colon > 0 ? pair.slice(0, colon).trim() : ''
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) throw new AppError('INVALID_INPUT', `header "${pair}" must look like "Name: value"`)
    headers[name] = pair.slice(colon + 1).trim()
  }
  return headers
}

/** A JSON value given inline or as `@file` (relative to the working directory). */
export function readJsonArgument(value: string, cwd: string): string {
  if (!value.startsWith('@')) return value
  const file = resolve(cwd, value.slice(1))
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    throw new AppError('INVALID_INPUT', `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
}
