import type { ErrorObject } from 'ajv'
import { specRef, type SpecValidators } from './ajv.ts'
import { isForm, isJsonish, mediaForContentType } from './media.ts'
import { readFormBody, readParameter } from './parameter-styles.ts'
import { isObj, resolvePointer, type Obj } from './pointer.ts'
import type { OpenApiOperation, ParameterSpec, SpecDocument } from './types.ts'

export interface MockRequestParts {
  params: Record<string, string>
  query: URLSearchParams
  /** The query string as sent (without `?`), and a form-encoded body as sent: what decoding loses (a `+` under `allowReserved`). */
  raw: { query: string; form: string | null }
  headers: { get(name: string): string | null }
  contentType: string | null
  body: unknown
}

export interface RequestProblem {
  path: string
  message: string
}

// OAS 3: header parameters with these names are ignored (the request's own machinery covers them).
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization'])
/**
 * Checks a request's path, query, header and cookie parameters (read as their style serialises
 * them, then coerced from strings to their schema types) and its body against the operation.
 * Problems read `query.limit`, `header.x-api-key`, `body/name`.
 */
export function createRequestValidator(spec: SpecDocument, validators: { strict: SpecValidators; coercing: SpecValidators }) {
  return (operation: OpenApiOperation, request: MockRequestParts): RequestProblem[] => _validate(spec, validators, operation, request)
}

function _validate(spec: SpecDocument, validators: { strict: SpecValidators; coercing: SpecValidators }, operation: OpenApiOperation, request: MockRequestParts): RequestProblem[] {
  const problems: RequestProblem[] = []
  const sources = { params: request.params, query: request.query, rawQuery: request.raw.query, headers: request.headers }
  for (const part of ['path', 'query', 'header', 'cookie'] as const) {
    const parameters = operation.parameters.filter((p) => p.in === part && !(part === 'header' && IGNORED_HEADERS.has(p.name.toLowerCase())))
    if (parameters.length === 0) continue
    const validate = validators.coercing.compile(`${operation.pointer}|${part}`, () => _parametersSchema(parameters))
    const data: Record<string, unknown> = {}
    const unreadable = new Set<string>()
    const names = new Set(parameters.map((p) => p.name))
    for (const parameter of parameters) {
      const read = readParameter(spec, parameter, sources, names)
      if (read === undefined) continue
      if ('problem' in read) {
        problems.push({ path: `${part}.${_key(parameter)}`, message: read.problem })
        unreadable.add(_key(parameter))
      } else data[_key(parameter)] = read.value
    }
    // A parameter that could not be read was named once, above; the schema would only add "is required".
    const schemaProblems = validate && !validate(data) ? _problems(spec, validate.errors, (pointer) => `${part}.${pointer.slice(1).replace(/~1/g, '/').replace(/~0/g, '~')}`) : []
    problems.push(...schemaProblems.filter((problem) => !unreadable.has(problem.path.slice(part.length + 1))))
  }
  const body = operation.requestBody
  if (!body) return problems
  if (request.body === undefined || request.body === null || request.body === '') {
    if (body.required) problems.push({ path: 'body', message: 'request body is required' })
    return problems
  }
  const media = request.contentType ? mediaForContentType(body.media, request.contentType) : (body.media.find((m) => isJsonish(m.type)) ?? body.media[0])
  if (!media) {
    if (body.media.length > 0) problems.push({ path: 'body', message: `content type ${request.contentType} is not accepted (expected ${body.media.map((m) => m.type).join(', ')})` })
    return problems
  }
  if (!media.schema || !(isJsonish(media.type) || isForm(media.type))) return problems
  // Form fields arrive as strings: coerce them (on a copy, ajv coerces in place); JSON bodies are taken as sent.
  const form = isForm(media.type)
  const validate = (form ? validators.coercing : validators.strict).at(media.schema)
  let data = form ? structuredClone(request.body) : request.body
  if (form && isObj(request.body)) {
    const read = readFormBody(spec, operation.pointer, media.schema, request.body as Obj, request.raw.form)
    problems.push(...read.problems.map((problem) => ({ path: `body/${_escape(problem.field)}`, message: problem.message })))
    data = structuredClone(read.fields)
  }
  if (validate && !validate(data)) problems.push(..._problems(spec, validate.errors, (pointer) => `body${pointer}`))
  return problems
}

// Header names are case-insensitive: key them (and their problem paths) in lowercase.
const _key = (parameter: ParameterSpec) => (parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name)

function _parametersSchema(parameters: ParameterSpec[]): object {
  const properties = Object.fromEntries(parameters.map((p) => [_key(p), p.schema ? { $ref: specRef(p.schema) } : {}]))
  return { type: 'object', properties, required: parameters.filter((p) => p.required).map(_key) }
}

// A body of 400,000 bad items gives as many errors: the first ones say enough.
const MAX_PROBLEMS = 50

function _problems(spec: SpecDocument, errors: ErrorObject[] | null | undefined, toPath: (pointer: string) => string): RequestProblem[] {
  // OAS: a required readOnly property (a server-made id) is required in responses only.
  const relevant = (errors ?? []).filter((error) => !(error.keyword === 'required' && _isReadOnly(spec, error)))
  return relevant.slice(0, MAX_PROBLEMS).map((error) => {
    const params = error.params as Record<string, unknown>
    if (error.keyword === 'required') return { path: toPath(`${error.instancePath}/${_escape(String(params.missingProperty))}`), message: 'is required' }
    if (error.keyword === 'additionalProperties') return { path: toPath(`${error.instancePath}/${_escape(String(params.additionalProperty))}`), message: 'is not allowed' }
    if (error.keyword === 'enum') return { path: toPath(error.instancePath), message: `must be one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` }
    return { path: toPath(error.instancePath), message: error.message ?? 'is invalid' }
  })
}

function _isReadOnly(spec: SpecDocument, error: ErrorObject): boolean {
  const parent = error.parentSchema as Obj | undefined
  const properties = parent && isObj(parent.properties) ? parent.properties : undefined
  let property: unknown = properties?.[String((error.params as { missingProperty?: unknown }).missingProperty)]
  for (let hops = 0; isObj(property) && typeof property.$ref === 'string' && hops < 16; hops += 1) {
    property = property.$ref.startsWith('#') ? resolvePointer(spec.document, decodeURIComponent(property.$ref.slice(1))) : undefined
  }
  return isObj(property) && property.readOnly === true
}

const _escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1')
