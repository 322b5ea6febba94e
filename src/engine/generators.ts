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

/**
 * The largest count or length a generator may be asked for (characters, words, sentences, items).
 * `string.alpha({"length":100000000})` took 38 s and 1.27 GB per call; a generator runs inside
 * requests and seeding write transactions, so its work must stay small.
 */
export const MAX_GENERATOR_SIZE = 10_000
// Option keys whose number (or `{min, max}`) is a count or a length, in every module: length, count, extensionCount.
const isSizeKey = (key: string) => key === 'length' || /count$/i.test(key)
// Modules where a bare number is a value (number.int(9) is a maximum, datatype.boolean(0.5) a probability), not a size.
const VALUE_MODULES = new Set(['number', 'datatype', 'date', 'location', 'commerce', 'color'])
// Modules whose top-level `{min, max}` is a count or length (lorem.words({"min":1,"max":9}), string.sample({"min":1,"max":9})).
const RANGE_MODULES = new Set(['lorem', 'string'])
// Methods whose string argument is a pattern that repeats (helpers.fromRegExp("a{9}"), helpers.fake("{{string.alpha(9)}}")).
const PATTERN_METHODS = new Set(['helpers.fake', 'helpers.fromRegExp', 'helpers.regexpStyleStringParse'])

function refuseSize(name: string, size: number | string): never {
  throw new AppError('INVALID_INPUT', `generator "${name}": ${size} is more than the ${MAX_GENERATOR_SIZE} a count or length may be`)
}

/** Refuses arguments that ask a generator for more than MAX_GENERATOR_SIZE of anything. */
function checkArgumentSizes(name: string, moduleName: string, args: unknown): void {
  const patterns = PATTERN_METHODS.has(name)
  const visit = (value: unknown, isSize: boolean, topLevel: boolean): void => {
    // faker reads numeric strings as numbers in options ({"length":"9"}); a bare string is text (string.fromCharacters("0123456789")).
    const numeric = typeof value === 'number' || (!topLevel && typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)))
    if (isSize && numeric) {
      const size = Number(value)
      if (!(size <= MAX_GENERATOR_SIZE)) refuseSize(name, value as number | string)
      return
    }
    if (typeof value === 'string') {
      if (patterns) for (const digits of value.match(/\d+/g) ?? []) if (Number(digits) > MAX_GENERATOR_SIZE) refuseSize(name, digits)
      return
    }
    if (Array.isArray(value)) {
      for (const item of value) visit(item, false, false)
      return
    }
    if (value === null || typeof value !== 'object') return
    // A bare number's meaning is not its options': only a size key (or lorem's range) makes one below it a size.
    const inherited = isSize && !topLevel
    for (const [key, item] of Object.entries(value)) {
      visit(item, inherited || isSizeKey(key) || (topLevel && RANGE_MODULES.has(moduleName) && (key === 'min' || key === 'max')), false)
    }
  }
  visit(args, !VALUE_MODULES.has(moduleName), true)
}

/**
 * The method `methodName` of faker's module `moduleName`, or undefined: only faker's own modules
 * and their own methods are reachable, so `helpers.constructor`, `__proto__` or `fakerCore.…` are not.
 */
function fakerMethod(faker: Faker, moduleName: string, methodName: string): { module: object; method: (...a: unknown[]) => unknown } | undefined {
  if (!Object.hasOwn(faker, moduleName)) return undefined
  const module = (faker as unknown as Record<string, unknown>)[moduleName]
  // Modules are class instances; fakerCore and the definitions are plain data.
  if (module === null || typeof module !== 'object' || Object.getPrototypeOf(module) === Object.prototype) return undefined
  if (methodName.startsWith('_') || methodName === 'constructor' || !Object.hasOwn(module, methodName)) return undefined
  const method = (module as Record<string, unknown>)[methodName]
  return typeof method === 'function' ? { module, method: method as (...a: unknown[]) => unknown } : undefined
}

/** `person.fullName`, `number.int({"max":9})`, `uuid`, … → a function drawing one value; unknown names and oversized arguments are refused. */
export function resolveGenerator(call: string, faker: Faker, givenArgs?: unknown): () => unknown {
  const parsed = parseGeneratorCall(call)
  const name = parsed.name
  const args = givenArgs ?? parsed.args
  const plain = Object.hasOwn(PLAIN, name) ? PLAIN[name] : undefined
  if (plain && args === undefined) return () => plain(faker)
  const [moduleName, methodName, ...rest] = name.split('.')
  const found = moduleName && methodName && rest.length === 0 ? fakerMethod(faker, moduleName, methodName) : undefined
  if (!found) {
    throw new AppError('INVALID_INPUT', `unknown generator "${name}": use a faker method such as person.fullName or number.int, or one of ${Object.keys(PLAIN).join(', ')}`)
  }
  if (args !== undefined) checkArgumentSizes(name, moduleName!, args)
  const { module, method } = found
  return () => toJsonValue(args === undefined ? method.call(module) : method.call(module, args))
}

/**
 * Checks a generator at configuration: its name, its argument sizes, and one draw from a throwaway
 * faker, so arguments faker refuses (`number.int({"min":9,"max":1})`) fail now, not on every call.
 */
export function checkGenerator(call: string, faker: Faker): void {
  const draw = resolveGenerator(call, faker)
  try {
    draw()
  } catch (error) {
    throw new AppError('INVALID_INPUT', `generator "${call}" fails: ${(error as Error).message}`)
  }
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
    checkGenerator(generator, faker)
  }
}

/** A function drawing one record from the fields' generators, each resolved once (a seed draws thousands). */
export function recordGenerator(fields: Record<string, string>, faker: Faker): () => Record<string, unknown> {
  const draws = Object.entries(fields).map(([field, generator]) => [field, resolveGenerator(generator, faker)] as const)
  return () => {
    const record: Record<string, unknown> = {}
    for (const [field, draw] of draws) record[field] = draw()
    return record
  }
}
