import type { Faker } from '@faker-js/faker'
import { AppError } from '../errors.ts'

/** Plain type names, for when a faker method is more than a field needs. */
const PLAIN: Record<string, (faker: Faker) => unknown> = {
  string: (f) => f.lorem.words({ min: 1, max: 4 }),
  int: (f) => f.number.int({ min: 0, max: 10_000 }),
  integer: (f) => f.number.int({ min: 0, max: 10_000 }),
  number: (f) => f.number.float({ min: 0, max: 10_000, fractionDigits: 2 }),
  float: (f) => f.number.float({ min: 0, max: 10_000, fractionDigits: 2 }),
  boolean: (f) => f.datatype.boolean(),
  uuid: (f) => f.string.uuid(),
  date: (f) => f.date.recent({ days: 365 }).toISOString(),
  email: (f) => f.internet.email(),
  name: (f) => f.person.fullName(),
}

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Makes private faker instances (seeding one never disturbs another); null seed: fresh values. */
export type FakerFactory = (seed?: number | null) => Faker

let loaded: Promise<FakerFactory> | null = null
const SEEDED_REFERENCE_DATE = new Date('2026-01-01T00:00:00.000Z')

/**
 * Loads faker once, lazily. Only the English locale is loaded (25 ms instead of 250 ms for every
 * locale); new instances are built from its definitions, so each one seeds independently.
 */
export function loadFaker(): Promise<FakerFactory> {
  loaded ??= import('@faker-js/faker/locale/en').then(({ faker: english }) => {
    const FakerClass = english.constructor as new (options: { locale: typeof english.rawDefinitions }) => Faker
    return (seed?: number | null) => {
      const faker = new FakerClass({ locale: english.rawDefinitions })
      if (seed !== undefined && seed !== null) {
        faker.seed(seed)
        // Relative dates (date.recent, date.past) count from here, so seeded data is identical anywhere, any day.
        faker.setDefaultRefDate(SEEDED_REFERENCE_DATE)
      }
      return faker
    }
  })
  return loaded
}

/** Faker's own values as JSON: dates become ISO strings. */
export function toJsonValue(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value
}

/** `number.int({"min":1,"max":9})` → name and parsed JSON argument. */
export function parseGeneratorCall(text: string): { name: string; args: unknown } {
  const open = text.indexOf('(')
  if (open < 0) return { name: text.trim(), args: undefined }
  if (!text.trimEnd().endsWith(')')) throw new AppError('INVALID_INPUT', `generator "${text}" must end with ")"`)
  const argText = text.slice(open + 1, text.lastIndexOf(')')).trim()
  try {
    return { name: text.slice(0, open).trim(), args: argText ? (JSON.parse(argText) as unknown) : undefined }
  } catch {
    throw new AppError('INVALID_INPUT', `generator "${text}": the argument must be JSON, e.g. {"min":1,"max":9}`)
  }
}

/** `person.fullName`, `number.int({"max":9})`, `uuid`, … → a function drawing one value; unknown names are refused. */
export function resolveGenerator(call: string, faker: Faker, givenArgs?: unknown): () => unknown {
  const parsed = parseGeneratorCall(call)
  const name = parsed.name
  const args = givenArgs ?? parsed.args
  const plain = Object.hasOwn(PLAIN, name) ? PLAIN[name] : undefined
  if (plain && args === undefined) return () => plain(faker)
  const [moduleName, methodName, ...rest] = name.split('.')
  const module = moduleName && rest.length === 0 && Object.hasOwn(faker, moduleName) ? (faker as unknown as Record<string, unknown>)[moduleName] : undefined
  const method = module && methodName && typeof module === 'object' ? (module as Record<string, unknown>)[methodName] : undefined
  if (typeof method !== 'function' || methodName!.startsWith('_')) {
    throw new AppError('INVALID_INPUT', `unknown generator "${name}": use a faker method such as person.fullName or number.int, or one of ${Object.keys(PLAIN).join(', ')}`)
  }
  const fn = method as (...a: unknown[]) => unknown
  return () => toJsonValue(args === undefined ? fn.call(module) : fn.call(module, args))
}

/** `"title:lorem.sentence,views:int"` → `{title: 'lorem.sentence', views: 'int'}`. */
export function parseFieldSpec(spec: string): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const part of spec.split(',').map((p) => p.trim()).filter(Boolean)) {
    const colon = part.indexOf(':')
    const field = colon > 0 ? part.slice(0, colon).trim() : ''
    const generator = part.slice(colon + 1).trim()
    if (!FIELD_NAME.test(field) || !generator) throw new AppError('INVALID_INPUT', `field "${part}" must look like name:generator, e.g. title:lorem.sentence`)
    fields[field] = generator
  }
  return fields
}

/** Checks every generator name against faker before anything is stored. */
export function checkFields(fields: Record<string, string>, faker: Faker): void {
  for (const [field, generator] of Object.entries(fields)) {
    if (!FIELD_NAME.test(field)) throw new AppError('INVALID_INPUT', `field name "${field}" must be letters, digits or _`)
    if (field === 'id') throw new AppError('INVALID_INPUT', 'the field "id" is given by mockapi; choose another name')
    if (typeof generator !== 'string') throw new AppError('INVALID_INPUT', `field "${field}" needs a generator name`)
    resolveGenerator(generator, faker)
  }
}

export function generateRecord(fields: Record<string, string>, faker: Faker): Record<string, unknown> {
  const record: Record<string, unknown> = {}
  for (const [field, generator] of Object.entries(fields)) record[field] = resolveGenerator(generator, faker)()
  return record
}
