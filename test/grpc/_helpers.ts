import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import grpc from '@grpc/grpc-js'
import type { Client, ServiceError } from '@grpc/grpc-js'
import protoLoader from '@grpc/proto-loader'
import protobuf from 'protobufjs'
import { expect } from 'vitest'
import { loadFaker } from '../../src/engine/generators.ts'
import { loadProto, type ProtoSpec } from '../../src/kinds/grpc/load.ts'
import { startGrpcServer, type GrpcMethodBinding, type GrpcServerOptions, type GrpcSettings, type GrpcSnapshot, type RunningGrpcServer } from '../../src/server/grpc-listener.ts'

export const FIXTURES = fileURLToPath(new URL('../../fixtures/grpc/', import.meta.url))
export const fixture = (path: string): string => join(FIXTURES, path)

/** Every fixture with a service, with the include folders its imports need. */
export const PROTOS: Record<'helloworld' | 'routeGuide' | 'health' | 'testing' | 'catalog', { file: string; protoPaths: string[] }> = {
  helloworld: { file: fixture('helloworld.proto'), protoPaths: [] },
  routeGuide: { file: fixture('route_guide.proto'), protoPaths: [] },
  health: { file: fixture('grpc-proto/grpc/health/v1/health.proto'), protoPaths: [] },
  testing: { file: fixture('grpc-proto/grpc/testing/test.proto'), protoPaths: [fixture('grpc-proto')] },
  catalog: { file: fixture('wkt/catalog.proto'), protoPaths: [fixture('vendor')] },
}

export type ProtoName = keyof typeof PROTOS

const temporary: string[] = []

/** A fresh folder, removed by `cleanup`. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-grpc-'))
  temporary.push(dir)
  return dir
}

export function cleanup(): void {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true })
}

export async function loadFixture(name: ProtoName): Promise<ProtoSpec> {
  return loadProto(PROTOS[name].file, { protoPaths: PROTOS[name].protoPaths })
}

export const DEFAULT_SETTINGS: GrpcSettings = { status: 0, body: null, delayMs: 0, delayMaxMs: null, errorRate: 0, errorStatus: 14, fault: null }

/** A snapshot the test changes in place: `set` swaps the methods (a new version), `settings` edits one binding. */
export class TestSnapshot {
  current: GrpcSnapshot = { version: 'empty', descriptors: new Map(), methods: new Map() }
  private versions = 0

  /** Serves every method of `specs` (specId = position + 1). */
  set(specs: ProtoSpec[], keep: (path: string) => boolean = () => true): void {
    const descriptors = new Map<number, Record<string, unknown>>()
    const methods = new Map<string, GrpcMethodBinding>()
    specs.forEach((spec, index) => {
      const specId = index + 1
      descriptors.set(specId, spec.descriptor)
      for (const info of spec.methods.filter((m) => keep(m.path))) {
        methods.set(info.path, { info, specId, endpointId: methods.size + 1, projectId: 1, auth: null, settings: { ...DEFAULT_SETTINGS } })
      }
    })
    this.current = { version: `v${++this.versions}`, descriptors, methods }
  }

  settings(path: string, settings: Partial<GrpcSettings>): void {
    const binding = this.current.methods.get(path)
    if (!binding) throw new Error(`no binding for ${path}`)
    binding.settings = { ...binding.settings, ...settings }
  }
}

export async function startTestServer(snapshot: TestSnapshot, options: Partial<GrpcServerOptions> = {}): Promise<RunningGrpcServer> {
  return startGrpcServer({ host: '127.0.0.1', port: 0, snapshot: () => snapshot.current, makeFaker: await loadFaker(), pollMs: 50, ...options })
}

/** proto-loader's client side, from the same .proto files, with the conventions clients usually pick. */
export const CLIENT_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true } as const

/** A grpc-js client for `service` (e.g. `helloworld.Greeter`) of fixture `name`. */
export function clientFor(name: ProtoName, service: string, port: number): Client {
  const definition = protoLoader.loadSync(PROTOS[name].file, { ...CLIENT_OPTIONS, includeDirs: PROTOS[name].protoPaths })
  const Service = grpc.loadPackageDefinition(definition)
  const Constructor = service.split('.').reduce<unknown>((object, key) => (object as Record<string, unknown>)[key], Service) as grpc.ServiceClientConstructor
  return new Constructor(`127.0.0.1:${port}`, grpc.credentials.createInsecure())
}

type Message = Record<string, unknown>
type Method = (...args: unknown[]) => unknown

function method(client: Client, name: string): Method {
  return ((client as unknown as Record<string, Method>)[name]!).bind(client)
}

export function unary(client: Client, name: string, request: Message = {}): Promise<Message> {
  return new Promise((resolve, reject) => {
    method(client, name)(request, (error: ServiceError | null, reply: Message) => (error ? reject(error) : resolve(reply)))
  })
}

export function serverStream(client: Client, name: string, request: Message = {}): Promise<Message[]> {
  return collect(method(client, name)(request) as grpc.ClientReadableStream<Message>)
}

export function clientStream(client: Client, name: string, requests: Message[]): Promise<Message> {
  return new Promise((resolve, reject) => {
    const call = method(client, name)((error: ServiceError | null, reply: Message) => (error ? reject(error) : resolve(reply))) as grpc.ClientWritableStream<Message>
    for (const request of requests) call.write(request)
    call.end()
  })
}

export function bidi(client: Client, name: string, requests: Message[]): Promise<Message[]> {
  const call = method(client, name)() as grpc.ClientDuplexStream<Message, Message>
  const replies = collect(call)
  for (const request of requests) call.write(request)
  call.end()
  return replies
}

function collect(call: grpc.ClientReadableStream<Message>): Promise<Message[]> {
  return new Promise((resolve, reject) => {
    const messages: Message[] = []
    call.on('data', (message: Message) => messages.push(message))
    call.on('error', reject)
    call.on('end', () => resolve(messages))
  })
}

/** The error a call failed with (fails the test when it succeeded). */
export async function failureOf(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise
  } catch (error) {
    return error as ServiceError
  }
  throw new Error('expected the call to fail')
}

const INTEGER = /^-?\d+$/
const THIRTY_ONE_DAYS_S = 31 * 24 * 3600

/**
 * Checks a decoded message against its type: strings non-empty, enums valid names, repeated and
 * maps non-empty, nested messages present (except a recursive type's inner copies), one member
 * per oneof, Timestamps recent.
 */
export function expectFilled(type: protobuf.Type, message: Message, where = type.name, seen: string[] = []): void {
  expect(message, where).toBeTypeOf('object')
  if (type.fullName === '.google.protobuf.Timestamp') {
    expect(String(message.seconds), `${where}.seconds`).toMatch(INTEGER)
    const age = Date.now() / 1000 - Number(message.seconds)
    expect(age, `${where} is recent`).toBeGreaterThanOrEqual(-60)
    expect(age, `${where} is recent`).toBeLessThan(THIRTY_ONE_DAYS_S)
    return
  }
  if (type.fullName === '.google.protobuf.Any') return
  const path = [...seen, type.fullName]
  for (const oneof of type.oneofsArray) {
    expect(oneof.fieldsArray.filter((f) => message[f.name] !== undefined && message[f.name] !== null).length, `${where}: one member of ${oneof.name}`).toBe(1)
  }
  for (const field of type.fieldsArray) {
    const value = message[field.name]
    const at = `${where}.${field.name}`
    field.resolve()
    const recursive = field.resolvedType instanceof protobuf.Type && path.includes(field.resolvedType.fullName)
    if (field.partOf && (value === undefined || value === null)) continue
    if (field.map) {
      expect(Object.keys(value as object).length, at).toBeGreaterThan(0)
      for (const [key, item] of Object.entries(value as object)) expectSingle(field, item, `${at}["${key}"]`, path)
    } else if (field.repeated) {
      if (recursive && (value as unknown[]).length === 0) continue
      expect((value as unknown[]).length, at).toBeGreaterThan(0)
      ;(value as unknown[]).forEach((item, index) => expectSingle(field, item, `${at}[${index}]`, path))
    } else if (!(recursive && value === null)) {
      expectSingle(field, value, at, path)
    }
  }
}

function expectSingle(field: protobuf.Field, value: unknown, where: string, path: string[]): void {
  const type = field.resolvedType
  if (type instanceof protobuf.Enum) return void expect(Object.keys(type.values), where).toContain(value)
  if (type instanceof protobuf.Type) return expectFilled(type, value as Message, where, path)
  switch (field.type) {
    case 'string':
      expect(value, where).toBeTypeOf('string')
      return void expect((value as string).length, where).toBeGreaterThan(0)
    case 'bool':
      return void expect(value, where).toBeTypeOf('boolean')
    case 'bytes':
      return void expect(Buffer.isBuffer(value), where).toBe(true)
    case 'double':
    case 'float':
      return void expect(value, where).toBeTypeOf('number')
    case 'int64': case 'uint64': case 'sint64': case 'fixed64': case 'sfixed64':
      return void expect(value, where).toMatch(INTEGER)
    default:
      return void expect(Number.isInteger(value), `${where} = ${String(value)}`).toBe(true)
  }
}

export function typeOf(spec: ProtoSpec, name: string): protobuf.Type {
  return protobuf.Root.fromJSON(spec.descriptor).lookupType(name)
}
