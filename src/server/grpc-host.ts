import type { Catalog, GrpcEndpoint } from '../domain/catalog.ts'
import { epochMs, type Context } from '../domain/context.ts'
import { loadFaker } from '../engine/generators.ts'
import type { MockEvents } from '../events.ts'
import type { GrpcMethodInfo } from '../kinds/grpc/load.ts'
import type { GrpcCallServed, GrpcMethodBinding, GrpcSnapshot, RunningGrpcServer } from './grpc-listener.ts'
import { createSpecCache } from '../engine/spec-cache.ts'
import type { DelaySpec } from '../engine/delay.ts'
import type { Random } from '../engine/policy.ts'
import type { AuthScheme } from '../model.ts'
import { answerBodySize, headerLinesOf, keptAnswerBody, keptBody, type Journal, type JournalRecord } from '../domain/journal.ts'
import { recordServed } from './pipeline/record.ts'

/** The HTTP status a gRPC code corresponds to (grpc-gateway's table), for `mock.request` events. */
const HTTP_STATUS_OF_CODE = [200, 499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401]

/** Turns the catalog's gRPC endpoints into what the gRPC server serves; descriptors parsed once per import. */
function createSnapshots(context: Context, catalog: Catalog, methodsOf: (descriptor: Record<string, unknown>) => GrpcMethodInfo[]): () => GrpcSnapshot {
  const parsed = createSpecCache<{ descriptor: Record<string, unknown>; methods: Map<string, GrpcMethodInfo> }>()
  let source: GrpcEndpoint[] | null = null
  let snapshot: GrpcSnapshot = { version: '', descriptors: new Map(), methods: new Map() }
  return () => {
    const current = catalog.grpc()
    if (current === source) return snapshot
    source = current
    const descriptors = new Map<number, Record<string, unknown>>()
    const methods = new Map<string, GrpcMethodBinding>()
    const served: string[] = []
    // What each project demands, read once per snapshot (the catalog rebuilds when a project changes).
    const authOf = new Map<number, AuthScheme[] | null>()
    const projectAuth = (projectId: number) => {
      if (!authOf.has(projectId)) authOf.set(projectId, context.repos.projects.byId(projectId)?.auth ?? null)
      return authOf.get(projectId)!
    }
    for (const { endpoint, importedAt } of current) {
      const specId = endpoint.specId!
      const spec = parsed({ specId, importedAt }, () => {
        const descriptor = JSON.parse(context.repos.specs.byId(specId)!.document) as Record<string, unknown>
        return { descriptor, methods: new Map(methodsOf(descriptor).map((m) => [m.path, m])) }
      })
      const info = spec.methods.get(endpoint.path)
      if (!info) continue
      descriptors.set(specId, spec.descriptor)
      const { status, body, delayMs, delayMaxMs, errorRate, errorStatus, fault } = endpoint
      methods.set(endpoint.path, { info, specId, endpointId: endpoint.id, projectId: endpoint.projectId, auth: projectAuth(endpoint.projectId), settings: { status, body, delayMs, delayMaxMs, errorRate, errorStatus, fault } })
      served.push(`${endpoint.path}@${specId}:${importedAt}`)
    }
    const version = served.sort().join('|')
    snapshot = { version, descriptors, methods }
    return snapshot
  }
}

/** Messages as JSON text: one as itself, several (a stream) as an array. */
function messagesJson(messages: object[]): string {
  return JSON.stringify(messages.length === 1 ? messages[0] : messages)
}

/** A call as the journal keeps it: metadata as headers, the request message(s) as a JSON body, the answer's likewise. */
function journalRecord(call: GrpcCallServed, status: number): JournalRecord | null {
  if (!call.arrival) return null
  const bytes = call.requests.length ? Buffer.from(messagesJson(call.requests)) : null
  const answer = call.responses ? messagesJson(call.responses) : null
  return {
    id: 0,
    projectId: call.projectId,
    at: call.arrival.at,
    epoch: call.arrival.epoch,
    protocol: 'grpc',
    method: 'POST',
    path: call.path,
    search: '',
    headerLines: headerLinesOf(call.metadata),
    params: {},
    body: keptBody(bytes),
    bodySize: bytes?.byteLength ?? 0,
    contentType: 'application/json',
    status,
    durationMs: call.durationMs,
    endpointId: call.endpointId,
    answeredBy: null,
    matched: true,
    fault: call.fault,
    note: call.code === 0 ? null : `gRPC status ${call.code}`,
    answer: { headers: { 'content-type': 'application/json', 'grpc-status': String(call.code) }, body: keptAnswerBody(answer), bodySize: answerBodySize(answer) },
    nearMisses: null,
    ruleMisses: null,
  }
}

/** How often serve looks for a first gRPC method imported while it runs. */
const WATCH_MS = 100

export interface GrpcHost {
  /** The port gRPC listens on; null while there is nothing to serve. */
  port(): number | null
  close(): Promise<void>
}

/**
 * Listens for gRPC as soon as a project has gRPC methods: at start (a taken port fails the
 * start), or when an import adds the first ones while serving (a taken port is then reported).
 * grpc-js and protobufjs load only then.
 */
export async function serveGrpc(options: {
  context: Context
  catalog: Catalog
  events: MockEvents
  /** Every call is kept here too; null: off. */
  journal: Journal | null
  host: string
  port: number
  /** The policy's draws (error rates). */
  random: Random
  /** `serve --delay`: no call is answered sooner. */
  delayFloor?: DelaySpec | null
  onError: (error: Error) => void
  /** gRPC started listening while serving (an import added the first methods). */
  onStarted?: (port: number) => void
}): Promise<GrpcHost> {
  const { journal } = options
  let server: RunningGrpcServer | null = null
  let starting: Promise<void> | null = null
  let failed = false
  const start = async () => {
    const [{ methodsOf }, { startGrpcServer }, makeFaker] = await Promise.all([import('../kinds/grpc/load.ts'), import('./grpc-listener.ts'), loadFaker()])
    server = await startGrpcServer({
      host: options.host,
      port: options.port,
      snapshot: createSnapshots(options.context, options.catalog, methodsOf),
      makeFaker,
      random: options.random,
      delayFloor: options.delayFloor ?? null,
      ...(journal ? { arrived: () => ({ at: journal.now(), epoch: journal.epoch }) } : {}),
      onServed: (call) => {
        const status = HTTP_STATUS_OF_CODE[call.code] ?? 500
        const served = {
          projectId: call.projectId,
          endpointId: call.endpointId,
          method: 'POST',
          path: call.path,
          query: new URLSearchParams(),
          status,
          failed: call.code !== 0,
          fault: call.fault,
          durationMs: call.durationMs,
          at: epochMs(options.context.clock),
          fromDelivery: false,
        }
        recordServed(options.events, served, journal, journalRecord(call, status))
      },
    })
  }
  if (options.catalog.grpc().length > 0) await start()
  // The catalog answers from its cache until the configuration changes, so looking often costs nothing.
  const watch = setInterval(() => {
    if (server || starting || failed) return
    try {
      if (options.catalog.grpc().length === 0) return
    } catch {
      // The database cannot be read now (another process, a full disk): looked at again next time.
      return
    }
    starting = start().then(() => options.onStarted?.((server as RunningGrpcServer | null)?.port ?? options.port)).catch((error: Error) => {
      failed = true
      options.onError(error)
    }).finally(() => {
      starting = null
    })
  }, WATCH_MS)
  watch.unref()
  return {
    port: () => (server as RunningGrpcServer | null)?.port ?? null,
    async close() {
      clearInterval(watch)
      await starting
      await (server as RunningGrpcServer | null)?.close()
    },
  }
}
