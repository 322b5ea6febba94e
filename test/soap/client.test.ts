/**
 * A real `soap` client against each fixture: it reads the served WSDL, posts to the address in it and
 * must parse every answer into the output object.
 */
import soap, { type Client, type IOptions } from 'soap'
import { afterEach, describe, expect, it } from 'vitest'
import { responderFor, serveSoap, type SoapServer } from './_helpers.ts'

const servers: SoapServer[] = []
afterEach(async () => {
  while (servers.length) await servers.pop()!.close()
})

type Call = (args: unknown) => Promise<[result: any, rawResponse: string, soapHeader: any, rawRequest: string]>

async function clientFor(file: string, service: string, options: IOptions = {}): Promise<Client & Record<string, Call>> {
  const server = await serveSoap(await responderFor(file))
  servers.push(server)
  return (await soap.createClientAsync(`${server.base}/soap/${service}?wsdl`, options)) as Client & Record<string, Call>
}

const SOAP12_CONTENT_TYPE = /^application\/soap\+xml; charset=utf-8$/

describe('calculator.wsdl (document/literal, SOAP 1.1 and 1.2 ports)', () => {
  it('Add over SOAP 1.1', async () => {
    const client = await clientFor('fastify-soap-client/calculator.wsdl', 'Calculator')
    const [result, raw] = await client.AddAsync!({ intA: 2, intB: 3 })
    expect(Number.isInteger(result.AddResult)).toBe(true)
    expect(raw).toContain('xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"')
    expect(client.lastResponseHeaders?.['content-type']).toBe('text/xml; charset=utf-8')
  })

  it('Add over SOAP 1.2', async () => {
    const client = await clientFor('fastify-soap-client/calculator.wsdl', 'Calculator', { forceSoap12Headers: true })
    const [result, raw] = await client.AddAsync!({ intA: 2, intB: 3 })
    expect(Number.isInteger(result.AddResult)).toBe(true)
    expect(raw).toContain('xmlns:soap="http://www.w3.org/2003/05/soap-envelope"')
    expect(client.lastResponseHeaders?.['content-type']).toMatch(SOAP12_CONTENT_TYPE)
  })
})

describe('CustomerService.wsdl (document/literal, arrays, enum, one-way)', () => {
  it('getCustomersByName: two customers with typed fields', async () => {
    const client = await clientFor('apache-cxf/CustomerService.wsdl', 'CustomerServiceService')
    const [result] = await client.getCustomersByNameAsync!({ name: 'Smith' })
    expect(result.return).toHaveLength(2)
    for (const customer of result.return) {
      expect(Number.isInteger(customer.customerId)).toBe(true)
      expect(typeof customer.name).toBe('string')
      expect(customer.address).toHaveLength(2)
      expect(typeof customer.address[0]).toBe('string')
      expect(Number.isInteger(customer.numOrders)).toBe(true)
      expect(typeof customer.revenue).toBe('number')
      expect(typeof customer.test).toBe('number')
      expect(customer.birthDate).toBeInstanceOf(Date)
      expect(Number.isNaN(customer.birthDate.getTime())).toBe(false)
      expect(['PRIVATE', 'BUSINESS']).toContain(customer.type)
    }
  })

  it('updateCustomer (one-way): no output, no error', async () => {
    const client = await clientFor('apache-cxf/CustomerService.wsdl', 'CustomerServiceService')
    const [result, raw] = await client.updateCustomerAsync!({ customer: { customerId: 1, name: 'Ada', revenue: 2.5 } })
    expect(result).toBeNull()
    expect(raw).toContain('<soap:Body/>')
  })
})

describe('hello_world_soap12.wsdl (SOAP 1.2 only)', () => {
  const open = (): ReturnType<typeof clientFor> => clientFor('apache-cxf/hello_world_soap12.wsdl', 'SOAPService', { forceSoap12Headers: true })

  it('sayHi and greetMe return a string responseType', async () => {
    const client = await open()
    const [hi] = await client.sayHiAsync!({})
    expect(typeof hi.responseType).toBe('string')
    const [greeting] = await client.greetMeAsync!({ requestType: 'Bob' })
    expect(typeof greeting.responseType).toBe('string')
    expect(client.lastResponseHeaders?.['content-type']).toMatch(SOAP12_CONTENT_TYPE)
  })

  it('greetMeOneWay (one-way) and pingMe (an empty response element)', async () => {
    const client = await open()
    const [oneWay] = await client.greetMeOneWayAsync!({ requestType: 'Bob' })
    expect(oneWay).toBeNull()
    const [, raw] = await client.pingMeAsync!({})
    expect(raw).toMatch(/<x1:pingMeResponse[^>]*><\/x1:pingMeResponse>/)
  })
})

describe('hello_world_RPCLit.wsdl (rpc/literal)', () => {
  it('sayHi, greetMe and sendReceiveData return their `out` part', async () => {
    const client = await clientFor('apache-cxf/hello_world_RPCLit.wsdl', 'SOAPServiceRPCLit')
    // An input message without parts: the soap client sends rpc only when args is null.
    const [hi] = await client.sayHiAsync!(null)
    expect(typeof hi.out).toBe('string')
    const [greeting] = await client.greetMeAsync!({ in: 'Bob' })
    expect(typeof greeting.out).toBe('string')
    const [data, raw] = await client.sendReceiveDataAsync!({ in: { elem1: 'a', elem2: 'b', elem3: 3 } })
    expect(typeof data.out.elem1).toBe('string')
    expect(typeof data.out.elem2).toBe('string')
    // The soap client does not type the fields of a complex rpc part: elem3 (xs:int) comes back as text.
    expect(String(data.out.elem3)).toMatch(/^-?\d+$/)
    expect(raw).toMatch(/<tns:sendReceiveDataResponse><out><elem1>/)
  })
})

describe('soap_header.wsdl (soap:header parts)', () => {
  it('every operation answers its body; outHeader and inoutHeader add the SOAPHeaderInfo header', async () => {
    const client = await clientFor('apache-cxf/soap_header.wsdl', 'HeaderService')
    const [inResult, , inHeader] = await client.inHeaderAsync!({ requestType: 'a' })
    expect(typeof inResult.responseType).toBe('string')
    expect(inHeader).toBeUndefined()
    for (const operation of ['outHeaderAsync', 'inoutHeaderAsync']) {
      const [result, , header] = await client[operation]!({ requestType: 'a' })
      expect(typeof result.responseType).toBe('string')
      expect(typeof header.SOAPHeaderInfo.originator).toBe('string')
      expect(typeof header.SOAPHeaderInfo.message).toBe('string')
    }
  })
})

describe('shop.wsdl (synthetic XSD constructs)', () => {
  it('getOrder: extension, recursion, simple content with an attribute, choice, groups, refs, facets', async () => {
    const client = await clientFor('synthetic/shop.wsdl', 'ShopService')
    const [{ order }] = await client.getOrderAsync!({ orderId: '42' })
    expect(order.attributes.revision).toMatch(/^\d+$/)
    expect(typeof order.orderId).toBe('string')
    expect(['placed', 'shipped', 'delivered']).toContain(order.status)
    // Party's fields first, then Customer's own; the recursive referrer stops.
    expect(Object.keys(order.customer).slice(0, 3)).toEqual(['name', 'email', 'customerNumber'])
    expect(order.customer.email).toMatch(/@/)
    let depth = 0
    for (let customer = order.customer; customer.referrer; customer = customer.referrer) depth++
    expect(depth).toBeGreaterThan(0)
    expect(depth).toBeLessThan(8)
    expect(order.line).toHaveLength(2)
    for (const line of order.line) {
      expect(line.sku.length).toBeLessThanOrEqual(8)
      // The soap client types only built-in XSD types: a restriction of xs:int comes back as text.
      expect(Number(line.quantity)).toBeGreaterThanOrEqual(1)
      expect(Number(line.quantity)).toBeLessThanOrEqual(9)
      expect(typeof line.price.attributes.currency).toBe('string')
      expect(typeof line.price.$value).toBe('number')
    }
    expect(typeof order.paidByCard).toBe('boolean')
    expect(order.invoiceNumber).toBeUndefined()
    expect(order.createdAt).toBeInstanceOf(Date)
    expect(order.deliveryDate).toBeInstanceOf(Date)
    expect(typeof order.note).toBe('string')
  })

  it('cancelOrder over both versions', async () => {
    for (const forceSoap12Headers of [false, true]) {
      const client = await clientFor('synthetic/shop.wsdl', 'ShopService', { forceSoap12Headers })
      const [result] = await client.cancelOrderAsync!({ orderId: '42', reason: 'changed my mind' })
      expect(typeof result.cancelled).toBe('boolean')
      expect(typeof result.refund.$value).toBe('number')
    }
  })

  it('an override value is what the client gets; missing fields are still generated', async () => {
    const server = await serveSoap(await responderFor('synthetic/shop.wsdl'))
    servers.push(server)
    server.overrides.set('cancelOrder', { value: { cancelled: false } })
    const client = (await soap.createClientAsync(`${server.base}/soap/ShopService?wsdl`)) as Client & Record<string, Call>
    const [result] = await client.cancelOrderAsync!({ orderId: '42' })
    expect(result.cancelled).toBe(false)
    expect(typeof result.refund.$value).toBe('number')
  })

  it('an override fault rejects the call with its message', async () => {
    const server = await serveSoap(await responderFor('synthetic/shop.wsdl'))
    servers.push(server)
    server.overrides.set('getOrder', { fault: { message: 'order 42 is archived' } })
    const client = (await soap.createClientAsync(`${server.base}/soap/ShopService?wsdl`)) as Client & Record<string, Call>
    const error = await client.getOrderAsync!({ orderId: '42' }).then(() => null, (e: { root?: unknown }) => e)
    expect(JSON.stringify(error?.root)).toContain('order 42 is archived')
  })
})
