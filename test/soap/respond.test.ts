/** Raw HTTP requests against the responder: routing, versions, Faults and overrides, read off the wire. */
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { envelope, responderFor, serveSoap, SOAP11_ENV, SOAP12_ENV, type SoapServer } from './_helpers.ts'

const READER = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', removeNSPrefix: true, parseTagValue: false })

interface Reply {
  status: number
  contentType: string
  operation: string
  text: string
  /** The Envelope, prefixes dropped. */
  envelope: any
}

async function post(server: SoapServer, service: string, body: string, headers: Record<string, string> = { 'content-type': 'text/xml; charset=utf-8' }): Promise<Reply> {
  const response = await fetch(`${server.base}/soap/${service}`, { method: 'POST', headers, body })
  const text = await response.text()
  expect(XMLValidator.validate(text)).toBe(true)
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    operation: response.headers.get('x-operation') ?? '',
    text,
    envelope: (READER.parse(text) as { Envelope: unknown }).Envelope,
  }
}

const SOAP12 = { 'content-type': 'application/soap+xml; charset=utf-8' }
const ADD = '<Add xmlns="http://tempuri.org/"><intA>1</intA><intB>2</intB></Add>'
const CANCEL = '<cancelOrder xmlns="urn:example:shop:types"><orderId>7</orderId></cancelOrder>'

let calculator: SoapServer
let shop: SoapServer
let rpc: SoapServer
beforeAll(async () => {
  calculator = await serveSoap(await responderFor('fastify-soap-client/calculator.wsdl'))
  shop = await serveSoap(await responderFor('synthetic/shop.wsdl'))
  rpc = await serveSoap(await responderFor('apache-cxf/hello_world_RPCLit.wsdl'))
})
afterAll(async () => {
  await Promise.all([calculator, shop, rpc].map((server) => server.close()))
})

describe('choosing the operation', () => {
  it('a SOAPAction naming an operation wins over the body element', async () => {
    const reply = await post(shop, 'ShopService', envelope(CANCEL), { 'content-type': 'text/xml', soapaction: '"urn:example:shop#getOrder"' })
    expect(reply.status).toBe(200)
    expect(reply.operation).toBe('getOrder')
    expect(reply.envelope.Body.getOrderResponse.order.orderId).toEqual(expect.any(String))
  })

  it('without SOAPAction, the body element decides', async () => {
    const reply = await post(shop, 'ShopService', envelope(CANCEL))
    expect(reply.operation).toBe('cancelOrder')
    expect(['true', 'false']).toContain(reply.envelope.Body.cancelOrderResponse.cancelled)
  })

  it('a SOAPAction that names no operation leaves it to the body element', async () => {
    const reply = await post(calculator, 'Calculator', envelope(ADD), { 'content-type': 'text/xml', soapaction: 'urn:unknown' })
    expect(reply.operation).toBe('Add')
    expect(reply.envelope.Body.AddResponse.AddResult).toMatch(/^\d+$/)
  })

  it('the action parameter of a SOAP 1.2 Content-Type is the SOAPAction', async () => {
    const reply = await post(shop, 'ShopService', envelope(CANCEL, '1.2'), { 'content-type': 'application/soap+xml; charset=utf-8; action="urn:example:shop#getOrder"' })
    expect(reply.operation).toBe('getOrder')
  })

  it('rpc style: the body element is the operation name; the answer wraps the parts in {operation}Response', async () => {
    const reply = await post(rpc, 'SOAPServiceRPCLit', envelope('<h:greetMe xmlns:h="http://apache.org/hello_world_rpclit"><in>Bob</in></h:greetMe>'))
    expect(reply.status).toBe(200)
    expect(reply.text).toMatch(/<tns:greetMeResponse><out>[^<]+<\/out><\/tns:greetMeResponse>/)
    expect(reply.text).toContain('xmlns:tns="http://apache.org/hello_world_rpclit"')
  })

  it('an unknown operation: a Client Fault (500) naming it and the known ones', async () => {
    const reply = await post(calculator, 'Calculator', envelope('<Subtract xmlns="http://tempuri.org/"/>'))
    expect(reply.status).toBe(500)
    expect(reply.operation).toBe('')
    expect(reply.envelope.Body.Fault.faultcode).toBe('soap:Client')
    expect(reply.envelope.Body.Fault.faultstring).toBe('unknown operation "Subtract" for service "Calculator"; known operations: Add')
  })

  it('an empty Body and no SOAPAction', async () => {
    const reply = await post(calculator, 'Calculator', envelope(''))
    expect(reply.status).toBe(500)
    expect(reply.envelope.Body.Fault.faultstring).toContain('unknown operation none (the Body is empty and there is no SOAPAction)')
  })
})

describe('requests that are not SOAP', () => {
  it('malformed XML: a Client Fault with the parser message and position', async () => {
    const reply = await post(calculator, 'Calculator', '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>')
    expect(reply.status).toBe(500)
    expect(reply.contentType).toBe('text/xml; charset=utf-8')
    expect(reply.envelope.Body.Fault.faultcode).toBe('soap:Client')
    expect(reply.envelope.Body.Fault.faultstring).toMatch(/^not well-formed XML: .+ \(line 1, column \d+\)$/)
  })

  it('XML that is not an envelope', async () => {
    const reply = await post(calculator, 'Calculator', ADD)
    expect(reply.status).toBe(500)
    expect(reply.envelope.Body.Fault.faultstring).toMatch(/^not a SOAP envelope: the root element is <Add> in http:\/\/tempuri.org\//)
  })

  it('an Envelope without Body', async () => {
    const reply = await post(calculator, 'Calculator', `<e:Envelope xmlns:e="${SOAP11_ENV}"><e:Header/></e:Envelope>`)
    expect(reply.envelope.Body.Fault.faultstring).toBe('not a SOAP envelope: the Envelope has no Body')
  })

  it('an Envelope in another namespace', async () => {
    const reply = await post(calculator, 'Calculator', '<Envelope><Body/></Envelope>')
    expect(reply.envelope.Body.Fault.faultstring).toContain('the root element is <Envelope>, expected <Envelope> in')
  })

  it('a document nested past the parser limit is refused like malformed XML', async () => {
    const deep = '<a>'.repeat(20_000) + '</a>'.repeat(20_000)
    const reply = await post(calculator, 'Calculator', envelope(deep))
    expect(reply.status).toBe(500)
    expect(reply.envelope.Body.Fault.faultstring).toMatch(/^not well-formed XML: /)
  })

  it('malformed XML sent as SOAP 1.2: the Fault is 1.2 (Sender)', async () => {
    const reply = await post(calculator, 'Calculator', '<oops', SOAP12)
    expect(reply.status).toBe(500)
    expect(reply.contentType).toBe('application/soap+xml; charset=utf-8')
    expect(reply.text).toContain(`xmlns:soap="${SOAP12_ENV}"`)
    expect(reply.envelope.Body.Fault.Code.Value).toBe('soap:Sender')
    expect(reply.envelope.Body.Fault.Reason.Text['#text']).toMatch(/^not well-formed XML/)
  })

  it('an unknown service: a 404 Fault naming it', async () => {
    const reply = await post(calculator, 'Nope', envelope(ADD))
    expect(reply.status).toBe(404)
    expect(reply.envelope.Body.Fault.faultcode).toBe('soap:Client')
    expect(reply.envelope.Body.Fault.faultstring).toBe('unknown service "Nope"; this WSDL defines Calculator')
  })
})

describe('SOAP 1.2', () => {
  it('a 1.2 request gets a 1.2 envelope and content type', async () => {
    const reply = await post(calculator, 'Calculator', envelope(ADD, '1.2'), SOAP12)
    expect(reply.status).toBe(200)
    expect(reply.contentType).toBe('application/soap+xml; charset=utf-8')
    expect(reply.text).toContain(`<soap:Envelope xmlns:soap="${SOAP12_ENV}"`)
    expect(reply.envelope.Body.AddResponse.AddResult).toMatch(/^\d+$/)
  })

  it('the envelope namespace decides when the Content-Type says otherwise', async () => {
    const reply = await post(calculator, 'Calculator', envelope(ADD, '1.2'))
    expect(reply.contentType).toBe('application/soap+xml; charset=utf-8')
  })

  it('an unknown operation: Code/Value Sender and Reason/Text', async () => {
    const reply = await post(calculator, 'Calculator', envelope('<Subtract/>', '1.2'), SOAP12)
    expect(reply.status).toBe(500)
    expect(reply.envelope.Body.Fault.Code.Value).toBe('soap:Sender')
    expect(reply.envelope.Body.Fault.Reason.Text).toEqual({ '#text': 'unknown operation "Subtract" for service "Calculator"; known operations: Add', '@lang': 'en' })
  })
})

describe('overrides', () => {
  it('an override value is sent, the fields it lacks generated', async () => {
    shop.overrides.set('getOrder', { value: { order: { orderId: 'A-1', status: 'shipped' } } })
    try {
      const reply = await post(shop, 'ShopService', envelope('<getOrder xmlns="urn:example:shop:types"><orderId>A-1</orderId></getOrder>'))
      const { order } = reply.envelope.Body.getOrderResponse
      expect(order.orderId).toBe('A-1')
      expect(order.status).toBe('shipped')
      expect(order.customer.name).toEqual(expect.any(String))
    } finally {
      shop.overrides.clear()
    }
  })

  it('an override value replaces a simple value too', async () => {
    calculator.overrides.set('Add', { value: { AddResult: 42 } })
    try {
      const reply = await post(calculator, 'Calculator', envelope(ADD))
      expect(reply.envelope.Body.AddResponse.AddResult).toBe('42')
    } finally {
      calculator.overrides.clear()
    }
  })

  it('an override fault: a Server Fault (500) with its message, for the operation it was asked for', async () => {
    calculator.overrides.set('Add', { fault: { message: 'calculator on fire <&>' } })
    try {
      const reply = await post(calculator, 'Calculator', envelope(ADD))
      expect(reply.status).toBe(500)
      expect(reply.operation).toBe('Add')
      expect(reply.envelope.Body.Fault).toEqual({ faultcode: 'soap:Server', faultstring: 'calculator on fire <&>' })
      const soap12 = await post(calculator, 'Calculator', envelope(ADD, '1.2'), SOAP12)
      expect(soap12.status).toBe(500)
      expect(soap12.envelope.Body.Fault.Code.Value).toBe('soap:Receiver')
      expect(soap12.envelope.Body.Fault.Reason.Text['#text']).toBe('calculator on fire <&>')
    } finally {
      calculator.overrides.clear()
    }
  })

  it('an override fault code: standard ones follow the version, others are kept (a 1.2 Subcode)', async () => {
    calculator.overrides.set('Add', { fault: { code: 'Client', message: 'no' } })
    try {
      expect((await post(calculator, 'Calculator', envelope(ADD, '1.2'), SOAP12)).envelope.Body.Fault.Code.Value).toBe('soap:Sender')
      calculator.overrides.set('Add', { fault: { code: 'tns:Busy', message: 'later' } })
      expect((await post(calculator, 'Calculator', envelope(ADD))).envelope.Body.Fault.faultcode).toBe('tns:Busy')
      const soap12 = await post(calculator, 'Calculator', envelope(ADD, '1.2'), SOAP12)
      expect(soap12.envelope.Body.Fault.Code).toEqual({ Value: 'soap:Receiver', Subcode: { Value: 'tns:Busy' } })
      expect(soap12.text).toContain('xmlns:tns="http://tempuri.org/"')
    } finally {
      calculator.overrides.clear()
    }
  })
})
