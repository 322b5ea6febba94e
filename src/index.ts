/**
 * Use mockapi from a test suite:
 *
 *   const api = await startMockApi({ config: 'mockapi.yaml' })
 *   await fetch(`${api.url}/api/shop/products`)
 *   api.verify({ method: 'GET', path: '/api/shop/products' }, { times: 1 })
 *   api.reset(); await api.close()
 */
import { stringify } from 'yaml'
import type { ImportOptions } from './domain/import.ts'
import type { Journal } from './domain/journal.ts'
import { countRequests, listRequests, verifyNoUnmatched, verifyRequests, type JournalAccess } from './domain/journal-verify.ts'
import { parseDelay } from './engine/delay.ts'
import { AppError } from './errors.ts'
import type { JournalEntry, JournalFilter, VerifyCount } from './events.ts'
import { startServer, type RunningServer } from './server/start.ts'

export type { ProjectFile } from './domain/project-file.ts'
export type { ImportOptions } from './domain/import.ts'
export type { AnsweredBy, Difference, JournalEntry, JournalFilter, NearMiss, RuleMiss, VerifyCount } from './events.ts'
export { AppError } from './errors.ts'

/** A spec to import: a file (relative to the working directory) or an http(s) URL, or the document's text. */
export type MockApiImport = string | ({ source: string } & ImportOptions) | ({ text: string } & ImportOptions)

export interface MockApiOptions {
  /** SQLite file, or ":memory:" (the default) for a private, throw-away database. */
  db?: string
  /** A project file: its path, or the same content as an object. */
  config?: string | Record<string, unknown>
  /** 0 (the default) picks a free port. */
  port?: number
  host?: string
  /** Port for imported gRPC services; 0 (the default) picks a free one, read back from `api.grpcPort`. */
  grpcPort?: number
  /**
   * Specs to import (as `mockapi import` does) after `config`, into its project; without a config
   * the first one makes the project (named after its title) instead of the demo.
   */
  imports?: MockApiImport[]
  /** Delays between webhook delivery attempts, in ms (default 5 s, 30 s, 2 min, 10 min, 30 min). */
  webhookRetryDelaysMs?: number[]
  /**
   * The lock wait, in ms: how long a write waits for another process's write lock (a `mockapi`
   * command beside the server, with `db` a file) before answering 503 STORE_BUSY (default 5 s).
   */
  lockWaitMs?: number
  /** Draws simulated errors (error rates) from a generator seeded with this: a test sees the same ones on every run. */
  seed?: number
  /**
   * The least every mock answer waits, as `serve --delay`: milliseconds (`250`) or a range
   * (`'100-300'`, drawn per request; reproducible with `seed`).
   */
  delay?: number | string
  /** Mock requests kept per project in the journal (default 5,000); 0 keeps none. */
  journal?: number
}

export interface MockApiProject {
  id: number
  slug: string
  name: string
  shareToken: string
  /** Base URL of the project's endpoints: `${api.url}/api/${slug}`. */
  url: string
}

export interface MockApi {
  /** `http://127.0.0.1:<port>` */
  url: string
  port: number
  /** Where imported gRPC services answer (host as `url`); null when no project has any. */
  readonly grpcPort: number | null
  /** A project by slug; without one, the project of the config file (or the default project). */
  project(slug?: string): MockApiProject
  /** Every project's records back to their seeded state, and every project's journal of requests cleared. */
  reset(): void
  /**
   * The requests the journal kept that match `filter` (every one without it), oldest first: the
   * order the code sent them. Raw: secrets unmasked, this is the test's own data. `filter.project`
   * is a slug; without it, `project()`'s. With `limit`, the newest that many.
   */
  requests(filter?: JournalFilter): JournalEntry[]
  /** How many requests match `filter` (all of the project's without it). */
  count(filter?: JournalFilter): number
  /** Forgets the requests of a project (a slug), or of every project without one. */
  clearRequests(project?: string): void
  /**
   * Throws AppError VERIFICATION_FAILED unless the requests matching `filter` are as many as
   * `count` says: `times` exactly, or `atLeast`/`atMost` (default: at least 1). The message lists
   * the closest requests and what differed (or the ones that matched, when too many did), and the
   * near misses of requests no endpoint matched; secrets are masked in it.
   */
  verify(filter: JournalFilter, count?: VerifyCount): void
  /** Throws AppError VERIFICATION_FAILED when a request to any project matched no endpoint, listing them with their near misses. */
  verifyNoUnmatched(): void
  close(): Promise<void>
}

/** The test API's view of the server's journals; the journal is looked up on each call so `journal: 0` fails there, clearly. */
function journalAccess(server: RunningServer): JournalAccess & { journal(): Journal } {
  const journal = () => {
    if (!server.journal) throw new AppError('CONFLICT', 'the journal is off (journal: 0): start the mock without `journal: 0` to read, count, clear or verify requests')
    return server.journal
  }
  return {
    journal,
    now: () => journal().now(),
    project(slug) {
      const kept = journal()
      const project = server.project(slug)
      // A reset by another process (`mockapi reset` on a file database) empties it as api.reset() does.
      kept.seenReset(project.id, project.sequenceEpoch)
      return { slug: project.slug, records: kept.records(project.id), masking: () => server.masking(project.id) }
    },
    all() {
      const kept = journal()
      return kept.projects().map((id) => ({ records: kept.records(id), masking: () => server.masking(id) }))
    },
  }
}

export async function startMockApi(options: MockApiOptions = {}): Promise<MockApi> {
  const delay = options.delay === undefined ? undefined : parseDelay(options.delay)
  const config = options.config === undefined
    ? undefined
    : typeof options.config === 'string'
      ? { path: options.config }
      // The loader (and ajv with the schema) loads only when a config is given.
      : { file: (await import('./domain/project-file.ts')).parseProjectFile(stringify(options.config), 'config object') }
  const server = await startServer({
    dbPath: options.db ?? ':memory:',
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    demo: config === undefined && !options.imports?.length,
    config,
    imports: options.imports?.map((entry) => (typeof entry === 'string' ? { source: entry, cwd: process.cwd() } : 'source' in entry ? { cwd: process.cwd(), ...entry } : entry)),
    retryDelaysMs: options.webhookRetryDelaysMs,
    lockWaitMs: options.lockWaitMs,
    grpcPort: options.grpcPort ?? 0,
    seed: options.seed,
    delay,
    journal: options.journal,
  })
  const access = journalAccess(server)
  return {
    url: server.url,
    port: server.port,
    get grpcPort() {
      return server.grpcPort
    },
    project(slug) {
      const project = server.project(slug)
      return { id: project.id, slug: project.slug, name: project.name, shareToken: project.shareToken, url: `${server.url}/api/${project.slug}` }
    },
    reset: () => void server.reset(),
    requests: (filter) => listRequests(access, filter),
    count: (filter) => countRequests(access, filter),
    clearRequests(project) {
      const journal = access.journal()
      if (project === undefined) journal.clear()
      else journal.clear(server.project(project).id)
    },
    verify: (filter, count) => verifyRequests(access, filter, count),
    verifyNoUnmatched: () => verifyNoUnmatched(access),
    close: () => server.close(),
  }
}
