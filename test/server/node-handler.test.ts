import { H3 } from 'h3'
import { toNodeHandler as srvxHandler } from 'h3/node'
import { createServer, request as httpRequest } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { FastResponse } from 'srvx'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenApp, type Listening } from '../../src/server/listen.ts'

// The app as Node's listener (src/server/node-handler.ts): a whole body leaves in one end(),
// anything else through srvx as before; over a real socket, as clients see it.

const errors: Error[] = []
const app = new H3()
let server: Listening

/** The requests sent one after another on one connection, the answers as they came, dates taken out. */
function exchange(port: number, asked: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let text = ''
    socket.on('data', (chunk) => (text += chunk.toString('latin1')))
    socket.on('end', () => resolve(text.replace(/\r\nDate: [^\r]*/g, '')))
    socket.on('error', reject)
    socket.write(asked.map((line, index) => `${line} HTTP/1.1\r\nHost: x\r\n${index === asked.length - 1 ? 'Connection: close\r\n' : ''}\r\n`).join(''))
  })
}

beforeAll(async () => {
  app.get('/text', () => new FastResponse('{"a":1}', { status: 201, statusText: 'Made', headers: { 'content-type': 'application/json', 'x-one': '1' } }))
  app.get('/bytes', () => new FastResponse(new Uint8Array([104, 105]), { headers: { 'content-type': 'text/plain' } }))
  app.get('/empty', () => new FastResponse(null, { status: 204 }))
  app.get('/stream', () => new FastResponse(new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('part one, '))
      controller.enqueue(new TextEncoder().encode('part two'))
      controller.close()
    },
  }), { headers: { 'content-type': 'text/plain' } }))
  app.get('/plain', () => new Response('from a plain Response', { headers: { 'x-plain': 'yes' } }))
  app.get('/reason', () => new FastResponse('ok', { status: 299, statusText: 'Odd\u0001 reason' }))
  app.get('/bad-header', () => new FastResponse('never', { headers: [['x-bad', 'a\u0000b']] }))
  app.get('/later', async () => {
    await new Promise((resolve) => setImmediate(resolve))
    return new FastResponse('waited')
  })
  server = await listenApp(app, { port: 0, host: '127.0.0.1', onError: (error) => errors.push(error) })
})

afterAll(() => server.close())

describe('the Node listener', () => {
  it('sends a text body whole, with its status, reason and headers, and a length', async () => {
    const response = await fetch(`${server.url}/text`)
    expect(response.status).toBe(201)
    expect(response.statusText).toBe('Made')
    expect(response.headers.get('x-one')).toBe('1')
    expect(response.headers.get('content-length')).toBe('7')
    expect(await response.json()).toEqual({ a: 1 })
  })

  it('sends bytes, no body for a 204, and the answer of an async handler', async () => {
    const bytes = await fetch(`${server.url}/bytes`)
    expect(await bytes.text()).toBe('hi')
    expect(bytes.headers.get('content-length')).toBe('2')
    const empty = await fetch(`${server.url}/empty`)
    expect(empty.status).toBe(204)
    expect(await empty.text()).toBe('')
    expect(await (await fetch(`${server.url}/later`)).text()).toBe('waited')
  })

  it('leaves streams and plain Responses to srvx, which sends them whole', async () => {
    const stream = await fetch(`${server.url}/stream`)
    expect(await stream.text()).toBe('part one, part two')
    const plain = await fetch(`${server.url}/plain`)
    expect(plain.headers.get('x-plain')).toBe('yes')
    expect(await plain.text()).toBe('from a plain Response')
  })

  it('sends the bytes srvx sends, answer by answer, on one kept-alive connection, HEAD included', async () => {
    const reference = createServer(srvxHandler(app))
    await new Promise<void>((resolve) => reference.listen(0, '127.0.0.1', resolve))
    try {
      const asked = ['GET /text', 'HEAD /text', 'GET /bytes', 'GET /empty', 'GET /stream', 'GET /plain', 'GET /later', 'GET /reason']
      const ours = await exchange(server.port, asked)
      const theirs = await exchange((reference.address() as AddressInfo).port, asked)
      expect(ours).toBe(theirs)
      expect(ours.match(/HTTP\/1\.1 /g)).toHaveLength(asked.length)
    } finally {
      await new Promise((resolve) => reference.close(resolve))
    }
  })

  it('drops the characters a reason phrase may not hold', async () => {
    const status = await new Promise<string | undefined>((resolve, reject) => {
      httpRequest(`${server.url}/reason`, (res) => {
        res.resume()
        resolve(res.statusMessage)
      }).on('error', reject).end()
    })
    expect(status).toBe('Odd reason')
  })

  it('answers a bare 500 when the headers cannot be written, and reports why', async () => {
    const response = await fetch(`${server.url}/bad-header`)
    expect(response.status).toBe(500)
    expect(await response.text()).toBe('')
    expect(errors.map((error) => (error as NodeJS.ErrnoException).code)).toContain('ERR_INVALID_CHAR')
    // The server goes on answering.
    expect((await fetch(`${server.url}/text`)).status).toBe(201)
  })
})
