import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import * as soap from 'soap'
import { cleanup, ROOT, serve, cliWorkspace } from '../_helpers.ts'
import type { RunningServer } from '../../src/server/start.ts'

afterAll(cleanup)

const FIXTURES = join(ROOT, 'fixtures', 'soap')
const WSDLS = [
  { file: join(FIXTURES, 'fastify-soap-client', 'calculator.wsdl'), slug: 'calculator', services: ['Calculator'], soap12: false },
  { file: join(FIXTURES, 'apache-cxf', 'CustomerService.wsdl'), slug: 'customers', services: ['CustomerServiceService'], soap12: false },
  { file: join(FIXTURES, 'apache-cxf', 'hello_world_RPCLit.wsdl'), slug: 'rpc', services: ['SOAPServiceRPCLit'], soap12: false },
  { file: join(FIXTURES, 'apache-cxf', 'hello_world_soap12.wsdl'), slug: 'soap12', services: ['SOAPService'], soap12: true },
  { file: join(FIXTURES, 'apache-cxf', 'soap_header.wsdl'), slug: 'headers', services: ['HeaderService'], soap12: false },
]

const workspace = cliWorkspace

type Description = Record<string, unknown>

/** A value for a type as node-soap describes it: `xs:int`, `s:string|A,B` (an enumeration), nested objects. */
function sample(type: unknown): unknown {
  if (type && typeof type === 'object') return sampleArgs(type as Description)
  const text = String(type)
  if (text.includes('|')) return text.split('|')[1]!.split(',')[0]
  if (/int|long|short|byte/i.test(text)) return 3
  if (/double|float|decimal/i.test(text)) return 1.5
  if (/boolean/i.test(text)) return true
  if (/dateTime/i.test(text)) return new Date('2026-01-02T03:04:05Z')
  if (/date/i.test(text)) return '2026-01-02'
  return 'Ada'
}

function sampleArgs(input: Description | undefined): Record<string, unknown> {
  const args: Record<string, unknown> = {}
  for (const [key, type] of Object.entries(input ?? {})) {
    if (key === 'targetNSAlias' || key === 'targetNamespace') continue
    const name = key.replace(/\[\]$/, '')
    args[name] = key.endsWith('[]') ? [sample(type)] : sample(type)
  }
  return args
}

/** node-soap describes an rpc part of a complex type by its type name only: its arguments given here. */
const KNOWN_ARGS: Record<string, unknown> = { sendReceiveData: { in: { elem1: 'a', elem2: 'b', elem3: 3 } } }

function argsFor(operation: string, input: Description | undefined): unknown {
  if (operation in KNOWN_ARGS) return KNOWN_ARGS[operation]
  const args = sampleArgs(input)
  // An rpc operation without parts is called with no arguments at all.
  return Object.keys(args).length === 0 ? null : args
}

async function clientFor(url: string, soap12: boolean): Promise<soap.Client> {
  return soap.createClientAsync(`${url}?wsdl`, soap12 ? { forceSoap12Headers: true } : {})
}

describe('SOAP import: every operation of the real WSDLs answers a real soap client', () => {
  const { ok, db } = workspace()
  let server: RunningServer

  beforeAll(async () => {
    await ok('project', 'create', 'First', '--slug', 'first')
    for (const { file, slug } of WSDLS) {
      await ok('project', 'create', slug, '--slug', slug)
      expect(await ok('import', file, '--project', slug)).toMatch(new RegExp(`imported WSDL ".+" into project ${slug} in \\d+ ms: \\d+ created`))
    }
    server = await serve(db)
  }, 30_000)

  it('lists each operation as an endpoint of kind soap', async () => {
    const endpoints = JSON.parse(await ok('endpoints', '--project', 'calculator', '--json')) as { method: string; path: string; kind: string; status: number }[]
    expect(endpoints.map((e) => `${e.method} ${e.path} ${e.kind} ${e.status}`)).toEqual(['POST /soap/Calculator#Add soap 200'])
  })

  for (const { file, slug, services, soap12 } of WSDLS) {
    it(`${file.slice(FIXTURES.length + 1)}: ?wsdl points the client at the mock; each operation answers its output message`, async () => {
      for (const service of services) {
        const url = `${server.url}/api/${slug}/soap/${service}`
        const wsdl = await (await fetch(`${url}?wsdl`)).text()
        expect(wsdl).toContain(`location="${url}"`)
        const client = await clientFor(url, soap12)
        const description = client.describe() as Record<string, Record<string, Record<string, { input?: Description; output?: Description }>>>
        const operations = Object.entries(Object.values(description[service]!)[0]!)
        expect(operations.length).toBeGreaterThan(0)
        const failures: string[] = []
        for (const [operation, { input, output }] of operations) {
          try {
            const [result] = (await (client as unknown as Record<string, (args: unknown) => Promise<unknown[]>>)[`${operation}Async`]!(argsFor(operation, input))) as [Record<string, unknown> | null]
            const expected = Object.keys(output ?? {}).filter((k) => k !== 'targetNSAlias' && k !== 'targetNamespace').map((k) => k.replace(/\[\]$/, ''))
            if (expected.length === 0) continue
            if (!result || typeof result !== 'object') failures.push(`${operation}: no result`)
            else for (const key of expected) if (!(key in result)) failures.push(`${operation}: ${key} missing from ${JSON.stringify(result)}`)
          } catch (error) {
            failures.push(`${operation}: ${(error as Error).message}`)
          }
        }
        expect(failures).toEqual([])
      }
    })
  }

  it('the calculator answers a number and SOAP 1.2 requests get a 1.2 envelope', async () => {
    const client = await clientFor(`${server.url}/api/calculator/soap/Calculator`, false)
    const [result] = (await (client as unknown as { AddAsync: (a: unknown) => Promise<[{ AddResult: number }]> }).AddAsync({ intA: 1, intB: 2 }))
    expect(typeof result.AddResult).toBe('number')
    const response = await fetch(`${server.url}/api/soap12/soap/SOAPService`, {
      method: 'POST',
      headers: { 'content-type': 'application/soap+xml; charset=utf-8' },
      body: `<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope" xmlns:t="http://apache.org/hello_world_soap12_http/types"><soap:Body><t:sayHi/></soap:Body></soap:Envelope>`,
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/soap\+xml/)
    expect(await response.text()).toMatch(/http:\/\/www\.w3\.org\/2003\/05\/soap-envelope[\s\S]*sayHiResponse/)
  })

  it('an unknown operation, malformed XML and a body that is not an envelope get SOAP Faults', async () => {
    const url = `${server.url}/api/calculator/soap/Calculator`
    const post = (body: string, headers: Record<string, string> = {}) => fetch(url, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', ...headers }, body })
    const unknown = await post('<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><Divide xmlns="http://tempuri.org/"/></soap:Body></soap:Envelope>')
    expect(unknown.status).toBe(500)
    const unknownText = await unknown.text()
    expect(unknownText).toMatch(/<faultcode>[^<]*Client<\/faultcode>/)
    expect(unknownText).toMatch(/Divide[\s\S]*Add/)
    const malformed = await post('<soap:Envelope><soap:Body>')
    expect(malformed.status).toBe(500)
    expect(await malformed.text()).toMatch(/faultstring/)
    const notEnvelope = await post('<hello/>')
    expect(notEnvelope.status).toBe(500)
    expect(await notEnvelope.text()).toMatch(/Envelope/)
    const byAction = await post('<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><x/></soap:Body></soap:Envelope>', { SOAPAction: '"http://tempuri.org/Add"' })
    expect(byAction.status).toBe(200)
    expect(await byAction.text()).toContain('AddResponse')
  })
})

describe('SOAP import: settings, export/apply, broken input', () => {
  it('an operation answers its configured body or a Fault; export/apply keeps them', async () => {
    const { ok, cwd } = workspace()
    await ok('import', WSDLS[0]!.file)
    await ok('endpoint', 'set', 'POST', '/soap/Calculator#Add', '--body', '{"AddResult":42}')
    const file = join(cwd, 'calc.yaml')
    writeFileSync(file, await ok('export'))
    const other = workspace()
    await other.ok('apply', file)
    const server = await serve(other.db)
    const client = await clientFor(`${server.url}/soap/Calculator`, false)
    const add = (client as unknown as { AddAsync: (a: unknown) => Promise<[{ AddResult: number }]> }).AddAsync
    expect((await add({ intA: 1, intB: 2 }))[0].AddResult).toBe(42)
    await other.ok('endpoint', 'set', 'POST', '/soap/Calculator#Add', '--status', '500')
    await expect(add({ intA: 1, intB: 2 })).rejects.toThrow(/simulated 500/)
  })

  it('an operation whose endpoint was removed gets a Client Fault; the service\'s other operations still answer', async () => {
    const { ok, db } = workspace()
    await ok('import', join(FIXTURES, 'synthetic', 'shop.wsdl'))
    await ok('remove-endpoint', 'POST', '/soap/ShopService#cancelOrder')
    const server = await serve(db)
    const post = (operation: string) => fetch(`${server.url}/soap/ShopService`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=utf-8' },
      body: `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><${operation} xmlns="urn:example:shop:types"><orderId>1</orderId></${operation}></soap:Body></soap:Envelope>`,
    })
    const removed = await post('cancelOrder')
    expect(removed.status).toBe(500)
    const text = await removed.text()
    expect(text).toMatch(/<faultcode>[^<]*Client<\/faultcode>/)
    expect(text).toMatch(/operation cancelOrder is not mocked/)
    const kept = await post('getOrder')
    expect(kept.status).toBe(200)
    expect(await kept.text()).toContain('getOrderResponse')
  })

  it('refuses a WSDL that is not XML or not a WSDL, with the parser message, and creates nothing', async () => {
    const { run, ok } = workspace()
    const notXml = await run('import', join(FIXTURES, 'broken', 'not-xml.wsdl'))
    expect(notXml.code).toBe(1)
    expect(notXml.stderr).toMatch(/not-xml\.wsdl: not well-formed XML: .*line \d+/)
    const notWsdl = await run('import', join(FIXTURES, 'broken', 'not-wsdl.xml'), '--format', 'soap')
    expect(notWsdl.code).toBe(1)
    expect(notWsdl.stderr).toMatch(/not-wsdl\.xml/)
    expect(JSON.parse(await ok('projects', '--json'))).toEqual([])
  })
})
