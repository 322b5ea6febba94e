import { H3, type H3Config, type H3Event } from 'h3'
import type { Catalog } from '../domain/catalog.ts'
import type { Context } from '../domain/context.ts'
import type { MockEvents } from '../events.ts'
import { createJournal, type Journal } from '../domain/journal.ts'
import { defaultProject } from '../domain/projects.ts'
import type { Project } from '../model.ts'
import { DEFAULT_BODY_LIMIT } from './body.ts'
import { preflightResponse } from './cors.ts'
import type { AdminDeps } from './admin-common.ts'
import { mountDashboard } from './dashboard.ts'
import { mountInbox } from './inbox.ts'
import { createMockHandler } from './mock.ts'
import { countServedRequests } from './served-counts.ts'
import type { RecordedExchange } from '../domain/recorded-exchange.ts'
import type { DelaySpec } from '../engine/delay.ts'
import type { Random } from '../engine/policy.ts'
import { errorResponse, jsonResponse } from './http-response.ts'

export interface AppDeps {
  context: Context
  catalog: Catalog
  events: MockEvents
  bodyLimit?: number
  debug?: boolean
  /** Aborted when the server closes: the management API's event streams end then. */
  signal?: AbortSignal
  /** Every mock request per project (a default one made here when not given); null: off. */
  journal?: Journal | null
  /** The project served at its own paths, whose journal keeps requests no project's path names; default: the default project. */
  ownPathsProject?: () => Project | null
  /** The port gRPC methods are served on, for the endpoints' served URLs (none when not given). */
  grpcPort?: () => number | null
  /** The policy's draws (error rates, delay ranges); default Math.random. */
  random?: Random
  /** `serve --delay`: the least every mock answer waits; default none. */
  delayFloor?: DelaySpec | null
  /** How long a `hang` fault holds a client that never gives up (default 60 s). */
  hangMs?: number | undefined
  /** `serve --proxy`: where the project at its own paths forwards what it does not match (default: its setting's), and any target's timeout. */
  proxy?: { target: URL | null; timeoutMs: number }
  /** Handed each proxied exchange after its answer has gone; default none. */
  recorder?: ((projectId: number, exchange: RecordedExchange) => void) | null
  /** Whether a project records now (`serve --record`): its every request goes to its target. Null: none records. */
  recording?: ((projectId: number) => boolean) | null
  /** Told of a proxied exchange that could not be recorded, and why. */
  unrecorded?: ((projectId: number, method: string, path: string, reason: string) => void) | null
}

/**
 * The management API (everything under `/api/projects`) as an app of its own, made at its first
 * request: loading its modules and adding its ~30 routes held up every start's first mock answer.
 */
function lazyAdmin(config: H3Config, deps: AdminDeps): (event: H3Event) => Promise<Response> {
  let admin: Promise<H3> | null = null
  return async (event) => {
    admin ??= import('./admin.ts').then(({ mountAdmin }) => {
      const app = new H3(config)
      mountAdmin(app, deps)
      return app
    })
    return (await admin).fetch(event.req)
  }
}

/** The HTTP surface: health, inbox, management API, dashboard, then the mock routes; errors render in one place. */
export function createApp(deps: AppDeps): H3 {
  const debug = deps.debug ?? false
  const config: H3Config = {
    silent: true,
    // A mistyped escape (`/orders/%zz`) is the mock's to answer (a 400 that says so) and to journal; the management API refuses it per parameter.
    allowMalformedURL: true,
    onError: (error) => errorResponse(error, { debug }),
  }
  const app = new H3(config)
  const bodyLimit = deps.bodyLimit ?? DEFAULT_BODY_LIMIT
  const journal = deps.journal === undefined ? createJournal({ clock: deps.context.clock }) : deps.journal
  const ownPathsProject = deps.ownPathsProject ?? (() => defaultProject(deps.context) ?? null)
  const health = () => jsonResponse(200, { status: 'ok' })
  app.get('/api/health', health)
  // Node sends no body for HEAD; h3 does not answer it from the GET route by itself.
  app.head('/api/health', health)
  // A mock's preflight is the mock handler's to answer and journal; the management API and the inbox answer their own.
  app.options('/api/health', (event) => preflightResponse(event.req))
  mountInbox(app, { context: deps.context, events: deps.events, bodyLimit })
  const signal = deps.signal ?? new AbortController().signal
  const admin = lazyAdmin(config, {
    context: deps.context,
    events: deps.events,
    bodyLimit,
    journal,
    signal,
    grpcPort: deps.grpcPort ?? (() => null),
    ownPathsProject,
    requests: countServedRequests({ context: deps.context, events: deps.events, signal, ownPathsProject }),
  })
  app.all('/api/projects', admin)
  app.all('/api/projects/**', admin)
  mountDashboard(app)
  const answerMock = createMockHandler({ context: deps.context, catalog: deps.catalog, events: deps.events, bodyLimit, debug, random: deps.random ?? Math.random, delayFloor: deps.delayFloor ?? null, hangMs: deps.hangMs, journal, ownPathsProject, proxy: deps.proxy, recorder: deps.recorder ?? null, recording: deps.recording ?? null, unrecorded: deps.unrecorded ?? null })
  // The mocks answer whatever no route above matched. Not as a `/**` route: rou3 builds that
  // route's catch-all parameter for every request, which cost a GET one item about 3 µs of its
  // 34 (measured: docs/performance.md). Undefined lets a matched route answer.
  app.use((event) => (event.context.matchedRoute ? undefined : answerMock(event)))
  return app
}
