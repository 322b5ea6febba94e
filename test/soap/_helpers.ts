import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadFaker } from '../../src/engine/generators.ts'
import { createSoapResponder, type SoapOverride, type SoapResponder } from '../../src/kinds/soap/responder.ts'

export const FIXTURES = fileURLToPath(new URL('../../fixtures/soap/', import.meta.url))

export function fixture(path: string): string {
  return readFileSync(join(FIXTURES, path), 'utf8')
}

export async function responderFor(path: string): Promise<SoapResponder> {
  return createSoapResponder(fixture(path), await loadFaker())
}

export interface SoapServer {
  base: string
  /** Overrides the next answers use, by operation. */
  overrides: Map<string, SoapOverride>
  close(): Promise<void>
}

/** A bare node:http server: `GET /soap/{Service}?wsdl` serves the WSDL, `POST /soap/{Service}` answers. */
export async function serveSoap(responder: SoapResponder): Promise<SoapServer> {
  const overrides = new Map<string, SoapOverride>()
  let base = ''
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', base)
    const service = /^\/soap\/([^/]+)$/.exec(url.pathname)?.[1]
    if (!service) return void response.writeHead(404).end()
    if (request.method === 'GET' && url.search.toLowerCase() === '?wsdl') {
      const wsdl = responder.wsdl((name) => `${base}/soap/${encodeURIComponent(name)}`)
      return void response.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' }).end(wsdl)
    }
    void readBody(request).then((body) => {
      const soapAction = request.headers.soapaction
      const answer = responder.answer(
        { service: decodeURIComponent(service), soapAction: typeof soapAction === 'string' ? soapAction : null, contentType: request.headers['content-type'] ?? null, body },
        (operation) => overrides.get(operation),
      )
      response.writeHead(answer.status, { 'content-type': answer.contentType, 'x-operation': answer.operation ?? '' }).end(answer.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { base, overrides, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export const SOAP11_ENV = 'http://schemas.xmlsoap.org/soap/envelope/'
export const SOAP12_ENV = 'http://www.w3.org/2003/05/soap-envelope'

/** A request envelope around `body` (already serialized). */
export function envelope(body: string, version: '1.1' | '1.2' = '1.1'): string {
  return `<?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="${version === '1.1' ? SOAP11_ENV : SOAP12_ENV}"><s:Body>${body}</s:Body></s:Envelope>`
}
