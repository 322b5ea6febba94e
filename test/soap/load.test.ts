import { XMLParser } from 'fast-xml-parser'
import { describe, expect, it } from 'vitest'
import { AppError } from '../../src/errors.ts'
import { loadFaker } from '../../src/engine/generators.ts'
import { loadWsdl } from '../../src/kinds/soap/load.ts'
import { createSoapResponder } from '../../src/kinds/soap/responder.ts'
import { fixture, responderFor } from './_helpers.ts'

async function refusal(text: string, origin = 'spec.wsdl'): Promise<AppError> {
  const error = await loadWsdl(text, origin).then(() => null, (e: unknown) => e)
  expect(error).toBeInstanceOf(AppError)
  expect((error as AppError).code).toBe('INVALID_SPEC')
  expect((error as AppError).message.startsWith(`${origin}: `)).toBe(true)
  return error as AppError
}

describe('loadWsdl: the real-world fixtures', () => {
  it('calculator.wsdl: one service with a SOAP 1.1 and a 1.2 port, named by its service', async () => {
    expect(await loadWsdl(fixture('fastify-soap-client/calculator.wsdl'), 'calculator.wsdl')).toEqual({
      title: 'Calculator',
      services: [{
        name: 'Calculator',
        soapVersions: ['1.1', '1.2'],
        operations: [{ name: 'Add', soapAction: 'http://tempuri.org/Add', style: 'document', inputElement: 'Add' }],
      }],
    })
  })

  it('CustomerService.wsdl: document/literal, empty soapAction → null, a one-way operation', async () => {
    expect(await loadWsdl(fixture('apache-cxf/CustomerService.wsdl'), 'CustomerService.wsdl')).toEqual({
      title: 'CustomerServiceService',
      services: [{
        name: 'CustomerServiceService',
        soapVersions: ['1.1'],
        operations: [
          { name: 'updateCustomer', soapAction: null, style: 'document', inputElement: 'updateCustomer' },
          { name: 'getCustomersByName', soapAction: null, style: 'document', inputElement: 'getCustomersByName' },
        ],
      }],
    })
  })

  it('hello_world_soap12.wsdl: a SOAP 1.2 binding (an operation without soapAction too)', async () => {
    const definition = await loadWsdl(fixture('apache-cxf/hello_world_soap12.wsdl'), 'hello_world_soap12.wsdl')
    expect(definition.title).toBe('HelloWorld')
    expect(definition.services).toEqual([{
      name: 'SOAPService',
      soapVersions: ['1.2'],
      operations: ['sayHi', 'greetMe', 'greetMeOneWay', 'pingMe'].map((name) => ({ name, soapAction: null, style: 'document', inputElement: name })),
    }])
  })

  it('hello_world_RPCLit.wsdl: rpc style, where the body element is the operation name', async () => {
    const definition = await loadWsdl(fixture('apache-cxf/hello_world_RPCLit.wsdl'), 'hello_world_RPCLit.wsdl')
    expect(definition.title).toBe('HelloWorld')
    expect(definition.services).toEqual([{
      name: 'SOAPServiceRPCLit',
      soapVersions: ['1.1'],
      operations: ['sayHi', 'greetMe', 'sendReceiveData'].map((name) => ({ name, soapAction: null, style: 'rpc', inputElement: name })),
    }])
  })

  it('soap_header.wsdl: the body part is the one soap:body lists, not the header part', async () => {
    const definition = await loadWsdl(fixture('apache-cxf/soap_header.wsdl'), 'soap_header.wsdl')
    expect(definition.title).toBe('soap_header')
    expect(definition.services).toEqual([{
      name: 'HeaderService',
      soapVersions: ['1.1'],
      operations: ['inHeader', 'outHeader', 'inoutHeader'].map((name) => ({ name, soapAction: null, style: 'document', inputElement: name })),
    }])
  })

  it('shop.wsdl (synthetic): soapActions per operation, operations listed once for two ports', async () => {
    const definition = await loadWsdl(fixture('synthetic/shop.wsdl'), 'shop.wsdl')
    expect(definition.services).toEqual([{
      name: 'ShopService',
      soapVersions: ['1.1', '1.2'],
      operations: [
        { name: 'getOrder', soapAction: 'urn:example:shop#getOrder', style: 'document', inputElement: 'getOrder' },
        { name: 'cancelOrder', soapAction: 'urn:example:shop#cancelOrder', style: 'document', inputElement: 'cancelOrder' },
      ],
    }])
  })

  it('reads a document with a byte order mark and CRLF line ends, and rewrites its addresses in place', async () => {
    const text = '\uFEFF' + fixture('fastify-soap-client/calculator.wsdl').replace(/\r?\n/g, '\r\n')
    expect((await loadWsdl(text, 'calculator.wsdl')).title).toBe('Calculator')
    const served = (await createSoapResponder(text, await loadFaker())).wsdl(() => 'http://h/soap/Calculator')
    expect(served).toBe(text.slice(1).replaceAll('http://localhost:51515/calculator', 'http://h/soap/Calculator'))
  })
})

describe('loadWsdl: refusals (INVALID_SPEC, naming the problem)', () => {
  it('not well-formed XML: the parser message with line and column', async () => {
    const error = await refusal(fixture('broken/not-xml.wsdl'), 'not-xml.wsdl')
    expect(error.message).toMatch(/^not-xml\.wsdl: not well-formed XML: .*'xs:schema'.* \(line \d+, column \d+\)$/)
  })

  it('well-formed XML that is not a WSDL names the root element found', async () => {
    const error = await refusal(fixture('broken/not-wsdl.xml'), 'not-wsdl.xml')
    expect(error.message).toBe('not-wsdl.xml: not a WSDL 1.1 document: the root element is <project> in http://maven.apache.org/POM/4.0.0, expected <definitions> in http://schemas.xmlsoap.org/wsdl/')
  })

  it('a <definitions> outside the WSDL 1.1 namespace is not a WSDL', async () => {
    const error = await refusal('<definitions name="x"/>')
    expect(error.message).toContain('the root element is <definitions> (no namespace)')
  })

  it('WSDL 2.0 is named as unsupported', async () => {
    const error = await refusal('<description xmlns="http://www.w3.org/ns/wsdl"/>')
    expect(error.message).toBe('spec.wsdl: WSDL 2.0 is not supported; mockapi reads WSDL 1.1')
  })

  it('empty text', async () => {
    expect((await refusal('')).message).toMatch(/not well-formed XML/)
  })

  it('no service', async () => {
    expect((await refusal(fixture('broken/no-service.wsdl'))).message).toContain('defines no wsdl:service')
  })

  it('no SOAP binding (HTTP GET only)', async () => {
    expect((await refusal(fixture('broken/http-binding-only.wsdl'))).message).toContain('no wsdl:service has a port with a SOAP 1.1 or 1.2 binding over HTTP')
  })

  it('an external xsd:import is named as unsupported', async () => {
    const error = await refusal(fixture('broken/external-schema.wsdl'))
    expect(error.message).toBe('spec.wsdl: xsd:import of schemaLocation "ping-types.xsd" is not supported: only the schemas embedded in wsdl:types are read; inline that one there')
  })

  it('a wsdl:import is named as unsupported', async () => {
    const text = fixture('apache-cxf/CustomerService.wsdl').replace('<wsdl:types>', '<wsdl:import namespace="urn:x" location="other.wsdl"/><wsdl:types>')
    expect((await refusal(text)).message).toContain('wsdl:import of "other.wsdl" is not supported')
  })

  it('a type missing from wsdl:types, found at load rather than on a call', async () => {
    const error = await refusal(fixture('broken/undefined-type.wsdl'))
    expect(error.message).toBe('spec.wsdl: operation "ping": type {urn:example:ping}Pong is not defined in wsdl:types')
  })

  it('a message part naming an element that is not defined', async () => {
    const text = fixture('fastify-soap-client/calculator.wsdl').replace('element="tns:AddResponse"', 'element="tns:Missing"')
    expect((await refusal(text)).message).toBe('spec.wsdl: part "parameters" of message "AddSoapOut" (operation "Add"): element "tns:Missing" is not defined in wsdl:types')
  })

  it('a port naming a binding that is not defined', async () => {
    const text = fixture('apache-cxf/CustomerService.wsdl').replace('binding="tns:CustomerServiceServiceSoapBinding"', 'binding="tns:Nope"')
    expect((await refusal(text)).message).toBe('spec.wsdl: port "CustomerServicePort" names binding "tns:Nope", which is not defined')
  })

  it('an undeclared element prefix is not namespace-well-formed', async () => {
    expect((await refusal('<wsdl:definitions/>')).message).toBe('spec.wsdl: not well-formed XML: the prefix of <wsdl:definitions> is not declared')
  })
})

describe('wsdl(): addresses rewritten, the rest byte for byte', () => {
  const LOCATIONS = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', removeNSPrefix: true, isArray: (name) => ['port', 'service'].includes(name) })

  function locations(text: string): string[] {
    const definitions = (LOCATIONS.parse(text) as { definitions: { service: { port: { address?: { location: string } }[] }[] } }).definitions
    return definitions.service.flatMap((service) => service.port.map((port) => port.address?.location ?? ''))
  }

  it('sets soap:address and soap12:address of every port to the URL of its service', async () => {
    const responder = await responderFor('fastify-soap-client/calculator.wsdl')
    const text = responder.wsdl((service) => `http://127.0.0.1:4010/soap/${service}`)
    expect(locations(text)).toEqual(['http://127.0.0.1:4010/soap/Calculator', 'http://127.0.0.1:4010/soap/Calculator'])
    const original = fixture('fastify-soap-client/calculator.wsdl')
    expect(text.replaceAll('http://127.0.0.1:4010/soap/Calculator', 'http://localhost:51515/calculator')).toBe(original)
  })

  it('leaves the commented-out address alone, and escapes the URL', async () => {
    const responder = await responderFor('apache-cxf/CustomerService.wsdl')
    const text = responder.wsdl(() => 'http://h/soap/x?a=1&b="2"')
    expect(text).toContain('<soap:address location="http://h/soap/x?a=1&amp;b=&quot;2&quot;"/>')
    expect(text).toContain('<!--soap:address location="http://localhost:8080/wsdl_first/services/CustomerServicePort"/-->')
    expect(locations(text)).toEqual(['http://h/soap/x?a=1&b="2"'])
  })

  it('rewrites single-quoted values with entities', async () => {
    const responder = await responderFor('synthetic/shop.wsdl')
    const text = responder.wsdl(() => 'http://h/soap/ShopService')
    expect(text).toContain(`<soap12:address location="http://h/soap/ShopService"/>`)
    expect(locations(text)).toEqual(['http://h/soap/ShopService', 'http://h/soap/ShopService'])
  })
})
