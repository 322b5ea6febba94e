/**
 * XML bodies for OpenAPI responses: a value (an example, or one generated from the schema and
 * checked against it) written as XML the way the schema's `xml` objects describe it: `name`,
 * `attribute`, `wrapped`, `prefix` and `namespace`.
 */
import { isObj, pointerOfRef, resolvePointer, type Obj } from './pointer.ts'

/** A schema with its `$ref`s followed and its `allOf`/`oneOf`/`anyOf` branches' properties merged in. */
interface Shape {
  xml: Obj
  properties: Obj
  items: unknown
  /** The name of the component a `$ref` led to: an element's name when the schema gives none. */
  refName: string | null
}

const EMPTY: Shape = { xml: {}, properties: {}, items: undefined, refName: null }
// Deep enough for any real composition; a `$ref` cycle through allOf stops here.
const MAX_DEPTH = 32

function _shape(document: unknown, node: unknown, depth = 0): Shape {
  if (!isObj(node) || depth > MAX_DEPTH) return EMPTY
  if (typeof node.$ref === 'string') {
    const pointer = pointerOfRef(node.$ref)
    const target = pointer === null ? undefined : _shape(document, resolvePointer(document, pointer), depth + 1)
    if (!target) return EMPTY
    const refName = target.refName ?? pointer!.split('/').pop()!.replace(/~1/g, '/').replace(/~0/g, '~')
    // Siblings of a `$ref` (3.1) add to what it points at, and their hints win.
    return _merge(_shape(document, { ...node, $ref: undefined }, depth + 1), { ...target, refName })
  }
  let shape: Shape = {
    xml: isObj(node.xml) ? node.xml : {},
    properties: isObj(node.properties) ? node.properties : {},
    items: node.items,
    refName: null,
  }
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    const branches = node[key]
    // A branch's component name is not this schema's.
    if (Array.isArray(branches)) for (const branch of branches) shape = _merge(shape, { ..._shape(document, branch, depth + 1), refName: null })
  }
  return shape
}

/** `own`'s hints win over a branch's; properties are the union. */
function _merge(own: Shape, branch: Shape): Shape {
  return {
    xml: { ...branch.xml, ...own.xml },
    properties: { ...branch.properties, ...own.properties },
    items: own.items ?? branch.items,
    refName: own.refName ?? branch.refName,
  }
}

const _escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const _escapeAttribute = (text: string) => _escape(text).replace(/"/g, '&quot;')

/** A JSON key as an XML name: characters XML names cannot hold become `_`. */
function _xmlName(name: string): string {
  const cleaned = name.replace(/[^\p{L}\p{N}_.:-]/gu, '_')
  return /^[\p{L}_]/u.test(cleaned) ? cleaned : `_${cleaned}`
}

function _qualified(name: string, xml: Obj): string {
  const local = _xmlName(typeof xml.name === 'string' && xml.name ? xml.name : name)
  return typeof xml.prefix === 'string' && xml.prefix ? `${xml.prefix}:${local}` : local
}

function _namespace(xml: Obj): string {
  if (typeof xml.namespace !== 'string' || !xml.namespace) return ''
  const prefix = typeof xml.prefix === 'string' && xml.prefix ? `:${xml.prefix}` : ''
  return ` xmlns${prefix}="${_escapeAttribute(xml.namespace)}"`
}

function _scalar(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

class Writer {
  private readonly document: unknown

  constructor(document: unknown) {
    this.document = document
  }

  /** One element for `value`, named `name` unless its schema's `xml.name` says otherwise. */
  element(name: string, schema: unknown, value: unknown): string {
    const shape = _shape(this.document, schema)
    const tag = _qualified(name, shape.xml)
    if (Array.isArray(value)) return `<${tag}${_namespace(shape.xml)}>${this.items(name, shape, value)}</${tag}>`
    if (!isObj(value)) return value === null || value === undefined ? `<${tag}${_namespace(shape.xml)}/>` : `<${tag}${_namespace(shape.xml)}>${_escape(_scalar(value))}</${tag}>`
    let attributes = _namespace(shape.xml)
    let children = ''
    for (const [key, child] of Object.entries(value)) {
      const property = shape.properties[key]
      const propertyShape = _shape(this.document, property)
      if (propertyShape.xml.attribute === true && !isObj(child) && !Array.isArray(child)) {
        if (child !== null && child !== undefined) attributes += ` ${_qualified(key, propertyShape.xml)}="${_escapeAttribute(_scalar(child))}"`
      } else if (Array.isArray(child)) {
        children += propertyShape.xml.wrapped === true ? this.element(key, property, child) : this.items(key, propertyShape, child)
      } else {
        children += this.element(key, property, child)
      }
    }
    return children ? `<${tag}${attributes}>${children}</${tag}>` : `<${tag}${attributes}/>`
  }

  /** An array's items, each named by the items' `xml.name`, else the array property's own name. */
  items(name: string, shape: Shape, values: unknown[]): string {
    const itemShape = _shape(this.document, shape.items)
    const itemName = typeof itemShape.xml.name === 'string' && itemShape.xml.name ? itemShape.xml.name : name
    return values.map((item) => this.element(itemName, shape.items, item)).join('')
  }
}

/**
 * An XML document for `value` under the schema at `pointer` (null: no schema, the value's own keys
 * name its elements). The root is named by the schema's `xml.name`, else the component a `$ref`
 * (or the pointer itself) names, else `root`; a root array is always wrapped (a document has one root), its items named
 * `item` unless the items' schema names them.
 */
export function writeXml(document: unknown, pointer: string | null, value: unknown): string {
  const schema = pointer === null ? undefined : resolvePointer(document, pointer)
  const shape = _shape(document, schema)
  const component = pointer === null ? null : /^\/(?:components\/schemas|definitions)\/([^/]+)$/.exec(pointer)
  const rootName = shape.refName ?? (component ? component[1]!.replace(/~1/g, '/').replace(/~0/g, '~') : 'root')
  const writer = new Writer(document)
  let body: string
  if (Array.isArray(value)) {
    const tag = _qualified(rootName, shape.xml)
    const itemShape = _shape(document, shape.items)
    body = `<${tag}${_namespace(shape.xml)}>${value.map((item) => writer.element(itemShape.refName ?? 'item', shape.items, item)).join('')}</${tag}>`
  } else {
    body = writer.element(rootName, schema, value)
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n${body}`
}
