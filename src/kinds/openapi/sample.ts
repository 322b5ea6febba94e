import type { ErrorObject } from 'ajv'
import { sample, type Options } from 'openapi-sampler'
import type { SpecValidators } from './ajv.ts'
import { patternSample } from './pattern.ts'
import { isObj, refTo, type Obj } from './pointer.ts'
import { boundedSampleDepth, MAX_REPAIR_SIZE } from './sample-size.ts'
import type { SpecDocument } from './types.ts'

// Responses omit writeOnly properties (passwords), not readOnly ones (ids): those are what servers return.
const OPTIONS: Options = { skipWriteOnly: true, quiet: true, enablePatterns: true }
// Each round tries every error once; a round that removes none ends the repair.
const MAX_ROUNDS = 10
const STRING_KEYWORDS = new Set(['pattern', 'minLength', 'maxLength', 'format'])
// Formats ajv-formats checks but openapi-sampler does not generate (it falls back to "string").
const FORMAT_SAMPLES: Record<string, string> = { url: 'http://example.com', duration: 'P1D', 'iso-time': '14:15:22Z', 'iso-date-time': '2019-08-24T14:15:22Z', 'json-pointer-uri-fragment': '#/json/pointer' }
const TYPE_DEFAULTS: Record<string, unknown> = { string: '', number: 0, integer: 0, boolean: true, array: [], object: {}, null: null }

export interface Sampler {
  /** A value for the schema at `pointer`, checked (and repaired where it can be) against that schema. */
  json(pointer: string): unknown
}

export function createSampler(spec: SpecDocument, validators: SpecValidators): Sampler {
  const { document } = spec
  const generate = (schema: object): unknown => {
    const maxSampleDepth = boundedSampleDepth(schema, document)
    if (maxSampleDepth === null) return undefined
    try {
      // openapi-sampler may hand back the spec's own `example` objects; never let repairs touch them.
      return structuredClone(sample(schema as never, { ...OPTIONS, maxSampleDepth }, document))
    } catch {
      return undefined
    }
  }
  // A second opinion for a node whose own example/default broke it.
  const regenerate = (schema: unknown): unknown => {
    if (!isObj(schema)) return undefined
    const { example: _example, examples: _examples, default: _default, ...rest } = schema
    return generate(rest)
  }

  // Candidates are thunks: most errors are fixed by the first, and re-sampling a large parent is not free.
  const candidates = (error: ErrorObject, current: unknown): (() => unknown)[] => {
    const parent = (isObj(error.parentSchema) ? error.parentSchema : {}) as Obj
    const params = error.params as Record<string, unknown>
    const items = current as unknown[]
    const list: (() => unknown)[] = [() => regenerate(parent)]
    if (typeof parent.pattern === 'string' && STRING_KEYWORDS.has(error.keyword)) {
      const num = (key: string) => (typeof parent[key] === 'number' ? (parent[key] as number) : undefined)
      list.unshift(() => patternSample(parent.pattern as string, num('minLength'), num('maxLength')))
    }
    switch (error.keyword) {
      case 'required': {
        const property = String(params.missingProperty)
        const schema = isObj(parent.properties) ? parent.properties[property] : undefined
        list.unshift(() => ({ ...(current as Obj), [property]: isObj(schema) ? generate(schema) : null }))
        break
      }
      case 'additionalProperties':
      case 'unevaluatedProperties': {
        const { [String(params.additionalProperty ?? params.unevaluatedProperty)]: _dropped, ...rest } = current as Obj
        list.unshift(() => rest)
        break
      }
      case 'format': list.unshift(() => FORMAT_SAMPLES[String(params.format)]); break
      case 'enum': list.unshift(...(error.schema as unknown[]).slice(0, 3).map((option) => () => option)); break
      case 'const': list.unshift(() => error.schema); break
      case 'oneOf': case 'anyOf': list.push(...(error.schema as object[]).map((branch) => () => generate(branch))); break
      case 'minItems': list.unshift(() => (Number(params.limit) > MAX_REPAIR_SIZE ? undefined : Array.from({ length: Number(params.limit) }, (_, i) => (i < items.length ? items[i] : items[0])))); break
      case 'maxItems': list.unshift(() => items.slice(0, Number(params.limit))); break
      case 'uniqueItems': list.unshift(() => items.map(_distinct), () => [...new Map(items.map((item) => [JSON.stringify(item), item])).values()]); break
      case 'minLength': list.push(() => (Number(params.limit) > MAX_REPAIR_SIZE ? undefined : String(current).padEnd(Number(params.limit), 'a'))); break
      case 'maxLength': list.push(() => String(current).slice(0, Number(params.limit))); break
      case 'type': list.push(...String(params.type).split(',').map((type) => () => TYPE_DEFAULTS[type])); break
      case 'minimum': case 'maximum': case 'exclusiveMinimum': case 'exclusiveMaximum': case 'multipleOf':
        list.push(..._numberCandidates(parent).map((n) => () => n))
    }
    return list
  }

  // Tries each error's candidates in turn and keeps any that lowers the error count.
  const repaired = (pointer: string): unknown => {
    let value = generate({ $ref: refTo(pointer) })
    const validate = validators.at(pointer)
    if (!validate) return value
    const errorCount = (candidate: unknown) => (validate(candidate) ? 0 : (validate.errors?.length ?? 0))
    let count = errorCount(value)
    for (let round = 0; count > 0 && round < MAX_ROUNDS; round++) {
      const before = count
      for (const error of [...(validate.errors ?? [])]) {
        const path = _segments(error.instancePath)
        const current = _get(value, path)
        if (current === undefined && path.length > 0) continue // an earlier repair replaced its parent
        for (const make of candidates(error, current)) {
          const candidate = make()
          if (candidate === undefined) continue
          const next = _set(value, path, candidate)
          const nextCount = errorCount(next)
          if (nextCount < count) {
            ;[value, count] = [next, nextCount]
            break
          }
        }
        if (count === 0) break
      }
      if (count === before) break
      errorCount(value) // the next round reads the errors of the current value
    }
    return value
  }

  // Sampling is deterministic: one value per schema. Callers must not mutate what they get.
  const values = new Map<string, unknown>()
  const json = (pointer: string): unknown => {
    if (!values.has(pointer)) values.set(pointer, repaired(pointer))
    return values.get(pointer)
  }

  return { json }
}

// openapi-sampler repeats one sample for every item; vary them so `uniqueItems` holds.
function _distinct(item: unknown, index: number): unknown {
  if (index === 0) return item
  if (typeof item === 'string') return `${item}${index}`
  if (typeof item === 'number') return item + index
  return item
}

function _numberCandidates(schema: Obj): number[] {
  const num = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : undefined)
  const step = schema.type === 'integer' ? 1 : 0.5
  const low = num('minimum') ?? (num('exclusiveMinimum') !== undefined ? num('exclusiveMinimum')! + step : undefined)
  const high = num('maximum') ?? (num('exclusiveMaximum') !== undefined ? num('exclusiveMaximum')! - step : undefined)
  const multiple = num('multipleOf') ?? 1
  const base = low ?? (high !== undefined ? Math.min(0, high) : 0)
  return [Math.ceil(base / multiple) * multiple, base, high].filter((n): n is number => n !== undefined)
}

const _segments = (path: string) => path.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))

function _get(value: unknown, path: string[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Obj | undefined)?.[key], value)
}

/** A copy of `value` with the node at `path` replaced; the untouched parts are shared. */
function _set(value: unknown, path: string[], replacement: unknown): unknown {
  const [head, ...rest] = path
  if (head === undefined) return replacement
  const child = _set((value as Obj)[head], rest, replacement)
  if (Array.isArray(value)) return value.map((item, index) => (String(index) === head ? child : item))
  return { ...(value as Obj), [head]: child }
}
