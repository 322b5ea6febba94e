import type { Client } from '@grpc/grpc-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GrpcMethodInfo, ProtoSpec } from '../../src/kinds/grpc/load.ts'
import type { RunningGrpcServer } from '../../src/server/grpc-listener.ts'
import { bidi, clientFor, clientStream, expectFilled, loadFixture, PROTOS, serverStream, startTestServer, TestSnapshot, typeOf, unary, type ProtoName } from './_helpers.ts'

// Every method of every fixture, called by a real grpc-js client built from the same .proto file.
const names = Object.keys(PROTOS) as ProtoName[]
const specs = Object.fromEntries(await Promise.all(names.map(async (name) => [name, await loadFixture(name)] as const))) as Record<ProtoName, ProtoSpec>
const cases = names.flatMap((name) => specs[name].methods.map((info) => ({ name, info, label: `${name} ${info.path}` })))

let server: RunningGrpcServer
const clients = new Map<string, Client>()

beforeAll(async () => {
  const snapshot = new TestSnapshot()
  snapshot.set(names.map((name) => specs[name]))
  server = await startTestServer(snapshot)
})

afterAll(async () => {
  for (const client of clients.values()) client.close()
  await server.close()
})

function clientOf(name: ProtoName, info: GrpcMethodInfo): Client {
  const key = `${name} ${info.service}`
  if (!clients.has(key)) clients.set(key, clientFor(name, info.service, server.port))
  return clients.get(key)!
}

describe('every fixture method answers with a filled-in message', () => {
  it('covers the methods the fixtures define', () => {
    expect(cases.length).toBe(2 + 4 + 3 + 20 + 3)
    expect(cases.filter((c) => c.info.requestStream && c.info.responseStream).map((c) => c.info.method)).toEqual(['RouteChat', 'FullDuplexCall', 'HalfDuplexCall'])
  })

  it.each(cases)('$label', async ({ name, info }) => {
    const client = clientOf(name, info)
    const type = typeOf(specs[name], info.responseType)
    const replies = await call(client, info)
    const expected = info.responseStream ? (info.requestStream ? 2 : 3) : 1
    expect(replies).toHaveLength(expected)
    for (const reply of replies) expectFilled(type, reply)
  })
})

async function call(client: Client, info: GrpcMethodInfo): Promise<Record<string, unknown>[]> {
  const rpc = info.method
  if (info.requestStream && info.responseStream) return bidi(client, rpc, [{}, {}])
  if (info.requestStream) return [await clientStream(client, rpc, [{}, {}, {}])]
  if (info.responseStream) return serverStream(client, rpc)
  return [await unary(client, rpc)]
}
