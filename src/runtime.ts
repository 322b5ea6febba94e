import { systemClock, type Context } from './domain/context.ts'
import type { Clock } from './model.ts'
import { MockEvents } from './events.ts'
import { openDb, type OpenOptions } from './store/db.ts'
import { createRepos } from './store/repos.ts'

export interface Runtime {
  context: Context
  events: MockEvents
  close(): void
}

/** Opens the database and builds what `serve` and the CLI commands share, once; `clock` is for tests. */
export function openRuntime(dbPath: string, options: OpenOptions & { clock?: Clock } = {}): Runtime {
  const db = openDb(dbPath, options)
  const context: Context = { db, repos: createRepos(db), clock: options.clock ?? systemClock }
  return {
    context,
    events: new MockEvents(),
    close: () => db.close(),
  }
}
