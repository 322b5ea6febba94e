import { AppError } from '../errors.ts'

/*
 * What the kinds that read a JSON file of data (a json-server database, a HAR file, a Postman
 * collection) share: an object test, a parse that says "not JSON" by returning undefined (so
 * detection can try the next kind), and their refusal naming the file and the field.
 */

export type JsonObject = Record<string, unknown>

export const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value)

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

export function refuseInput(name: string, field: string | null, message: string): never {
  throw new AppError('INVALID_INPUT', `${name}: ${message}`, field === null ? {} : { details: [{ field, message }] })
}
