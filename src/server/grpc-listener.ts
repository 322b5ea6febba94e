import { createServer } from 'node:net'
import type { Faker } from '@faker-js/faker'
import grpc from '@grpc/grpc-js'
import type { ServerDuplexStream, ServerReadableStream, ServerUnaryCall, ServerWritableStream, StatusObject, UntypedHandleCall, sendUnaryData } from '@grpc/grpc-js'
import protoLoader from '@grpc/proto-loader'
import type { MethodDefinition, PackageDefinition } from '@grpc/proto-loader'
import reflection from '@grpc/reflection'
import protobuf from 'protobufjs'
import type { FakerFactory } from '../engine/generators.ts'
import { AppError } from '../errors.ts'
import { grpcMessages, grpcOutcome, type GrpcOutcome } from '../kinds/grpc/answer.ts'
import { PROTO_LOADER_OPTIONS, type GrpcMethodInfo } from '../kinds/grpc/load.ts'
import { checkAuth } from '../engine/auth-check.ts'
import { drawDelay, type DelaySpec } from '../engine/delay.ts'
import type { Random } from '../engine/policy.ts'
import type { AuthScheme, Fault } from '../model.ts'
import { HANG_MS } from './faults.ts'
import { GRPC_INTERNAL, GRPC_OK, GRPC_PERMISSION_DENIED, GRPC_UNAUTHENTICATED, GRPC_UNIMPLEMENTED } from '../kinds/grpc/status.ts'

export interface GrpcSettings {
  /** gRPC status code to answer (0 OK … 16); an HTTP status 100–599 is mapped to the closest gRPC code (200→OK, 404→NOT_FOUND, 500→INTERNAL, 503→UNAVAILABLE, 401→UNAUTHENTICATED, 403→PERMISSION_DENIED, 400/422→INVALID_ARGUMENT, 409→ALREADY_EXISTS, 429→RESOURCE_EXHAUSTED, 501→UNIMPLEMENTED, 504→DEADLINE_EXCEEDED). */
  status: number
  /** JSON text: the response message (JSON mapped to the message type; a JSON array = the messages of a server stream); null: generated. */
  body: string | null
  delayMs: number
  /** With `delayMs`, a range drawn from per call; null: fixed. */
  delayMaxMs: number | null
  /** Percentage 0–100 of calls answered with `errorStatus` instead. */
  errorRate: number
  errorStatus: number
  /** A simulated fault every call ends with (UNAVAILABLE); null: none. */
  fault: Fault | null
}

export interface GrpcMethodBinding {
  info: GrpcMethodInfo
  /** Which stored descriptor the method's types come from. */
  specId: number
  endpointId: number
  projectId: number
  /** The project's auth, read from the call's metadata; null: none. */
  auth: AuthScheme[] | null
  settings: GrpcSettings
}

export interface GrpcSnapshot {
  /** Changes whenever the bindings or descriptors change; equal version = nothing to re-register. */
  version: string
  descriptors: Map<number, Record<string, unknown>>
  /** By path `/pkg.Service/Method`. When two projects define the same path, the integrator keeps one. */
  methods: Map<string, GrpcMethodBinding>
}

/** When a call came in, as the journal counts it (`arrived` gives it). */
export interface GrpcArrival { at: number; epoch: number }

export interface GrpcCallServed {
  projectId: number
  endpointId: number
  path: string
  code: number
  durationMs: number
  fault: Fault | null
  /** Null unless `arrived` is given (the journal is on). */
  arrival: GrpcArrival | null
  /** The call's text metadata as `[name, value, …]`. */
  metadata: string[]
  /** The request messages, as protobuf's JSON mapping gives them; one for a unary or server-streaming call. */
  requests: object[]
  /** The messages answered; null when the call failed. */
  responses: object[] | null
}

export interface GrpcServerOptions {
  host: string
  /** 0 = any free port. */
  port: number
  /** Read on every call (cheap; the integrator caches it) so settings changes apply without a restart; also polled to pick up new/removed methods. */
  snapshot: () => GrpcSnapshot
  makeFaker: FakerFactory
  /** The policy's draws (error rates); default Math.random. */
  random?: Random
  /** `serve --delay`: no call is answered sooner. */
  delayFloor?: DelaySpec | null
  onServed?: (call: GrpcCallServed) => void
  /** Called as each call comes in; what it gives is handed back with the call's report. */
  arrived?: () => GrpcArrival
  /** How often to look for new or removed methods (default 1000 ms; timers unref'd). */
  pollMs?: number
}

export interface RunningGrpcServer { port: number; close(): Promise<void> }

/** Messages a server stream sends when its body is generated. */
const STREAM_MESSAGES = 3
const SHUTDOWN_GRACE_MS = 1000

/** Binds and serves; a taken port → AppError('CONFLICT', `gRPC port 50051 is already in use; choose another with --grpc-port`). */
export async function startGrpcServer(options: GrpcServerOptions): Promise<RunningGrpcServer> {
  const server = new grpc.Server()
  const registry = createRegistry(server, options)
  registry.sync()
  let port: number
  try {
    port = await bind(server, options.host, options.port)
  } catch (error) {
    server.forceShutdown()
    throw error
  }
  const poll = setInterval(() => {
    try {
      registry.sync()
    } catch {
      // A failing snapshot (say, a database being swapped) is retried at the next poll rather than ending the server.
    }
  }, options.pollMs ?? 1000)
  poll.unref()
  return {
    port,
    close: () => {
      clearInterval(poll)
      return shutdown(server)
    },
  }
}

async function bind(server: grpc.Server, host: string, port: number): Promise<number> {
  const taken = () => new AppError('CONFLICT', `gRPC port ${port} is already in use; choose another with --grpc-port`)
  if (port !== 0 && !(await isFree(host, port))) throw taken()
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`
  return new Promise((resolve, reject) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, bound) => {
      if (!error) return resolve(bound)
      reject(/EADDRINUSE|address already in use/i.test(error.message) ? taken() : error)
    })
  })
}

/** Asked first because grpc-js logs its own bind failure to stderr ("No address added …") before ours is shown. */
function isFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code !== 'EADDRINUSE'))
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)))
  })
}

function shutdown(server: grpc.Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown()
      resolve()
    }, SHUTDOWN_GRACE_MS)
    force.unref()
    server.tryShutdown(() => {
      clearTimeout(force)
      resolve()
    })
  })
}

// ---------------------------------------------------------------------------------------------
// Registration. grpc-js looks handlers up per call in a map that register/unregister change at
// any time, also after bindAsync; a path is registered with the serializers of its descriptor and
// re-registered only when its types or descriptor change. Settings are read at call time.

type Kind = 'unary' | 'clientStream' | 'serverStream' | 'bidi'

interface SpecTypes {
  descriptor: Record<string, unknown>
  /** Bumped when a spec's descriptor is replaced, so its paths re-register with the new serializers. */
  generation: number
  built: { root: protobuf.Root; pkg: PackageDefinition } | { error: string }
}

/** What a registered path answers from: the response type and its serializer, or why it cannot. */
interface Served {
  kind: Kind
  responseType: protobuf.Type | null
  serialize: (value: object) => Buffer
  deserialize: (bytes: Buffer) => object
  failure: string | null
}

interface CallContext {
  options: GrpcServerOptions
  faker: Faker
}

function createRegistry(server: grpc.Server, options: GrpcServerOptions): { sync(): void } {
  const context: CallContext = { options, faker: options.makeFaker() }
  const specs = new Map<number, SpecTypes>()
  const registered = new Map<string, string>()
  const reflectionService = installReflection(server)
  let version: string | null = null
  let generation = 0

  const refreshSpecs = (descriptors: Map<number, Record<string, unknown>>): void => {
    for (const specId of specs.keys()) if (!descriptors.has(specId)) specs.delete(specId)
    for (const [specId, descriptor] of descriptors) {
      if (specs.get(specId)?.descriptor !== descriptor) specs.set(specId, { descriptor, generation: ++generation, built: buildTypes(descriptor) })
    }
  }

  return {
    sync() {
      const snapshot = options.snapshot()
      if (snapshot.version === version) return
      refreshSpecs(snapshot.descriptors)
      const wanted = new Map<string, { key: string; binding: GrpcMethodBinding }>()
      for (const [path, binding] of snapshot.methods) {
        const { info, specId } = binding
        wanted.set(path, { key: `${specId}#${specs.get(specId)?.generation}:${info.requestType}>${info.responseType}:${kindOf(info)}`, binding })
      }
      for (const [path, key] of registered) {
        if (wanted.get(path)?.key === key) continue
        server.unregister(path)
        registered.delete(path)
      }
      for (const [path, { key, binding }] of wanted) {
        if (registered.has(path)) continue
        const served = servedFor(binding, specs.get(binding.specId))
        // false: a path grpc-js already serves (server reflection); it stays reflection's.
        if (server.register(path, handlerFor(path, served, context), served.serialize, served.deserialize, served.kind)) registered.set(path, key)
      }
      reflectionService.update(snapshot, specs)
      version = snapshot.version
    },
  }
}

function kindOf(info: Pick<GrpcMethodInfo, 'requestStream' | 'responseStream'>): Kind {
  if (info.requestStream) return info.responseStream ? 'bidi' : 'clientStream'
  return info.responseStream ? 'serverStream' : 'unary'
}

function buildTypes(descriptor: Record<string, unknown>): SpecTypes['built'] {
  try {
    const root = protobuf.Root.fromJSON(descriptor)
    root.resolveAll()
    return { root, pkg: protoLoader.fromJSON(descriptor, PROTO_LOADER_OPTIONS) }
  } catch (error) {
    return { error: `its stored descriptor does not load: ${error instanceof Error ? error.message : String(error)}` }
  }
}

function servedFor(binding: GrpcMethodBinding, spec: SpecTypes | undefined): Served {
  const { info } = binding
  const failing = (failure: string): Served => ({ kind: kindOf(info), responseType: null, serialize: () => Buffer.alloc(0), deserialize: () => ({}), failure })
  if (!spec) return failing(`no descriptor for spec ${binding.specId}`)
  if ('error' in spec.built) return failing(spec.built.error)
  const service = spec.built.pkg[info.service] as Record<string, MethodDefinition<object, object>> | undefined
  const method = service?.[info.method]
  const responseType = spec.built.root.lookup(info.responseType)
  if (!method || !(responseType instanceof protobuf.Type)) return failing(`${info.path} is not in its stored descriptor`)
  return { kind: kindOf(method), responseType, serialize: method.responseSerialize, deserialize: method.requestDeserialize, failure: null }
}

// ---------------------------------------------------------------------------------------------
// Answering calls.

/** binding null: the path is no longer mocked. */
interface Outcome extends GrpcOutcome { binding: GrpcMethodBinding | null }

/** Metadata as request headers: the project's auth reads `authorization`, an API key's header, `cookie`. */
function metadataHeaders(metadata: grpc.Metadata): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(metadata.getMap())) {
    if (typeof value === 'string' && !name.endsWith('-bin')) {
      try {
        headers.set(name, value)
      } catch {
        // A value Headers refuses cannot be a credential either.
      }
    }
  }
  return headers
}

/** The project's auth over the call's metadata: UNAUTHENTICATED (16) without credentials, PERMISSION_DENIED (7) for one not listed. */
function refusedCall(binding: GrpcMethodBinding, call: WaitingCall, context: CallContext): Outcome | null {
  if (!binding.auth) return null
  const verdict = checkAuth(binding.auth.map((scheme) => [scheme]), { headers: metadataHeaders(call.metadata), query: new URLSearchParams() })
  if (verdict.ok) return null
  const { delayFloor, random } = context.options
  // Only the delay floor holds a refusal, as over HTTP.
  const delayMs = delayFloor ? drawDelay(delayFloor, random ?? Math.random) : 0
  return { binding, code: verdict.status === 401 ? GRPC_UNAUTHENTICATED : GRPC_PERMISSION_DENIED, details: `mockapi: ${verdict.message}`, delayMs, fault: null }
}

/** The binding as it is now (settings change without re-registering) and the status this call gets. */
function outcomeFor(path: string, served: Served, context: CallContext, call: WaitingCall): Outcome {
  const binding = context.options.snapshot().methods.get(path)
  if (!binding) return { binding: null, code: GRPC_UNIMPLEMENTED, details: `mockapi: ${path} is no longer mocked`, delayMs: 0, fault: null }
  const refused = refusedCall(binding, call, context)
  if (refused) return refused
  if (served.failure) return { binding, code: GRPC_INTERNAL, details: `mockapi: ${served.failure}`, delayMs: binding.settings.delayMs, fault: null }
  return { binding, ...grpcOutcome(binding.settings, context.options.random ?? Math.random, context.options.delayFloor) }
}

function responses(served: Served, binding: GrpcMethodBinding, context: CallContext, count: number): Record<string, unknown>[] {
  return grpcMessages({
    path: binding.info.path,
    responseType: served.responseType!,
    body: binding.settings.body,
    answersOne: served.kind === 'unary' || served.kind === 'clientStream',
    count,
    faker: context.faker,
  })
}

/** What a call's report tells besides its outcome: when it came, its metadata, its messages. */
interface Exchange {
  arrival: GrpcArrival | null
  metadata: grpc.Metadata
  requests: object[]
  responses: object[] | null
}

function arrive(context: CallContext, metadata: grpc.Metadata, requests: object[]): Exchange {
  return { arrival: context.options.arrived?.() ?? null, metadata, requests, responses: null }
}

function textMetadata(metadata: grpc.Metadata): string[] {
  const lines: string[] = []
  for (const [name, value] of Object.entries(metadata.getMap())) if (typeof value === 'string') lines.push(name, value)
  return lines
}

/** Called before the answer goes: a client that asks the journal once it has its answer finds the call there. */
function report(context: CallContext, path: string, binding: GrpcMethodBinding | null, code: number, started: number, exchange: Exchange, fault: Fault | null = null): void {
  if (!binding || !context.options.onServed) return
  const { arrival, requests, responses } = exchange
  context.options.onServed({
    projectId: binding.projectId, endpointId: binding.endpointId, path, code, durationMs: Math.round(performance.now() - started), fault,
    arrival, metadata: arrival ? textMetadata(exchange.metadata) : [], requests, responses,
  })
}

function failure(code: number, details: string): Partial<StatusObject> {
  return { code, details }
}

function internal(error: unknown): Partial<StatusObject> {
  return failure(GRPC_INTERNAL, `mockapi: ${error instanceof Error ? error.message : String(error)}`)
}

function sleep(ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve()
  return new Promise((resolve) => setTimeout(resolve, ms).unref())
}

/** A call as a `hang` fault waits on it: it ends when the client cancels (or its deadline passes). */
interface WaitingCall {
  cancelled: boolean
  metadata: grpc.Metadata
  once(event: 'cancelled', listener: () => void): unknown
  off(event: 'cancelled', listener: () => void): unknown
}

/** `hang`: nothing until the client cancels or HANG_MS pass; the timer never keeps the process alive. */
function hang(call: WaitingCall): Promise<void> {
  if (call.cancelled) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      call.off('cancelled', done)
      resolve()
    }
    const timer = setTimeout(done, HANG_MS)
    timer.unref()
    call.once('cancelled', done)
  })
}

/** Resolves with the messages once the client has sent everything (or gone away). */
function drained(call: ServerReadableStream<object, object>, exchange: Exchange): Promise<Exchange> {
  return new Promise((resolve) => {
    call.on('data', (message: object) => exchange.requests.push(message))
    call.on('end', () => resolve(exchange))
    call.on('error', () => resolve(exchange))
    call.on('cancelled', () => resolve(exchange))
  })
}

/** Whatever fails unexpectedly (a snapshot that throws, …) still ends the call, as INTERNAL. */
function handlerFor(path: string, served: Served, context: CallContext): UntypedHandleCall {
  switch (served.kind) {
    case 'unary':
      return (call: ServerUnaryCall<object, object>, callback: sendUnaryData<object>) => {
        answerOne(path, served, context, call, arrive(context, call.metadata, [call.request]), callback).catch((error: unknown) => callback(internal(error)))
      }
    case 'clientStream':
      return (call: ServerReadableStream<object, object>, callback: sendUnaryData<object>) => {
        drained(call, arrive(context, call.metadata, [])).then((exchange) => answerOne(path, served, context, call, exchange, callback)).catch((error: unknown) => callback(internal(error)))
      }
    case 'serverStream':
      return (call: ServerWritableStream<object, object>) => {
        answerStream(path, served, context, call, arrive(context, call.metadata, [call.request])).catch((error: unknown) => call.emit('error', internal(error)))
      }
    case 'bidi':
      return (call: ServerDuplexStream<object, object>) => {
        answerEach(path, served, context, call, arrive(context, call.metadata, [])).catch((error: unknown) => call.emit('error', internal(error)))
      }
  }
}

/** Where a unary or server-streaming answer goes: the messages, or the failure. */
interface Reply {
  send(messages: object[]): void
  fail(error: Partial<StatusObject>): void
}

/** Unary and server-streaming calls: after the delay, `count` messages or the configured failure, then one report. */
async function answerOnce(path: string, served: Served, context: CallContext, call: WaitingCall, exchange: Exchange, count: number, reply: Reply): Promise<void> {
  const started = performance.now()
  const outcome = outcomeFor(path, served, context, call)
  await sleep(outcome.delayMs)
  if (outcome.fault === 'hang') await hang(call)
  if (call.cancelled) {
    if (outcome.fault) report(context, path, outcome.binding, outcome.code, started, exchange, outcome.fault)
    return
  }
  let code = outcome.code
  let failed: Partial<StatusObject> | null = null
  if (!outcome.binding || code !== GRPC_OK) {
    failed = failure(code, outcome.details)
  } else {
    try {
      exchange.responses = responses(served, outcome.binding, context, count)
    } catch (error) {
      code = GRPC_INTERNAL
      failed = internal(error)
    }
  }
  // Built first (building may fail the call), reported, then sent.
  report(context, path, outcome.binding, code, started, exchange, outcome.fault)
  if (failed) return reply.fail(failed)
  try {
    reply.send(exchange.responses!)
  } catch (error) {
    reply.fail(internal(error))
  }
}

function answerOne(path: string, served: Served, context: CallContext, call: WaitingCall, exchange: Exchange, callback: sendUnaryData<object>): Promise<void> {
  return answerOnce(path, served, context, call, exchange, 1, { send: (messages) => callback(null, messages[0]), fail: (error) => callback(error) })
}

function answerStream(path: string, served: Served, context: CallContext, call: ServerWritableStream<object, object>, exchange: Exchange): Promise<void> {
  return answerOnce(path, served, context, call, exchange, STREAM_MESSAGES, {
    send: (messages) => {
      for (const message of messages) call.write(message)
      call.end()
    },
    fail: (error) => call.emit('error', error),
  })
}

/** Bidi: one answer per incoming message (a fixed array is taken in turn), ending when the client ends. */
async function answerEach(path: string, served: Served, context: CallContext, call: ServerDuplexStream<object, object>, exchange: Exchange): Promise<void> {
  const started = performance.now()
  const outcome = outcomeFor(path, served, context, call)
  const { binding } = outcome
  if (!binding || outcome.code !== GRPC_OK) {
    await sleep(outcome.delayMs)
    if (outcome.fault === 'hang') await hang(call)
    if (!call.cancelled || outcome.fault) report(context, path, binding, outcome.code, started, exchange, outcome.fault)
    if (!call.cancelled) call.emit('error', failure(outcome.code, outcome.details))
    return
  }
  let answered = 0
  let failed = false
  let queue = Promise.resolve()
  const sent: object[] = []
  call.on('data', (message: object) => {
    exchange.requests.push(message)
    queue = queue.then(async () => {
      await sleep(outcome.delayMs)
      if (failed || call.cancelled) return
      try {
        const messages = responses(served, binding, context, 1)
        const message = messages[answered++ % messages.length]!
        sent.push(message)
        call.write(message)
      } catch (error) {
        failed = true
        report(context, path, binding, GRPC_INTERNAL, started, exchange)
        call.emit('error', internal(error))
      }
    })
  })
  call.on('end', () => {
    void queue.then(() => {
      if (failed || call.cancelled) return
      exchange.responses = sent
      report(context, path, binding, GRPC_OK, started, exchange)
      call.end()
    })
  })
}

// ---------------------------------------------------------------------------------------------
// Server reflection (grpcurl, Postman, …). @grpc/reflection indexes a fixed package definition and
// adds its service once, so its handlers are captured and served behind paths registered once,
// swapped for a freshly indexed set whenever the methods change.

type ReflectionHandlers = Map<string, UntypedHandleCall>

function installReflection(server: grpc.Server): { update(snapshot: GrpcSnapshot, specs: Map<number, SpecTypes>): void } {
  let current = reflectionHandlers({}, [])
  for (const [path, { definition }] of reflectionDefinitions({}, [])) {
    const delegate = (call: ServerDuplexStream<object, object>) => (current.get(path) as (call: ServerDuplexStream<object, object>) => void)(call)
    server.register(path, delegate, definition.responseSerialize, definition.requestDeserialize, 'bidi')
  }
  return {
    update(snapshot, specs) {
      const services = [...new Set([...snapshot.methods.values()].map((binding) => binding.info.service))]
      const descriptors = [...specs.values()].filter((spec) => !('error' in spec.built)).map((spec) => spec.descriptor)
      try {
        current = reflectionHandlers(protoLoader.fromJSON(mergeDescriptors(descriptors), PROTO_LOADER_OPTIONS), services)
      } catch {
        // Descriptors that clash with each other: reflection then lists nothing rather than something wrong.
        current = reflectionHandlers({}, [])
      }
    },
  }
}

function reflectionDefinitions(pkg: PackageDefinition, services: string[]): Map<string, { definition: MethodDefinition<object, object>; handler: UntypedHandleCall }> {
  const captured = new Map<string, { definition: MethodDefinition<object, object>; handler: UntypedHandleCall }>()
  const service = new reflection.ReflectionService(pkg as never, { services })
  service.addToServer({
    addService(definition, implementation) {
      for (const [name, method] of Object.entries(definition)) {
        captured.set(method.path, { definition: method as MethodDefinition<object, object>, handler: implementation[name]! })
      }
    },
  })
  return captured
}

function reflectionHandlers(pkg: PackageDefinition, services: string[]): ReflectionHandlers {
  return new Map([...reflectionDefinitions(pkg, services)].map(([path, { handler }]) => [path, handler]))
}

/** One descriptor of all specs for reflection; where two define the same name, the first one's definition is kept. */
function mergeDescriptors(descriptors: Record<string, unknown>[]): Record<string, unknown> {
  const merged: Record<string, unknown> = {}
  for (const descriptor of descriptors) mergeNamespace(merged, descriptor)
  return merged
}

function mergeNamespace(target: Record<string, unknown>, source: Record<string, unknown>): void {
  const into = (target.nested ??= {}) as Record<string, Record<string, unknown>>
  for (const [name, definition] of Object.entries((source.nested ?? {}) as Record<string, Record<string, unknown>>)) {
    const existing = into[name]
    if (!existing) {
      into[name] = isPlainNamespace(definition) ? { options: definition.options } : definition
      if (isPlainNamespace(definition)) mergeNamespace(into[name], definition)
    } else if (isPlainNamespace(existing) && isPlainNamespace(definition)) {
      mergeNamespace(existing, definition)
    }
  }
}

/** A package level (`{nested}` only), as opposed to a message, enum, service or extension field. */
function isPlainNamespace(definition: Record<string, unknown>): boolean {
  return !['fields', 'methods', 'values', 'id'].some((key) => key in definition)
}
