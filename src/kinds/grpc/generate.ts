import type { Faker } from '@faker-js/faker'
import protobuf from 'protobufjs'
import { valueForField } from '../../engine/field-values.ts'
import { AppError } from '../../errors.ts'
import { isObject } from '../../engine/json-input.ts'

/*
 * Messages are plain objects in proto-loader's conventions (keepCase names, enums as names, 64-bit
 * integers as strings, bytes as Buffer): what its serializers take and what its clients decode to.
 */

/** A message nested this deep is left out (proto3 message fields are optional). */
const MAX_DEPTH = 8
/** How often one message type may appear on the way down: recursive types nest once, then stop. */
const MAX_SAME_TYPE = 2
/**
 * Messages one generated answer may hold. Depth alone does not bound the work: types that refer to
 * each other through several repeated fields (3 items each) branch at every level, (3 × fields)^8.
 * Past the budget, further message fields are left out, as recursion is.
 */
export const MAX_MESSAGES = 2_000

const INT32 = new Set(['int32', 'sint32', 'sfixed32'])
const UINT32 = new Set(['uint32', 'fixed32'])
const INT64 = new Set(['int64', 'sint64', 'sfixed64'])
const UINT64 = new Set(['uint64', 'fixed64'])
const WRAPPERS = new Set(['Double', 'Float', 'Int64', 'UInt64', 'Int32', 'UInt32', 'Bool', 'String', 'Bytes'].map((name) => `.google.protobuf.${name}Value`))

/** Well-known types whose fields say little about a good value; wrappers are handled by the field that holds them. */
const WELL_KNOWN: Record<string, (faker: Faker) => Record<string, unknown>> = {
  '.google.protobuf.Timestamp': (f) => timestampOf(f.date.recent({ days: 30 })),
  '.google.protobuf.Duration': (f) => ({ seconds: String(f.number.int({ min: 1, max: 3600 })), nanos: 0 }),
  '.google.protobuf.Struct': (f) => ({ fields: { [f.word.noun()]: { stringValue: f.lorem.words(2) }, count: { numberValue: f.number.int(100) }, enabled: { boolValue: f.datatype.boolean() } } }),
  '.google.protobuf.Value': (f) => ({ stringValue: f.lorem.words(2) }),
  '.google.protobuf.ListValue': (f) => ({ values: [{ stringValue: f.word.noun() }, { numberValue: f.number.int(100) }] }),
  // An Any names its payload's type; there is no honest one to pick, so it stays empty.
  '.google.protobuf.Any': () => ({}),
  '.google.protobuf.FieldMask': (f) => ({ paths: f.helpers.uniqueArray(() => f.database.column(), 2) }),
}

/** A plain object for message type `type` (proto-loader conventions: keepCase, enums as names, longs as strings, bytes as Buffer): nested messages, enums, repeated (2–3 items), maps (2 entries), one member of each oneof, well-known types (Timestamp → {seconds,nanos} of a recent date, Duration, Struct/Value, wrappers, Empty, Any empty), recursion bounded by depth. */
export function generateMessage(type: protobuf.Type, faker: Faker): Record<string, unknown> {
  return messageValue(type, faker, [], { left: MAX_MESSAGES - 1 })
}

/** Messages still to be generated for one answer. */
interface Budget {
  left: number
}

function messageValue(type: protobuf.Type, faker: Faker, outer: string[], budget: Budget): Record<string, unknown> {
  const known = WELL_KNOWN[type.fullName]
  if (known) return known(faker)
  const path = [...outer, type.fullName]
  // A proto3 `optional` field is a one-member oneof, so it is always the member picked.
  const picked = new Set(type.oneofsArray.map((oneof) => faker.helpers.arrayElement(oneof.fieldsArray).name))
  const message: Record<string, unknown> = {}
  for (const field of type.fieldsArray) {
    if (field.partOf && !picked.has(field.name)) continue
    const value = fieldValue(field.resolve(), faker, path, budget)
    if (value !== undefined) message[field.name] = value
  }
  return message
}

function fieldValue(field: protobuf.Field, faker: Faker, path: string[], budget: Budget): unknown {
  if (field.map) {
    const keys = mapKeys((field as unknown as protobuf.MapField).keyType, faker)
    const entries = keys.map((key) => [key, singleValue(field, faker, path, budget)] as const).filter(([, value]) => value !== undefined)
    return entries.length ? Object.fromEntries(entries) : undefined
  }
  if (field.repeated) {
    const items = Array.from({ length: faker.number.int({ min: 2, max: 3 }) }, () => singleValue(field, faker, path, budget))
    // Items past the budget are left out; a field with none left (recursion) is left out whole.
    const kept = items.filter((item) => item !== undefined)
    return kept.length ? kept : undefined
  }
  return singleValue(field, faker, path, budget)
}

/** undefined: a message left out to bound recursion or the answer's size. */
function singleValue(field: protobuf.Field, faker: Faker, path: string[], budget: Budget): unknown {
  const type = field.resolvedType
  if (type instanceof protobuf.Enum) return enumName(type, faker)
  if (!(type instanceof protobuf.Type)) return scalarValue(field.type, field.name, faker)
  if (WRAPPERS.has(type.fullName)) return { value: scalarValue(type.fields.value!.type, field.name, faker) }
  if (path.length >= MAX_DEPTH || path.filter((name) => name === type.fullName).length >= MAX_SAME_TYPE) return undefined
  if (budget.left <= 0) return undefined
  budget.left -= 1
  return messageValue(type, faker, path, budget)
}

/** Skips the zero value when it can: it is usually UNKNOWN / UNSPECIFIED. */
function enumName(type: protobuf.Enum, faker: Faker): string {
  const names = Object.keys(type.values)
  const meaningful = names.filter((name) => type.values[name] !== 0)
  return faker.helpers.arrayElement(meaningful.length > 0 ? meaningful : names)
}

function scalarValue(kind: string, name: string, faker: Faker): unknown {
  if (kind === 'string') return valueForField(name, 'string', faker)
  if (kind === 'bool') return faker.datatype.boolean()
  if (kind === 'double' || kind === 'float') return valueForField(name, 'float', faker)
  if (kind === 'bytes') return Buffer.from(faker.lorem.word())
  const int = valueForField(name, 'int', faker) as number
  if (INT32.has(kind)) return int
  if (UINT32.has(kind)) return Math.abs(int)
  if (INT64.has(kind)) return String(int)
  if (UINT64.has(kind)) return String(Math.abs(int))
  throw new Error(`unknown protobuf scalar type "${kind}"`)
}

function mapKeys(keyType: string, faker: Faker): string[] {
  if (keyType === 'string') return faker.helpers.uniqueArray(() => faker.word.noun(), 2)
  if (keyType === 'bool') return ['true', 'false']
  const first = faker.number.int({ min: 1, max: 1000 })
  return [String(first), String(first + 1)]
}

function timestampOf(date: Date): Record<string, unknown> {
  const ms = date.getTime()
  return { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 }
}

/**
 * A fixed JSON body as a message object for `type`, refused (INVALID_INPUT, naming the JSON path)
 * when it does not fit. Fields are named as in the .proto or in lowerCamelCase; enums by name or
 * number; 64-bit integers as numbers or strings; bytes as base64; null means unset. Well-known types
 * take their proto3 JSON forms (Timestamp "2024-05-01T12:00:00Z", Duration "1.5s", wrappers as bare
 * values, Struct/Value/ListValue as any JSON, FieldMask "a,b.c", Any with "@type") or their fields.
 */
export function messageFromJson(type: protobuf.Type, json: unknown, where = 'body'): Record<string, unknown> {
  const special = wellKnownFromJson(type, json, where)
  if (special) return special
  if (!isObject(json)) throw misfit(where, `expected an object for ${type.fullName.slice(1)}`, json)
  const message: Record<string, unknown> = {}
  const oneofs = new Map<string, string>()
  for (const [key, value] of Object.entries(json)) {
    const field = fieldNamed(type, key)
    if (!field) throw new AppError('INVALID_INPUT', `${where}: ${type.fullName.slice(1)} has no field "${key}" (fields: ${type.fieldsArray.map((f) => f.name).join(', ') || 'none'})`)
    field.resolve()
    if (value === null && field.resolvedType?.fullName !== '.google.protobuf.Value') continue
    if (field.partOf) {
      const other = oneofs.get(field.partOf.name)
      if (other) throw new AppError('INVALID_INPUT', `${where}: "${other}" and "${field.name}" are both members of oneof ${field.partOf.name}; set one`)
      oneofs.set(field.partOf.name, field.name)
    }
    message[field.name] = fieldFromJson(field, value, `${where}.${key}`)
  }
  return message
}

function fieldNamed(type: protobuf.Type, key: string): protobuf.Field | undefined {
  return type.fields[key] ?? type.fieldsArray.find((field) => protobuf.util.camelCase(field.name) === key || field.options?.json_name === key)
}

function fieldFromJson(field: protobuf.Field, json: unknown, where: string): unknown {
  if (field.map) {
    if (!isObject(json)) throw misfit(where, 'expected an object (a map)', json)
    const keyType = (field as unknown as protobuf.MapField).keyType
    return Object.fromEntries(Object.entries(json).map(([key, value]) => {
      checkMapKey(keyType, key, where)
      return [key, singleFromJson(field, value, `${where}["${key}"]`)]
    }))
  }
  if (field.repeated) {
    if (!Array.isArray(json)) throw misfit(where, 'expected an array (a repeated field)', json)
    return json.map((item, index) => singleFromJson(field, item, `${where}[${index}]`))
  }
  return singleFromJson(field, json, where)
}

function singleFromJson(field: protobuf.Field, json: unknown, where: string): unknown {
  const type = field.resolvedType
  if (type instanceof protobuf.Type) return messageFromJson(type, json, where)
  if (type instanceof protobuf.Enum) return enumFromJson(type, json, where)
  return scalarFromJson(field.type, json, where)
}

function enumFromJson(type: protobuf.Enum, json: unknown, where: string): unknown {
  if (typeof json === 'string' && Object.hasOwn(type.values, json)) return json
  if (typeof json === 'number' && Object.values(type.values).includes(json)) return json
  throw misfit(where, `expected one of ${Object.keys(type.values).join(', ')}`, json)
}

const INTEGER_TEXT = /^-?\d+$/
const INT_RANGE: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
}

function scalarFromJson(kind: string, json: unknown, where: string): unknown {
  if (kind === 'string') {
    if (typeof json !== 'string') throw misfit(where, 'expected a string', json)
    return json
  }
  if (kind === 'bool') {
    if (typeof json !== 'boolean') throw misfit(where, 'expected true or false', json)
    return json
  }
  if (kind === 'double' || kind === 'float') {
    const number = typeof json === 'string' && json.trim() !== '' ? Number(json) : json
    if (typeof number !== 'number' || (Number.isNaN(number) && json !== 'NaN')) throw misfit(where, 'expected a number', json)
    return number
  }
  if (kind === 'bytes') {
    if (typeof json !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(json)) throw misfit(where, 'expected base64 text', json)
    return Buffer.from(json, 'base64')
  }
  return integerFromJson(kind, json, where)
}

function integerFromJson(kind: string, json: unknown, where: string): unknown {
  const wide = INT64.has(kind) || UINT64.has(kind)
  const range = INT_RANGE[INT32.has(kind) ? 'int32' : UINT32.has(kind) ? 'uint32' : INT64.has(kind) ? 'int64' : 'uint64']!
  const text = typeof json === 'number' && Number.isSafeInteger(json) ? String(json) : typeof json === 'string' ? json : ''
  if (!INTEGER_TEXT.test(text)) throw misfit(where, `expected an integer (${kind})`, json)
  const value = BigInt(text)
  if (value < range[0] || value > range[1]) throw misfit(where, `out of range for ${kind}`, json)
  return wide ? text : Number(value)
}

function checkMapKey(keyType: string, key: string, where: string): void {
  if (keyType === 'bool' && key !== 'true' && key !== 'false') throw misfit(where, 'map keys must be "true" or "false"', key)
  if (keyType !== 'string' && keyType !== 'bool') integerFromJson(keyType, key, `${where} key`)
}

/** The proto3 JSON forms of well-known types; null when `json` is in the plain message form. */
function wellKnownFromJson(type: protobuf.Type, json: unknown, where: string): Record<string, unknown> | null {
  const name = type.fullName
  if (WRAPPERS.has(name) && !isObject(json)) return { value: scalarFromJson(type.fields.value!.type, json, where) }
  if (name === '.google.protobuf.Struct') return structFromJson(json, where)
  if (name === '.google.protobuf.Value') return valueFromJson(json)
  if (name === '.google.protobuf.ListValue') {
    if (!Array.isArray(json)) throw misfit(where, 'expected an array (ListValue)', json)
    return { values: json.map(valueFromJson) }
  }
  if (typeof json !== 'string') return name === '.google.protobuf.Any' && isObject(json) && '@type' in json ? anyFromJson(type, json, where) : null
  if (name === '.google.protobuf.Timestamp') return timestampFromJson(json, where)
  if (name === '.google.protobuf.Duration') return durationFromJson(json, where)
  if (name === '.google.protobuf.FieldMask') return { paths: json.split(',').map((p) => p.trim()).filter(Boolean) }
  return null
}

function structFromJson(json: unknown, where: string): Record<string, unknown> {
  if (!isObject(json)) throw misfit(where, 'expected an object (Struct)', json)
  return { fields: Object.fromEntries(Object.entries(json).map(([key, value]) => [key, valueFromJson(value)])) }
}

function valueFromJson(json: unknown): Record<string, unknown> {
  if (json === null) return { nullValue: 'NULL_VALUE' }
  if (typeof json === 'number') return { numberValue: json }
  if (typeof json === 'string') return { stringValue: json }
  if (typeof json === 'boolean') return { boolValue: json }
  if (Array.isArray(json)) return { listValue: { values: json.map(valueFromJson) } }
  return { structValue: structFromJson(json, '') }
}

/** protobufjs packs `{"@type": "type.googleapis.com/pkg.Msg", …fields}` itself; the fields are checked against pkg.Msg here. */
function anyFromJson(type: protobuf.Type, json: Record<string, unknown>, where: string): Record<string, unknown> {
  const url = json['@type']
  const typeName = typeof url === 'string' ? url.slice(url.lastIndexOf('/') + 1) : ''
  const payload = typeName ? type.root.lookup(typeName) : null
  if (!(payload instanceof protobuf.Type)) throw misfit(`${where}["@type"]`, 'expected the URL of a message type defined in the proto', url)
  const { '@type': _, ...fields } = json
  return { '@type': url, ...messageFromJson(payload, fields, where) }
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i

function timestampFromJson(json: string, where: string): Record<string, unknown> {
  const match = RFC3339.exec(json)
  const ms = match ? Date.parse(`${match[1]}${match[3]}`) : Number.NaN
  if (!match || Number.isNaN(ms)) throw misfit(where, 'expected an RFC 3339 timestamp like "2024-05-01T12:00:00Z"', json)
  return { seconds: String(ms / 1000), nanos: Number((match[2] ?? '').padEnd(9, '0')) }
}

function durationFromJson(json: string, where: string): Record<string, unknown> {
  const match = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(json)
  if (!match) throw misfit(where, 'expected a duration like "1.5s"', json)
  const sign = match[1] ? -1 : 1
  return { seconds: String(sign * Number(match[2])), nanos: sign * Number((match[3] ?? '').padEnd(9, '0')) }
}

function misfit(where: string, expected: string, got: unknown): AppError {
  return new AppError('INVALID_INPUT', `${where}: ${expected}, got ${JSON.stringify(got) ?? String(got)}`)
}

/** The fixed body's messages (`many`: it was a JSON array), each checked against `type`. */
export function bodyMessages(type: protobuf.Type, body: string): { messages: Record<string, unknown>[]; many: boolean } {
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch (error) {
    throw new AppError('INVALID_INPUT', `the body is not JSON: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (!Array.isArray(json)) return { messages: [messageFromJson(type, json)], many: false }
  return { messages: json.map((item, index) => messageFromJson(type, item, `body[${index}]`)), many: true }
}

/** Refuses a configured body that does not fit `responseType` (a JSON array: each item must fit). */
export function checkGrpcBody(descriptor: Record<string, unknown>, responseType: string, bodyJsonText: string): void {
  const root = protobuf.Root.fromJSON(descriptor)
  const type = root.lookup(responseType)
  if (!(type instanceof protobuf.Type)) throw new AppError('INVALID_INPUT', `${responseType} is not a message type of this proto`)
  bodyMessages(type, bodyJsonText)
}
