/**
 * Parameters read as their OpenAPI `style`/`explode` (3.x) or `collectionFormat` (2.0) serialise
 * them, so validation sees the array or object the client meant, not one string: path `simple`
 * (`1,2,3`, `role,admin` / `role=admin`), `label` (`.5`, `.1.2.3`), `matrix` (`;id=5`, `;id=1;id=2`);
 * query `form`, `spaceDelimited`, `pipeDelimited`, `deepObject` (`filter[status]=active`); header
 * `simple`; cookie `form`; `content` parameters as JSON. Values stay strings: ajv coerces them.
 */
import { isJsonish } from './media.ts'
import { derefPointer, escapePointer, isObj, mergedParameterPointers, pointerOfRef, resolvePointer, type Obj } from './pointer.ts'
import type { ParameterSpec, SpecDocument } from './types.ts'

export interface ParameterSources {
  params: Record<string, string>
  query: URLSearchParams
  /** The query string as sent, without `?`: `allowReserved` reads a `+` as itself, not a space. */
  rawQuery: string
  headers: { get(name: string): string | null }
}

/** A parameter's value as its style serialises it; a problem when it is not serialised so; undefined when absent. */
export type ReadValue = { value: unknown } | { problem: string } | undefined

type Shape = { kind: 'primitive' } | { kind: 'array' } | { kind: 'object'; properties: Set<string>; open: boolean }

interface Serialisation {
  style: string
  explode: boolean
  /** 2.0 `tsv` has no 3.x style: its delimiter is kept here. */
  delimiter?: string
  /** Explicit in the spec; absent means not checked (see docs/imports.md, "Parameter styles"). */
  allowEmptyValue?: boolean
  allowReserved?: boolean
  json: boolean
}

const DEFAULT_STYLE: Record<ParameterSpec['in'], string> = { path: 'simple', query: 'form', header: 'simple', cookie: 'form' }
const DELIMITER: Record<string, string> = { form: ',', simple: ',', spaceDelimited: ' ', pipeDelimited: '|' }
// 2.0 collectionFormat → the 3.x style that reads the same.
const COLLECTION_FORMAT: Record<string, { style: string; explode: boolean; delimiter?: string }> = {
  csv: { style: 'form', explode: false },
  ssv: { style: 'spaceDelimited', explode: false },
  tsv: { style: 'form', explode: false, delimiter: '\t' },
  pipes: { style: 'pipeDelimited', explode: false },
  multi: { style: 'form', explode: true },
}
// RFC 3986 reserved characters a form value may carry only percent-encoded; `&` and `+` are the form's own syntax.
const RESERVED = /[:/?#[\]@!$'()*,;=]/
const UNENCODED = 'has a reserved character not percent-encoded (allowReserved is false)'
const MAX_SCHEMA_DEPTH = 8

/**
 * Reads one path, query, header or cookie parameter; `siblings` names the operation's parameters in
 * the same place, which a free-form exploded object (`?anything=…`) leaves to them.
 */
export function readParameter(spec: SpecDocument, parameter: ParameterSpec, sources: ParameterSources, siblings: ReadonlySet<string>): ReadValue {
  const owner = _owner(spec, parameter)
  const how = _serialisation(spec, parameter, owner)
  const shape = how.json ? ({ kind: 'primitive' } as const) : _shapeOf(spec.document, parameter.schema)
  const read = _readRaw(parameter, how, shape, sources, siblings)
  if (read === undefined || 'problem' in read) return read
  if (!how.json || typeof read.value !== 'string') return read
  try {
    return { value: JSON.parse(read.value) }
  } catch {
    return { problem: 'must be JSON (its content is application/json)' }
  }
}

/** The Parameter Object a ParameterSpec came from: its schema pointer ends `/schema` or `/content/{type}/schema`. */
function _owner(spec: SpecDocument, parameter: ParameterSpec): Obj {
  for (const pattern of [/^(.*)\/content\/[^/]+\/schema$/, /^(.*)\/schema$/]) {
    const match = parameter.schema === null ? null : pattern.exec(parameter.schema)
    const candidate = match ? resolvePointer(spec.document, match[1]!) : undefined
    if (isObj(candidate) && candidate.in === parameter.in) return candidate
  }
  return {}
}

function _serialisation(spec: SpecDocument, parameter: ParameterSpec, owner: Obj): Serialisation {
  const flags = {
    ...(typeof owner.allowEmptyValue === 'boolean' ? { allowEmptyValue: owner.allowEmptyValue } : {}),
    ...(typeof owner.allowReserved === 'boolean' ? { allowReserved: owner.allowReserved } : {}),
  }
  if (spec.version === '2.0') {
    const format = COLLECTION_FORMAT[String(owner.collectionFormat ?? 'csv')] ?? COLLECTION_FORMAT.csv!
    const delimiter = format.delimiter ?? DELIMITER[format.style] ?? ','
    // `multi` is for query and form fields only; a path or header array is one delimited string.
    if (parameter.in !== 'query') return { style: 'simple', explode: false, delimiter, ...flags, json: false }
    return { ...format, delimiter, ...flags, json: false }
  }
  const content = isObj(owner.content) ? Object.keys(owner.content) : []
  const style = typeof owner.style === 'string' ? owner.style : DEFAULT_STYLE[parameter.in]
  const explode = typeof owner.explode === 'boolean' ? owner.explode : style === 'form'
  return { style, explode, ...flags, json: content.length > 0 && isJsonish(content[0]!) }
}

function _readRaw(parameter: ParameterSpec, how: Serialisation, shape: Shape, sources: ParameterSources, siblings: ReadonlySet<string>): ReadValue {
  const { name } = parameter
  switch (parameter.in) {
    case 'path': {
      const raw = sources.params[name]
      return raw === undefined ? undefined : _readPath(name, raw, how, shape)
    }
    case 'header': {
      const raw = sources.headers.get(name)
      // Repeated headers arrive joined by `, `: items are trimmed.
      return raw === null ? undefined : _delimited(raw, how.delimiter ?? ',', shape, how.explode, true)
    }
    case 'cookie':
      return _readNamed(name, _cookies(sources.headers.get('cookie')), how, shape, siblings)
    case 'query': {
      const entries = how.allowReserved === true ? _rawEntries(sources.rawQuery, true) : [...sources.query]
      if (how.allowReserved === false && _sentUnencoded(sources.rawQuery, name)) return { problem: UNENCODED }
      if (how.allowEmptyValue === false && entries.some(([key, value]) => key === name && value === '')) return { problem: 'must not be empty (allowEmptyValue is false)' }
      return _readNamed(name, entries, how, shape, siblings)
    }
  }
}

function _readPath(name: string, raw: string, how: Serialisation, shape: Shape): ReadValue {
  if (how.style === 'label') {
    if (!raw.startsWith('.')) return { problem: 'must start with "." (label style)' }
    const rest = raw.slice(1)
    // Unexploded items are comma-separated (RFC 6570, OpenAPI 3.1.1); OpenAPI 3.0's table shows dots, read too when there is no comma.
    const delimiter = how.explode || !rest.includes(',') ? '.' : ','
    return _delimited(rest, delimiter, shape, how.explode && shape.kind === 'object', false)
  }
  if (how.style === 'matrix') {
    if (!raw.startsWith(';')) return { problem: `must start with ";" (matrix style: ;${name}=…)` }
    const pieces = raw.slice(1).split(';')
    if (how.explode && shape.kind === 'object') return _keyValues(pieces)
    const values: string[] = []
    for (const piece of pieces) {
      if (piece === name) values.push('')
      else if (piece.startsWith(`${name}=`)) values.push(piece.slice(name.length + 1))
      else return { problem: `must read ;${name}=… (matrix style)` }
    }
    if (how.explode && shape.kind === 'array') return { value: values }
    if (values.length !== 1) return { problem: `must read ;${name}=… once (matrix style)` }
    return _delimited(values[0]!, ',', shape, false, false)
  }
  return _delimited(raw, how.delimiter ?? ',', shape, how.explode, false)
}

/** One string holding a primitive, a delimited array, or an object as `k,v,…` pairs (`k=v,…` exploded). */
function _delimited(raw: string, delimiter: string, shape: Shape, explodedObject: boolean, trim: boolean): ReadValue {
  if (shape.kind === 'primitive') return { value: raw }
  const items = raw === '' ? [] : raw.split(delimiter).map((item) => (trim ? item.trim() : item))
  if (shape.kind === 'array') return { value: items }
  return explodedObject ? _keyValues(items) : _pairs(items)
}

function _pairs(items: string[]): ReadValue {
  if (items.length % 2 !== 0) return { problem: 'must be an object written as name,value pairs' }
  const object = new Map<string, string>()
  for (let i = 0; i < items.length; i += 2) object.set(items[i]!, items[i + 1]!)
  return { value: Object.fromEntries(object) }
}

function _keyValues(items: string[]): ReadValue {
  const object = new Map<string, string>()
  for (const item of items) {
    const at = item.indexOf('=')
    if (at <= 0) return { problem: 'must be an object written as name=value items' }
    object.set(item.slice(0, at), item.slice(at + 1))
  }
  return { value: Object.fromEntries(object) }
}

/** A query or cookie parameter among name=value entries. */
function _readNamed(name: string, entries: [string, string][], how: Serialisation, shape: Shape, siblings: ReadonlySet<string>): ReadValue {
  if (shape.kind === 'object' && how.style === 'deepObject') return _deepObject(name, entries)
  if (shape.kind === 'object' && how.explode) return _explodedObject(entries, shape, siblings)
  const values = entries.filter(([key]) => key === name).map(([, value]) => value)
  if (values.length === 0) return undefined
  if (shape.kind === 'primitive') return { value: values.length === 1 ? values[0] : values }
  const delimiter = how.delimiter ?? DELIMITER[how.style] ?? ','
  if (shape.kind === 'array') return { value: how.explode ? values : values.flatMap((value) => (value === '' ? [] : value.split(delimiter))) }
  return _delimited(values.at(-1)!, delimiter, shape, false, false)
}

/** `form` exploded: the object's properties are parameters of their own (`?role=admin&firstName=Alex`). */
function _explodedObject(entries: [string, string][], shape: Extract<Shape, { kind: 'object' }>, siblings: ReadonlySet<string>): ReadValue {
  const object = new Map<string, string | string[]>()
  for (const [key, value] of entries) {
    if (!(shape.properties.has(key) || (shape.open && !siblings.has(key)))) continue
    const before = object.get(key)
    object.set(key, before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value])
  }
  return object.size === 0 ? undefined : { value: Object.fromEntries(object) }
}

/** `filter[status]=active&filter[range][min]=1` → `{status: 'active', range: {min: '1'}}`; a repeated key gives an array. */
function _deepObject(name: string, entries: [string, string][]): ReadValue {
  const root = Object.create(null) as Obj
  let found = false
  for (const [key, value] of entries) {
    // `filter=5` names the parameter but gives it no property: written in no style it could be read in.
    if (key === name) return { problem: `must be written ${name}[property]=value (deepObject style)` }
    if (!key.startsWith(`${name}[`)) continue
    const path = /^(?:\[[^[\]]*\])+$/.test(key.slice(name.length)) ? key.slice(name.length + 1, -1).split('][') : null
    if (path === null || path.some((segment) => segment === '')) return { problem: `must be written ${name}[property]=value (deepObject style)` }
    found = true
    let node = root
    for (const segment of path.slice(0, -1)) {
      const child = Object.hasOwn(node, segment) ? node[segment] : undefined
      if (!isObj(child)) node[segment] = Object.create(null) as Obj
      node = node[segment] as Obj
    }
    const last = path.at(-1)!
    const before = Object.hasOwn(node, last) ? node[last] : undefined
    node[last] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value]
  }
  return found ? { value: JSON.parse(JSON.stringify(root)) as unknown } : undefined
}

/** Whether a value of `name` in form text (a query string, a form body) carries a reserved character as is. */
function _sentUnencoded(text: string, name: string): boolean {
  return text.split('&').some((pair) => {
    const at = pair.indexOf('=')
    return at >= 0 && _formDecode(pair.slice(0, at), false) === name && RESERVED.test(pair.slice(at + 1))
  })
}

/** name=value entries of a query string, percent-decoded; a `+` in a value stays itself under `keepPlus` (allowReserved). */
function _rawEntries(raw: string, keepPlus: boolean): [string, string][] {
  return raw.split('&').filter((pair) => pair !== '').map((pair) => {
    const at = pair.indexOf('=')
    return at < 0 ? [_formDecode(pair, false), ''] : [_formDecode(pair.slice(0, at), false), _formDecode(pair.slice(at + 1), keepPlus)]
  })
}

/** Form text decoded: `+` is a space (unless kept), then percent escapes; a malformed escape stays as written. */
function _formDecode(text: string, keepPlus: boolean): string {
  return _percentDecode(keepPlus ? text : text.replace(/\+/g, ' '))
}

function _percentDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

function _cookies(header: string | null): [string, string][] {
  if (header === null) return []
  return header.split(';').flatMap((pair) => {
    const at = pair.indexOf('=')
    return at < 0 ? [] : [[pair.slice(0, at).trim(), _percentDecode(pair.slice(at + 1).trim())] as [string, string]]
  })
}

/** Whether the schema describes an array, an object (with the properties it names), or anything else. */
function _shapeOf(document: Obj, pointer: string | null): Shape {
  const schema = pointer === null ? undefined : _follow(document, resolvePointer(document, pointer), 0)
  return schema ? _shape(document, schema, 0) : { kind: 'primitive' }
}

function _follow(document: Obj, node: unknown, hops: number): Obj | undefined {
  if (!isObj(node) || hops > MAX_SCHEMA_DEPTH) return undefined
  if (typeof node.$ref !== 'string') return node
  const target = pointerOfRef(node.$ref)
  return target === null ? undefined : _follow(document, resolvePointer(document, target), hops + 1)
}

function _shape(document: Obj, schema: Obj, depth: number): Shape {
  const types = Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : []
  const branches = depth >= MAX_SCHEMA_DEPTH ? [] : ['allOf', 'anyOf', 'oneOf'].flatMap((key) => (Array.isArray(schema[key]) ? (schema[key] as unknown[]) : []))
    .flatMap((branch) => {
      const followed = _follow(document, branch, 0)
      return followed ? [followed] : []
    }).map((branch) => _shape(document, branch, depth + 1))
  if (types.includes('array') || (types.length === 0 && schema.items !== undefined)) return { kind: 'array' }
  const objectBranches = branches.filter((shape) => shape.kind === 'object')
  const isObject = types.includes('object') || (types.length === 0 && (isObj(schema.properties) || schema.additionalProperties !== undefined || objectBranches.length > 0))
  if (!isObject) return types.length === 0 && branches.some((shape) => shape.kind === 'array') ? { kind: 'array' } : { kind: 'primitive' }
  const properties = new Set([...Object.keys(isObj(schema.properties) ? schema.properties : {}), ...objectBranches.flatMap((shape) => [...shape.properties])])
  // An object naming no properties is free-form (`?anything=…`), as JSON Schema reads it.
  const declared = schema.additionalProperties !== undefined || isObj(schema.patternProperties) || properties.size === 0
  const open = (schema.additionalProperties !== false && declared) || objectBranches.some((shape) => shape.open)
  return { kind: 'object', properties, open }
}

export interface FormBodyRead {
  /** The fields as the spec serialises them: 2.0 arrays split by their collectionFormat, 3.x ones by their encoding. */
  fields: Record<string, unknown>
  problems: { field: string; message: string }[]
}

/**
 * A form body's fields read as the spec serialises them: 2.0 `formData` parameters (collectionFormat,
 * `allowEmptyValue: false`), 3.x `encoding` (style, explode, `allowReserved`: a `+` sent as is stays `+`).
 */
export function readFormBody(spec: SpecDocument, operationPointer: string, mediaSchema: string, fields: Record<string, unknown>, formText: string | null): FormBodyRead {
  const result: FormBodyRead = { fields: { ...fields }, problems: [] }
  const { document } = spec
  if (spec.version === '2.0') {
    const itemPointer = operationPointer.slice(0, operationPointer.lastIndexOf('/'))
    for (const pointer of mergedParameterPointers(document, itemPointer, operationPointer)) {
      const parameter = resolvePointer(document, pointer) as Obj
      if (parameter.in !== 'formData') continue
      const name = String(parameter.name)
      const value = result.fields[name]
      if (value === undefined) continue
      if (parameter.allowEmptyValue === false && [value].flat().includes('')) result.problems.push({ field: name, message: 'must not be empty (allowEmptyValue is false)' })
      const format = COLLECTION_FORMAT[String(parameter.collectionFormat ?? 'csv')]!
      if (typeof value === 'string' && !format.explode && _shapeOf(document, `${pointer}/schema`).kind === 'array') {
        result.fields[name] = value === '' ? [] : value.split(format.delimiter ?? DELIMITER[format.style]!)
      }
    }
    return result
  }
  if (!mediaSchema.endsWith('/schema')) return result
  const mediaPointer = mediaSchema.slice(0, -'/schema'.length)
  const encoding = resolvePointer(document, `${mediaPointer}/encoding`)
  if (!isObj(encoding)) return result
  const schema = _follow(document, resolvePointer(document, mediaSchema), 0)
  const properties = schema && isObj(schema.properties) ? schema.properties : {}
  for (const name of Object.keys(encoding)) {
    const entry = derefPointer(document, `${mediaPointer}/encoding/${escapePointer(name)}`)
    const how = entry === null ? undefined : (resolvePointer(document, entry) as Obj)
    if (!how) continue
    if (how.allowReserved === false && formText !== null && _sentUnencoded(formText, name)) {
      result.problems.push({ field: name, message: UNENCODED })
      continue
    }
    const entries = how.allowReserved === true && formText !== null ? _rawEntries(formText, true) : null
    if (entries === null && how.style === undefined && how.explode === undefined) continue
    const shape = Object.hasOwn(properties, name) ? _shape(document, _follow(document, (properties as Obj)[name], 0) ?? {}, 0) : ({ kind: 'primitive' } as const)
    const style = typeof how.style === 'string' ? how.style : 'form'
    const serialisation: Serialisation = { style, explode: typeof how.explode === 'boolean' ? how.explode : style === 'form', json: false }
    const source = entries ?? Object.entries(fields).flatMap(([key, value]) => [value].flat().map((item): [string, string] => [key, String(item)]))
    const read = _readNamed(name, source, serialisation, shape, new Set(Object.keys(properties)))
    if (read === undefined) continue
    if ('problem' in read) result.problems.push({ field: name, message: read.problem })
    else result.fields[name] = read.value
  }
  return result
}
