import grpc from '@grpc/grpc-js'
import type { Client } from '@grpc/grpc-js'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { AppError } from '../../src/errors.ts'
import type { ProtoSpec } from '../../src/kinds/grpc/load.ts'
import { checkGrpcBody } from '../../src/kinds/grpc/generate.ts'
import type { GrpcCallServed, RunningGrpcServer } from '../../src/server/grpc-listener.ts'
import { grpcCodeFor } from '../../src/kinds/grpc/status.ts'
import { bidi, clientFor, clientStream, expectFilled, failureOf, loadFixture, serverStream, startTestServer, TestSnapshot, typeOf, unary } from './_helpers.ts'

const SAY_HELLO = '/helloworld.Greeter/SayHello'
const LIST_FEATURES = '/routeguide.RouteGuide/ListFeatures'
const RECORD_ROUTE = '/routeguide.RouteGuide/RecordRoute'
const ROUTE_CHAT = '/routeguide.RouteGuide/RouteChat'
const GET_PRODUCT = '/mockapi.catalog.v1.Catalog/GetProduct'

let helloworld: ProtoSpec
let routeGuide: ProtoSpec
let catalog: ProtoSpec
const opened: Array<RunningGrpcServer | Client> = []

beforeAll(async () => {
  ;[helloworld, routeGuide, catalog] = await Promise.all([loadFixture('helloworld'), loadFixture('routeGuide'), loadFixture('catalog')])
})

afterEach(async () => {
  for (const item of opened.splice(0)) await item.close()
})

/** A server for helloworld, route_guide and catalog, and clients for their services. */
async function serve(options: { onServed?: (call: GrpcCallServed) => void } = {}) {
  const snapshot = new TestSnapshot()
  snapshot.set([helloworld, routeGuide, catalog])
  const server = await startTestServer(snapshot, options)
  const greeter = clientFor('helloworld', 'helloworld.Greeter', server.port)
  const routes = clientFor('routeGuide', 'routeguide.RouteGuide', server.port)
  const products = clientFor('catalog', 'mockapi.catalog.v1.Catalog', server.port)
  opened.push(greeter, routes, products, server)
  return { snapshot, server, greeter, routes, products }
}

describe('settings', () => {
  it('answers a fixed unary body, mapped to the message', async () => {
    const { snapshot, greeter, products } = await serve()
    snapshot.settings(SAY_HELLO, { body: JSON.stringify({ message: 'Hello, fixed' }) })
    expect(await unary(greeter, 'SayHello', { name: 'x' })).toEqual({ message: 'Hello, fixed' })

    snapshot.settings(GET_PRODUCT, {
      body: JSON.stringify({
        id: 'p-1', stockCount: '9007199254740993', availability: 'BACKORDER', thumbnail: Buffer.from('png').toString('base64'),
        created_at: '2024-05-01T12:00:00.250Z', shipping_time: '1.5s', attributes: { color: 'red', sizes: [1, 2], gift: null },
        subtitle: 'Just a subtitle', sold: 12, percent_off: 15, tags: ['a', 'b'], labels: { tier: 'gold' }, variants_by_size: { 42: { color: 'blue' } },
        metadata: { '@type': 'type.googleapis.com/acme.common.Money', currency_code: 'EUR', units: 3 }, visible_fields: 'name,price.units',
      }),
    })
    const product = await unary(products, 'GetProduct')
    expect(product).toMatchObject({
      id: 'p-1', stock_count: '9007199254740993', availability: 'BACKORDER', created_at: { seconds: '1714564800', nanos: 250_000_000 },
      shipping_time: { seconds: '1', nanos: 500_000_000 }, subtitle: { value: 'Just a subtitle' }, sold: { value: '12' }, percent_off: 15, discount: 'percent_off',
      tags: ['a', 'b'], labels: { tier: 'gold' }, variants_by_size: { 42: { color: 'blue' } }, visible_fields: { paths: ['name', 'price.units'] },
      metadata: { type_url: 'type.googleapis.com/acme.common.Money' },
    })
    expect((product.thumbnail as Buffer).toString()).toBe('png')
    expect(product.attributes).toMatchObject({ fields: { color: { stringValue: 'red' }, sizes: { listValue: { values: [{ numberValue: 1 }, { numberValue: 2 }] } }, gift: { nullValue: 'NULL_VALUE' } } })
  })

  it('streams a fixed JSON array, one message each; answers bidi messages in turn', async () => {
    const { snapshot, routes } = await serve()
    const features = [{ name: 'Pier', location: { latitude: 1, longitude: 2 } }, { name: 'Lighthouse' }]
    snapshot.settings(LIST_FEATURES, { body: JSON.stringify(features) })
    const streamed = await serverStream(routes, 'ListFeatures', {})
    expect(streamed.map((f) => f.name)).toEqual(['Pier', 'Lighthouse'])
    expect(streamed[0]!.location).toEqual({ latitude: 1, longitude: 2 })

    snapshot.settings(ROUTE_CHAT, { body: JSON.stringify([{ message: 'one' }, { message: 'two' }]) })
    const chat = await bidi(routes, 'RouteChat', [{}, {}, {}])
    expect(chat.map((note) => note.message)).toEqual(['one', 'two', 'one'])
  })

  it('refuses a body that does not fit the message with INTERNAL and says why', async () => {
    const { snapshot, greeter, routes } = await serve()
    snapshot.settings(SAY_HELLO, { body: JSON.stringify({ messsage: 'typo' }) })
    const typo = await failureOf(unary(greeter, 'SayHello'))
    expect(typo.code).toBe(grpc.status.INTERNAL)
    expect(typo.details).toContain('helloworld.HelloReply has no field "messsage"')

    snapshot.settings(RECORD_ROUTE, { body: JSON.stringify([{ point_count: 1 }]) })
    const array = await failureOf(clientStream(routes, 'RecordRoute', [{}]))
    expect(array.code).toBe(grpc.status.INTERNAL)
    expect(array.details).toContain('answers one message')

    snapshot.settings(LIST_FEATURES, { body: JSON.stringify([{ name: 'ok' }, { location: { latitude: 'north' } }]) })
    const streamed = await failureOf(serverStream(routes, 'ListFeatures'))
    expect(streamed.code).toBe(grpc.status.INTERNAL)
    expect(streamed.details).toContain('body[1].location.latitude: expected an integer (int32), got "north"')
  })

  it('fails with the configured status, gRPC or HTTP, on every kind of method', async () => {
    const { snapshot, greeter, routes } = await serve()
    snapshot.settings(SAY_HELLO, { status: 5 })
    const notFound = await failureOf(unary(greeter, 'SayHello'))
    expect(notFound.code).toBe(grpc.status.NOT_FOUND)
    expect(notFound.details).toBe('mockapi: configured status NOT_FOUND')

    snapshot.settings(SAY_HELLO, { status: 503 })
    expect((await failureOf(unary(greeter, 'SayHello'))).code).toBe(grpc.status.UNAVAILABLE)
    snapshot.settings(SAY_HELLO, { status: 200 })
    expect(await unary(greeter, 'SayHello')).toHaveProperty('message')

    snapshot.settings(LIST_FEATURES, { status: 403 })
    expect((await failureOf(serverStream(routes, 'ListFeatures'))).code).toBe(grpc.status.PERMISSION_DENIED)
    snapshot.settings(RECORD_ROUTE, { status: 429 })
    expect((await failureOf(clientStream(routes, 'RecordRoute', [{}]))).code).toBe(grpc.status.RESOURCE_EXHAUSTED)
    snapshot.settings(ROUTE_CHAT, { status: 401 })
    const chat = await failureOf(bidi(routes, 'RouteChat', [{}]))
    expect(chat.code).toBe(grpc.status.UNAUTHENTICATED)
    expect(chat.details).toBe('mockapi: configured status UNAUTHENTICATED')
  })

  it('waits delayMs before answering', async () => {
    const { snapshot, greeter, routes } = await serve()
    snapshot.settings(SAY_HELLO, { delayMs: 150 })
    let started = performance.now()
    await unary(greeter, 'SayHello')
    expect(performance.now() - started).toBeGreaterThanOrEqual(150)

    snapshot.settings(LIST_FEATURES, { delayMs: 100 })
    started = performance.now()
    expect(await serverStream(routes, 'ListFeatures')).toHaveLength(3)
    expect(performance.now() - started).toBeGreaterThanOrEqual(100)
  })

  it('answers errorRate 100 with errorStatus, errorRate 0 never', async () => {
    const { snapshot, greeter } = await serve()
    snapshot.settings(SAY_HELLO, { errorRate: 100, errorStatus: 504 })
    for (let i = 0; i < 3; i++) {
      const error = await failureOf(unary(greeter, 'SayHello'))
      expect(error.code).toBe(grpc.status.DEADLINE_EXCEEDED)
      expect(error.details).toContain('simulated error DEADLINE_EXCEEDED')
    }
    snapshot.settings(SAY_HELLO, { errorRate: 0 })
    for (let i = 0; i < 3; i++) expect(await unary(greeter, 'SayHello')).toHaveProperty('message')
  })

  it('reports every served call', async () => {
    const served: GrpcCallServed[] = []
    const { snapshot, greeter, routes } = await serve({ onServed: (call) => served.push(call) })
    await unary(greeter, 'SayHello')
    snapshot.settings(LIST_FEATURES, { status: 404 })
    await failureOf(serverStream(routes, 'ListFeatures'))
    await bidi(routes, 'RouteChat', [{}])
    const binding = snapshot.current.methods.get(SAY_HELLO)!
    expect(served.map(({ path, code }) => [path, code])).toEqual([[SAY_HELLO, 0], [LIST_FEATURES, 5], [ROUTE_CHAT, 0]])
    expect(served[0]).toMatchObject({ projectId: binding.projectId, endpointId: binding.endpointId })
    expect(served[0]!.durationMs).toBeGreaterThanOrEqual(0)
  })
})

describe('methods that come and go', () => {
  it('serves a method added while running after the poll; a removed one answers UNIMPLEMENTED', async () => {
    const snapshot = new TestSnapshot()
    snapshot.set([helloworld])
    const server = await startTestServer(snapshot)
    const routes = clientFor('routeGuide', 'routeguide.RouteGuide', server.port)
    const greeter = clientFor('helloworld', 'helloworld.Greeter', server.port)
    opened.push(routes, greeter, server)
    expect((await failureOf(unary(routes, 'GetFeature'))).code).toBe(grpc.status.UNIMPLEMENTED)

    snapshot.set([helloworld, routeGuide])
    const feature = await eventually(() => unary(routes, 'GetFeature', { latitude: 1, longitude: 2 }))
    expectFilled(typeOf(routeGuide, 'routeguide.Feature'), feature)
    expect(await serverStream(routes, 'ListFeatures')).toHaveLength(3)

    snapshot.set([helloworld], (path) => path !== SAY_HELLO)
    // Right away (the binding is read per call) and after the poll unregistered it.
    expect((await failureOf(unary(greeter, 'SayHello'))).code).toBe(grpc.status.UNIMPLEMENTED)
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect((await failureOf(unary(greeter, 'SayHello'))).code).toBe(grpc.status.UNIMPLEMENTED)
    expect((await failureOf(unary(routes, 'GetFeature'))).code).toBe(grpc.status.UNIMPLEMENTED)
    expect(await unary(greeter, 'SayHelloAgain')).toHaveProperty('message')
  })

  it('re-registers a path whose descriptor changed', async () => {
    const snapshot = new TestSnapshot()
    snapshot.set([helloworld])
    const server = await startTestServer(snapshot)
    const greeter = clientFor('helloworld', 'helloworld.Greeter', server.port)
    opened.push(greeter, server)
    // A re-import: same path, a fresh descriptor object whose reply field 1 is now called `text`.
    const changed = structuredClone(helloworld)
    const nested = (changed.descriptor.nested as Record<string, { nested: Record<string, { fields: unknown }> }>).helloworld!.nested
    nested.HelloReply!.fields = { text: { type: 'string', id: 1 } }
    snapshot.set([changed])
    snapshot.settings(SAY_HELLO, { body: JSON.stringify({ text: 'hi' }) })
    // Only the new serializer knows `text`; the client reads field 1 as `message`.
    const answer = await eventually(async () => {
      const message = await unary(greeter, 'SayHello')
      if (message.message !== 'hi') throw new Error('still the old registration')
      return message
    })
    expect(answer).toEqual({ message: 'hi' })
  })
})

describe('server lifecycle', () => {
  it('refuses a taken port naming the port and --grpc-port', async () => {
    const { server } = await serve()
    const error = await startTestServer(new TestSnapshot(), { port: server.port }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).code).toBe('CONFLICT')
    expect((error as AppError).message).toBe(`gRPC port ${server.port} is already in use; choose another with --grpc-port`)
  })

  it('closes promptly even with a call still waiting', async () => {
    const { snapshot, server, greeter } = await serve()
    snapshot.settings(SAY_HELLO, { delayMs: 30_000 })
    const pending = failureOf(unary(greeter, 'SayHello'))
    await new Promise((resolve) => setTimeout(resolve, 50))
    const started = performance.now()
    await server.close()
    expect(performance.now() - started).toBeLessThan(5000)
    expect((await pending).code).toBeGreaterThan(0)
  })
})

describe('checkGrpcBody', () => {
  it('accepts a fitting body or array and refuses others with INVALID_INPUT', () => {
    expect(() => checkGrpcBody(helloworld.descriptor, 'helloworld.HelloReply', '{"message":"hi"}')).not.toThrow()
    expect(() => checkGrpcBody(routeGuide.descriptor, 'routeguide.Feature', '[{"name":"a"},{"location":{"latitude":1}}]')).not.toThrow()
    const refusals: Array<[string, string, string]> = [
      ['helloworld.HelloReply', '{"message":', 'not JSON'],
      ['helloworld.HelloReply', '{"message":3}', 'body.message: expected a string, got 3'],
      ['helloworld.HelloReply', '"text"', 'expected an object for helloworld.HelloReply'],
      ['helloworld.Nope', '{}', 'helloworld.Nope is not a message type'],
    ]
    for (const [type, body, message] of refusals) {
      const error = (() => { try { checkGrpcBody(helloworld.descriptor, type, body) } catch (e) { return e } })() as AppError
      expect(error, body).toBeInstanceOf(AppError)
      expect(error.code).toBe('INVALID_INPUT')
      expect(error.message).toContain(message)
    }
  })
})

describe('grpcCodeFor', () => {
  it('keeps gRPC codes and maps HTTP statuses to the closest code', () => {
    const expected: Array<[number, number]> = [
      [0, 0], [5, 5], [16, 16], [200, 0], [204, 0], [400, 3], [401, 16], [403, 7], [404, 5], [409, 6], [422, 3], [429, 8],
      [500, 13], [501, 12], [503, 14], [504, 4], [418, 3], [599, 13], [302, 2],
    ]
    for (const [status, code] of expected) expect(grpcCodeFor(status), String(status)).toBe(code)
  })
})

/** Retries until `attempt` succeeds (a poll picks the change up) or 3 s passed. */
async function eventually<T>(attempt: () => Promise<T>): Promise<T> {
  const deadline = performance.now() + 3000
  for (;;) {
    try {
      return await attempt()
    } catch (error) {
      if (performance.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }
}
