#!/usr/bin/env node
// npm run bench: measures mockapi against a bare node:http server on loopback, in one run.
// The server under test runs in a child process so the load generator has its own core.
import autocannon from 'autocannon'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = 50

const { openRuntime } = await import(join(ROOT, 'dist/runtime.js'))
const { createProject } = await import(join(ROOT, 'dist/domain/projects.js'))
const { createResource } = await import(join(ROOT, 'dist/domain/resources.js'))
const { insertRecord } = await import(join(ROOT, 'dist/domain/records.js'))
const { createSubscription } = await import(join(ROOT, 'dist/domain/subscriptions.js'))

function seed(dbPath) {
  const runtime = openRuntime(dbPath)
  const { store } = runtime
  createProject(store, { name: 'Bench', slug: 'bench' })
  const statuses = ['active', 'inactive', 'archived']
  const fill = (path, count) => {
    const { resource } = createResource(store, { path })
    store.db.transaction(() => {
      for (let i = 1; i <= count; i += 1) {
        insertRecord(store, resource.collectionId, {
          title: `Item number ${i}`, status: statuses[i % 3], price: (i * 7919) % 1000, createdAt: new Date(1_700_000_000_000 + i * 60_000).toISOString(),
        })
      }
    })()
  }
  fill('/api/items', 1_000)
  fill('/api/pages', 10_000)
  runtime.close()
}

/** Subscribes a second project (same data shape) to a receiver, so its requests raise events. */
function subscribe(dbPath, targetUrl) {
  const runtime = openRuntime(dbPath)
  const { store } = runtime
  const project = createProject(store, { name: 'Hooked', slug: 'hooked' })
  const { resource } = createResource(store, { project: 'hooked', path: '/api/items' })
  store.db.transaction(() => {
    for (let i = 1; i <= 1_000; i += 1) insertRecord(store, resource.collectionId, { title: `Item number ${i}`, status: 'active' })
  })()
  createSubscription(store, project, { name: 'bench', targetUrl, events: ['mock.request'] })
  runtime.close()
}

function startReceiver() {
  let received = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      received += 1
      res.writeHead(200).end()
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}/hook`,
    received: () => received,
    stop: () => server.close(),
  })))
}

/** Deliveries per second the worker sustains, read from the attempts log while it drains a backlog. */
async function deliveryRate(dbPath, seconds) {
  const runtime = openRuntime(dbPath)
  const count = runtime.store.db.prepare('SELECT count(*) FROM attempts WHERE succeeded = 1').pluck()
  const backlog = runtime.store.db.prepare("SELECT count(*) FROM deliveries WHERE state IN ('pending', 'sending')").pluck()
  const before = count.get()
  const started = Date.now()
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
  const rate = Math.round((count.get() - before) / ((Date.now() - started) / 1000))
  const left = backlog.get()
  runtime.close()
  return { rate, left }
}

function startMockapi(dbPath) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/mockapi.js'), '--db', dbPath, 'serve', '--port', '0', '--quiet'])
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
      const match = /listening on (http:\/\/\S+)/.exec(out)
      if (match) resolve({ url: match[1], stop: () => child.kill('SIGTERM') })
    })
    child.on('exit', () => reject(new Error(`mockapi exited:\n${out}`)))
  })
}

function startBare() {
  const body = JSON.stringify({ id: '1', title: 'Item number 1', status: 'active', price: 919 })
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    res.end(body)
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}`, stop: () => server.close() })))
}

async function measure(url, options = {}) {
  await autocannon({ url, connections: CONNECTIONS, duration: 1, ...options }) // warm-up
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, ...options })
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx }
}

const dir = mkdtempSync(join(tmpdir(), 'mockapi-bench-'))
const dbPath = join(dir, 'bench.db')
try {
  seed(dbPath)
  const receiver = await startReceiver()
  subscribe(dbPath, receiver.url)
  const bare = await startBare()
  const baseline = await measure(`${bare.url}/`)
  bare.stop()
  const mock = await startMockapi(dbPath)
  const scenarios = [
    ['bare node:http, fixed JSON', baseline],
    ['GET one item of 1,000', await measure(`${mock.url}/api/bench/items/500`)],
    ['GET page 3 of 20 from 10,000', await measure(`${mock.url}/api/bench/pages?page=3&limit=20`)],
    ['POST create', await measure(`${mock.url}/api/bench/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"new","status":"active"}' })],
    ['GET item, 1 subscription active', await measure(`${mock.url}/api/hooked/items/500`)],
  ]
  const delivery = await deliveryRate(dbPath, 5)
  mock.stop()
  receiver.stop()
  console.log(`\nmockapi bench — ${CONNECTIONS} connections, ${DURATION_S}s per scenario, ${new Date().toISOString()}\n`)
  console.log(`${'scenario'.padEnd(32)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'errors'.padStart(7)} ${'vs bare'.padStart(8)}`)
  for (const [name, r] of scenarios) {
    console.log(`${name.padEnd(32)} ${String(r.rps).padStart(8)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${String(r.errors).padStart(7)} ${(r.rps / baseline.rps).toFixed(2).padStart(8)}`)
  }
  console.log(`\nwebhook deliveries sustained by the worker to a local receiver: ${delivery.rate}/s (backlog left after the window: ${delivery.left})`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
