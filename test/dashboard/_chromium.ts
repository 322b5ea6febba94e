// vitest's global setup (vitest.config.ts): the dashboard tests' Chromium, started once per worker for
// the whole run instead of once per test file, and only when a test file asks for it, so that a run
// without browser tests starts none. The test files find it through `inject('chromium')`.
import { existsSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { BrowserServer } from 'playwright-core'
import type { TestProject } from 'vitest/node'

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']

const DEBIAN_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser']

/**
 * Debian's chromium (`.ci/run` installs it), else a browser playwright-core installed itself.
 * playwright-core is imported only when it is needed (it costs half a second, and this setup runs
 * before every vitest run, browser tests or not).
 */
export async function chromiumCandidates(): Promise<string[]> {
  if (DEBIAN_CHROMIUM.some((path) => existsSync(path))) return DEBIAN_CHROMIUM
  const { chromium } = await import('playwright-core')
  try {
    return [...DEBIAN_CHROMIUM, chromium.executablePath()]
  } catch {
    // playwright-core knows no browser of its own here.
    return DEBIAN_CHROMIUM
  }
}

/**
 * What the test files are handed: where to ask for their worker's Chromium, or where none was found.
 * One Chromium per worker, not one for the run: a browser's clipboard is shared by all its contexts,
 * and the dashboard tests paste and copy, so two files running at once could read each other's.
 */
export type ChromiumSetup = { state: 'found'; executable: string; broker: string } | { state: 'not-found'; looked: string[] }

/** The broker's answer for a worker: its Chromium's address, or why it did not start. */
export type WorkerChromium = { state: 'running'; endpoint: string } | { state: 'failed'; error: string }

declare module 'vitest' {
  export interface ProvidedContext {
    chromium: ChromiumSetup
  }
}

/**
 * Finds the first candidate that exists and serves `GET /?worker=N` on loopback: the address of worker
 * N's Chromium, launched by its first request; `close` stops the broker and every Chromium it launched.
 */
export async function startChromiumBroker(candidates?: string[]): Promise<{ setup: ChromiumSetup; close: () => Promise<void> }> {
  candidates ??= await chromiumCandidates()
  const executable = candidates.find((path) => existsSync(path))
  if (executable === undefined) return { setup: { state: 'not-found', looked: candidates }, close: async () => {} }
  const launched = new Map<string, Promise<BrowserServer>>()
  const broker = createServer((request, response) => {
    const worker = new URL(request.url ?? '/', 'http://broker').searchParams.get('worker') ?? ''
    let server = launched.get(worker)
    if (server === undefined) launched.set(worker, (server = import('playwright-core').then(({ chromium }) => chromium.launchServer({ executablePath: executable, args: CHROMIUM_ARGS }))))
    server.then(
      (running): WorkerChromium => ({ state: 'running', endpoint: running.wsEndpoint() }),
      (error: unknown): WorkerChromium => ({ state: 'failed', error: (error instanceof Error ? error.message : String(error)).split('\n')[0]! }),
    ).then((answer) => response.setHeader('content-type', 'application/json').end(JSON.stringify(answer)))
  })
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve))
  const close = async () => {
    await new Promise((resolve) => broker.close(resolve))
    const servers = await Promise.allSettled(launched.values())
    await Promise.all(servers.map((server) => (server.status === 'fulfilled' ? server.value.close() : undefined)))
  }
  return { setup: { state: 'found', executable, broker: `http://127.0.0.1:${(broker.address() as AddressInfo).port}/` }, close }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { setup, close } = await startChromiumBroker()
  project.provide('chromium', setup)
  return close
}
