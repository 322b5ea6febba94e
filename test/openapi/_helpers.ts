import { Ajv, type ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { fileURLToPath } from 'node:url'
import { refTo } from '../../src/kinds/openapi/pointer.ts'
import type { SpecDocument } from '../../src/kinds/openapi/types.ts'

type AddFormats = (ajv: Ajv) => Ajv
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats

export const fixture = (path: string) => fileURLToPath(new URL(`../../fixtures/openapi/${path}`, import.meta.url))

/**
 * A plain ajv, independent of the responder's (no caching, no coercion, no repairs), so tests
 * check generated bodies against the stored document rather than against the code that made them.
 */
export function plainValidator(spec: SpecDocument): (pointer: string) => ValidateFunction {
  const options = { strict: false, allErrors: true, validateSchema: false, logger: false as const }
  const ajv = spec.version === '3.1' ? (new Ajv2020(options) as unknown as Ajv) : new Ajv(options)
  addFormats(ajv)
  for (const format of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']) ajv.addFormat(format, true)
  ajv.addSchema(spec.document, 'spec')
  // ajv caches by schema object, and each call makes a new `{ $ref }`: compiled once per pointer.
  const compiled = new Map<string, ValidateFunction>()
  return (pointer) => {
    let validate = compiled.get(pointer)
    if (!validate) compiled.set(pointer, (validate = ajv.compile({ $ref: 'spec' + refTo(pointer) })))
    return validate
  }
}
