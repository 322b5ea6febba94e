#!/usr/bin/env node
// npm run bench [-- --peers]: mockapi against a bare node:http server on loopback, in one run.
// Each server runs in its own process; the load generator (wrk or autocannon) in another.
import { execFileSync, spawn } from 'node:child_process'
import { createServer as createNetServer } from 'node:net'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, homedir, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CONNECTIONS, hasWrk, measure } from './load.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PEERS = process.argv.includes('--peers')
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6)
const BIN = join(ROOT, 'bin/mockapi.js')

const { openRuntime } = await import(join(ROOT, 'dist/runtime.js'))
const { createProject } = await import(join(ROOT, 'dist/domain/projects.js'))
const { createResource } = await import(join(ROOT, 'dist/domain/resources.js'))
const { insertRecord } = await import(join(ROOT, 'dist/domain/records.js'))
const { createSubscription } = await import(join(ROOT, 'dist/domain/subscriptions.js'))

const STATUSES = ['active', 'inactive', 'archived']
const item = (i) => ({ title: `Item number ${i}`, status: STATUSES[i % 3], price: (i * 7919) % 1000, createdAt: new Date(1_700_000_000_000 + ((i * 7919) % 100_000) * 60_000).toISOString() })

function seed(dbPath, receiverUrl) {
  const runtime = openRuntime(dbPath)
  const { store } = runtime
  createProject(store, { name: 'Bench', slug: 'bench' })
  const fill = (project, path, count) => {
    const { resource } = createResource(store, { project, path })
    store.db.transaction(() => {
      for (let i = 1; i <= count; i += 1) insertRecord(store, resource.collectionId, item(i))
    })()
  }
  fill('bench', '/api/items', 1_000)
  fill('bench', '/api/pages', 10_000)
  fill('bench', '/api/bigs', 100_000)
  const hooked = createProject(store, { name: 'Hooked', slug: 'hooked' })
  fill('hooked', '/api/items', 1_000)
  createSubscription(store, hooked, { name: 'bench', targetUrl: receiverUrl, events: ['mock.request'] })
  runtime.close()
}

/** Starts a server process and resolves once it prints its URL. */
function start(args, { match = /listening on (http:\/\/\S+)/, cwd = ROOT, env = {} } = {}) {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(args[0], args.slice(1), { cwd, env: { ...process.env, ...env } })
    let out = ''
    const onData = (chunk) => {
      out += chunk
      const found = match.exec(out)
      if (found) {
        child.stdout.off('data', onData)
        resolve({ url: found[1], pid: child.pid, startedMs: performance.now() - started, stop: () => new Promise((done) => { child.once('exit', done); child.kill('SIGTERM') }) })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', (chunk) => (out += chunk))
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}):\n${out}`)))
  })
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024)
}

async function scenario(results, name, server, url, options = {}) {
  const result = await measure(url, { ...options, seconds: SECONDS })
  results.push({ name, ...result, rssMb: rssMb(server.pid) })
  console.error(`  ${name}: ${result.rps} req/s`)
}

/** Deliveries per second, read from the attempts log while the worker drains its backlog. */
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

function freePort() {
  return new Promise((resolve) => {
    const probe = createNetServer()
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
}

/** Spawn to first 200, median of 5. */
async function coldStart(args, firstUrl, options) {
  const times = []
  for (let i = 0; i < 5; i += 1) {
    const started = performance.now()
    const server = await start(args, options)
    const response = await fetch(`${server.url}${firstUrl}`)
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`cold start answered ${response.status}`)
    times.push(performance.now() - started)
    await server.stop()
  }
  return Math.round(times.sort((a, b) => a - b)[2])
}

async function peers(dir, results) {
  const cache = join(homedir(), '.cache', 'mockapi-bench-peers')
  if (!existsSync(join(cache, 'node_modules', 'json-server', 'package.json'))) {
    mkdirSync(cache, { recursive: true })
    console.error(`  installing json-server@0.17.4 into ${cache}`)
    execFileSync('npm', ['install', '--prefix', cache, '--no-audit', '--no-fund', 'json-server@0.17.4'], { stdio: 'ignore' })
  }
  const db = { items: Array.from({ length: 1000 }, (_, i) => ({ id: i + 1, ...item(i + 1) })), pages: Array.from({ length: 10_000 }, (_, i) => ({ id: i + 1, ...item(i + 1) })) }
  writeFileSync(join(dir, 'db.json'), JSON.stringify(db))
  // json-server 0.17 takes no port 0 and prints nothing useful with --quiet: a free port, then poll.
  const port = await freePort()
  const child = spawn(process.execPath, [join(cache, 'node_modules', 'json-server', 'lib', 'cli', 'bin.js'), 'db.json', '--port', String(port), '--host', '127.0.0.1', '--quiet'], { cwd: dir, stdio: 'ignore' })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 30_000
  for (;;) {
    const ok = await fetch(`${url}/items/1`).then((r) => r.ok, () => false)
    if (ok) break
    if (Date.now() > deadline) throw new Error('json-server did not start')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const server = { pid: child.pid, stop: () => new Promise((done) => { child.once('exit', done); child.kill('SIGTERM') }) }
  await scenario(results, 'json-server 0.17.4: GET item', server, `${url}/items/500`)
  await scenario(results, 'json-server 0.17.4: GET page 3 of 20', server, `${url}/pages?_page=3&_limit=20`)
  await scenario(results, 'json-server 0.17.4: POST create', server, `${url}/items`, { method: 'POST', body: '{"title":"new","status":"active"}' })
  await server.stop()
}

const dir = mkdtempSync(join(tmpdir(), 'mockapi-bench-'))
const dbPath = join(dir, 'bench.db')
try {
  const receiver = await start([process.execPath, join(ROOT, 'bench/servers/receiver.mjs')])
  seed(dbPath, `${receiver.url}/hook`)
  const results = []

  const bare = await start([process.execPath, join(ROOT, 'bench/servers/bare-http.mjs')])
  await scenario(results, 'bare node:http, fixed JSON', bare, `${bare.url}/`)
  await bare.stop()

  const mock = await start([process.execPath, BIN, '--db', dbPath, 'serve', '--port', '0', '--quiet'])
  const base = `${mock.url}/api/bench`
  await scenario(results, '1 GET one item of 1,000', mock, `${base}/items/500`)
  await scenario(results, '2 GET page 3 of 20 from 10,000', mock, `${base}/pages?page=3&limit=20`)
  await scenario(results, '3 filtered+sorted page, 100,000', mock, `${base}/bigs?status=active&sort=createdAt&order=desc&page=2&limit=20`)
  await scenario(results, '4 POST create', mock, `${base}/items`, { method: 'POST', body: '{"title":"new","status":"active"}' })
  await scenario(results, '5 GET item, 1 subscription on', mock, `${mock.url}/api/hooked/items/500`)
  const delivery = await deliveryRate(dbPath, 5)
  await mock.stop()
  await receiver.stop()

  const cold = await coldStart([process.execPath, BIN, '--db', dbPath, 'serve', '--port', '0', '--quiet'], '/api/bench/items/1')
  const coldBare = await coldStart([process.execPath, join(ROOT, 'bench/servers/bare-h3-sqlite.mjs'), dbPath], '/')
  if (PEERS) await peers(dir, results)

  const ceiling = results[0].rps
  const when = new Date().toISOString()
  console.log(`\nmockapi bench — ${when}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`)
  console.log(`load: ${hasWrk ? 'wrk, 2 threads' : 'autocannon'}, ${CONNECTIONS} connections, 2 s warm-up, ${SECONDS} s per scenario\n`)
  console.log(`${'scenario'.padEnd(40)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'errors'.padStart(7)} ${'RSS MB'.padStart(7)} ${'vs bare'.padStart(8)}`)
  for (const r of results) {
    console.log(`${r.name.padEnd(40)} ${String(r.rps).padStart(8)} ${r.p50.toFixed(2).padStart(7)} ${r.p99.toFixed(2).padStart(7)} ${String(r.errors).padStart(7)} ${String(r.rssMb).padStart(7)} ${(r.rps / ceiling).toFixed(2).padStart(8)}`)
  }
  const item1 = results.find((r) => r.name.startsWith('1 '))
  const hooked = results.find((r) => r.name.startsWith('5 '))
  console.log(`\n6 webhook deliveries sustained by the worker: ${delivery.rate}/s (backlog after the window: ${delivery.left})`)
  console.log(`  one active subscription costs ${(100 * (1 - hooked.rps / item1.rps)).toFixed(0)} % of scenario 1`)
  console.log(`7 cold start, spawn to first 200 (median of 5): mockapi ${cold} ms; bare h3 + better-sqlite3 on this machine ${coldBare} ms`)
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench/results/latest.json'), JSON.stringify({ when, tool: hasWrk ? 'wrk' : 'autocannon', connections: CONNECTIONS, seconds: SECONDS, results, deliveriesPerSecond: delivery.rate, coldStartMs: cold, coldStartBareMs: coldBare }, null, 2))
} finally {
  rmSync(dir, { recursive: true, force: true })
}
