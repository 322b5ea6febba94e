import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { AppError } from '../errors.ts'
import { ajvRegExpEngine, UnsafePatternError } from './safe-regex.ts'

type AddFormats = (ajv: Ajv) => Ajv
// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats

let ajv: Ajv | null = null

/**
 * Made with the first schema, not when the module loads: the management API imports this module,
 * and building the instance and its formats was 4 % of `serve`'s CPU to its first answer.
 */
function validator(): Ajv {
  if (ajv) return ajv
  // Patterns run on RE2: one a request could stall on (`^(a+)+$`) is linear there; one RE2 cannot run is refused.
  ajv = new Ajv({ allErrors: true, strict: false, code: { regExp: ajvRegExpEngine({ strict: true }) } })
  addFormats(ajv)
  return ajv
}
const compiled = new Map<string, ValidateFunction>()

export interface SchemaProblem {
  path: string
  message: string
}

/** Compiles once per schema text; an invalid schema is refused with ajv's reason. */
export function compileSchema(schemaText: string): ValidateFunction {
  let validate = compiled.get(schemaText)
  if (!validate) {
    try {
      validate = validator().compile(JSON.parse(schemaText) as object)
    } catch (error) {
      if (error instanceof UnsafePatternError) throw new AppError('INVALID_INPUT', `request schema: ${error.message}`)
      throw new AppError('INVALID_INPUT', `request schema is not a valid JSON Schema: ${(error as Error).message}`)
    }
    compiled.set(schemaText, validate)
  }
  return validate
}

/** Every way `value` breaks the schema, as `{path, message}` (path is a JSON Pointer, "/" for the root). */
export function schemaProblems(schemaText: string, value: unknown): SchemaProblem[] {
  const validate = compileSchema(schemaText)
  if (validate(value)) return []
  return (validate.errors ?? []).map((error) => {
    const missing = error.keyword === 'required' ? `/${String((error.params as { missingProperty: string }).missingProperty)}` : ''
    return { path: `${error.instancePath}${missing}` || '/', message: error.message ?? 'is invalid' }
  })
}
