import { fullFormats, type FormatName } from 'ajv-formats/dist/formats.js'

/**
 * A JSON Schema (OpenAPI 3.1's dialect) that every given value satisfies, as narrow as the values
 * allow: types (integer when every number is whole), nested objects and arrays, `required` for the
 * keys every object has, and a string `format` (date-time, date, uuid, email, uri) when every string
 * fits it. Formats are checked by ajv-formats itself, which an import validates examples with, so an
 * example taken from the same values always fits the schema when the document is imported again.
 */
export type JsonSchema = Record<string, unknown>

/** Deeper values are described as any value: records are bounded, but a schema should stay readable. */
const MAX_DEPTH = 16

/** Whether ajv-formats' full check of `format` accepts the text. */
function ajvAccepts(format: FormatName, text: string): boolean {
  const definition = fullFormats[format]
  const check = typeof definition === 'object' && !(definition instanceof RegExp) ? definition.validate : definition
  if (check instanceof RegExp) return check.test(text)
  if (typeof check === 'function') return (check as (text: string) => unknown)(text) === true
  return typeof check === 'string' ? new RegExp(check).test(text) : check
}

// ajv's `uri` takes any scheme (`a:b`) and its `uuid` a `urn:uuid:` prefix: only web addresses and bare uuids are called so here.
const WEB_ADDRESS = /^https?:\/\/[^/?#\s]+/i
const BARE_UUID = /^[0-9a-f]{8}-/i

/** The most specific first: a date is never tested as a date-time, a uuid never as an email. */
const FORMATS: [FormatName, (text: string) => boolean][] = [
  ['date-time', (text) => ajvAccepts('date-time', text)],
  ['date', (text) => ajvAccepts('date', text)],
  ['uuid', (text) => BARE_UUID.test(text) && ajvAccepts('uuid', text)],
  ['email', (text) => ajvAccepts('email', text)],
  ['uri', (text) => WEB_ADDRESS.test(text) && ajvAccepts('uri', text)],
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
