import { createCatalog } from '../domain/catalog.ts'
import { ensureDemoProject } from '../domain/demo.ts'
import { requireProjectBySlug, defaultProject } from '../domain/projects.ts'
import type { MockEvents } from '../events.ts'
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
}

export interface RunningServer {
  url: string
  port: number
  events: MockEvents
  createdDemo: boolean
  projects: { slug: string; servedAtOwnPaths: boolean }[]
  close(): Promise<void>
}

/** Opens the database, prepares the demo if asked, and listens; `close()` releases both. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const runtime = openRuntime(options.dbPath)
  try {
    const createdDemo = options.demo === false ? false : ensureDemoProject(runtime.store) !== null
    const own = options.ownPathsProject
      ? requireProjectBySlug(runtime.store, options.ownPathsProject)
      : defaultProject(runtime.store)
    const catalog = createCatalog(runtime.store, { ownPathsSlug: own?.slug })
    const app = createApp({ store: runtime.store, catalog, events: runtime.events, debug: options.debug ?? false })
    const listening = await listenApp(app, { port: options.port, host: options.host })
    return {
      url: listening.url,
      port: listening.port,
      events: runtime.events,
      createdDemo,
      projects: runtime.store.repos.projects.list().map((p) => ({ slug: p.slug, servedAtOwnPaths: p.slug === own?.slug })),
      async close() {
        await listening.close()
        runtime.close()
      },
    }
  } catch (error) {
    runtime.close()
    throw error
  }
}
