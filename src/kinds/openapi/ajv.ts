import { Ajv, type Options, type ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { ajvRegExpEngine } from '../../engine/safe-regex.ts'
import { refTo } from './pointer.ts'
import type { SpecDocument } from './types.ts'

type AddFormats = (ajv: Ajv) => Ajv
// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats

const SPEC_ID = 'mockapi:spec'
// OpenAPI's own formats carry no checkable constraint for us; accept any value.
const OPENAPI_FORMATS = ['int32', 'int64', 'float', 'double', 'binary', 'password']
// strict: false makes ajv warn about each unknown format and keyword; specs are full of both.
const quiet = { log() {}, warn() {}, error: console.error.bind(console) }

export interface SpecValidators {
  /** A validator for `schema`, whose `$ref`s (`mockapi:spec#/…`) resolve in the spec; null if ajv cannot compile it. */
  compile(key: string, schema: () => object): ValidateFunction | null
  /** A validator for the schema at `pointer`. */
  at(pointer: string): ValidateFunction | null
}

/** ajv over one spec document; the document is added on first use and every validator compiled once. */
export function createSpecValidators(spec: SpecDocument, options: { coerce: boolean; checkBytes?: boolean }): SpecValidators {
  let ajv: Ajv | null = null
  const cache = new Map<string, ValidateFunction | null>()

  const instance = (): Ajv => {
    if (ajv) return ajv
    const settings: Options = {
      strict: false,
      allErrors: true,
      verbose: true, // errors carry parentSchema, which sampling repairs need
      validateSchema: false, // the spec was validated on import; a whole document is no meta-schema's input
      logger: quiet,
      coerceTypes: options.coerce ? 'array' : false,
      // Patterns run on RE2, so no request can stall on one; those RE2 cannot run are skipped (see ajvRegExpEngine).
      code: { regExp: ajvRegExpEngine({ strict: false }) },
    }
    // Ajv2020 is a subclass built on the same core; one variable type serves both.
    ajv = spec.version === '3.1' ? (new Ajv2020(settings) as unknown as Ajv) : new Ajv(settings)
    addFormats(ajv)
    for (const format of OPENAPI_FORMATS) ajv.addFormat(format, true)
    // `byte` is base64 (ajv-formats checks it) in requests; an example or sample answered is not refused for it.
    if (!options.checkBytes) ajv.addFormat('byte', true)
    ajv.addSchema(spec.document, SPEC_ID)
    return ajv
  }

  const compile = (key: string, schema: () => object): ValidateFunction | null => {
    if (cache.has(key)) return cache.get(key) ?? null
    let validate: ValidateFunction | null = null
    try {
      validate = instance().compile(schema())
    } catch {
      validate = null // a schema ajv cannot compile (odd $ref, bad keyword) is not checked, rather than failing requests
    }
    cache.set(key, validate)
    return validate
  }

  return { compile, at: (pointer) => compile(pointer, () => ({ $ref: specRef(pointer) })) }
}

/** An absolute `$ref` to `pointer` in the spec added to ajv. */
export function specRef(pointer: string): string {
  return SPEC_ID + refTo(pointer)
}
