import { expect } from 'vitest'
import Database from 'better-sqlite3'
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stripVTControlCharacters } from 'node:util'
import { main } from '../src/cli/main.ts'
import { resolveDbPath } from '../src/config.ts'
import type { Clock } from '../src/model.ts'
import { openRuntime, type Runtime } from '../src/runtime.ts'
import { startServer, type RunningServer } from '../src/server/start.ts'
import { migrate } from '../src/store/migrations/index.ts'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const BIN = join(ROOT, 'bin', 'mockapi.js')

const cleanups: (() => void | Promise<void>)[] = []

/** Runs registered cleanups; call from afterEach/afterAll. */
export async function cleanup(): Promise<void> {
  while (cleanups.length) await cleanups.pop()!()
}

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-test-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export function tempDb(): string {
  return join(tempDir(), 'mockapi.db')
}

/** A database file built by the migrations up to `version` only, as an older mockapi left it; the caller fills it and closes it. */
export function databaseAt(version: number): { path: string; old: Database.Database } {
  const path = tempDb()
  const old = new Database(path)
  old.pragma('journal_mode = WAL')
  old.pragma('foreign_keys = ON')
  migrate(old, version)
  return { path, old }
}

/** A second connection to the same file, to arrange data through the real domain code. */
export function openStore(dbPath: string): Runtime {
  const runtime = openRuntime(dbPath)
  cleanups.push(() => runtime.close())
  return runtime
}

/**
 * Servers this file spawned that still run, with the database each serves: the CLI in-process
 * waits out their cache recheck when it changes that database. A server in this process needs no
 * wait: the store counts every connection's writes in the process, so it sees them at once.
 */
const spawnedServers = new Map<object, string>()

/** The database file a mockapi command line uses, as the CLI resolves it (`--db`, MOCKAPI_DB, the default). */
function databaseOf(args: string[], options: CliOptions): string {
  const at = args.indexOf('--db')
  const flag = at >= 0 ? args[at + 1] : args.find((arg) => arg.startsWith('--db='))?.slice('--db='.length)
  return resolve(resolveDbPath(flag, { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env } }))
}

function servesDatabase(dbPath: string): boolean {
  return [...spawnedServers.values()].includes(dbPath)
}

export async function serve(dbPath: string, options: { ownPathsProject?: string; retryDelaysMs?: number[]; deliveryTimeoutMs?: number; grpcPort?: number; clock?: Clock; lockWaitMs?: number; leaseRenewMs?: number; log?: (line: string) => void; onStoreLost?: (message: string) => void; journal?: number; journalMaxBytes?: number } = {}): Promise<RunningServer> {
  const server = await startServer({ dbPath, port: 0, host: '127.0.0.1', demo: false, ...options })
  inProcess.set(server.url, server.fetch)
  const close = server.close.bind(server)
  server.close = () => {
    inProcess.delete(server.url)
    return close()
  }
  cleanups.push(() => server.close())
  return server
}

/**
 * A request held before its body: it resolves once the handler asks for the body, so the handler
 * has routed the request, looked up what it needs, and waits. `finish` sends the body and resolves
 * with the answer. A latch, not a wait: nothing is pulled from a zero-watermark stream until the
 * handler reads.
 */
export async function heldRequest(server: RunningServer, method: string, path: string, headers: Record<string, string>, body: Uint8Array): Promise<{ finish(): Promise<Response> }> {
  let asked!: () => void
  const bodyAsked = new Promise<void>((resolve) => (asked = resolve))
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      asked()
      await released
      controller.enqueue(body)
      controller.close()
    },
  }, { highWaterMark: 0 })
  const answer = server.fetch(new Request(new URL(path, server.url), { method, headers, body: stream, duplex: 'half' } as RequestInit))
  await Promise.race([bodyAsked, answer.then((response) => Promise.reject(new Error(`${method} ${path} answered ${response.status} before reading its body`)))])
  return {
    finish() {
      release()
      return answer
    },
  }
}

export interface Sent {
  status: number
  headers: Headers
  text: string
  json: any
}

/** Servers started in this process, by URL: `send` hands them its requests without a socket. */
const inProcess = new Map<string, (request: Request) => Promise<Response>>()

function inProcessFetch(url: string): ((request: Request) => Promise<Response>) | undefined {
  const origin = URL.canParse(url) ? new URL(url).origin : ''
  return inProcess.get(origin)
}

/**
 * fetch with a JSON body when `body` is not a string, and the answer read whole. A server this
 * process started answers through its app's fetch, with no socket (as a client would see it:
 * no body for HEAD); other URLs, and `overSocket` (where the connection is the point: the
 * sender's address), over the network.
 */
export async function send(url: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; overSocket?: boolean } = {}): Promise<Sent> {
  const headers: Record<string, string> = { ...init.headers }
  let body: string | undefined
  if (typeof init.body === 'string') body = init.body
  else if (init.body !== undefined) {
    body = JSON.stringify(init.body)
    headers['content-type'] ??= 'application/json'
  }
  // Sent as a client's fetch sends it (a socket's request always has its length).
  if (body !== undefined) headers['content-length'] ??= String(Buffer.byteLength(body))
  const request = new Request(url, { method: init.method ?? 'GET', headers, body })
  const app = init.overSocket ? undefined : inProcessFetch(url)
  const response = app ? await app(request) : await fetch(request)
  const text = request.method === 'HEAD' ? '' : await response.text()
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, text, json }
}

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

export interface CliOptions {
  cwd?: string
  env?: Record<string, string>
}

/** An io for `main()` as processIo writes (each call one line unless it already ends with one), colours stripped. */
function capturedIo(out: (text: string) => void, err: (text: string) => void) {
  const line = (text: string) => stripVTControlCharacters(text.endsWith('\n') ? text : `${text}\n`)
  return { out: (text: string) => out(line(text)), err: (text: string) => err(line(text)), isInteractive: false }
}

/** The working directory and variables a child would get. */
function environmentOf(options: CliOptions) {
  return { cwd: options.cwd ?? ROOT, env: { ...process.env, FORCE_COLOR: '0', ...options.env } }
}

/**
 * Runs the CLI in this process: `main()` from src with a captured io, in the folder and with the
 * variables given (as a child would see them), colours stripped. The source runs, so a test never
 * sees a stale build. A `serve` run here returns once it refuses to start or is stopped (by
 * cleanup(), if it started by mistake); `serveCli` runs one to talk to.
 */
export async function cli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  let stdout = ''
  let stderr = ''
  const io = capturedIo((text) => void (stdout += text), (text) => void (stderr += text))
  const stop = new AbortController()
  const abort = () => stop.abort()
  cleanups.push(abort)
  let code: number
  try {
    code = await main(args, io, environmentOf(options), { signal: stop.signal })
  } finally {
    const at = cleanups.indexOf(abort)
    if (at >= 0) cleanups.splice(at, 1)
  }
  // A spawned server sees another process's commit within 50 ms; a child's exit always took
  // longer than that, so tests that ask it right after a CLI change could rely on it.
  if (servesDatabase(databaseOf(args, options))) await settle()
  return { code, stdout, stderr }
}

export interface ServeRun {
  url: string
  /** What it printed so far, stdout and stderr in the order written. */
  output(): string
  /** Stops it as SIGTERM stops the binary (the same graceful path); resolves with the exit code. */
  stop(): Promise<number>
  /** Resolves with the exit code once it stops, by itself or through stop(). */
  exited: Promise<number>
}

/**
 * `mockapi serve` in this process: `main(['serve', …])` with a captured io, stopped by an
 * AbortSignal instead of the process's signals; waits for its whole banner. cleanup() stops it
 * (a failing test leaves no server listening nor database open for the next file of the worker).
 */
export async function serveCli(args: string[], options: CliOptions = {}): Promise<ServeRun> {
  let output = ''
  let bannerShown = () => {}
  const banner = new Promise<void>((resolve) => (bannerShown = resolve))
  const write = (text: string) => {
    output += text
    // The banner ends with the Ctrl-C hint; wait for all of it.
    if (text.includes('Ctrl-C to stop')) bannerShown()
  }
  const stopper = new AbortController()
  const exit = main(args, capturedIo(write, write), environmentOf(options), { signal: stopper.signal })
  const stop = () => {
    stopper.abort()
    return exit
  }
  cleanups.push(async () => void (await stop()))
  let timer: NodeJS.Timeout | undefined
  const started = await Promise.race([
    banner.then(() => true),
    exit.then(() => false),
    new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 15_000))),
  ]).finally(() => clearTimeout(timer))
  if (!started) throw new Error(`serve exited early (code ${await exit}):\n${output}`)
  const url = /listening on (http:\/\/\S+)/.exec(output)![1]!
  return { url, output: () => output, stop, exited: exit }
}

/**
 * Fails with what to do when the build the spawned tests run (bin/mockapi.js → dist) is older than
 * src: under `vitest --watch` nothing rebuilds it, and a stale binary passes or fails for the
 * wrong reasons. Building here instead would cost every spawning file a build.
 */
export function expectFreshBuild(): void {
  const built = join(ROOT, 'dist', 'bin', 'main.js')
  const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0
  const newer = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .map((file) => join(ROOT, 'src', file))
    .find((file) => statSync(file).mtimeMs > builtAt)
  if (newer) throw new Error(`dist/ is older than ${newer.slice(ROOT.length)} (or missing): run "npm run build" before the tests that spawn bin/mockapi.js`)
}

/** The real binary (`bin/mockapi.js`) as a child process: for what needs a second process. */
export function cliProcess(args: string[], options: CliOptions = {}): CliResult {
  expectFreshBuild()
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, FORCE_COLOR: '0', ...options.env },
    input: '',
    encoding: 'utf8',
    timeout: 20_000,
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

export interface CliWorkspace {
  cwd: string
  db: string
  run(...args: string[]): Promise<CliResult>
  /** Runs, expects exit code 0 (showing stderr otherwise) and returns stdout. */
  ok(...args: string[]): Promise<string>
}

/** A temp folder with its own database file, and the CLI run in-process against it. */
export function cliWorkspace(): CliWorkspace {
  const cwd = tempDir()
  const db = join(cwd, 'm.db')
  const run = (...args: string[]) => cli(['--db', db, ...args], { cwd })
  const ok = async (...args: string[]) => {
    const result = await run(...args)
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
    return result.stdout
  }
  return { cwd, db, run, ok }
}

/** A folder with a database holding project `t` and its resource `/api/items`, made by the CLI. */
export async function itemsProject(): Promise<{ cwd: string; db: string }> {
  const cwd = tempDir()
  const db = join(cwd, 't.db')
  expect((await cli(['--db', db, 'init', '--yes', '--slug', 't', '--resource', '/api/items'], { cwd })).code).toBe(0)
  return { cwd, db }
}

/** `cliProcess` without blocking this process, for a child that talks to a server running in the test. */
export function cliProcessAsync(args: string[], options: CliOptions = {}): Promise<CliResult> {
  expectFreshBuild()
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, FORCE_COLOR: '0', ...options.env },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  child.stdin.end()
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

/** Starts `mockapi serve` as a child process and waits for its whole banner. */
export async function spawnServe(args: string[], options: CliOptions = {}): Promise<{ url: string; child: ChildProcessWithoutNullStreams; output: () => string }> {
  expectFreshBuild()
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, FORCE_COLOR: '0', ...options.env },
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  spawnedServers.set(child, databaseOf(args, options))
  child.on('exit', () => spawnedServers.delete(child))
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 15_000)
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output)
      // The banner ends with the Ctrl-C hint; wait for all of it.
      if (match && output.includes('Ctrl-C to stop')) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout.on('data', check)
    child.on('exit', () => {
      clearTimeout(timer)
      reject(new Error(`serve exited early:\n${output}`))
    })
  })
  return { url, child, output: () => output }
}

export function exited(child: ChildProcessWithoutNullStreams): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode })
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
}

export interface Received {
  headers: Record<string, string | string[] | undefined>
  body: string
  at: number
}

export interface Receiver {
  url: string
  requests: Received[]
  close(): Promise<void>
}

/** A real local webhook receiver on port 0; `answer` picks the status for the n-th request (1-based). */
export async function startReceiver(answer: (n: number, request: Received) => number | 'hang' | { status: number; headers: Record<string, string> } = () => 200): Promise<Receiver> {
  const { createServer } = await import('node:http')
  const requests: Received[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() }
      requests.push(received)
      const decision = answer(requests.length, received)
      if (decision === 'hang') return
      const { status, headers } = typeof decision === 'number' ? { status: decision, headers: {} } : decision
      res.writeHead(status, headers).end()
    })
  })
  const { url, close } = await listenLocally(server)
  cleanups.push(close)
  return { url: `${url}/hook`, requests, close }
}

/** A test's own server (an upstream, a receiver) listening on 127.0.0.1, port 0; `close` drops its open connections too. */
export async function listenLocally(server: import('node:http').Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

/** Polls `check` until it returns a truthy value or the time is up. */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 8000, what = 'condition'): Promise<Exclude<T, null | undefined | false | 0 | ''>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value as Exclude<T, null | undefined | false | 0 | ''>
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** The system's time, which the test can move forward: expiry without waiting. */
export function testClock(): Clock & { advance(ms: number): void } {
  let ahead = 0
  return { now: () => new Date(Date.now() + ahead), advance: (ms) => void (ahead += ms) }
}

/** Changes made by this process reach a spawned server's caches within 50 ms. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 60))
}

/**
 * What every robustness test ends with: the server still answers, the file passes SQLite's own
 * checks, and the delivery log agrees with the queue: no attempt logged twice, and never more
 * attempts logged for a delivery than it counts (retention may prune old attempts, so fewer is fine).
 */
export async function expectAliveAndIntact(url: string, dbPath: string): Promise<void> {
  const health = await fetch(`${url}/api/health`)
  expect(health.status).toBe(200)
  const { default: Database } = await import('better-sqlite3')
  const file = new Database(dbPath, { readonly: true, fileMustExist: true })
  try {
    expect(file.pragma('integrity_check', { simple: true })).toBe('ok')
    expect(file.pragma('foreign_key_check')).toEqual([])
    const overLogged = file.prepare(
      'SELECT d.id FROM deliveries d WHERE (SELECT count(*) FROM attempts a WHERE a.delivery_id = d.id) > d.attempts',
    ).all()
    expect(overLogged).toEqual([])
    const twice = file.prepare('SELECT delivery_id, attempt FROM attempts GROUP BY delivery_id, attempt HAVING count(*) > 1').all()
    expect(twice).toEqual([])
  } finally {
    file.close()
  }
}
