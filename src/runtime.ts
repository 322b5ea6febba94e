import { systemClock, type Store } from './domain/context.ts'
import { MockEvents } from './events.ts'
import { openDb } from './store/db.ts'
import { createRepos } from './store/repos.ts'

export interface Runtime {
  store: Store
  events: MockEvents
  close(): void
}

/** Opens the database and builds what `serve` and the CLI commands share, once. */
export function openRuntime(dbPath: string): Runtime {
  const db = openDb(dbPath)
  const store: Store = { db, repos: createRepos(db), clock: systemClock }
  return {
    store,
    events: new MockEvents(),
    close: () => db.close(),
  }
}
