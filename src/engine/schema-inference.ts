/**
 * A JSON Schema (OpenAPI 3.1's dialect) that every given value satisfies, as narrow as the values
 * allow: types (integer when every number is whole), nested objects and arrays, `required` for the
 * keys every object has, and a string `format` (date-time, date, email, uri, uuid) when every string
 * fits it. The formats are checked at least as strictly as ajv-formats checks them, so an example
 * taken from the same values validates against the schema when the spec is imported again.
 */
export type JsonSchema = Record<string, unknown>

/** Deeper values are described as any value: records are bounded, but a schema should stay readable. */
const MAX_DEPTH = 16

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/
// ajv-formats' own `email` pattern, so that what is called an email here passes its check.
const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const URI = /^https?:\/\/[^\s"<>\\^`{|}]+$/i

function isDate(text: string): boolean {
  const match = DATE.exec(text)
  if (!match) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

function isDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text)
  return match !== null && isDate(match[1]!) && Number(match[2]) < 24 && Number(match[3]) < 60 && Number(match[4]) < 60
}

function isUri(text: string): boolean {
  if (!URI.test(text)) return false
  try {
    return new URL(text).host !== ''
  } catch {
    return false
  }
}

/** The most specific first: a date is never tested as a date-time, a uuid never as an email. */
const FORMATS: [string, (text: string) => boolean][] = [
  ['date-time', isDateTime],
  ['date', isDate],
  ['uuid', (text) => UUID.test(text)],
  ['email', (text) => EMAIL.test(text)],
  ['uri', isUri],
]

type Kind = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object'

function kindOf(value: unknown): Kind {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  switch (typeof value) {
    case 'boolean': return 'boolean'
    case 'number': return Number.isInteger(value) ? 'integer' : 'number'
    case 'string': return 'string'
    default: return 'object'
  }
}

function stringSchema(values: string[]): JsonSchema {
  const format = FORMATS.find(([, fits]) => values.length > 0 && values.every(fits))
  return format ? { type: 'string', format: format[0] } : { type: 'string' }
}

function objectSchema(values: Record<string, unknown>[], depth: number): JsonSchema {
  const byKey = new Map<string, unknown[]>()
  for (const value of values) {
    for (const [key, field] of Object.entries(value)) {
      const list = byKey.get(key)
      if (list) list.push(field)
      else byKey.set(key, [field])
    }
  }
  const properties: Record<string, JsonSchema> = {}
  for (const [key, fields] of byKey) properties[key] = schemaAt(fields, depth + 1)
  const required = [...byKey].filter(([, fields]) => fields.length === values.length).map(([key]) => key)
  return { type: 'object', ...(byKey.size > 0 ? { properties } : {}), ...(required.length > 0 ? { required } : {}) }
}

function arraySchema(values: unknown[][], depth: number): JsonSchema {
  const items = values.flat()
  return items.length > 0 ? { type: 'array', items: schemaAt(items, depth + 1) } : { type: 'array' }
}

function schemaOfKind(kind: Kind, values: unknown[], depth: number): JsonSchema {
  switch (kind) {
    case 'string': return stringSchema(values as string[])
    case 'object': return objectSchema(values as Record<string, unknown>[], depth)
    case 'array': return arraySchema(values as unknown[][], depth)
    default: return { type: kind }
  }
}

function schemaAt(values: unknown[], depth: number): JsonSchema {
  if (values.length === 0 || depth > MAX_DEPTH) return {}
  const byKind = new Map<Kind, unknown[]>()
  for (const value of values) {
    const kind = kindOf(value)
    const list = byKind.get(kind)
    if (list) list.push(value)
    else byKind.set(kind, [value])
  }
  // A whole number among fractions is a number: `integer` is the narrower of the two.
  if (byKind.has('integer') && byKind.has('number')) {
    byKind.get('number')!.push(...byKind.get('integer')!)
    byKind.delete('integer')
  }
  const schemas = [...byKind].map(([kind, list]) => schemaOfKind(kind, list, depth))
  if (schemas.length === 1) return schemas[0]!
  // Plain types combine in `type` (`["string", "null"]`); an object or array among others needs `anyOf`.
  const structured = schemas.filter((schema) => schema.type === 'object' || schema.type === 'array' || schema.format !== undefined)
  if (structured.length === 0) return { type: schemas.map((schema) => schema.type) }
  if (structured.length === 1 && schemas.length === 2 && byKind.has('null')) return { ...structured[0], type: [structured[0]!.type, 'null'] }
  return { anyOf: schemas }
}

/** The schema every one of `values` satisfies (an empty list gives `{}`, any value). */
export function inferSchema(values: readonly unknown[]): JsonSchema {
  return schemaAt([...values], 0)
}
