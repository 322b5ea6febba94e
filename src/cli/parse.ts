import { InvalidArgumentError } from 'commander'
import { readFileSync, statSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { MAX_FILE_BYTES, type UploadedFile } from '../domain/bodies.ts'
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

/** A flag's JSON (inline or @file), refused by the flag's name when it does not parse. */
export function jsonFlag(flag: string, value: string, cwd: string): unknown {
  const text = readJsonArgument(value, cwd)
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new AppError('INVALID_INPUT', `${flag} is not valid JSON: ${(error as Error).message}`)
  }
}

/** `--body`: JSON inline or `@file`; a file that is not JSON (`@avatar.png`) is pointed at --file. */
export function readJsonBodyArgument(value: string, cwd: string): string {
  const text = readJsonArgument(value, cwd)
  try {
    JSON.parse(text)
  } catch (error) {
    // The parser's message would quote the file's bytes, which for an image is noise.
    if (value.startsWith('@')) throw new AppError('INVALID_INPUT', `response body ${value.slice(1)} is not valid JSON; to answer a file as it is, use --file ${value.slice(1)}`)
    throw new AppError('INVALID_INPUT', `response body is not valid JSON: ${(error as Error).message}`)
  }
  return text
}

/** `--file`: the bytes of a file to answer as they are, refused before reading when too large. */
export function readFileArgument(value: string, cwd: string): UploadedFile {
  const file = resolve(cwd, value)
  try {
    const size = statSync(file).size
    if (size > MAX_FILE_BYTES) throw new AppError('INVALID_INPUT', `${file} is ${size} bytes; a response file may be at most ${MAX_FILE_BYTES / 1024 / 1024} MiB (${MAX_FILE_BYTES} bytes)`)
    return { name: basename(file), bytes: readFileSync(file) }
  } catch (error) {
    if (error instanceof AppError) throw error
    throw new AppError('INVALID_INPUT', `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
}
