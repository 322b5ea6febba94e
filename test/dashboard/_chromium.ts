// vitest's global setup (vitest.config.ts): starts the dashboard tests' Chromium once for the run
// instead of once per test file, and hands its address to the test files (`inject('chromiumServers')`).
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { chromium, type BrowserServer } from 'playwright-core'
import type { TestProject } from 'vitest/node'

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']

/** Debian's chromium (`.ci/run` installs it), else a browser playwright-core installed itself. */
export function chromiumCandidates(): string[] {
  const candidates = ['/usr/bin/chromium', '/usr/bin/chromium-browser']
  try {
    candidates.push(chromium.executablePath())
  } catch {
    // playwright-core knows no browser of its own here.
  }
  return candidates
}

/**
 * What the test files are handed. One Chromium per worker, the n-th for `VITEST_POOL_ID` n, not one
 * for the run: a browser's clipboard is shared by all its contexts, and the dashboard tests paste
 * and copy, so two files running at once in one browser could read each other's clipboard.
 */
export type ChromiumServers =
  | { state: 'running'; endpoints: string[] }
  | { state: 'not-found'; looked: string[] }
  | { state: 'failed'; executable: string; error: string }

declare module 'vitest' {
  export interface ProvidedContext {
    chromiumServers: ChromiumServers
  }
}

/** `count` Chromium servers from the first candidate that exists; `close` stops them. */
export async function startChromiumServers(count: number, candidates: string[] = chromiumCandidates()): Promise<{ servers: ChromiumServers; close: () => Promise<void> }> {
  const executable = candidates.find((path) => existsSync(path))
  if (executable === undefined) return { servers: { state: 'not-found', looked: candidates }, close: async () => {} }
  const launched = await Promise.allSettled(Array.from({ length: count }, () => chromium.launchServer({ executablePath: executable, args: CHROMIUM_ARGS })))
  const started = launched.flatMap((result): BrowserServer[] => (result.status === 'fulfilled' ? [result.value] : []))
  const close = async () => {
    await Promise.all(started.map((server) => server.close()))
  }
  const refused = launched.find((result) => result.status === 'rejected')
  if (refused !== undefined) {
    await close()
    const error = refused.reason instanceof Error ? refused.reason.message : String(refused.reason)
    return { servers: { state: 'failed', executable, error: error.split('\n')[0]! }, close: async () => {} }
  }
  return { servers: { state: 'running', endpoints: started.map((server) => server.wsEndpoint()) }, close }
}

/** As many as vitest runs test files at once: `maxWorkers` as vitest.config.ts or the command line sets it. */
function workerCount(project: TestProject): number {
  return project.config.maxWorkers || project.vitest.config.maxWorkers || availableParallelism()
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { servers, close } = await startChromiumServers(workerCount(project))
  project.provide('chromiumServers', servers)
  return close
}
