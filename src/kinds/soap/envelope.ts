/**
 * XML in and out for SOAP: a namespace-aware reading of documents (fast-xml-parser checks and
 * parses; it knows no namespaces, so prefixes are resolved here) and the envelopes and Faults we
 * answer with, serialized by the `soap` package the way its own server does.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import type { WSDL } from 'soap'

export type SoapVersion = '1.1' | '1.2'

const ENVELOPE_NS: Record<SoapVersion, string> = {
  '1.1': 'http://schemas.xmlsoap.org/soap/envelope/',
  '1.2': 'http://www.w3.org/2003/05/soap-envelope',
}

const CONTENT_TYPE: Record<SoapVersion, string> = {
  '1.1': 'text/xml; charset=utf-8',
  '1.2': 'application/soap+xml; charset=utf-8',
}

// The soap client finds a 1.1 envelope by namespace, but a 1.2 one only under this prefix
// (xmlToObject's default): any other prefix and it stops typing the values it reads.
const ENVELOPE_PREFIX = 'soap'
/** Where soap's (de)serializer keeps an element's attributes and its text beside them. */
export const ATTRIBUTES_KEY = 'attributes'
export const VALUE_KEY = '$value'
const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance'
const XML_NS = 'http://www.w3.org/XML/1998/namespace'

/** An element of a parsed document, its name resolved to a namespace. */
export interface XmlElement {
  /** Namespace URI; '' for none. */
  ns: string
  local: string
  /** Attributes by their name as written (`name`, `xml:lang`, `xmlns:tns`). */
  attrs: Record<string, string>
  children: XmlElement[]
  /** Prefix → namespace URI in scope here; '' is the default namespace. */
  scope: Record<string, string>
  /** Offset of the start tag in the text parsed. */
  start: number
}

export interface QName {
  ns: string
  local: string
}

/** The text is not (namespace-)well-formed XML; the message says where. */
export class XmlSyntaxError extends Error {}

const PARSER = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  captureMetaData: true,
})
// Typed as the Symbol wrapper object; it is a symbol.
const META = XMLParser.getMetaDataSymbol() as unknown as symbol

type OrderedNode = Record<string | symbol, unknown> & { ':@'?: Record<string, string> }

/** The root element of `text`; throws XmlSyntaxError with the parser's message and position. */
export function readXml(text: string): XmlElement {
  const verdict = XMLValidator.validate(text)
  if (verdict !== true) {
    const { msg, line, col } = verdict.err
    throw new XmlSyntaxError(`${msg} (line ${line}${col ? `, column ${col}` : ''})`)
  }
  const rootScope: Record<string, string> = Object.create(null)
  rootScope.xml = XML_NS
  let nodes: OrderedNode[]
  try {
    nodes = PARSER.parse(text) as OrderedNode[]
  } catch (error) {
    // What the validator lets through, the parser may still refuse (its nesting and entity limits).
    throw new XmlSyntaxError(error instanceof Error ? error.message : String(error))
  }
  const [root] = elementsOf(nodes, rootScope)
  if (!root) throw new XmlSyntaxError('no root element')
  return root
}

function elementsOf(nodes: OrderedNode[], parentScope: Record<string, string>): XmlElement[] {
  const elements: XmlElement[] = []
  for (const node of nodes) {
    const name = Object.keys(node).find((key) => key !== ':@')
    // Text, comments and CDATA carry names starting with '#'; nothing here reads them.
    if (!name || name.startsWith('#')) continue
    const attrs = node[':@'] ?? {}
    const scope = scopeOf(attrs, parentScope)
    const { prefix, local } = splitName(name)
    const ns = scope[prefix]
    if (ns === undefined && prefix) throw new XmlSyntaxError(`the prefix of <${name}> is not declared`)
    const start = (node[META] as { startIndex?: number } | undefined)?.startIndex ?? 0
    elements.push({ ns: ns ?? '', local, attrs, scope, start, children: elementsOf(node[name] as OrderedNode[], scope) })
  }
  return elements
}

function scopeOf(attrs: Record<string, string>, parent: Record<string, string>): Record<string, string> {
  const declared = Object.keys(attrs).filter((key) => key === 'xmlns' || key.startsWith('xmlns:'))
  if (declared.length === 0) return parent
  const scope: Record<string, string> = Object.create(parent)
  for (const key of declared) scope[key === 'xmlns' ? '' : key.slice(6)] = attrs[key]!
  return scope
}

function splitName(name: string): { prefix: string; local: string } {
  const colon = name.indexOf(':')
  return colon < 0 ? { prefix: '', local: name } : { prefix: name.slice(0, colon), local: name.slice(colon + 1) }
}

/** A QName written in an attribute of `element` (`tns:Add`, `string`); null when its prefix is not declared. */
export function resolveQName(element: XmlElement, qname: string): QName | null {
  const { prefix, local } = splitName(qname.trim())
  const ns = element.scope[prefix]
  if (ns === undefined && prefix) return null
  return { ns: ns ?? '', local }
}

export function childrenOf(element: XmlElement, ns: string, local?: string): XmlElement[] {
  return element.children.filter((child) => child.ns === ns && (local === undefined || child.local === local))
}

export function childOf(element: XmlElement, ns: string, local: string): XmlElement | undefined {
  return element.children.find((child) => child.ns === ns && child.local === local)
}

/** The text is XML but not a SOAP envelope. */
export class NotAnEnvelopeError extends Error {}

export interface RequestEnvelope {
  version: SoapVersion
  /** The first element inside Body; null for an empty Body. */
  payload: XmlElement | null
}

/** Reads a request; throws XmlSyntaxError or NotAnEnvelopeError. */
export function readEnvelope(text: string): RequestEnvelope {
  const root = readXml(text)
  const version = (Object.keys(ENVELOPE_NS) as SoapVersion[]).find((v) => root.ns === ENVELOPE_NS[v])
  if (root.local !== 'Envelope' || !version) {
    throw new NotAnEnvelopeError(`not a SOAP envelope: the root element is <${root.local}>${root.ns ? ` in ${root.ns}` : ''}, expected <Envelope> in ${ENVELOPE_NS['1.1']} (SOAP 1.1) or ${ENVELOPE_NS['1.2']} (SOAP 1.2)`)
  }
  const body = childOf(root, root.ns, 'Body')
  if (!body) throw new NotAnEnvelopeError('not a SOAP envelope: the Envelope has no Body')
  return { version, payload: body.children[0] ?? null }
}

/** 1.2 for `application/soap+xml`, 1.1 for `text/xml`, else null. */
export function versionOfContentType(contentType: string | null): SoapVersion | null {
  const type = contentType?.split(';')[0]?.trim().toLowerCase()
  if (type === 'application/soap+xml') return '1.2'
  if (type === 'text/xml') return '1.1'
  return null
}

/** The `action` parameter of a SOAP 1.2 Content-Type. */
export function actionOfContentType(contentType: string | null): string | null {
  const match = /;\s*action\s*=\s*("[^"]*"|[^;\s]*)/i.exec(contentType ?? '')
  return match ? match[1]!.replace(/^"|"$/g, '') : null
}

export function contentTypeOf(version: SoapVersion): string {
  return CONTENT_TYPE[version]
}

/**
 * A whole envelope around serialized header blocks and body. `namespaces` declares the prefixes the
 * serialized content relies on (soap's objectToXML leaves ones like `tns` to the envelope).
 */
export function envelopeXml(version: SoapVersion, namespaces: string, headers: string[], body: string): string {
  const p = ENVELOPE_PREFIX
  const header = headers.length ? `<${p}:Header>${headers.join('')}</${p}:Header>` : ''
  const content = body ? `<${p}:Body>${body}</${p}:Body>` : `<${p}:Body/>`
  return `<?xml version="1.0" encoding="utf-8"?><${p}:Envelope xmlns:${p}="${ENVELOPE_NS[version]}" xmlns:xsi="${XSI_NS}"${namespaces}>${header}${content}</${p}:Envelope>`
}

export interface FaultSpec {
  /** Who is to blame: the request (Client / Sender) or us (Server / Receiver). */
  side: 'client' | 'server'
  message: string
  /** A code given by the user: a standard one (`Server`, `Sender`, …) or any QName. */
  code?: string
}

const STANDARD_CODES: Record<SoapVersion, Record<string, string>> = {
  '1.1': { client: 'Client', sender: 'Client', server: 'Server', receiver: 'Server', versionmismatch: 'VersionMismatch', mustunderstand: 'MustUnderstand' },
  '1.2': { client: 'Sender', sender: 'Sender', server: 'Receiver', receiver: 'Receiver', versionmismatch: 'VersionMismatch', mustunderstand: 'MustUnderstand', dataencodingunknown: 'DataEncodingUnknown' },
}

/** A Fault element: 1.1 `faultcode`/`faultstring`, 1.2 `Code/Value` and `Reason/Text`. */
export function faultXml(wsdl: WSDL, version: SoapVersion, fault: FaultSpec): string {
  const p = ENVELOPE_PREFIX
  const given = fault.code?.trim()
  const standard = STANDARD_CODES[version][(given || fault.side).replace(/^[^:]*:/, '').toLowerCase()]
  const code = standard ? `${p}:${standard}` : given!
  if (version === '1.1') {
    // The 1.1 children are unqualified; only the Fault element itself is in the envelope namespace.
    return wsdl.objectToDocumentXML(`${p}:Fault`, { faultcode: code, faultstring: fault.message }, '')
  }
  // 1.2 allows only the standard codes as Value; anything else becomes a Subcode of the side's code.
  const side = `${p}:${STANDARD_CODES['1.2'][fault.side]}`
  const Code = standard ? { Value: code } : { Value: side, Subcode: { Value: code } }
  const Reason = { Text: { [ATTRIBUTES_KEY]: { 'xml:lang': 'en' }, [VALUE_KEY]: fault.message } }
  return wsdl.objectToDocumentXML('Fault', { Code, Reason }, p)
}
