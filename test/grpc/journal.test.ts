import grpc from '@grpc/grpc-js'
import { afterAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { storeOperations as importDefinition } from '../../src/domain/import-operations.ts'
import { entryOf } from '../../src/domain/journal-view.ts'
import { createProject } from '../../src/domain/projects.ts'
import type { GrpcCallServed } from '../../src/server/grpc-listener.ts'
import { cleanup as cleanupServers, expectAliveAndIntact, openStore, send, serve, tempDb } from '../_helpers.ts'
import { bidi, cleanup, clientFor, clientStream, failureOf, loadFixture, serverStream, startTestServer, TestSnapshot, unary } from './_helpers.ts'

afterAll(async () => {
  cleanup()
  await cleanupServers()
})

describe('gRPC calls in the journal', () => {
  it('keeps every kind of call with its metadata and messages as JSON, before the client has its answer; masks the API\'s copy', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    const project = createProject(context, { name: 'Rpc', slug: 'rpc' })
    const proto = await loadFixture('routeGuide')
    importDefinition(context, project, { format: 'grpc', title: 'routeguide', version: 'proto', source: 'route_guide.proto', document: JSON.stringify(proto.descriptor), operations: proto.methods.map((m) => m.path) })
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const server = await serve(dbPath, { grpcPort: 0 })
    const client = clientFor('routeGuide', 'routeguide.RouteGuide', server.grpcPort!)
    const journal = server.journal!
    try {
      const metadata = new grpc.Metadata()
      metadata.set('authorization', 'Bearer abcdefghijklmnopqrstuvwxyz')
      metadata.set('x-trace', 't-1')
      const feature = await new Promise<Record<string, unknown>>((resolve, reject) => {
        (client as unknown as Record<string, (...args: unknown[]) => void>).GetFeature!({ latitude: 1, longitude: 2 }, metadata, (error: Error | null, reply: Record<string, unknown>) => (error ? reject(error) : resolve(reply)))
      })
      // Nothing awaited between the answer and the look.
      const [unaryEntry] = journal.records(project.id).map((r) => entryOf(r, { mask: null }))
      expect(unaryEntry).toMatchObject({ protocol: 'grpc', method: 'POST', path: '/routeguide.RouteGuide/GetFeature', status: 200, matched: true, endpointId: expect.any(Number) })
      expect(JSON.parse(unaryEntry!.body!)).toEqual({ latitude: 1, longitude: 2 })
      expect(unaryEntry!.headers).toMatchObject({ authorization: 'Bearer abcdefghijklmnopqrstuvwxyz', 'x-trace': 't-1' })
      expect(JSON.parse(unaryEntry!.answer.body!)).toEqual(feature)

      const listed = await serverStream(client, 'ListFeatures', { lo: { latitude: 1 }, hi: { latitude: 2 } })
      expect(journal.records(project.id)).toHaveLength(2)
      await clientStream(client, 'RecordRoute', [{ latitude: 1 }, { latitude: 2 }])
      expect(journal.records(project.id)).toHaveLength(3)
      await bidi(client, 'RouteChat', [{ message: 'a' }, { message: 'b' }])
      const entries = journal.records(project.id).map((r) => entryOf(r, { mask: null }))
      expect(entries.map((e) => e.path)).toEqual(['GetFeature', 'ListFeatures', 'RecordRoute', 'RouteChat'].map((m) => `/routeguide.RouteGuide/${m}`))
      expect(JSON.parse(entries[1]!.answer.body!)).toEqual(listed)
      expect(JSON.parse(entries[2]!.body!).map((p: { latitude: number }) => p.latitude)).toEqual([1, 2])
      expect(JSON.parse(entries[3]!.body!).map((n: { message: string }) => n.message)).toEqual(['a', 'b'])
      expect(JSON.parse(entries[3]!.answer.body!)).toHaveLength(2)

      const [newest] = (await send(`${server.url}/api/projects/${project.id}/requests?limit=4`, { headers: auth })).json
      expect(newest.path).toBe('/routeguide.RouteGuide/RouteChat')
      const [, , , first] = (await send(`${server.url}/api/projects/${project.id}/requests`, { headers: auth })).json
      expect(first.headers.authorization).toBe('Bearer abcd… (26 chars)')
      expect(first.headers['x-trace']).toBe('t-1')
    } finally {
      client.close()
    }
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('reports a failed call before its status goes out', async () => {
    const snapshot = new TestSnapshot()
    snapshot.set([await loadFixture('helloworld')])
    snapshot.settings('/helloworld.Greeter/SayHello', { status: 5 })
    const reported: GrpcCallServed[] = []
    const server = await startTestServer(snapshot, { arrived: () => ({ at: 1, epoch: 1 }), onServed: (call) => reported.push(call) })
    const client = clientFor('helloworld', 'helloworld.Greeter', server.port)
    try {
      const failure = failureOf(unary(client, 'SayHello', { name: 'x' }))
      expect((await failure).code).toBe(grpc.status.NOT_FOUND)
      expect(reported).toHaveLength(1)
      expect(reported[0]).toMatchObject({ code: 5, arrival: { at: 1, epoch: 1 }, requests: [{ name: 'x' }], responses: null })
    } finally {
      client.close()
      await server.close()
    }
  })
})
