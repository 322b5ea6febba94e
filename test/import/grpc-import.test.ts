import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer } from 'node:net'
import { join } from 'node:path'
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import { cleanup, cli, ROOT, serve, serveCli, spawnServe, startReceiver, waitFor, cliWorkspace } from '../_helpers.ts'
import type { RunningServer } from '../../src/server/start.ts'

afterAll(cleanup)

const FIXTURES = join(ROOT, 'fixtures', 'grpc')
const GRPC_PROTO = join(FIXTURES, 'grpc-proto')
const PROTOS = [
  { file: join(FIXTURES, 'helloworld.proto'), includeDirs: [] as string[] },
  { file: join(FIXTURES, 'route_guide.proto'), includeDirs: [] },
  { file: join(GRPC_PROTO, 'grpc', 'health', 'v1', 'health.proto'), includeDirs: [] },
  // test.proto imports "grpc/testing/empty.proto": only found with --proto-path.
  { file: join(GRPC_PROTO, 'grpc', 'testing', 'test.proto'), includeDirs: [GRPC_PROTO] },
]
const LOADER = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true }

const workspace = cliWorkspace

type MethodDefinition = grpc.MethodDefinition<object, object>

/** The services a real client sees in the .proto, by name. */
function servicesOf(file: string, includeDirs: string[]): [string, grpc.ServiceDefinition][] {
  const definition = protoLoader.loadSync(file, { ...LOADER, includeDirs })
  return Object.entries(definition)
    .filter(([, value]) => Object.values(value).every((method) => typeof (method as MethodDefinition).path === 'string'))
    .map(([name, value]) => [name, value as unknown as grpc.ServiceDefinition])
}

function firstService(file: string): grpc.ServiceDefinition {
  return servicesOf(file, [])[0]![1]
}

interface CallResult {
  messages: Record<string, unknown>[]
  error: grpc.ServiceError | null
}

/** Calls one method the way its shape asks: unary, server stream, client stream or both. */
function call(client: grpc.Client, name: string, method: MethodDefinition, request: object = {}): Promise<CallResult> {
  const target = (client as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!.bind(client)
  return new Promise((resolve) => {
    const messages: Record<string, unknown>[] = []
    const done = (error: grpc.ServiceError | null, message?: Record<string, unknown>) => {
      if (message) messages.push(message)
      resolve({ messages, error })
    }
    if (!method.requestStream && !method.responseStream) return void target(request, done)
    if (method.requestStream && !method.responseStream) {
      const stream = target(done) as grpc.ClientWritableStream<object>
      stream.write(request)
      stream.write(request)
      return void stream.end()
    }
    const stream = (method.requestStream ? target() : target(request)) as grpc.ClientReadableStream<Record<string, unknown>> & Partial<grpc.ClientWritableStream<object>>
    stream.on('data', (message: Record<string, unknown>) => messages.push(message))
    stream.on('error', (error: grpc.ServiceError) => resolve({ messages, error }))
    stream.on('end', () => resolve({ messages, error: null }))
    if (method.requestStream) {
      stream.write!(request)
      stream.write!(request)
      stream.end!()
    }
  })
}

describe('gRPC import: every method of the real protos answers a real @grpc/grpc-js client', () => {
  const { ok, db } = workspace()
  let server: RunningServer
  const clients: grpc.Client[] = []
  const clientFor = (name: string, service: grpc.ServiceDefinition) => {
    const Client = grpc.makeGenericClientConstructor(service, name)
    const client = new Client(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure())
    clients.push(client)
    return client
  }

  beforeAll(async () => {
    await ok('project', 'create', 'Services', '--slug', 'services')
    for (const { file, includeDirs } of PROTOS) await ok('import', file, ...includeDirs.flatMap((dir) => ['--proto-path', dir]))
    server = await serve(db, { grpcPort: 0 })
  }, 30_000)
  afterAll(() => clients.forEach((client) => client.close()))

  it('lists each package.Service/Method as an endpoint of kind grpc', async () => {
    const endpoints = JSON.parse(await ok('endpoints', '--json')) as { method: string; path: string; kind: string; status: number }[]
    const expected = PROTOS.flatMap(({ file, includeDirs }) => servicesOf(file, includeDirs).flatMap(([, service]) => Object.values(service).map((m) => m.path)))
    expect(endpoints.map((e) => e.path).sort()).toEqual([...new Set(expected)].sort())
    expect(new Set(endpoints.map((e) => `${e.method} ${e.kind} ${e.status}`))).toEqual(new Set(['POST grpc 0']))
    expect(server.grpcPort).toBeGreaterThan(0)
  })

  for (const { file, includeDirs } of PROTOS) {
    it(`${file.slice(FIXTURES.length + 1)}: unary, server-, client- and bidi-streaming methods answer messages of their output type`, async () => {
      const failures: string[] = []
      for (const [name, service] of servicesOf(file, includeDirs)) {
        const client = clientFor(name, service)
        for (const [methodName, method] of Object.entries(service)) {
          const result = await call(client, methodName, method as MethodDefinition)
          if (result.error) failures.push(`${method.path}: ${result.error.code} ${result.error.details}`)
          else if (result.messages.length === 0) failures.push(`${method.path}: no message`)
          else if (method.responseStream && result.messages.length < 2) failures.push(`${method.path}: a stream of ${result.messages.length}`)
        }
      }
      expect(failures).toEqual([])
    }, 30_000)
  }

  it('messages are well-typed: strings, nested messages, enums, repeated fields, oneofs', async () => {
    const greeter = firstService(PROTOS[0]!.file)
    const hello = await call(clientFor('helloworld.Greeter', greeter!), 'SayHello', greeter!.SayHello as MethodDefinition, { name: 'Ada' })
    expect(hello.messages[0]).toEqual({ message: expect.stringMatching(/\S/) })
    const routeGuide = firstService(PROTOS[1]!.file)
    const feature = await call(clientFor('routeguide.RouteGuide', routeGuide!), 'GetFeature', routeGuide!.GetFeature as MethodDefinition, { latitude: 1, longitude: 2 })
    expect(feature.messages[0]).toMatchObject({ name: expect.stringMatching(/\S/), location: { latitude: expect.any(Number), longitude: expect.any(Number) } })
    const health = firstService(PROTOS[2]!.file)
    const status = await call(clientFor('grpc.health.v1.Health', health!), 'Check', health!.Check as MethodDefinition, { service: '' })
    expect(['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN']).toContain(status.messages[0]!.status)
    const testing = servicesOf(PROTOS[3]!.file, [GRPC_PROTO]).find(([name]) => name === 'grpc.testing.TestService')![1]
    const unary = await call(clientFor('grpc.testing.TestService', testing), 'UnaryCall', testing.UnaryCall as MethodDefinition, { response_size: 10 })
    expect(unary.messages[0]).toMatchObject({ payload: { type: 'COMPRESSABLE', body: expect.any(Buffer) }, username: expect.any(String) })
  })

  it('per-method settings: a fixed response (a JSON array for a stream), a status code instead, a delay', async () => {
    await ok('endpoint', 'set', 'POST', '/helloworld.Greeter/SayHello', '--body', '{"message":"Hello from the mock"}', '--delay', '60')
    await ok('endpoint', 'set', 'POST', '/routeguide.RouteGuide/ListFeatures', '--body', '[{"name":"one"},{"name":"two"}]')
    await ok('endpoint', 'set', 'POST', '/routeguide.RouteGuide/GetFeature', '--status', '5')
    await ok('endpoint', 'set', 'POST', '/grpc.health.v1.Health/Check', '--status', '503')
    const greeter = firstService(PROTOS[0]!.file)
    const routeGuide = firstService(PROTOS[1]!.file)
    const health = firstService(PROTOS[2]!.file)
    const routes = clientFor('routeguide.RouteGuide', routeGuide!)
    await waitFor(async () => (await call(routes, 'GetFeature', routeGuide!.GetFeature as MethodDefinition)).error?.code === grpc.status.NOT_FOUND, 5000, 'the new setting')
    const started = performance.now()
    const hello = await call(clientFor('helloworld.Greeter', greeter!), 'SayHello', greeter!.SayHello as MethodDefinition, { name: 'x' })
    expect(performance.now() - started).toBeGreaterThanOrEqual(55)
    expect(hello.messages).toEqual([{ message: 'Hello from the mock' }])
    const listed = await call(routes, 'ListFeatures', routeGuide!.ListFeatures as MethodDefinition)
    expect(listed.messages.map((m) => m.name)).toEqual(['one', 'two'])
    const missing = await call(routes, 'GetFeature', routeGuide!.GetFeature as MethodDefinition)
    expect(missing.error!.code).toBe(grpc.status.NOT_FOUND)
    expect(missing.error!.details).toMatch(/NOT_FOUND/)
    const unavailable = await call(clientFor('grpc.health.v1.Health', health!), 'Check', health!.Check as MethodDefinition)
    expect(unavailable.error!.code).toBe(grpc.status.UNAVAILABLE)
    const refused = await cli(['--db', db, 'endpoint', 'set', 'POST', '/helloworld.Greeter/SayHello', '--status', '42'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/gRPC status code from 0 \(OK\) to 16/)
  })
})

describe('gRPC import: serve, events, export/apply, broken protos', () => {
  // The gRPC test in a child process: the built binary loads and serves grpc-js as a user runs it.
  it('mockapi serve listens on --grpc-port, logs calls and raises mock.request / mock.error', async () => {
    const { ok, db, cwd } = workspace()
    await ok('import', PROTOS[0]!.file)
    await ok('endpoint', 'set', 'POST', '/helloworld.Greeter/SayHello', '--error-rate', '100', '--error-status', '14')
    const receiver = await startReceiver()
    await ok('webhooks', 'add', receiver.url, '--events', 'mock.error')
    const port = await freePort()
    const { output } = await spawnServe(['--db', db, 'serve', '--port', '0', '--grpc-port', String(port), '--webhook-retry-delays', '50ms'], { cwd })
    expect(output()).toContain(`gRPC             127.0.0.1:${port}`)
    const greeter = firstService(PROTOS[0]!.file)
    const Client = grpc.makeGenericClientConstructor(greeter!, 'helloworld.Greeter')
    const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure())
    const result = await call(client, 'SayHello', greeter!.SayHello as MethodDefinition, { name: 'x' })
    client.close()
    expect(result.error!.code).toBe(grpc.status.UNAVAILABLE)
    const [event] = await waitFor(() => (receiver.requests.length > 0 ? receiver.requests : null))
    expect(JSON.parse(event!.body)).toMatchObject({ type: 'mock.error', data: { method: 'POST', path: '/helloworld.Greeter/SayHello', status: 503 } })
    await waitFor(() => output().includes('/helloworld.Greeter/SayHello 503'))
  })

  it('serve says when an import made while it runs starts gRPC', async () => {
    const { ok, db, cwd } = workspace()
    await ok('init', '--yes', '--slug', 'g')
    const port = await freePort()
    const { output } = await serveCli(['--db', db, 'serve', '--port', '0', '--grpc-port', String(port), '--quiet'], { cwd })
    expect(output()).not.toContain('gRPC             ')
    await ok('import', PROTOS[0]!.file)
    await waitFor(() => output().includes(`✔ gRPC methods were imported: listening for gRPC on 127.0.0.1:${port}`), 10_000, 'the gRPC line')
  })

  it('a taken --grpc-port stops serve with a clear message', async () => {
    const { ok, db, cwd } = workspace()
    await ok('import', PROTOS[0]!.file)
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      const result = await cli(['--db', db, 'serve', '--port', '0', '--grpc-port', String(port)], { cwd })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`gRPC port ${port} is already in use; choose another with --grpc-port`)
    } finally {
      blocker.close()
    }
  })

  it('export then apply elsewhere serves the same methods; imports are refused when broken and nothing is created', async () => {
    const { ok, run, cwd } = workspace()
    await ok('import', PROTOS[1]!.file)
    await ok('endpoint', 'set', 'POST', '/routeguide.RouteGuide/GetFeature', '--body', '{"name":"Kept"}')
    const file = join(cwd, 'routes.yaml')
    const { writeFileSync } = await import('node:fs')
    writeFileSync(file, await ok('export'))
    const other = workspace()
    await other.ok('apply', file)
    const server = await serve(other.db, { grpcPort: 0 })
    const routeGuide = firstService(PROTOS[1]!.file)
    const Client = grpc.makeGenericClientConstructor(routeGuide!, 'routeguide.RouteGuide')
    const client = new Client(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure())
    const feature = await call(client, 'GetFeature', routeGuide!.GetFeature as MethodDefinition)
    client.close()
    expect(feature.messages).toEqual([{ name: 'Kept', location: null }])

    for (const [broken, message] of [
      ['syntax.proto', /syntax\.proto.*line 3/],
      ['missing-import.proto', /nowhere\/missing\.proto/],
      ['no-service.proto', /defines no service/],
      ['unknown-type.proto', /Missing/],
    ] as const) {
      const result = await run('import', join(FIXTURES, 'broken', broken))
      expect(result.code, broken).toBe(1)
      expect(result.stderr).toMatch(message)
    }
    expect(JSON.parse(await ok('endpoints', '--json'))).toHaveLength(4)
    const withoutPath = await run('import', PROTOS[3]!.file)
    expect(withoutPath.code).toBe(1)
    expect(withoutPath.stderr).toMatch(/grpc\/testing\/empty\.proto/)
  })
})

function freePort(): Promise<number> {
  const probe = createServer()
  return new Promise((resolve) => probe.listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number }
    probe.close(() => resolve(port))
  }))
}
