import type { FakerFactory } from '../../engine/generators.ts'
import {
  NotAnEnvelopeError,
  XmlSyntaxError,
  actionOfContentType,
  contentTypeOf,
  envelopeXml,
  faultXml,
  readEnvelope,
  versionOfContentType,
  type FaultSpec,
  type RequestEnvelope,
  type SoapVersion,
} from './envelope.ts'
import { bodyValue, elementValue, type Generator } from './generate.ts'
import { openWsdl, withAddresses, type OperationModel, type ServiceModel, type WsdlModel } from './load.ts'

export interface SoapRequest {
  service: string
  /** The SOAPAction header (1.1; quotes allowed) or the `action` parameter of a 1.2 Content-Type; null when absent. */
  soapAction: string | null
  contentType: string | null
  body: string
}

export interface SoapOverride {
  /** The output object as the soap client returns it: the output element's content (document) or the parts by name (rpc). */
  value?: unknown
  fault?: { code?: string; message: string }
}

export interface SoapAnswer {
  /** 200, or 500 for a Fault (both versions), 404 for an unknown service (as a Fault too). */
  status: number
  /** 'text/xml; charset=utf-8' (1.1) or 'application/soap+xml; charset=utf-8' (1.2). */
  contentType: string
  /** A complete SOAP envelope. */
  body: string
  /** The operation answered, null when none was identified. */
  operation: string | null
}

export interface SoapResponder {
  answer(request: SoapRequest, overrides?: (operation: string) => SoapOverride | undefined): SoapAnswer
  /** The WSDL text with every soap:address / soap12:address location of each service set to `urlFor(serviceName)`. */
  wsdl(urlFor: (service: string) => string): string
}

interface Context {
  model: WsdlModel
  gen: Generator
  prefixes: Prefixes
}

export async function createSoapResponder(wsdlText: string, makeFaker: FakerFactory): Promise<SoapResponder> {
  const model = await openWsdl(wsdlText, 'WSDL')
  const context: Context = { model, gen: { schemas: model.schemas, faker: makeFaker() }, prefixes: prefixesFor(model) }
  return {
    answer: (request, overrides) => answer(context, request, overrides),
    wsdl: (urlFor) => withAddresses(model, urlFor),
  }
}

function answer(context: Context, request: SoapRequest, overrides?: (operation: string) => SoapOverride | undefined): SoapAnswer {
  let envelope: RequestEnvelope | null = null
  let problem = ''
  try {
    envelope = readEnvelope(request.body)
  } catch (error) {
    if (error instanceof XmlSyntaxError) problem = `not well-formed XML: ${error.message}`
    else if (error instanceof NotAnEnvelopeError) problem = error.message
    else throw error
  }
  // A Fault must be in a version the client reads: its envelope's, else the one its Content-Type names.
  const version = envelope?.version ?? versionOfContentType(request.contentType) ?? '1.1'
  const service = context.model.services.find((candidate) => candidate.name === request.service)
  if (!service) {
    const known = context.model.services.map((candidate) => candidate.name).join(', ')
    return faultAnswer(context, version, 404, { side: 'client', message: `unknown service "${request.service}"; this WSDL defines ${known}` }, null)
  }
  if (!envelope) return faultAnswer(context, version, 500, { side: 'client', message: problem }, null)
  const found = operationFor(service, envelope, soapActionOf(request))
  if ('problem' in found) return faultAnswer(context, version, 500, { side: 'client', message: found.problem }, null)
  const override = overrides?.(found.operation.name)
  if (override?.fault) {
    return faultAnswer(context, version, 500, { side: 'server', message: override.fault.message, code: override.fault.code }, found.operation.name)
  }
  return outputAnswer(context, version, found.operation, override?.value)
}

function soapActionOf(request: SoapRequest): string | null {
  const action = (request.soapAction ?? actionOfContentType(request.contentType))?.trim().replace(/^"(.*)"$/, '$1')
  return action || null
}

/** By SOAPAction when it names an operation, else by the Body's first element; the request's version's ports first. */
function operationFor(service: ServiceModel, envelope: RequestEnvelope, action: string | null): { operation: OperationModel } | { problem: string } {
  const ports = [...service.ports].sort((a, b) => Number(b.version === envelope.version) - Number(a.version === envelope.version))
  const operations = ports.flatMap((port) => port.operations)
  const payload = envelope.payload?.local ?? null
  const byAction = action ? operations.filter((operation) => operation.soapAction === action) : []
  const operation = byAction.find((candidate) => candidate.inputElement === payload) ?? byAction[0] ?? operations.find((candidate) => candidate.inputElement === payload)
  if (operation) return { operation }
  const tried = payload === null ? (action ? `SOAPAction "${action}" (the Body is empty)` : 'none (the Body is empty and there is no SOAPAction)') : `"${payload}"${action ? ` (SOAPAction "${action}")` : ''}`
  const known = [...new Set(operations.map((candidate) => candidate.name))].join(', ')
  return { problem: `unknown operation ${tried} for service "${service.name}"; known operations: ${known}` }
}

function outputAnswer(context: Context, version: SoapVersion, operation: OperationModel, override: unknown): SoapAnswer {
  const { model, gen, prefixes } = context
  const output = operation.output
  let body = ''
  let headers: string[] = []
  // A one-way operation answers an empty Body: the soap client reads nothing from it.
  if (output) {
    const value = merged(bodyValue(gen, output.body), override)
    const { style } = output.body
    if (style === 'rpc') {
      const { wrapper } = output.body
      // Parts are accessors without a namespace (WSDL 1.1 §3.5), hence isParts.
      body = model.wsdl.objectToRpcXML(wrapper.local, value, prefixes.of.get(wrapper.ns)!, wrapper.ns, true)
    } else if (output.body.element) {
      const { name } = output.body.element
      body = model.wsdl.objectToDocumentXML(name.local, value, prefixes.of.get(name.ns)!, name.ns)
    }
    headers = output.headers.map(({ name, declaration }) => model.wsdl.objectToDocumentXML(name.local, elementValue(gen, declaration), prefixes.of.get(name.ns)!, name.ns))
  }
  return { status: 200, contentType: contentTypeOf(version), body: envelopeXml(version, prefixes.declarations, headers, body), operation: operation.name }
}

function faultAnswer(context: Context, version: SoapVersion, status: number, fault: FaultSpec, operation: string | null): SoapAnswer {
  // The WSDL's prefixes stay declared: a code given as `tns:Busy` needs its prefix.
  return { status, contentType: contentTypeOf(version), body: envelopeXml(version, context.prefixes.declarations, [], faultXml(context.model.wsdl, version, fault)), operation }
}

/** `generated` with `override` laid over it: objects merge key by key, anything else is replaced. */
function merged(generated: unknown, override: unknown): unknown {
  if (override === undefined) return generated
  if (!isPlainObject(generated) || !isPlainObject(override)) return override
  const result: Record<string, unknown> = { ...generated }
  for (const [key, value] of Object.entries(override)) result[key] = merged(generated[key], value)
  return result
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A prefix for each namespace answers are written in, and the envelope attributes declaring them all. */
interface Prefixes {
  of: Map<string, string>
  declarations: string
}

// Declared by the envelope itself, or soap's key for a default namespace: never redeclared from the WSDL.
const RESERVED_PREFIXES = new Set(['soap', 'xsi', 'xml', 'xmlns', '__tns__'])

/**
 * soap's serializer leaves some prefixes to the envelope (`tns`, and every one in rpc style), as its
 * server does: the envelope declares the WSDL's prefixes, plus a new one for a namespace that has none.
 */
function prefixesFor(model: WsdlModel): Prefixes {
  const of = new Map<string, string>()
  const declared: [string, string][] = []
  for (const [prefix, ns] of Object.entries(model.wsdl.definitions.xmlns ?? {})) {
    if (typeof ns !== 'string' || RESERVED_PREFIXES.has(prefix)) continue
    declared.push([prefix, ns])
    if (!of.has(ns)) of.set(ns, prefix)
  }
  for (const ns of outputNamespaces(model)) {
    if (of.has(ns)) continue
    const prefix = `mock${of.size}`
    declared.push([prefix, ns])
    of.set(ns, prefix)
  }
  const declarations = declared.map(([prefix, ns]) => ` xmlns:${prefix}="${ns.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;')}"`).join('')
  return { of, declarations }
}

function outputNamespaces(model: WsdlModel): Set<string> {
  const namespaces = new Set<string>()
  for (const operation of model.services.flatMap((service) => service.ports.flatMap((port) => port.operations))) {
    const body = operation.output?.body
    if (body?.style === 'rpc') namespaces.add(body.wrapper.ns)
    if (body?.style === 'document' && body.element) namespaces.add(body.element.name.ns)
    for (const header of operation.output?.headers ?? []) namespaces.add(header.name.ns)
  }
  return namespaces
}
