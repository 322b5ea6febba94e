import { formSchemaPointer } from './normalize.ts'
import { derefPointer, escapePointer, isObj, mergedParameterPointers, METHODS, resolvePointer, type Obj } from './pointer.ts'
import type { HeaderSpec, ImportedOperation, MediaSpec, OpenApiOperation, ParameterSpec, ResponseSpec, SpecDocument } from './types.ts'

export { escapePointer, resolvePointer } from './pointer.ts'

type Doc = Record<string, unknown>

const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data']

/** Every GET/POST/PUT/PATCH/DELETE/HEAD/OPTIONS of the spec, in document order; TRACE is not served. */
export function listOperations(spec: SpecDocument): ImportedOperation[] {
  const { document } = spec
  const result: ImportedOperation[] = []
  for (const path of Object.keys(isObj(document.paths) ? document.paths : {})) {
    if (!path.startsWith('/')) continue // `x-…` extensions
    const itemPointer = derefPointer(document, `/paths/${escapePointer(path)}`)
    const item = itemPointer === null ? undefined : resolvePointer(document, itemPointer)
    if (itemPointer === null || !isObj(item)) continue
    for (const key of Object.keys(item)) {
      const method = METHODS.find((known) => known === key)
      if (!method || !isObj(item[method])) continue
      const operation = _operation(spec, itemPointer, `${itemPointer}/${method}`)
      result.push({ method: method.toUpperCase() as ImportedOperation['method'], path: path.replace(/\{([^}]+)\}/g, ':$1'), operation })
    }
  }
  return result
}

/** What an import says of the operations it leaves out: TRACE, which mockapi does not serve. */
export function skippedOperationWarnings(document: Doc): string[] {
  const warnings: string[] = []
  for (const [path, item] of Object.entries(isObj(document.paths) ? document.paths : {})) {
    if (path.startsWith('/') && isObj(item) && isObj(item.trace)) {
      const others = METHODS.some((method) => isObj(item[method]))
      warnings.push(`#/paths/${escapePointer(path)}/trace: TRACE is not served: a TRACE request answers ${others ? '405 (the path has other methods)' : '404 (the path has no other method)'}`)
    }
  }
  return warnings
}

function _operation(spec: SpecDocument, itemPointer: string, pointer: string): OpenApiOperation {
  const { document } = spec
  const operation = resolvePointer(document, pointer) as Obj
  const parameters = mergedParameterPointers(document, itemPointer, pointer)
  return {
    pointer,
    operationId: typeof operation.operationId === 'string' ? operation.operationId : null,
    parameters: parameters.flatMap((p) => _parameter(document, p)),
    requestBody: spec.version === '2.0' ? _requestBody2(document, pointer, parameters) : _requestBody3(document, `${pointer}/requestBody`),
    responses: _entries(document, `${pointer}/responses`).flatMap(([code, p]) => {
      if (!/^([1-5]([0-9]{2}|XX)|default)$/i.test(code)) return []
      return [spec.version === '2.0' ? _response2(document, pointer, code, p) : _response3(document, code, p)]
    }),
  }
}

/** `[key, pointer]` of an object's entries, each `$ref` resolved; unresolvable entries are dropped. */
function _entries(document: Doc, pointer: string): [string, string][] {
  const node = resolvePointer(document, pointer)
  if (!isObj(node)) return []
  return Object.keys(node).flatMap((key) => {
    const target = derefPointer(document, `${pointer}/${escapePointer(key)}`)
    return target === null ? [] : [[key, target] as [string, string]]
  })
}

const _has = (document: Doc, pointer: string): boolean => resolvePointer(document, pointer) !== undefined
const _maybe = (document: Doc, pointer: string): string | null => (_has(document, pointer) ? pointer : null)

function _parameter(document: Doc, pointer: string): ParameterSpec[] {
  const parameter = resolvePointer(document, pointer) as Obj
  if (parameter.in !== 'path' && parameter.in !== 'query' && parameter.in !== 'header' && parameter.in !== 'cookie') return []
  // 3.x may describe a parameter with `content` (one media) instead of `schema`.
  const [media] = _entries(document, `${pointer}/content`)
  const schema = _maybe(document, `${pointer}/schema`) ?? (media ? _maybe(document, `${media[1]}/schema`) : null)
  return [{ name: String(parameter.name), in: parameter.in, required: parameter.in === 'path' || parameter.required === true, schema }]
}

function _media3(document: Doc, type: string, pointer: string): MediaSpec {
  const examples: Record<string, string> = {}
  for (const [name, example] of _entries(document, `${pointer}/examples`)) {
    if (_has(document, `${example}/value`)) examples[name] = `${example}/value` // externalValue is not fetched
  }
  return { type, schema: _maybe(document, `${pointer}/schema`), example: _maybe(document, `${pointer}/example`), examples }
}

function _content3(document: Doc, pointer: string): MediaSpec[] {
  return _entries(document, `${pointer}/content`).map(([type, p]) => _media3(document, type, p))
}

function _requestBody3(document: Doc, pointer: string): OpenApiOperation['requestBody'] {
  const target = _has(document, pointer) ? derefPointer(document, pointer) : null
  if (target === null) return null
  return { required: (resolvePointer(document, target) as Obj).required === true, media: _content3(document, target) }
}

function _response3(document: Doc, code: string, pointer: string): ResponseSpec {
  const response = resolvePointer(document, pointer) as Obj
  const headers = _entries(document, `${pointer}/headers`).map(([name, p]): HeaderSpec => {
    const header = resolvePointer(document, p) as Obj
    const [media] = _entries(document, `${p}/content`)
    const firstExample = _entries(document, `${p}/examples`).find(([, e]) => _has(document, `${e}/value`))
    return {
      name,
      required: header.required === true,
      schema: _maybe(document, `${p}/schema`) ?? (media ? _maybe(document, `${media[1]}/schema`) : null),
      example: _maybe(document, `${p}/example`) ?? (firstExample ? `${firstExample[1]}/value` : null),
    }
  })
  return { code, description: String(response.description ?? ''), headers, media: _content3(document, pointer) }
}

/** 2.0 `consumes`/`produces`: the operation's, else the document's, else JSON. */
/** The operation's list wins even when empty (Swagger 2.0: an empty one clears the root's); none at all: JSON. */
function _mimes(document: Doc, operationPointer: string, key: 'consumes' | 'produces'): string[] {
  const own = resolvePointer(document, `${operationPointer}/${key}`)
  const list = Array.isArray(own) ? own : document[key]
  return Array.isArray(list) && list.length > 0 ? list.map(String) : ['application/json']
}

function _requestBody2(document: Doc, operationPointer: string, parameters: string[]): OpenApiOperation['requestBody'] {
  const consumes = _mimes(document, operationPointer, 'consumes')
  const noExamples = { example: null, examples: {} }
  const body = parameters.find((p) => (resolvePointer(document, p) as Obj).in === 'body')
  if (body) {
    const required = (resolvePointer(document, body) as Obj).required === true
    return { required, media: consumes.map((type) => ({ type, schema: `${body}/schema`, ...noExamples })) }
  }
  const form = parameters.map((p) => resolvePointer(document, p) as Obj).filter((p) => p.in === 'formData')
  if (form.length === 0) return null
  // A form body can also be sent as JSON when `consumes` says so (Slack does); the same schema applies.
  const types = consumes.some((type) => FORM_TYPES.includes(type)) ? consumes : [FORM_TYPES[0] as string, ...consumes]
  const schema = formSchemaPointer(operationPointer)
  return { required: form.some((p) => p.required === true), media: types.map((type) => ({ type, schema, ...noExamples })) }
}

// `type/subtype`, parameters allowed: what a 2.0 `examples` key must be.
const MIME = /^[\w.+-]+\/[\w.+*-]+\s*(;.*)?$/

function _response2(document: Doc, operationPointer: string, code: string, pointer: string): ResponseSpec {
  const response = resolvePointer(document, pointer) as Obj
  const schema = _maybe(document, `${pointer}/schema`)
  const keys = isObj(response.examples) ? Object.keys(response.examples) : []
  // 2.0 `examples` is keyed by mime type, one value each; a key that is no mime type (`error`, a
  // common slip) never becomes a Content-Type: it is kept as a named example of every produced type.
  const mimeKeys = keys.filter((key) => MIME.test(key))
  const named = Object.fromEntries(keys.filter((key) => !MIME.test(key)).map((key) => [key, `${pointer}/examples/${escapePointer(key)}`]))
  const produces = _mimes(document, operationPointer, 'produces')
  // The produced types are the answer's; an example under another type is offered only where there is no schema to answer with.
  const types = schema || Object.keys(named).length > 0 ? [...new Set([...produces, ...(schema ? [] : mimeKeys)])] : mimeKeys
  const media = types.map((type) => ({ type, schema, example: _maybe(document, `${pointer}/examples/${escapePointer(type)}`), examples: named }))
  const headers = Object.keys(isObj(response.headers) ? response.headers : {}).map((name) => ({ name, required: false, schema: `${pointer}/headers/${escapePointer(name)}`, example: null }))
  return { code, description: String(response.description ?? ''), headers, media }
}
