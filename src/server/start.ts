import type { ApplyResult } from '../domain/apply.ts'
import type { ImportRequest } from '../domain/import.ts'
import { mintToken } from '../domain/auth.ts'
import { createCatalog } from '../domain/catalog.ts'
import { createJournal, type Journal } from '../domain/journal.ts'
import { projectMasking, type Masking } from '../domain/journal-view.ts'
import type { ProjectFile } from '../domain/project-file.ts'
import { createProject, requireProjectBySlug, defaultProject, updateProjectSettings } from '../domain/projects.ts'
import { takeServeLease, type ServeLease } from '../domain/serve-lease.ts'
import { createFileGuard, type FileGuard } from '../store/file-guard.ts'
import { resetProject } from '../domain/seeding.ts'
import { createBackgroundLog, type BackgroundLog } from '../domain/background.ts'
import { DEFAULT_RETENTION, startRetention, type RetentionLimits } from '../domain/retention.ts'
import { guardWrites, REQUEST_LOCK_WAIT_MS, setLockWait, whenStoreFree } from '../domain/transaction.ts'
import { AppError } from '../errors.ts'
import type { MockEvents } from '../events.ts'
import type { Clock, Project } from '../model.ts'
import type { Context } from '../domain/context.ts'
import { createEventRecorder } from '../queue/event-recorder.ts'
import { createWorker } from '../queue/worker.ts'
import { createSender } from './webhook-sender.ts'
import { openRuntime } from '../runtime.ts'
import { SERVE_BUSY_WAIT_MS, setBusyWait, storeFault } from '../store/db.ts'
import { createApp, type AppDeps } from './app.ts'
import { serveGrpc, type GrpcHost } from './grpc-host.ts'
import { listenApp } from './listen.ts'
import type { DelaySpec } from '../engine/delay.ts'
import type { Random } from '../engine/policy.ts'
import { faultOfResponse } from './faults.ts'
import { seededRandom } from './pipeline/random.ts'
import { settleServed } from './pipeline/record.ts'
import { watchFile } from './watch.ts'
import { DEFAULT_PROXY_TIMEOUT_MS } from './proxy.ts'
import type { RecordedExchange } from '../domain/recorded-exchange.ts'
import { proxyTargetProblem } from '../engine/target-url.ts'

export interface StartOptions {
  dbPath: string
  port: number
  host: string
  /** Slug of the project also served at its endpoints' own paths; default: the default project. */
  ownPathsProject?: string | undefined
  debug?: boolean
  /** Create the demo project when the database has none (what `mockapi serve` does). */
  demo?: boolean
  /** Delays between delivery attempts (default 5s,30s,2m,10m,30m). */
  retryDelaysMs?: number[] | undefined
  /** Per-attempt timeout (default 10 s). */
  deliveryTimeoutMs?: number | undefined
  /** How often the serve lease is renewed (default 2 s); its staleness follows `clock`. */
  leaseRenewMs?: number | undefined
  /** The lock wait: how long a write waits for another process's write lock (default 10 s while starting, then 5 s per request before 503 STORE_BUSY). */
  lockWaitMs?: number | undefined
  /** Where gRPC methods are served (0: any free port); absent: not at all. */
  grpcPort?: number | undefined
  /** gRPC methods imported while serving could not be served (the gRPC port is taken). */
  onGrpcError?: (error: Error) => void
  /** gRPC started listening while serving, once an import added the first methods. */
  onGrpcStarted?: (port: number) => void
  /** When `port` is taken, listen on a free one instead of failing (the default port of `serve`). */
  fallbackPort?: boolean
  /** Server timeouts (default 30 s per request, 10 s for headers). */
  timeouts?: { requestMs?: number; headersMs?: number }
  /** How much of the inbox and delivery log to keep (default 1,000 each per project / subscription). */
  retention?: Partial<RetentionLimits>
  /** A project file (or its content) applied before serving. */
  config?: { path: string } | { file: ProjectFile } | undefined
  /** Specs imported before serving (after `config`), into its project or the default one; in an empty database the first makes the project. */
  imports?: ImportRequest[] | undefined
  /** The database file was deleted or replaced while serving: nothing more can be kept (writes answer 503). */
  onStoreLost?: (message: string) => void
  /** Apply `config.path` again whenever it changes; results go to `onWatch`. */
  watch?: boolean
  onWatch?: (result: { ok: true; result: ApplyResult } | { ok: false; error: Error }) => void
  /** Where background work (deliveries, events, pruning) reports problems; default: stderr. */
  log?: (line: string) => void
  /** What time it is for tokens, records, deliveries and templates' `{{now}}` (tests move it instead of waiting); default: the system's. */
  clock?: Clock
  /** The policy's draws (error rates); default: seeded by `seed`, else Math.random. */
  random?: Random
  /** Makes the policy's draws reproducible: the same seed gives the same simulated errors (`serve --seed`). */
  seed?: number | undefined
  /** `serve --delay`: every mock answer (HTTP, GraphQL, SOAP, gRPC) waits at least this long; absent: no floor. */
  delay?: DelaySpec | undefined
  /** How long a `hang` fault holds a client that never gives up (default 60 s; tests shorten it). */
  hangMs?: number | undefined
  /** Mock requests kept per project in the journal (default 5,000); 0 keeps none. */
  journal?: number | undefined
  /** Text the journal keeps per project (default 32 MiB); past it the oldest entries go. */
  journalMaxBytes?: number | undefined
  /**
   * `serve --proxy`: what the project served at its own paths does not match is forwarded to
   * `target` (an http(s) URL; refused otherwise) instead of its setting's; any target (this one or
   * a project's `proxy` setting) may stay silent `timeoutMs` (default 30 s).
   */
  proxy?: { target?: string | undefined; timeoutMs?: number | undefined } | undefined
  /** Handed each proxied exchange after its answer has gone; what it throws is logged, never fatal. `record` uses the recording's own. */
  recorder?: ((projectId: number, exchange: RecordedExchange) => void) | undefined
  /**
   * `serve --record`: the project served at its own paths records what its proxy target answers
   * (recording.ts) until `mockapi record stop` or the server closes; while it records, every request
   * of that project goes to the target, so the real API sees what the client does.
   */
  record?: boolean | undefined
}

function proxySettings(proxy: StartOptions['proxy']): { target: URL | null; timeoutMs: number } {
  const timeoutMs = proxy?.timeoutMs ?? DEFAULT_PROXY_TIMEOUT_MS
  if (!(timeoutMs > 0)) throw new AppError('INVALID_INPUT', 'proxy timeout must be more than 0')
  if (proxy?.target === undefined) return { target: null, timeoutMs }
  const problem = proxyTargetProblem(proxy.target)
  if (problem) throw new AppError('INVALID_INPUT', `proxy target ${problem}`)
  return { target: new URL(proxy.target), timeoutMs }
}

export interface RunningServer {
  url: string
  port: number
  /** The gRPC port, once there are gRPC methods to serve; null before (or without `grpcPort`). */
  readonly grpcPort: number | null
  events: MockEvents
  createdDemo: boolean
  projects: { slug: string; servedAtOwnPaths: boolean }[]
  /** The project a config file created or updated, if any. */
  configured: Project | null
  /** Every mock request of this run per project (null: `journal: 0`). */
  journal: Journal | null
  /** The project's secret names, as every output of its journal that leaves the process masks them. */
  masking(projectId: number): Masking
  /** Every project's records back to their seeded state, and every project's journal cleared. */
  reset(): { collections: number; records: number }
  /** A management API token for every project, valid 7 days: the dashboard's login (`/_mockapi/#token=…`). */
  dashboardToken(): Promise<string>
  /** A project by slug; without one, the configured or default project. */
  project(slug?: string): Project
  /** Answers a request as the socket would, without one (for test suites: no port, no connection). */
  fetch(request: Request): Promise<Response>
  close(): Promise<void>
}

const DASHBOARD_TOKEN_MS = 7 * 24 * 60 * 60 * 1000
/** How often the journals of projects deleted while serving are let go. */
const JOURNAL_SWEEP_MS = 5000

/** How often a recording serve looks whether another process ended its recording, to say so. */
const RECORDING_CHECK_MS = 1000

/** The recorder as the server calls it: what it throws is said, and serving goes on. */
function recorderOf(recorder: StartOptions['recorder'], log: BackgroundLog): AppDeps['recorder'] {
  if (!recorder) return null
  return (projectId, exchange) => {
    try {
      recorder(projectId, exchange)
    } catch (error) {
      log.note('recording', `${exchange.method} ${exchange.path} was not recorded: ${(error as Error)?.message ?? String(error)}`)
    }
  }
}

/**
 * `serve --record`: starts the project's recording (the target its proxy forwards to, the flag's
 * or its setting's) and gives what the server needs of it. Each exchange is written when the store
 * is free, as a request's write is, so another process's lock delays it rather than losing it.
 */
async function startProjectRecording(context: Context, project: Project | null, flagTarget: URL | null, log: BackgroundLog) {
  if (!project) throw new AppError('INVALID_INPUT', '--record needs a project served at its own paths (--project)')
  const target = flagTarget?.href ?? project.proxy?.target
  if (!target) throw new AppError('INVALID_INPUT', `--record needs a proxy target: give serve --proxy URL, or give project ${project.slug} one with mockapi project set --proxy URL`)
  const { isRecording, recordOptions, recordProxied, startRecording, stopRecording } = await import('../domain/recording.ts')
  const options = await recordOptions(target)
  startRecording(context, project, target)
  // `mockapi record stop` or `project delete` in another process ends it: said once, when seen.
  const watch = setInterval(() => {
    try {
      if (isRecording(context, project.id)) return
      clearInterval(watch)
      const still = flagTarget ? `; what no endpoint matches at the own paths still goes to ${flagTarget.href}` : ''
      log.note('recording', context.repos.projects.byId(project.id)
        ? `project ${project.slug} stopped recording (mockapi record stop)`
        : `project ${project.slug} was deleted, which ended its recording${still}`)
    } catch {
      // The database cannot be read now: looked at again next time.
    }
  }, RECORDING_CHECK_MS)
  watch.unref()
  return {
    isOn: (projectId: number) => projectId === project.id && isRecording(context, projectId),
    recorder: (projectId: number, exchange: RecordedExchange) => {
      whenStoreFree(context.db, () => recordProxied(context, projectId, exchange, options)).then((summary) => {
        for (const skipped of summary?.skipped ?? []) log.note('recording', `${skipped.method} ${skipped.path} was not recorded: ${skipped.reason}`)
        for (const warning of summary?.warnings ?? []) log.note('recording', warning)
      }, (error: unknown) => {
        const reason = storeFault(error) === 'busy'
          ? 'another process held the database\'s write lock for longer than the lock wait (MOCKAPI_LOCK_WAIT)'
          : (error as Error)?.message ?? String(error)
        log.note('recording', `${exchange.method} ${exchange.path} was not recorded: ${reason}`)
      })
    },
    unrecorded: (projectId: number, method: string, path: string, reason: string) => {
      if (isRecording(context, projectId)) log.note('recording', `${method} ${path} was not recorded: ${reason}`)
    },
    // Ctrl-C ends the recording; one already stopped by `mockapi record stop` stays stopped.
    stop: () => {
      clearInterval(watch)
      stopRecording(context, project)
    },
  }
}

/** The project `serve --proxy` makes on an empty database, named after its target; its paths are the real API's, so no naming rules judge them. */
function createProxyProject(context: Context, target: URL): void {
  const project = createProject(context, { name: target.host, slug: 'proxy' })
  updateProjectSettings(context, project, { pathRules: 'off' })
}

/** The database may be gone by now (the reason serve stops): the recording then ends with it. */
function endRecording(stop: (() => void) | null, log: BackgroundLog): void {
  try {
    stop?.()
  } catch (error) {
    log.note('recording', `not marked stopped: ${(error as Error)?.message ?? String(error)}`)
  }
}

/**
 * Opens the database, applies a config file or prepares the demo, starts the delivery worker and
 * listens. `close()` stops taking requests, records what is buffered, lets deliveries in flight
 * finish (or puts them back unattempted), then closes the database.
 */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const random = options.random ?? (options.seed === undefined ? Math.random : await seededRandom(options.seed))
  // Refused before anything opens: a mistyped target is the flag's fault, not the database's.
  const proxy = proxySettings(options.proxy)
  const runtime = openRuntime(options.dbPath, { clock: options.clock, lockWaitMs: options.lockWaitMs })
  const { context, events } = runtime
  let watcher: { close(): void } | null = null
  let stopOwnRecording: (() => void) | null = null
  let grpc: GrpcHost | null = null
  let lease: ServeLease | null = null
  let fileGuard: FileGuard | null = null
  let fileCheck: NodeJS.Timeout | null = null
  let journalSweep: NodeJS.Timeout | null = null
  const log = createBackgroundLog({ write: options.log ?? ((line) => console.error(line)), debug: options.debug ?? false })
  try {
    // Before anything writes: a second serve must not touch the first one's queue.
    let stopDeliveries = () => {}
    lease = options.dbPath === ':memory:' ? null : takeServeLease(context, {
      renewMs: options.leaseRenewMs,
      onLost: (by) => {
        stopDeliveries()
        log.note('webhook deliveries', `another serve took this database over (${by ? `pid ${by.pid}, ${by.url}` : 'its lease was removed'}); this one no longer delivers webhooks`)
      },
    })
    const config = options.config
    const empty = context.repos.projects.list().length === 0
    // In front of a real API the demo's blog routes (/api/users, /api/posts) would answer in its place: an empty project instead.
    if (empty && proxy.target && !config) createProxyProject(context, proxy.target)
    const needsDemo = options.demo !== false && !config && empty && !proxy.target
    // yaml, faker and the apply code load only when a file or the demo needs them.
    const setup = config || needsDemo
      ? await Promise.all([import('../domain/apply.ts'), import('../domain/project-file.ts'), import('../domain/demo.ts'), import('../engine/generators.ts').then((m) => m.loadFaker())])
      : null
    const applyConfig = (file: ProjectFile): ApplyResult => setup![0].applyProjectFile(context, file, setup![3], { prune: true })
    const readConfig = (path: string): ProjectFile => setup![1].readProjectFile(path, setup![3])
    const configured = config ? applyConfig('file' in config ? config.file : readConfig(config.path)).project : null
    const createdDemo = needsDemo && setup![2].ensureDemoProject(context, setup![3]) !== null
    if (options.imports?.length) {
      const { importSpec, importTarget } = await import('../domain/import.ts')
      for (const request of options.imports) await importSpec(context, importTarget(context, configured?.slug), request)
    }
    const own = options.ownPathsProject ? requireProjectBySlug(context, options.ownPathsProject) : (configured ?? defaultProject(context))
    // Without --project (or a config file) the own paths follow the default project, even when
    // `mockapi project default` changes it while serving.
    // While recording, every request sees another process's change first (a project deleted, a recording stopped): it
    // goes to a real API anyway, so the check it costs is nothing beside that; otherwise within RECHECK_MS.
    const catalog = createCatalog(context, { ownPathsSlug: options.ownPathsProject ?? configured?.slug, recheckMs: options.record ? 0 : undefined })
    // From here on a statement waits only a moment for another process's lock: longer waits
    // happen between tries, without freezing the event loop.
    setBusyWait(context.db, SERVE_BUSY_WAIT_MS)
    setLockWait(context.db, options.lockWaitMs ?? REQUEST_LOCK_WAIT_MS)
    const worker = createWorker({ context, events, sender: createSender(), retryDelaysMs: options.retryDelaysMs, timeoutMs: options.deliveryTimeoutMs, log })
    const eventRecorder = createEventRecorder(context, events, { onQueued: () => worker.wake(), log })
    stopDeliveries = () => void worker.stop(0)
    if (options.dbPath !== ':memory:') {
      const lostError = (reason: string) => new AppError('STORE_UNAVAILABLE', `${reason}; nothing more can be kept: restart mockapi serve`)
      const guard = createFileGuard(options.dbPath, (reason) => {
        stopDeliveries()
        // Told after the write that noticed it has been refused.
        setImmediate(() => options.onStoreLost?.(lostError(reason).message))
      })
      fileGuard = guard
      guardWrites(context.db, () => {
        const reason = guard.lost()
        if (reason) throw lostError(reason)
      })
      // Also without writes, where the folder cannot be watched.
      const timer = setInterval(() => guard.lost(), 1000)
      timer.unref()
      fileCheck = timer
    }
    // Ends the management API's event streams first, so closing never waits on them.
    const shutdown = new AbortController()
    const journal = options.journal === 0 ? null : createJournal({ size: options.journal, maxBytes: options.journalMaxBytes, clock: context.clock })
    const ownPathsSlug = options.ownPathsProject ?? configured?.slug
    // The project the catalog serves at its own paths (it follows `mockapi project default` when none was named).
    const ownPathsProject = () => (ownPathsSlug ? context.repos.projects.bySlug(ownPathsSlug) : defaultProject(context)) ?? null
    if (journal) {
      // A project deleted by any process (the CLI beside serve) loses its journal within seconds.
      const timer = setInterval(() => {
        try {
          const live = new Set(context.repos.projects.list().map((p) => p.id))
          for (const id of journal.projects()) if (!live.has(id)) journal.drop(id)
        } catch {
          // The database cannot be read now: looked at again next time.
        }
      }, JOURNAL_SWEEP_MS)
      timer.unref()
      journalSweep = timer
    }
    // The recording code loads only when a recording is left over or asked for.
    const stale = context.repos.recordings.any() ? (await import('../domain/recording.ts')).endStaleRecordings(context) : []
    for (const slug of stale) log.note('recording', `project ${slug} was left recording by a serve that did not close; ended`)
    const recording = options.record ? await startProjectRecording(context, ownPathsProject(), proxy.target, log) : null
    stopOwnRecording = recording?.stop ?? null
    const recorder = recorderOf(recording?.recorder ?? options.recorder, log)
    const app = createApp({ context, catalog, events, journal, ownPathsProject, debug: options.debug ?? false, signal: shutdown.signal, grpcPort: () => grpc?.port() ?? null, random, delayFloor: options.delay ?? null, hangMs: options.hangMs, proxy, recorder, recording: recording?.isOn ?? null, unrecorded: recording?.unrecorded ?? null })
    const listening = await listenApp(app, {
      port: options.port,
      host: options.host,
      fallbackPort: options.fallbackPort ?? false,
      timeouts: options.timeouts,
      onError: (error) => log.failed('HTTP server', error),
    })
    try {
      grpc = options.grpcPort === undefined ? null : await serveGrpc({ context, catalog, events, journal, host: options.host, port: options.grpcPort, random, delayFloor: options.delay ?? null, onError: options.onGrpcError ?? (() => {}), onStarted: options.onGrpcStarted })
    } catch (error) {
      await listening.close()
      throw error
    }
    lease?.announce(listening.url)
    worker.start()
    const wakeWorker = () => worker.wake()
    events.on('delivery.queued', wakeWorker)
    const retention = startRetention(context, { ...DEFAULT_RETENTION, ...options.retention }, log)
    if (options.watch && config && 'path' in config) {
      watcher = watchFile(config.path, async () => {
        try {
          const result = await whenStoreFree(context.db, () => applyConfig(readConfig(config.path)))
          options.onWatch?.({ ok: true, result })
        } catch (error) {
          // apply is one transaction: a broken edit leaves the last good state serving.
          options.onWatch?.({ ok: false, error: error as Error })
        }
      })
    }
    let closing: Promise<void> | null = null
    const grpcHost = grpc
    const heldLease = lease
    return {
      url: listening.url,
      port: listening.port,
      fetch: async (request) => {
        const response = await app.fetch(request)
        const fault = faultOfResponse(response)
        // What a client's fetch does when the connection faults: no response, a TypeError.
        if (fault) throw new TypeError('fetch failed', { cause: Object.assign(new Error(`mockapi: simulated fault ${fault}`), { code: 'MOCKAPI_FAULT', fault }) })
        return response
      },
      get grpcPort() {
        return grpcHost?.port() ?? null
      },
      events,
      journal,
      masking: (projectId) => projectMasking(context, projectId),
      createdDemo,
      configured,
      projects: context.repos.projects.list().map((p) => ({ slug: p.slug, servedAtOwnPaths: p.slug === own?.slug })),
      project(slug) {
        if (slug) return requireProjectBySlug(context, slug)
        const chosen = (configured && context.repos.projects.byId(configured.id)) ?? defaultProject(context)
        if (!chosen) throw new AppError('PROJECT_NOT_FOUND', 'this server has no project')
        return chosen
      },
      reset() {
        let collections = 0
        let records = 0
        for (const project of context.repos.projects.list()) {
          const result = resetProject(context, project.id)
          collections += result.collections
          records += result.records
          journal?.seenReset(project.id, context.repos.projects.byId(project.id)?.sequenceEpoch ?? 0)
        }
        journal?.clear()
        return { collections, records }
      },
      dashboardToken() {
        return mintToken(context, { expiresInMs: DASHBOARD_TOKEN_MS, subject: 'mockapi-dashboard' })
      },
      close() {
        closing ??= (async () => {
          watcher?.close()
          retention.stop()
          shutdown.abort()
          events.off('delivery.queued', wakeWorker)
          // Deliveries get their grace while requests drain; events of the last requests are
          // recorded once those end (and sent at the next start).
          await Promise.all([
            Promise.all([listening.close(), grpcHost?.close()]).then(() => {
              settleServed(events)
              return eventRecorder.close()
            }),
            worker.stop(),
          ])
          endRecording(stopOwnRecording, log)
          heldLease?.release()
          if (fileCheck) clearInterval(fileCheck)
          if (journalSweep) clearInterval(journalSweep)
          fileGuard?.close()
          runtime.close()
        })()
        return closing
      },
    }
  } catch (error) {
    watcher?.close()
    endRecording(stopOwnRecording, log)
    lease?.release()
    if (fileCheck) clearInterval(fileCheck)
    if (journalSweep) clearInterval(journalSweep)
    fileGuard?.close()
    runtime.close()
    throw error
  }
}
