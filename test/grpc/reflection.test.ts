import grpc from '@grpc/grpc-js'
import type { Client } from '@grpc/grpc-js'
import protoLoader from '@grpc/proto-loader'
import protobuf from 'protobufjs'
import descriptor from 'protobufjs/ext/descriptor/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningGrpcServer } from '../../src/server/grpc-listener.ts'
import { bidi, CLIENT_OPTIONS, loadFixture, startTestServer, TestSnapshot } from './_helpers.ts'

// What grpcurl / Postman do: list services over server reflection, then fetch the files describing one.
const REFLECTION_PROTO = new URL('../../node_modules/@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto', import.meta.url).pathname

let server: RunningGrpcServer
let client: Client
const snapshot = new TestSnapshot()

beforeAll(async () => {
  snapshot.set([await loadFixture('helloworld'), await loadFixture('routeGuide'), await loadFixture('catalog')])
  server = await startTestServer(snapshot)
  const definition = protoLoader.loadSync(REFLECTION_PROTO, CLIENT_OPTIONS)
  const { ServerReflection } = (grpc.loadPackageDefinition(definition).grpc as any).reflection.v1
  client = new ServerReflection(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure())
})

afterAll(async () => {
  client.close()
  await server.close()
})

async function listServices(): Promise<string[]> {
  const [reply] = await bidi(client, 'ServerReflectionInfo', [{ list_services: '' }])
  return (reply!.list_services_response as { service: Array<{ name: string }> }).service.map((s) => s.name).sort()
}

describe('server reflection', () => {
  it('lists the mocked services', async () => {
    expect(await listServices()).toEqual(['helloworld.Greeter', 'mockapi.catalog.v1.Catalog', 'routeguide.RouteGuide'])
  })

  it('describes a service with every file its types need', async () => {
    const [reply] = await bidi(client, 'ServerReflectionInfo', [{ file_containing_symbol: 'mockapi.catalog.v1.Catalog' }])
    const files = (reply!.file_descriptor_response as { file_descriptor_proto: Buffer[] }).file_descriptor_proto
    const set = descriptor.FileDescriptorSet.fromObject({ file: files.map((bytes) => descriptor.FileDescriptorProto.decode(bytes)) })
    const root = (protobuf.Root as unknown as { fromDescriptor(set: unknown): protobuf.Root }).fromDescriptor(set)
    root.resolveAll()
    const service = root.lookupService('mockapi.catalog.v1.Catalog')
    expect(service.methodsArray.map((m) => m.name)).toEqual(['GetProduct', 'ListProducts', 'UpdateProduct'])
    expect(root.lookupType('mockapi.catalog.v1.Product').fields.created_at!.resolvedType!.fullName).toBe('.google.protobuf.Timestamp')
    expect(root.lookupType('acme.common.Money').fields).toHaveProperty('currency_code')
  })

  it('follows methods that come and go', async () => {
    snapshot.set([await loadFixture('helloworld'), await loadFixture('health')])
    const deadline = performance.now() + 3000
    while ((await listServices()).includes('routeguide.RouteGuide') && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25))
    expect(await listServices()).toEqual(['grpc.health.v1.Health', 'helloworld.Greeter'])
  })
})
