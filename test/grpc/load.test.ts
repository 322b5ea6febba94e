import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import protoLoader from '@grpc/proto-loader'
import protobuf from 'protobufjs'
import { afterAll, describe, expect, it } from 'vitest'
import { AppError } from '../../src/errors.ts'
import { loadProto, methodsOf, PROTO_LOADER_OPTIONS } from '../../src/kinds/grpc/load.ts'
import { cleanup, fixture, loadFixture, PROTOS, tempDir, type ProtoName } from './_helpers.ts'

afterAll(cleanup)

async function refusal(file: string, protoPaths?: string[]): Promise<AppError> {
  const error = await loadProto(file, { protoPaths }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(AppError)
  return error as AppError
}

describe('loadProto', () => {
  it('lists the methods of helloworld.proto', async () => {
    const spec = await loadFixture('helloworld')
    expect(spec.packages).toEqual(['helloworld'])
    expect(spec.methods).toEqual([
      { path: '/helloworld.Greeter/SayHello', service: 'helloworld.Greeter', method: 'SayHello', requestType: 'helloworld.HelloRequest', responseType: 'helloworld.HelloReply', requestStream: false, responseStream: false },
      { path: '/helloworld.Greeter/SayHelloAgain', service: 'helloworld.Greeter', method: 'SayHelloAgain', requestType: 'helloworld.HelloRequest', responseType: 'helloworld.HelloReply', requestStream: false, responseStream: false },
    ])
  })

  it('knows the streaming kind of each route_guide method', async () => {
    const spec = await loadFixture('routeGuide')
    expect(spec.methods.map((m) => [m.method, m.requestType, m.responseType, m.requestStream, m.responseStream])).toEqual([
      ['GetFeature', 'routeguide.Point', 'routeguide.Feature', false, false],
      ['ListFeatures', 'routeguide.Rectangle', 'routeguide.Feature', false, true],
      ['RecordRoute', 'routeguide.Point', 'routeguide.RouteSummary', true, false],
      ['RouteChat', 'routeguide.RouteNote', 'routeguide.RouteNote', true, true],
    ])
  })

  it('loads health.proto (Check, List, Watch) with its nested enum', async () => {
    const spec = await loadFixture('health')
    expect(spec.packages).toEqual(['grpc.health.v1'])
    expect(spec.methods.map((m) => `${m.path} ${m.responseStream ? 'stream' : 'unary'}`)).toEqual([
      '/grpc.health.v1.Health/Check unary', '/grpc.health.v1.Health/List unary', '/grpc.health.v1.Health/Watch stream',
    ])
  })

  it('resolves test.proto imports through a proto path: all 7 services, 20 methods', async () => {
    const spec = await loadFixture('testing')
    expect(spec.packages).toEqual(['grpc.testing'])
    expect(new Set(spec.methods.map((m) => m.service)).size).toBe(7)
    expect(spec.methods).toHaveLength(20)
    expect(spec.methods.find((m) => m.path === '/grpc.testing.TestService/EmptyCall')).toMatchObject({ requestType: 'grpc.testing.Empty', responseType: 'grpc.testing.Empty' })
  })

  it('tells which import is missing and where it looked when the proto path is not given', async () => {
    const error = await refusal(PROTOS.testing.file)
    expect(error.code).toBe('INVALID_SPEC')
    expect(error.message).toContain('import "grpc/testing/empty.proto" not found in')
    expect(error.message).toContain(fixture('grpc-proto/grpc/testing'))
  })

  it('resolves imports relative to the file first, then each proto path; well-known types need none', async () => {
    const spec = await loadFixture('catalog')
    expect(spec.packages).toEqual(['mockapi.catalog.v1', 'acme.common'])
    const root = protobuf.Root.fromJSON(spec.descriptor)
    for (const name of ['google.protobuf.Timestamp', 'google.protobuf.Struct', 'google.protobuf.FieldMask', 'acme.common.Money']) expect(root.lookupType(name).fullName).toBe(`.${name}`)

    // A file importing a sibling by a relative name, and the same name in a proto path: the sibling wins.
    const dir = tempDir()
    mkdirSync(join(dir, 'app'))
    mkdirSync(join(dir, 'shared'))
    writeFileSync(join(dir, 'app', 'api.proto'), 'syntax = "proto3"; package app; import "types.proto"; service Api { rpc Get (Req) returns (Res); }')
    writeFileSync(join(dir, 'app', 'types.proto'), 'syntax = "proto3"; package app; message Req {} message Res { string sibling = 1; }')
    writeFileSync(join(dir, 'shared', 'types.proto'), 'syntax = "proto3"; package app; message Req {} message Res { string shared = 1; }')
    const sibling = await loadProto(join(dir, 'app', 'api.proto'), { protoPaths: [join(dir, 'shared')] })
    expect(protobuf.Root.fromJSON(sibling.descriptor).lookupType('app.Res').fields).toHaveProperty('sibling')
  })

  it('bundles descriptor.proto too, for custom options', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'options.proto'), [
      'syntax = "proto3";', 'package opts;', 'import "google/protobuf/descriptor.proto";',
      'extend google.protobuf.FieldOptions { string note = 50001; }',
      'message Req { string id = 1 [(opts.note) = "the id"]; }', 'service Api { rpc Get (Req) returns (Req); }',
    ].join('\n'))
    const spec = await loadProto(join(dir, 'options.proto'))
    expect(spec.methods.map((m) => m.path)).toEqual(['/opts.Api/Get'])
    expect(methodsOf(JSON.parse(JSON.stringify(spec.descriptor)) as Record<string, unknown>)).toEqual(spec.methods)
  })

  it('takes proto paths in order', async () => {
    const dir = tempDir()
    for (const folder of ['first', 'second', 'main']) mkdirSync(join(dir, folder))
    writeFileSync(join(dir, 'main', 'api.proto'), 'syntax = "proto3"; import "dep.proto"; service Api { rpc Get (dep.Req) returns (dep.Req); }')
    writeFileSync(join(dir, 'first', 'dep.proto'), 'syntax = "proto3"; package dep; message Req { string first = 1; }')
    writeFileSync(join(dir, 'second', 'dep.proto'), 'syntax = "proto3"; package dep; message Req { string second = 1; }')
    const spec = await loadProto(join(dir, 'main', 'api.proto'), { protoPaths: [join(dir, 'first'), join(dir, 'second')] })
    expect(protobuf.Root.fromJSON(spec.descriptor).lookupType('dep.Req').fields).toHaveProperty('first')
    expect(spec.methods[0]!.path).toBe('/Api/Get')
    expect(spec.packages).toEqual(['dep'])
  })

  it.each([
    ['broken/syntax.proto', "broken/syntax.proto: illegal token 'name', '=' expected (line 3)"],
    ['broken/missing-import.proto', 'broken/missing-import.proto: import "nowhere/missing.proto" not found in'],
    ['broken/no-service.proto', 'broken/no-service.proto: defines no service'],
    ['broken/unknown-type.proto', "broken/unknown-type.proto: no such Type or Enum 'Missing'"],
  ])('refuses %s with INVALID_SPEC naming the file', async (file, message) => {
    const error = await refusal(`fixtures/grpc/${file}`)
    expect(error.code).toBe('INVALID_SPEC')
    expect(error.message).toContain(message)
  })

  it('names the imported file a syntax error is in, with its line', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'main.proto'), 'syntax = "proto3";\nimport "bad.proto";\nservice S { rpc M (bad.M) returns (bad.M); }')
    writeFileSync(join(dir, 'bad.proto'), 'syntax = "proto3";\npackage bad;\n\nmessage M { int32 = 1; }\n')
    const error = await refusal(join(dir, 'main.proto'))
    expect(error.code).toBe('INVALID_SPEC')
    expect(error.message).toMatch(/^bad\.proto: illegal .* \(line 4\)$/)
  })

  it('refuses a file that does not exist', async () => {
    const error = await refusal('fixtures/grpc/nope.proto')
    expect(error.code).toBe('INVALID_INPUT')
    expect(error.message).toContain('nope.proto')
  })
})

describe('the stored descriptor', () => {
  it.each(Object.keys(PROTOS) as ProtoName[])('%s: round-trips through JSON to the same methods and a servable package', async (name) => {
    const spec = await loadFixture(name)
    const stored = JSON.parse(JSON.stringify(spec.descriptor)) as Record<string, unknown>
    expect(methodsOf(stored)).toEqual(spec.methods)
    const pkg = protoLoader.fromJSON(stored, PROTO_LOADER_OPTIONS)
    for (const method of spec.methods) {
      const definition = (pkg[method.service] as Record<string, { path: string; requestStream: boolean; responseStream: boolean }>)[method.method]!
      expect(definition).toMatchObject({ path: method.path, requestStream: method.requestStream, responseStream: method.responseStream })
    }
  })
})
