import { createCatalog } from '../domain/catalog.ts'
import { ensureDemoProject } from '../domain/demo.ts'
import { requireProjectBySlug, defaultProject } from '../domain/projects.ts'
import type { MockEvents } from '../events.ts'
import { createOutbox } from '../queue/outbox.ts'
import { createWorker } from '../queue/worker.ts'
import { loadFaker } from '../engine/generators.ts'
import { openRuntime } from '../runtime.ts'
import { createApp } from './app.ts'
import { listenApp } from './listen.ts'

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
}

export interface RunningServer {
  url: string
  port: number
  events: MockEvents
  createdDemo: boolean
  projects: { slug: string; servedAtOwnPaths: boolean }[]
  close(): Promise<void>
}

/**
 * Opens the database, prepares the demo if asked, starts the delivery worker and listens.
 * `close()` stops taking requests, records what is buffered, lets deliveries in flight finish
 * (or puts them back unattempted), then closes the database.
 */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const runtime = openRuntime(options.dbPath)
  const { store, events } = runtime
  try {
    const needsDemo = options.demo !== false && store.repos.projects.list().length === 0
    const createdDemo = needsDemo && ensureDemoProject(store, await loadFaker()) !== null
    const own = options.ownPathsProject ? requireProjectBySlug(store, options.ownPathsProject) : defaultProject(store)
    const catalog = createCatalog(store, { ownPathsSlug: own?.slug })
    const worker = createWorker({ store, events, retryDelaysMs: options.retryDelaysMs, timeoutMs: options.deliveryTimeoutMs })
    const outbox = createOutbox(store, events, { onQueued: () => worker.wake() })
    const app = createApp({ store, catalog, events, debug: options.debug ?? false })
    const listening = await listenApp(app, { port: options.port, host: options.host })
    worker.start()
    let closing: Promise<void> | null = null
    return {
      url: listening.url,
      port: listening.port,
      events,
      createdDemo,
      projects: store.repos.projects.list().map((p) => ({ slug: p.slug, servedAtOwnPaths: p.slug === own?.slug })),
      close() {
        closing ??= (async () => {
          await listening.close()
          outbox.close()
          await worker.stop()
          runtime.close()
        })()
        return closing
      },
    }
  } catch (error) {
    runtime.close()
    throw error
  }
}
