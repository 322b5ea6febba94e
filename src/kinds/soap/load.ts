import { WSDL } from 'soap'
import { loadFaker } from '../../engine/generators.ts'
import { AppError } from '../../errors.ts'
import { ATTRIBUTES_KEY, VALUE_KEY, XmlSyntaxError, childOf, childrenOf, readXml, resolveQName, type SoapVersion, type XmlElement } from './envelope.ts'
import { XSD_NS, bodyValue, elementValue, indexSchemas, keyOf, type ElementPart, type OutputBody, type RpcPart, type Schemas } from './generate.ts'

export interface SoapOperationInfo {
  name: string
  /** From the binding; '' → null. */
  soapAction: string | null
  style: 'document' | 'rpc'
  /** Local name of the body's first element for a request of this operation. */
  inputElement: string
}

export interface SoapServiceInfo {
  /** wsdl:service name, e.g. 'CalculatorService'. */
  name: string
  /** From its ports' bindings. */
  soapVersions: ('1.1' | '1.2')[]
  operations: SoapOperationInfo[]
}

export interface WsdlSpec {
  /** definitions/@name, else the first service's name. */
  title: string
  services: SoapServiceInfo[]
}

/** An operation as the responder needs it. */
export interface OperationModel extends SoapOperationInfo {
  /** null for a one-way operation. */
  output: { body: OutputBody; headers: ElementPart[] } | null
}

export interface PortModel {
  version: SoapVersion
  operations: OperationModel[]
}

export interface ServiceModel {
  name: string
  /** Only the SOAP-over-HTTP ports. */
  ports: PortModel[]
}

export interface WsdlModel {
  /** The document as read (a byte order mark removed); `root` offsets point into it. */
  text: string
  root: XmlElement
  schemas: Schemas
  services: ServiceModel[]
  /** soap's own reading, for serializing answers the way its server does. */
  wsdl: WSDL
  definition: WsdlSpec
}

const WSDL_NS = 'http://schemas.xmlsoap.org/wsdl/'
const BINDING_NS: Record<SoapVersion, string> = {
  '1.1': 'http://schemas.xmlsoap.org/wsdl/soap/',
  '1.2': 'http://schemas.xmlsoap.org/wsdl/soap12/',
}
// soap's parser keeps only bindings over these; one over JMS or SMTP has no HTTP endpoint to mock anyway.
const HTTP_TRANSPORTS = new Set(['http://schemas.xmlsoap.org/soap/http', 'http://www.w3.org/2003/05/soap/bindings/HTTP/'])

/** Parses and checks a WSDL 1.1 document (text). `origin` (file name/URL) prefixes error messages. */
export async function loadWsdl(text: string, origin: string): Promise<WsdlSpec> {
  return (await openWsdl(text, origin)).definition
}

/** loadWsdl, keeping what answering requests needs. */
export async function openWsdl(source: string, origin: string): Promise<WsdlModel> {
  const text = source.replace(/^\uFEFF/, '')
  const root = readDefinitions(text, origin)
  refuseExternalFiles(root, origin)
  const schemas = indexSchemas(schemasOf(root))
  const services = servicesOf(root, schemas, origin)
  const wsdl = await parseWithSoap(text, origin)
  await checkOutputs(services, schemas, origin)
  return { text, root, schemas, services, wsdl, definition: { title: root.attrs.name || services[0]!.name, services: services.map(infoOf) } }
}

function invalid(origin: string, message: string): AppError {
  return new AppError('INVALID_SPEC', `${origin}: ${message}`)
}

function readDefinitions(text: string, origin: string): XmlElement {
  let root: XmlElement
  try {
    root = readXml(text)
  } catch (error) {
    if (error instanceof XmlSyntaxError) throw invalid(origin, `not well-formed XML: ${error.message}`)
    throw error
  }
  if (root.ns === WSDL_NS && root.local === 'definitions') return root
  if (root.ns === 'http://www.w3.org/ns/wsdl') throw invalid(origin, 'WSDL 2.0 is not supported; mockapi reads WSDL 1.1')
  const found = `<${root.local}>${root.ns ? ` in ${root.ns}` : ' (no namespace)'}`
  throw invalid(origin, `not a WSDL 1.1 document: the root element is ${found}, expected <definitions> in ${WSDL_NS}`)
}

function schemasOf(root: XmlElement): XmlElement[] {
  return childrenOf(root, WSDL_NS, 'types').flatMap((types) => childrenOf(types, XSD_NS, 'schema'))
}

/** Nothing is fetched: a WSDL or schema in other files would have to be read from disk or the network. */
function refuseExternalFiles(root: XmlElement, origin: string): void {
  const wsdlImport = childOf(root, WSDL_NS, 'import')
  if (wsdlImport) throw invalid(origin, `wsdl:import of "${wsdlImport.attrs.location ?? wsdlImport.attrs.namespace}" is not supported: give a single-file WSDL`)
  for (const schema of schemasOf(root)) {
    for (const reference of childrenOf(schema, XSD_NS)) {
      const location = reference.attrs.schemaLocation
      if (location && ['import', 'include', 'redefine'].includes(reference.local)) {
        throw invalid(origin, `xsd:${reference.local} of schemaLocation "${location}" is not supported: only the schemas embedded in wsdl:types are read; inline that one there`)
      }
    }
  }
}

/** Definitions are looked up by local name: with no wsdl:import, all of them share the target namespace. */
interface Index {
  origin: string
  root: XmlElement
  schemas: Schemas
  messages: Map<string, XmlElement>
  portTypes: Map<string, XmlElement>
  bindings: Map<string, XmlElement>
}

function byName(elements: XmlElement[]): Map<string, XmlElement> {
  return new Map(elements.map((element) => [element.attrs.name ?? '', element]))
}

function localOf(qname: string | undefined): string {
  return (qname ?? '').replace(/^[^:]*:/, '')
}

function servicesOf(root: XmlElement, schemas: Schemas, origin: string): ServiceModel[] {
  const services = childrenOf(root, WSDL_NS, 'service')
  if (services.length === 0) throw invalid(origin, 'defines no wsdl:service, so there is no endpoint to mock')
  const index: Index = {
    origin,
    root,
    schemas,
    messages: byName(childrenOf(root, WSDL_NS, 'message')),
    portTypes: byName(childrenOf(root, WSDL_NS, 'portType')),
    bindings: byName(childrenOf(root, WSDL_NS, 'binding')),
  }
  const models = services
    .map((service) => ({ name: service.attrs.name ?? '', ports: childrenOf(service, WSDL_NS, 'port').flatMap((port) => portOf(index, port)) }))
    .filter((service) => service.ports.length > 0)
  if (models.length === 0) throw invalid(origin, 'no wsdl:service has a port with a SOAP 1.1 or 1.2 binding over HTTP (HTTP GET/POST and other bindings are not mocked)')
  return models
}

function portOf(index: Index, port: XmlElement): PortModel[] {
  const binding = index.bindings.get(localOf(port.attrs.binding))
  if (!binding) throw invalid(index.origin, `port "${port.attrs.name}" names binding "${port.attrs.binding}", which is not defined`)
  const version = versionOf(binding)
  return version ? [{ version, operations: operationsOf(index, binding, version) }] : []
}

function versionOf(binding: XmlElement): SoapVersion | null {
  for (const version of ['1.1', '1.2'] as const) {
    const soapBinding = childOf(binding, BINDING_NS[version], 'binding')
    if (soapBinding && HTTP_TRANSPORTS.has(soapBinding.attrs.transport ?? '')) return version
  }
  return null
}

function operationsOf(index: Index, binding: XmlElement, version: SoapVersion): OperationModel[] {
  const portType = index.portTypes.get(localOf(binding.attrs.type))
  if (!portType) throw invalid(index.origin, `binding "${binding.attrs.name}" names portType "${binding.attrs.type}", which is not defined`)
  const bindingStyle = childOf(binding, BINDING_NS[version], 'binding')?.attrs.style
  return childrenOf(binding, WSDL_NS, 'operation').flatMap((operation) => {
    const name = operation.attrs.name ?? ''
    const abstract = childrenOf(portType, WSDL_NS, 'operation').find((candidate) => candidate.attrs.name === name)
    if (!abstract) throw invalid(index.origin, `binding "${binding.attrs.name}" has operation "${name}", which portType "${portType.attrs.name}" does not declare`)
    const input = childOf(abstract, WSDL_NS, 'input')
    // A notification (output only) is sent by the server unasked: there is no request to answer.
    if (!input) return []
    const soapOperation = childOf(operation, BINDING_NS[version], 'operation')
    const style = (soapOperation?.attrs.style || bindingStyle) === 'rpc' ? 'rpc' : 'document'
    const where = { index, version, operation, name }
    const output = childOf(abstract, WSDL_NS, 'output')
    return [{
      name,
      soapAction: soapOperation?.attrs.soapAction || null,
      style,
      inputElement: style === 'rpc' ? name : inputElementOf(where, input),
      output: output ? outputOf(where, output, style) : null,
    } satisfies OperationModel]
  })
}

interface Where {
  index: Index
  version: SoapVersion
  /** The binding's wsdl:operation. */
  operation: XmlElement
  name: string
}

function messageOf(where: Where, reference: XmlElement): XmlElement {
  const message = where.index.messages.get(localOf(reference.attrs.message))
  if (!message) throw invalid(where.index.origin, `operation "${where.name}" uses message "${reference.attrs.message}", which is not defined`)
  return message
}

/** The parts a soap:body carries: those it lists, else all but the ones bound to soap:header. */
function bodyParts(where: Where, direction: 'input' | 'output', message: XmlElement): XmlElement[] {
  const binding = childOf(where.operation, WSDL_NS, direction)
  const body = binding && childOf(binding, BINDING_NS[where.version], 'body')
  const listed = body?.attrs.parts?.split(/\s+/).filter(Boolean)
  const headers = binding ? childrenOf(binding, BINDING_NS[where.version], 'header') : []
  const inHeader = (part: XmlElement): boolean => headers.some((header) => localOf(header.attrs.message) === message.attrs.name && header.attrs.part === part.attrs.name)
  return childrenOf(message, WSDL_NS, 'part').filter((part) => (listed ? listed.includes(part.attrs.name ?? '') : !inHeader(part)))
}

function inputElementOf(where: Where, input: XmlElement): string {
  const message = messageOf(where, input)
  const [part] = bodyParts(where, 'input', message)
  // A message without parts: the soap client then sends an element named after the message.
  return part ? elementPartOf(where, message, part).name.local : (message.attrs.name ?? '')
}

function elementPartOf(where: Where, message: XmlElement, part: XmlElement): ElementPart {
  const describe = `part "${part.attrs.name}" of message "${message.attrs.name}" (operation "${where.name}")`
  const qname = part.attrs.element
  if (!qname) throw invalid(where.index.origin, `${describe} names a type; document-style and header parts must name an element`)
  const name = resolveQName(part, qname)
  const declaration = name && where.index.schemas.elements.get(keyOf(name))
  if (!name || !declaration) throw invalid(where.index.origin, `${describe}: element "${qname}" is not defined in wsdl:types`)
  return { name, declaration }
}

function outputOf(where: Where, output: XmlElement, style: 'document' | 'rpc'): OperationModel['output'] {
  const message = messageOf(where, output)
  const parts = bodyParts(where, 'output', message)
  const binding = childOf(where.operation, WSDL_NS, 'output')
  const headers = (binding ? childrenOf(binding, BINDING_NS[where.version], 'header') : []).map((header) => headerPartOf(where, header))
  if (style === 'document') return { body: { style, element: parts[0] ? elementPartOf(where, message, parts[0]) : null }, headers }
  const namespace = (binding && childOf(binding, BINDING_NS[where.version], 'body')?.attrs.namespace) || where.index.root.attrs.targetNamespace || ''
  const wrapper = { ns: namespace, local: `${where.name}Response` }
  return { body: { style, wrapper, parts: parts.map((part) => rpcPartOf(where, message, part)) }, headers }
}

function rpcPartOf(where: Where, message: XmlElement, part: XmlElement): RpcPart {
  const name = part.attrs.name ?? ''
  if (part.attrs.element) return { name, element: elementPartOf(where, message, part) }
  const type = resolveQName(part, part.attrs.type ?? '')
  if (!type?.local) throw invalid(where.index.origin, `part "${name}" of message "${message.attrs.name}" has no resolvable type (operation "${where.name}")`)
  return { name, type }
}

function headerPartOf(where: Where, header: XmlElement): ElementPart {
  const message = messageOf(where, header)
  const part = childrenOf(message, WSDL_NS, 'part').find((candidate) => candidate.attrs.name === header.attrs.part)
  if (!part) throw invalid(where.index.origin, `a soap:header of operation "${where.name}" names part "${header.attrs.part}", which message "${message.attrs.name}" lacks`)
  return elementPartOf(where, message, part)
}

async function parseWithSoap(text: string, origin: string): Promise<WSDL> {
  try {
    const wsdl = new WSDL(text, origin, {})
    await new Promise<void>((resolve, reject) => wsdl.onReady((error) => (error ? reject(error) : resolve())))
    wsdl.options.attributesKey = ATTRIBUTES_KEY
    wsdl.options.valueKey = VALUE_KEY
    return wsdl
  } catch (error) {
    throw invalid(origin, `the WSDL parser refused it: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** Generates every answer once, so a type missing from wsdl:types shows at import, not on a call. */
async function checkOutputs(services: ServiceModel[], schemas: Schemas, origin: string): Promise<void> {
  const gen = { schemas, faker: (await loadFaker())(1) }
  for (const operation of services.flatMap((service) => service.ports.flatMap((port) => port.operations))) {
    try {
      if (operation.output) bodyValue(gen, operation.output.body)
      for (const header of operation.output?.headers ?? []) elementValue(gen, header.declaration)
    } catch (error) {
      throw invalid(origin, `operation "${operation.name}": ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}

function infoOf(service: ServiceModel): SoapServiceInfo {
  const operations = new Map<string, SoapOperationInfo>()
  for (const { name, soapAction, style, inputElement } of service.ports.flatMap((port) => port.operations)) {
    if (!operations.has(name)) operations.set(name, { name, soapAction, style, inputElement })
  }
  return { name: service.name, soapVersions: [...new Set(service.ports.map((port) => port.version))], operations: [...operations.values()] }
}

/** The WSDL text with each SOAP port address of every service set to `urlFor(service)`; the rest is left byte for byte. */
export function withAddresses(model: WsdlModel, urlFor: (service: string) => string): string {
  const edits: { at: number; length: number; text: string }[] = []
  for (const service of childrenOf(model.root, WSDL_NS, 'service')) {
    const url = urlFor(service.attrs.name ?? '')
    for (const port of childrenOf(service, WSDL_NS, 'port')) {
      for (const address of port.children.filter((child) => child.local === 'address' && Object.values(BINDING_NS).includes(child.ns))) {
        edits.push(locationEdit(model.text, address.start, url))
      }
    }
  }
  let text = model.text
  for (const edit of edits.sort((a, b) => b.at - a.at)) text = text.slice(0, edit.at) + edit.text + text.slice(edit.at + edit.length)
  return text
}

/** Replaces the value of `location` in the start tag at `start` (adds it when missing). */
function locationEdit(text: string, start: number, url: string): { at: number; length: number; text: string } {
  const value = `"${url.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;')}"`
  const tag = text.slice(start, tagEnd(text, start))
  const match = /(\slocation\s*=\s*)("[^"]*"|'[^']*')/.exec(tag)
  if (match) return { at: start + match.index + match[1]!.length, length: match[2]!.length, text: value }
  const nameEnd = start + /^<[^\s/>]+/.exec(tag)![0].length
  return { at: nameEnd, length: 0, text: ` location=${value}` }
}

/** The offset of the `>` closing the start tag at `start`, skipping `>` inside quoted attribute values. */
function tagEnd(text: string, start: number): number {
  let quote = ''
  for (let i = start; i < text.length; i++) {
    const char = text[i]
    if (quote) {
      if (char === quote) quote = ''
    } else if (char === '"' || char === "'") quote = char
    else if (char === '>') return i
  }
  return text.length
}
