/**
 * Rewrites a bundled spec in place so ajv (draft-07 / 2020-12) and openapi-sampler read its schemas
 * as the spec author meant. Only schema positions that mocking uses are walked (paths, components,
 * 2.0 definitions/parameters/responses); callbacks and webhooks are left alone.
 */
import type { SpecVersion } from './types.ts'
import { escapePointer, isObj, mergedParameterPointers, METHODS, refTo, resolvePointer, type Obj } from './pointer.ts'

// Reference objects are skipped: their targets are visited where they are defined.
const one = (node: unknown, visit: (node: Obj) => void): void => {
  if (isObj(node) && typeof node.$ref !== 'string') visit(node)
}
const each = (container: unknown, visit: (node: Obj) => void): void => {
  if (isObj(container) || Array.isArray(container)) for (const node of Object.values(container)) one(node, visit)
}

const SUBSCHEMA = ['items', 'additionalProperties', 'not', 'additionalItems', 'contains', 'if', 'then', 'else', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems']
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems']
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']

function _fixKeywords(schema: Obj): void {
  if (schema['x-nullable'] === true) schema.nullable = true
  // OAS 3.0.3: `nullable` only acts beside `type`; ajv refuses to compile it alone.
  if (schema.nullable !== undefined && schema.type === undefined) delete schema.nullable
  // Most specs forget that a nullable enum must list null (3.0.3); be lenient rather than fail samples.
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null]
  for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof schema[flag] !== 'boolean') continue
    if (schema[flag] === true && typeof schema[bound] === 'number') {
      schema[flag] = schema[bound]
      delete schema[bound]
    } else delete schema[flag]
  }
  if (schema.type === 'file') delete schema.type
}

// Unlike structural objects, a schema with `$ref` is still fixed: ajv reads its siblings too.
function _walkSchema(schema: unknown): void {
  if (!isObj(schema)) return
  _fixKeywords(schema)
  for (const key of SUBSCHEMA) {
    const child = schema[key]
    if (Array.isArray(child)) child.forEach(_walkSchema) // draft-07 tuple `items`
    else _walkSchema(child)
  }
  for (const key of SUBSCHEMA_LISTS) if (Array.isArray(schema[key])) (schema[key] as unknown[]).forEach(_walkSchema)
  for (const key of SUBSCHEMA_MAPS) if (isObj(schema[key])) Object.values(schema[key] as Obj).forEach(_walkSchema)
}

function _normalize3(document: Obj): void {
  const content = (node: Obj) => each(node.content, (media) => _walkSchema(media.schema))
  const withSchema = (node: Obj) => {
    _walkSchema(node.schema)
    content(node)
  }
  const response = (node: Obj) => {
    content(node)
    each(node.headers, withSchema)
  }
  const operation = (node: Obj) => {
    each(node.parameters, withSchema)
    one(node.requestBody, content)
    each(node.responses, response)
  }
  each(document.paths, (item) => {
    each(item.parameters, withSchema)
    for (const method of METHODS) one(item[method], operation)
  })
  const components = isObj(document.components) ? document.components : {}
  each(components.schemas, _walkSchema)
  each(components.parameters, withSchema)
  each(components.headers, withSchema)
  each(components.requestBodies, content)
  each(components.responses, response)
}

// Keywords a 2.0 non-body parameter carries itself; they become its `schema`.
const PARAMETER_KEYWORDS = ['type', 'format', 'items', 'default', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'enum', 'multipleOf', 'x-nullable']

function _normalizeParameter2(parameter: Obj): void {
  if (parameter.in === 'body') {
    _walkSchema(parameter.schema)
    return
  }
  const schema: Obj = {}
  for (const key of PARAMETER_KEYWORDS) if (parameter[key] !== undefined) schema[key] = structuredClone(parameter[key])
  _walkSchema(schema)
  parameter.schema = schema
}

function _normalize2(document: Obj): void {
  const response = (node: Obj) => {
    _walkSchema(node.schema)
    // A 2.0 header object is itself schema-like (type, format, items…); operations point at it.
    each(node.headers, _walkSchema)
  }
  each(document.definitions, _walkSchema)
  each(document.parameters, _normalizeParameter2)
  each(document.responses, response)
  each(document.paths, (item) => {
    each(item.parameters, _normalizeParameter2)
    for (const method of METHODS) {
      one(item[method], (operation) => {
        each(operation.parameters, _normalizeParameter2)
        each(operation.responses, response)
      })
    }
  })
  _synthesizeFormSchemas(document)
}

/** Pointer of the object schema synthesized for an operation's 2.0 `formData` parameters. */
export function formSchemaPointer(operationPointer: string): string {
  return `/x-mockapi/formData/${escapePointer(operationPointer)}`
}

// Operations expose schemas only as pointers, so the form body's object schema must live in the document.
function _synthesizeFormSchemas(document: Obj): void {
  const forms: Obj = {}
  for (const path of Object.keys(isObj(document.paths) ? document.paths : {})) {
    const itemPointer = `/paths/${escapePointer(path)}`
    for (const method of METHODS) {
      const operationPointer = `${itemPointer}/${method}`
      if (!isObj(resolvePointer(document, operationPointer))) continue
      const properties: Obj = {}
      const required: string[] = []
      for (const pointer of mergedParameterPointers(document, itemPointer, operationPointer)) {
        const parameter = resolvePointer(document, pointer) as Obj
        if (parameter.in !== 'formData') continue
        const name = String(parameter.name)
        properties[name] = { $ref: refTo(`${pointer}/schema`) }
        if (parameter.required === true) required.push(name)
      }
      if (Object.keys(properties).length > 0) forms[operationPointer] = { type: 'object', properties, required }
    }
  }
  if (Object.keys(forms).length > 0) document['x-mockapi'] = { formData: forms }
}

export function normalizeSpec(document: Obj, version: SpecVersion): void {
  if (version === '2.0') _normalize2(document)
  else _normalize3(document)
}
