/**
 * Realistic values for XSD elements and types (the embedded `wsdl:types`), shaped the way the
 * `soap` package (de)serializes them: objects by element name, arrays for repeated elements,
 * attributes under ATTRIBUTES_KEY and an element's text beside them under VALUE_KEY.
 */
import type { Faker } from '@faker-js/faker'
import { valueForField, type ScalarKind } from '../../engine/field-values.ts'
import { ATTRIBUTES_KEY, VALUE_KEY, childrenOf, resolveQName, type QName, type XmlElement } from './envelope.ts'

export const XSD_NS = 'http://www.w3.org/2001/XMLSchema'

// Recursive types (a customer with a referrer, a tree of nodes) stop this many elements down.
const MAX_DEPTH = 6
const REPEATED_ITEMS = 2
/**
 * Elements one generated answer may hold. Depth alone does not bound the work: many repeated
 * elements per level, or a `minOccurs` of millions, multiply at every level. Past the budget
 * optional elements are left out and required ones come once, empty, as past MAX_DEPTH.
 */
export const MAX_ELEMENTS = 5_000

/** The global declarations of the schemas, by `{namespace}name`. */
export interface Schemas {
  elements: Map<string, XmlElement>
  types: Map<string, XmlElement>
  groups: Map<string, XmlElement>
  attributeGroups: Map<string, XmlElement>
}

const GLOBALS: Record<string, keyof Schemas> = {
  element: 'elements',
  complexType: 'types',
  simpleType: 'types',
  group: 'groups',
  attributeGroup: 'attributeGroups',
}

export function keyOf(name: QName): string {
  return `{${name.ns}}${name.local}`
}

export function indexSchemas(schemas: XmlElement[]): Schemas {
  const index: Schemas = { elements: new Map(), types: new Map(), groups: new Map(), attributeGroups: new Map() }
  for (const schema of schemas) {
    const ns = schema.attrs.targetNamespace ?? ''
    for (const declaration of childrenOf(schema, XSD_NS)) {
      const kind = GLOBALS[declaration.local]
      const name = declaration.attrs.name
      if (kind && name) index[kind].set(keyOf({ ns, local: name }), declaration)
    }
  }
  return index
}

/** A generator over one WSDL's schemas; throws on a reference to a declaration they lack. */
export interface Generator {
  schemas: Schemas
  faker: Faker
}

/** One answer being generated: the generator and the elements it may still add. */
type Answer = Generator & { elementsLeft: number }

const answerOf = (gen: Generator): Answer => ({ ...gen, elementsLeft: MAX_ELEMENTS })

/** A global element a message part names. */
export interface ElementPart {
  name: QName
  declaration: XmlElement
}

export type RpcPart = { name: string; element: ElementPart } | { name: string; type: QName }

/** What a response's Body holds: document style one element (none for a message without parts), rpc style a wrapper around the parts. */
export type OutputBody = { style: 'document'; element: ElementPart | null } | { style: 'rpc'; wrapper: QName; parts: RpcPart[] }

/** The output object as the soap client returns it: the element's content (document) or the parts by name (rpc). */
export function bodyValue(generator: Generator, body: OutputBody): unknown {
  const gen = answerOf(generator)
  if (body.style === 'document') return body.element ? _elementValue(gen, body.element.declaration, 0) : undefined
  return Object.fromEntries(body.parts.map((part) => [part.name, 'element' in part ? _elementValue(gen, part.element.declaration, 0) : typeValue(gen, part.type, part.name)]))
}

/** The value of a global or local element declaration. */
export function elementValue(gen: Generator, declaration: XmlElement): unknown {
  return _elementValue(answerOf(gen), declaration, 0)
}

function _elementValue(gen: Answer, declaration: XmlElement, depth: number): unknown {
  const element = declaration.attrs.ref ? lookup(gen, 'elements', declaration, declaration.attrs.ref) : declaration
  const name = element.attrs.name ?? ''
  if (element.attrs.fixed !== undefined) return element.attrs.fixed
  if (element.attrs.type) return typeValue(gen, qnameIn(element, element.attrs.type), name, depth)
  const inline = childrenOf(element, XSD_NS).find((child) => child.local === 'complexType' || child.local === 'simpleType')
  if (inline?.local === 'complexType') return complexValue(gen, inline, name, depth)
  if (inline) return simpleValue(gen, inline, name)
  return valueForField(name, 'string', gen.faker) // no type at all: xs:anyType
}

/** The value of a named type, for an element or part called `name`. */
function typeValue(gen: Answer, type: QName, name: string, depth = 0): unknown {
  if (type.ns === XSD_NS) return builtinValue(type.local, name, gen.faker)
  const definition = gen.schemas.types.get(keyOf(type))
  if (!definition) throw new Error(`type {${type.ns}}${type.local} is not defined in wsdl:types`)
  return definition.local === 'complexType' ? complexValue(gen, definition, name, depth) : simpleValue(gen, definition, name)
}

function lookup(gen: Answer, kind: keyof Schemas, at: XmlElement, qname: string): XmlElement {
  const found = gen.schemas[kind].get(keyOf(qnameIn(at, qname)))
  if (!found) throw new Error(`${kind.replace(/s$/, '').replace(/([A-Z])/g, ' $1').toLowerCase()} "${qname}" is not defined in wsdl:types`)
  return found
}

function qnameIn(at: XmlElement, qname: string): QName {
  const name = resolveQName(at, qname)
  if (!name) throw new Error(`the prefix of "${qname}" is not declared`)
  return name
}

function complexValue(gen: Answer, type: XmlElement, name: string, depth: number): unknown {
  const fields: Record<string, unknown> = {}
  const attributes: Record<string, unknown> = {}
  const text = depth > MAX_DEPTH || gen.elementsLeft <= 0 ? undefined : fillComplex(gen, type, name, fields, attributes, depth)
  const withAttributes = Object.keys(attributes).length ? { [ATTRIBUTES_KEY]: attributes } : {}
  if (text === undefined) return { ...withAttributes, ...fields }
  return Object.keys(attributes).length ? { ...withAttributes, [VALUE_KEY]: text } : text
}

/**
 * Fills `fields` and `attributes` from a complexType, or from the extension/restriction inside
 * its content (their children read the same); returns the text of simple content.
 */
function fillComplex(gen: Answer, type: XmlElement, name: string, fields: Record<string, unknown>, attributes: Record<string, unknown>, depth: number): unknown {
  let text: unknown
  for (const child of childrenOf(type, XSD_NS)) {
    switch (child.local) {
      case 'sequence':
      case 'all':
      case 'choice':
      case 'group':
        fillParticle(gen, child, fields, depth)
        break
      case 'attribute':
      case 'attributeGroup':
        fillAttribute(gen, child, attributes)
        break
      case 'complexContent':
      case 'simpleContent':
        text = fillDerived(gen, child, name, fields, attributes, depth)
        break
    }
  }
  return text
}

function fillDerived(gen: Answer, content: XmlElement, name: string, fields: Record<string, unknown>, attributes: Record<string, unknown>, depth: number): unknown {
  const derivation = childrenOf(content, XSD_NS).find((child) => child.local === 'extension' || child.local === 'restriction')
  if (!derivation) return undefined
  const base = derivation.attrs.base ? qnameIn(derivation, derivation.attrs.base) : null
  const baseType = base && base.ns !== XSD_NS ? gen.schemas.types.get(keyOf(base)) : undefined
  let text: unknown
  // An extension keeps what its base declares; a restriction restates the content it keeps.
  if (baseType?.local === 'complexType' && (derivation.local === 'extension' || content.local === 'simpleContent')) {
    text = fillComplex(gen, baseType, name, fields, attributes, depth)
  }
  if (content.local === 'simpleContent') text = restrictedValue(gen, derivation, name, text)
  fillComplex(gen, derivation, name, fields, attributes, depth)
  return text
}

function fillParticle(gen: Answer, particle: XmlElement, fields: Record<string, unknown>, depth: number): void {
  switch (particle.local) {
    case 'element':
      addElement(gen, particle, fields, depth)
      break
    case 'sequence':
    case 'all':
      for (const child of childrenOf(particle, XSD_NS)) fillParticle(gen, child, fields, depth)
      break
    case 'choice': {
      // One branch is all a choice may hold: the first.
      const first = childrenOf(particle, XSD_NS).find((child) => child.local !== 'annotation')
      if (first) fillParticle(gen, first, fields, depth)
      break
    }
    case 'group': {
      const group = particle.attrs.ref ? lookup(gen, 'groups', particle, particle.attrs.ref) : particle
      for (const child of childrenOf(group, XSD_NS)) fillParticle(gen, child, fields, depth)
      break
    }
  }
}

function addElement(gen: Answer, declaration: XmlElement, fields: Record<string, unknown>, depth: number): void {
  const min = Number(declaration.attrs.minOccurs ?? 1)
  const max = declaration.attrs.maxOccurs === 'unbounded' ? Infinity : Number(declaration.attrs.maxOccurs ?? 1)
  if (max === 0 || (min === 0 && (depth >= MAX_DEPTH || gen.elementsLeft <= 0))) return
  const element = declaration.attrs.ref ? lookup(gen, 'elements', declaration, declaration.attrs.ref) : declaration
  const make = (): unknown => {
    gen.elementsLeft -= 1
    return _elementValue(gen, element, depth + 1)
  }
  const name = element.attrs.name ?? ''
  const count = Math.min(max, Math.max(min, REPEATED_ITEMS), Math.max(1, gen.elementsLeft))
  fields[name] = max > 1 ? Array.from({ length: count }, make) : make()
}

/**
 * Attributes declared in place (and through attribute groups). References to global attributes
 * are left out: their names need a namespace prefix the serializer would not declare.
 */
function fillAttribute(gen: Answer, declaration: XmlElement, attributes: Record<string, unknown>): void {
  if (declaration.local === 'attributeGroup') {
    const group = declaration.attrs.ref ? lookup(gen, 'attributeGroups', declaration, declaration.attrs.ref) : declaration
    for (const child of childrenOf(group, XSD_NS)) if (child.local === 'attribute' || child.local === 'attributeGroup') fillAttribute(gen, child, attributes)
    return
  }
  const name = declaration.attrs.name
  if (!name || declaration.attrs.use === 'prohibited') return
  const inline = childrenOf(declaration, XSD_NS, 'simpleType')[0]
  const type = declaration.attrs.type ? qnameIn(declaration, declaration.attrs.type) : null
  attributes[name] = declaration.attrs.fixed ?? (type ? typeValue(gen, type, name) : inline ? simpleValue(gen, inline, name) : valueForField(name, 'string', gen.faker))
}

function simpleValue(gen: Answer, type: XmlElement, name: string): unknown {
  const [body] = childrenOf(type, XSD_NS).filter((child) => child.local !== 'annotation')
  switch (body?.local) {
    case 'restriction':
      return restrictedValue(gen, body, name)
    case 'list': {
      const item = body.attrs.itemType ? typeValue(gen, qnameIn(body, body.attrs.itemType), name) : simpleOrString(gen, body, name)
      return String(item)
    }
    case 'union': {
      const [member] = (body.attrs.memberTypes ?? '').split(/\s+/).filter(Boolean)
      return member ? typeValue(gen, qnameIn(body, member), name) : simpleOrString(gen, body, name)
    }
    default:
      return valueForField(name, 'string', gen.faker)
  }
}

function simpleOrString(gen: Answer, parent: XmlElement, name: string): unknown {
  const inline = childrenOf(parent, XSD_NS, 'simpleType')[0]
  return inline ? simpleValue(gen, inline, name) : valueForField(name, 'string', gen.faker)
}

/** A value of the restriction's base that keeps to its enumeration, length and range facets. */
function restrictedValue(gen: Answer, restriction: XmlElement, name: string, baseValue?: unknown): unknown {
  const facets = childrenOf(restriction, XSD_NS)
  const choices = facets.filter((facet) => facet.local === 'enumeration').map((facet) => facet.attrs.value ?? '')
  if (choices.length) return gen.faker.helpers.arrayElement(choices)
  const base = restriction.attrs.base ? qnameIn(restriction, restriction.attrs.base) : null
  const isComplexBase = base && base.ns !== XSD_NS && gen.schemas.types.get(keyOf(base))?.local === 'complexType'
  const value = baseValue ?? (base && !isComplexBase ? typeValue(gen, base, name) : simpleOrString(gen, restriction, name))
  const facet = (local: string): number | undefined => {
    const found = facets.find((f) => f.local === local)?.attrs.value
    return found === undefined ? undefined : Number(found)
  }
  if (typeof value === 'string') {
    const text = value.slice(0, facet('length') ?? facet('maxLength')).trimEnd()
    return text.padEnd(facet('length') ?? facet('minLength') ?? 0, 'x')
  }
  if (typeof value === 'number') return withinRange(value, facet('minInclusive') ?? -Infinity, facet('maxInclusive') ?? Infinity, gen.faker)
  return value
}

/** `value` if it fits, else a fresh one in range (clamping would pile every value onto a bound). */
function withinRange(value: number, min: number, max: number, faker: Faker): number {
  if (value >= min && value <= max) return value
  const bounds = { min: Number.isFinite(min) ? min : max - 1000, max: Number.isFinite(max) ? max : min + 1000 }
  return Number.isInteger(value) ? faker.number.int(bounds) : faker.number.float({ ...bounds, fractionDigits: 2 })
}

const KINDS: Record<string, ScalarKind> = {
  boolean: 'boolean',
  dateTime: 'datetime',
  date: 'date',
  decimal: 'float',
  double: 'float',
  float: 'float',
}

// Integer types whose range is narrower than what a field's name suggests (a `year` does not fit a byte).
const INTEGER_RANGES: Record<string, [number, number]> = {
  integer: [-Infinity, Infinity],
  int: [-2147483648, 2147483647],
  long: [-Infinity, Infinity],
  short: [-32768, 32767],
  byte: [-128, 127],
  nonNegativeInteger: [0, Infinity],
  positiveInteger: [1, Infinity],
  unsignedLong: [0, Infinity],
  unsignedInt: [0, 4294967295],
  unsignedShort: [0, 65535],
  unsignedByte: [0, 255],
}

function builtinValue(type: string, name: string, faker: Faker): unknown {
  const range = INTEGER_RANGES[type]
  if (range) return clampInt(valueForField(name, 'int', faker) as number, range)
  if (type === 'negativeInteger' || type === 'nonPositiveInteger') return -(valueForField(name, 'int', faker) as number)
  const kind = KINDS[type]
  if (kind) return valueForField(name, kind, faker)
  switch (type) {
    case 'time':
      return faker.date.recent().toISOString().slice(11, 19)
    case 'gYear':
      return String(faker.date.past({ years: 20 }).getUTCFullYear())
    case 'duration':
      return `PT${faker.number.int({ min: 1, max: 48 })}H`
    case 'anyURI':
      return faker.internet.url()
    case 'base64Binary':
      return Buffer.from(faker.lorem.words(3)).toString('base64')
    case 'hexBinary':
      return faker.string.hexadecimal({ length: 16, prefix: '', casing: 'upper' })
    case 'language':
      return 'en'
    default:
      return valueForField(name, 'string', faker)
  }
}

function clampInt(value: number, [min, max]: [number, number]): number {
  return Math.min(Math.max(Math.round(value), min), max)
}
