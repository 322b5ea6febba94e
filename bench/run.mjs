#!/usr/bin/env node
// npm run bench [-- --peers]: mockapi against a bare node:http server on loopback, in one run.
// npm run bench -- --journal: only what the request journal costs (GET one item, on and off, alternating).
// Each server runs in its own process; the load generator (wrk or autocannon) in another.
import { execFileSync, spawn } from 'node:child_process'
import { createServer as createNetServer } from 'node:net'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, homedir, tmpdir, totalmem } from 'node:os'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CONNECTIONS, hasWrk, measure } from './load.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PEERS = process.argv.includes('--peers')
const JOURNAL_ONLY = process.argv.includes('--journal')
/** On/off pairs of the journal measurement: the machine is noisy, so runs alternate and the medians are compared. */
const JOURNAL_ROUNDS = Number(process.env.BENCH_JOURNAL_ROUNDS ?? 2)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6)
const BIN = join(ROOT, 'bin/mockapi.js')
const PEER_CACHE = join(homedir(), '.cache', 'mockapi-bench-peers')

const { openRuntime } = await import(join(ROOT, 'dist/runtime.js'))
const { createProject } = await import(join(ROOT, 'dist/domain/projects.js'))
const { createResource } = await import(join(ROOT, 'dist/domain/resources.js'))
const { insertRecord } = await import(join(ROOT, 'dist/domain/records.js'))
const { createSubscription } = await import(join(ROOT, 'dist/domain/subscriptions.js'))

const STATUSES = ['active', 'inactive', 'archived']
/** Scenario 3b: both json-server dialects' operators, a full-text q and two sort fields, on the page after the first. */
const OPERATORS_AND_Q = 'price_gte=500&status:ne=archived&q=number%2012&sort=-price,title&_page=2&_per_page=20'
const item = (i) => ({ title: `Item number ${i}`, status: STATUSES[i % 3], price: (i * 7919) % 1000, createdAt: new Date(1_700_000_000_000 + ((i * 7919) % 100_000) * 60_000).toISOString() })

/** The bench projects; `itemsOnly` (the journal's measurement) seeds just the 1,000 items GET one item reads. */
function seed(dbPath, receiverUrl, itemsOnly = false) {
  const runtime = openRuntime(dbPath)
  const { context: store } = runtime
  createProject(store, { name: 'Bench', slug: 'bench' })
  const fill = (project, path, count) => {
    const { resource } = createResource(store, { project, path })
    store.db.transaction(() => {
      for (let i = 1; i <= count; i += 1) insertRecord(store, resource.collectionId, item(i))
    })()
  }
  fill('bench', '/api/items', 1_000)
  if (itemsOnly) return runtime.close()
  fill('bench', '/api/pages', 10_000)
  fill('bench', '/api/bigs', 100_000)
  const hooked = createProject(store, { name: 'Hooked', slug: 'hooked' })
  fill('hooked', '/api/items', 1_000)
  createSubscription(store, hooked, { name: 'bench', targetUrl: receiverUrl, events: ['mock.request'] })
  runtime.close()
}

/** Starts a server process and resolves once it prints its URL. */
function start(args, { match = /listening on (http:\/\/\S+)/, url, cwd = ROOT, env = {} } = {}) {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(args[0], args.slice(1), { cwd, env: { ...process.env, ...env } })
    let out = ''
    const onData = (chunk) => {
      out += chunk
      const found = match.exec(out)
      if (found) {
        child.stdout.off('data', onData)
        resolve({ url: url ?? found[1], pid: child.pid, startedMs: performance.now() - started, stop: () => new Promise((done) => { child.once('exit', done); child.kill('SIGTERM') }) })
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

/** CPU time (user + system) a process has used, in ms: a cost the other loads of a shared machine disturb less than throughput. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  // utime and stime, fields 14 and 15 of stat, in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : Math.round((sorted[middle - 1] + sorted[middle]) / 2)
}

/**
 * GET one item with the journal on (the default) and off (`--journal 0`), each in a fresh serve,
 * alternating on, off, on, off…; the cost is one minus the ratio of the medians.
 */
async function journalCost(dbPath) {
  const rps = { on: [], off: [] }
  const cpuUs = { on: [], off: [] }
  let off = null
  for (let round = 0; round < JOURNAL_ROUNDS; round += 1) {
    for (const mode of ['on', 'off']) {
      const server = await start([process.execPath, BIN, '--db', dbPath, 'serve', '--port', '0', '--quiet', ...(mode === 'off' ? ['--journal', '0'] : [])])
      let cpuBefore = 0
      const result = await measure(`${server.url}/api/bench/items/500`, { seconds: SECONDS, afterWarmUp: () => (cpuBefore = cpuMs(server.pid)) })
      const perRequest = Math.round((1000 * (cpuMs(server.pid) - cpuBefore)) / (result.rps * SECONDS))
      if (mode === 'off') off = { ...result, rssMb: rssMb(server.pid) }
      rps[mode].push(result.rps)
      cpuUs[mode].push(perRequest)
      console.error(`  GET one item, journal ${mode} (round ${round + 1}): ${result.rps} req/s, ${perRequest} µs CPU per request`)
      await server.stop()
    }
  }
  const on = median(rps.on)
  const offRps = median(rps.off)
  const cpu = { on: median(cpuUs.on), off: median(cpuUs.off) }
  return {
    on, off: offRps, runs: rps, costPct: Math.round(1000 * (1 - on / offRps)) / 10,
    cpu, cpuRuns: cpuUs, cpuCostPct: Math.round(1000 * (cpu.on / cpu.off - 1)) / 10,
    offResult: { ...off, rps: offRps },
  }
}

function journalLine(journal) {
  return [
    `  the journal costs ${journal.cpuCostPct} % more CPU per GET one item (${journal.cpu.on} µs on [${journal.cpuRuns.on.join(', ')}], ${journal.cpu.off} µs off [${journal.cpuRuns.off.join(', ')}]: medians of ${JOURNAL_ROUNDS} alternating runs each)`,
    `  and ${journal.costPct} % of its throughput (on ${journal.on} req/s [${journal.runs.on.join(', ')}], off ${journal.off} req/s [${journal.runs.off.join(', ')}])`,
  ].join('\n')
}

/** Deliveries per second, read from the attempts log while the worker drains its backlog. */
async function deliveryRate(dbPath, seconds) {
  const runtime = openRuntime(dbPath)
  const count = runtime.context.db.prepare('SELECT count(*) FROM attempts WHERE succeeded = 1').pluck()
  const backlog = runtime.context.db.prepare("SELECT count(*) FROM deliveries WHERE state IN ('pending', 'sending')").pluck()
  const before = count.get()
  const started = Date.now()
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
  const rate = Math.round((count.get() - before) / ((Date.now() - started) / 1000))
  const left = backlog.get()
  runtime.close()
  return { rate, left }
}

/** `mockapi reset` of a resource seeded with 100,000 records, spawn to exit. */
function resetTime(dir) {
  const db = join(dir, 'reset.db')
  const cli = (...args) => execFileSync(process.execPath, [BIN, '--db', db, ...args], { stdio: 'ignore' })
  cli('init', '--yes', '--name', 'Reset', '--slug', 'reset')
  cli('add-resource', '/api/items', '--fields', 'title:lorem.word,n:number.int', '--seed', '100000', '--seed-value', '1')
  const started = performance.now()
  cli('reset')
  return Math.round(performance.now() - started)
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

/** Installs a peer into the cache outside the repo, once; later runs reuse it. */
function installPeer(name, spec, isWanted) {
  const manifest = join(PEER_CACHE, 'node_modules', name, 'package.json')
  if (!existsSync(manifest) || !isWanted(JSON.parse(readFileSync(manifest, 'utf8')).version)) {
    mkdirSync(PEER_CACHE, { recursive: true })
    console.error(`  installing ${spec} into ${PEER_CACHE}`)
    execFileSync('npm', ['install', '--prefix', PEER_CACHE, '--no-audit', '--no-fund', spec], { stdio: 'ignore', timeout: 300_000 })
  }
  return { dir: join(PEER_CACHE, 'node_modules', name), version: JSON.parse(readFileSync(manifest, 'utf8')).version }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const answers = (url) => fetch(url, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false)

/**
 * Spawns a peer that prints nothing usable (json-server --quiet, Mockoon's per-request JSON log),
 * so stdout goes to /dev/null rather than through this process, and readiness is polled.
 */
async function spawnPeer(label, args, { cwd, env = {}, probe }) {
  const child = spawn(args[0], args.slice(1), { cwd, env: { ...process.env, ...env }, stdio: 'ignore' })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const deadline = Date.now() + 30_000
  while (!(await answers(probe))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${label} did not start`)
    }
    await sleep(100)
  }
  const stop = async () => {
    child.kill('SIGTERM')
    if (await Promise.race([exited.then(() => true), sleep(5000)]) !== true) {
      child.kill('SIGKILL')
      await exited
    }
    // A forked worker would outlive its parent and skew the next peer's numbers.
    if (await answers(probe)) throw new Error(`${label} still answers after its process exited`)
  }
  return { pid: child.pid, stop }
}

/** One request per scenario before loading it, so a misconfigured peer cannot post fast 404s. */
async function verify(label, checks) {
  for (const [url, init, ok] of checks) {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(5000) })
    const body = await response.json().catch(() => null)
    if (!ok(response.status, body)) throw new Error(`${label}: unexpected ${response.status} from ${init?.method ?? 'GET'} ${url}: ${JSON.stringify(body)?.slice(0, 200)}`)
  }
}

const POST = { method: 'POST', body: '{"title":"new","status":"active"}' }
const postInit = { ...POST, headers: { 'content-type': 'application/json' } }

/** Item 500, page 3 of 20 (ids 41 to 60), a created item: the same answers from every peer. */
const peerChecks = (itemUrl, pageUrl, createUrl) => [
  [itemUrl, undefined, (status, body) => status === 200 && body?.id === 500],
  [pageUrl, undefined, (status, body) => status === 200 && Array.isArray(body) && body.length === 20 && body[0].id === 41],
  [createUrl, postInit, (status, body) => (status === 201 || status === 200) && body?.id !== undefined],
]

async function jsonServer(dir, data, results) {
  const peer = installPeer('json-server', 'json-server@0.17.4', (version) => version === '0.17.4')
  writeFileSync(join(dir, 'db.json'), JSON.stringify(data))
  // json-server 0.17 takes no port 0: a free port, then poll.
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const server = await spawnPeer('json-server', [process.execPath, join(peer.dir, 'lib', 'cli', 'bin.js'), 'db.json', '--port', String(port), '--host', '127.0.0.1', '--quiet'], { cwd: dir, probe: `${url}/items/1` })
  try {
    await verify('json-server', peerChecks(`${url}/items/500`, `${url}/pages?_page=3&_limit=20`, `${url}/items`))
    await scenario(results, 'json-server 0.17.4: GET item', server, `${url}/items/500`)
    await scenario(results, 'json-server 0.17.4: GET page 3 of 20', server, `${url}/pages?_page=3&_limit=20`)
    await scenario(results, 'json-server 0.17.4: POST create', server, `${url}/items`, POST)
  } finally {
    await server.stop()
  }
}

/**
 * A Mockoon environment built with Mockoon's own builders, so the file matches the installed
 * version's schema and migration number: one data bucket per collection, each behind a CRUD route.
 */
function mockoonEnvironment(cliDir, data) {
  const commons = createRequire(join(cliDir, 'package.json'))('@mockoon/commons')
  const environment = { ...commons.BuildEnvironment({ hasDefaultRoute: false, hasContentTypeHeader: true, hasCorsHeaders: true }), name: 'mockapi bench' }
  for (const [name, rows] of Object.entries(data)) {
    const bucket = commons.BuildDatabucket({ name, value: JSON.stringify(rows) })
    const route = commons.BuildCRUDRoute(true, { endpoint: name, databucketID: bucket.id })
    environment.data.push(bucket)
    environment.routes.push(route)
    environment.rootChildren.push({ type: 'route', uuid: route.uuid })
  }
  return environment
}

async function mockoon(dir, data, results) {
  const peer = installPeer('@mockoon/cli', '@mockoon/cli@9', (version) => version.startsWith('9.'))
  const label = `Mockoon CLI ${peer.version}`
  writeFileSync(join(dir, 'mockoon.json'), JSON.stringify(mockoonEnvironment(peer.dir, data)))
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  // -X: no log file. HOME: the CLI creates ~/.mockoon-cli/logs on every start; keep it in the temp dir.
  // No admin API: nothing here uses it, and it would print a generated token.
  const args = [process.execPath, join(peer.dir, 'bin', 'run.js'), 'start', '--data', 'mockoon.json', '--port', String(port), '--hostname', '127.0.0.1', '--disable-log-to-file', '--disable-admin-api']
  const options = { cwd: dir, env: { HOME: dir } }
  const server = await spawnPeer(label, args, { ...options, probe: `${url}/items/1` })
  try {
    // CRUD routes paginate with page and limit; either one present turns paging on.
    await verify(label, peerChecks(`${url}/items/500`, `${url}/pages?page=3&limit=20`, `${url}/items`))
    await scenario(results, `${label}: GET item`, server, `${url}/items/500`)
    await scenario(results, `${label}: GET page 3 of 20`, server, `${url}/pages?page=3&limit=20`)
    await scenario(results, `${label}: POST create`, server, `${url}/items`, POST)
  } finally {
    await server.stop()
  }
  // Mockoon logs one JSON line once listening; the environment's buckets are parsed before that.
  const coldMs = await coldStart(args, '/items/1', { ...options, match: /"message":"Server started on port \d+"/, url })
  return { label, coldMs }
}

/** json-server and Mockoon on the same rows mockapi serves; returns Mockoon's cold start. */
async function peers(dir, results) {
  const rows = (count) => Array.from({ length: count }, (_, i) => ({ id: i + 1, ...item(i + 1) }))
  const data = { items: rows(1_000), pages: rows(10_000) }
  await jsonServer(dir, data, results)
  return mockoon(dir, data, results)
}

const dir = mkdtempSync(join(tmpdir(), 'mockapi-bench-'))
const dbPath = join(dir, 'bench.db')
if (JOURNAL_ONLY) {
  try {
    seed(dbPath, null, true)
    console.log(journalLine(await journalCost(dbPath)))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  process.exit(0)
}
try {
  const receiver = await start([process.execPath, join(ROOT, 'bench/servers/receiver.mjs')])
  seed(dbPath, `${receiver.url}/hook`)
  const results = []
  // Measured on the freshly seeded database, before the load leaves a delivery backlog and a large WAL behind.
  const cold = await coldStart([process.execPath, BIN, '--db', dbPath, 'serve', '--port', '0', '--quiet'], '/api/bench/items/1')
  const coldBare = await coldStart([process.execPath, join(ROOT, 'bench/servers/bare-h3-sqlite.mjs'), dbPath], '/')

  const bare = await start([process.execPath, join(ROOT, 'bench/servers/bare-http.mjs')])
  await scenario(results, 'bare node:http, fixed JSON', bare, `${bare.url}/`)
  await bare.stop()

  const mock = await start([process.execPath, BIN, '--db', dbPath, 'serve', '--port', '0', '--quiet'])
  const base = `${mock.url}/api/bench`
  await scenario(results, '1 GET one item of 1,000', mock, `${base}/items/500`)
  await scenario(results, '2 GET page 3 of 20 from 10,000', mock, `${base}/pages?page=3&limit=20`)
  await scenario(results, '3 filtered+sorted page, 100,000', mock, `${base}/bigs?status=active&sort=createdAt&order=desc&page=2&limit=20`)
  // The first search of a large collection builds its text and field indexes (seconds, once): timed alone, so the scenario measures the steady state.
  const firstSearch = performance.now()
  await fetch(`${base}/bigs?${OPERATORS_AND_Q}`).then((response) => response.arrayBuffer())
  const firstSearchMs = Math.round(performance.now() - firstSearch)
  await scenario(results, '3b operators+q page, 100,000', mock, `${base}/bigs?${OPERATORS_AND_Q}`)
  await scenario(results, '4 POST create', mock, `${base}/items`, { method: 'POST', body: '{"title":"new","status":"active"}' })
  await scenario(results, '5 GET item, 1 subscription on', mock, `${mock.url}/api/hooked/items/500`)
  const delivery = await deliveryRate(dbPath, 5)
  await mock.stop()
  await receiver.stop()
  const journal = await journalCost(dbPath)
  results.push({ name: '1b GET one item, journal off', ...journal.offResult })

  const coldAfterLoad = await coldStart([process.execPath, BIN, '--db', dbPath, 'serve', '--port', '0', '--quiet'], '/api/bench/items/1')
  const peerCold = PEERS ? await peers(dir, results) : undefined
  const resetMs = resetTime(dir)

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
  console.log(`\n3b's first request, which builds the text and field indexes it walks: ${firstSearchMs} ms`)
  console.log(`6 webhook deliveries sustained by the worker: ${delivery.rate}/s (backlog after the window: ${delivery.left})`)
  console.log(`  one active subscription costs ${(100 * (1 - hooked.rps / item1.rps)).toFixed(0)} % of scenario 1`)
  console.log(journalLine(journal))
  console.log(`7 cold start, spawn to first 200 (median of 5): mockapi ${cold} ms; bare h3 + better-sqlite3 on this machine ${coldBare} ms`)
  console.log(`  restart after the load (delivery backlog, receiver gone): mockapi ${coldAfterLoad} ms`)
  if (peerCold) console.log(`  ${peerCold.label}, same 1,000 + 10,000 items: ${peerCold.coldMs} ms`)
  console.log(`8 reset of 100,000 seeded records (mockapi reset, spawn to exit): ${resetMs} ms`)
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true })
  writeFileSync(join(ROOT, 'bench/results/latest.json'), JSON.stringify({ when, tool: hasWrk ? 'wrk' : 'autocannon', connections: CONNECTIONS, seconds: SECONDS, results, deliveriesPerSecond: delivery.rate, journal: { onRps: journal.on, offRps: journal.off, runs: journal.runs, costPct: journal.costPct, cpuUsPerRequest: journal.cpu, cpuRuns: journal.cpuRuns, cpuCostPct: journal.cpuCostPct }, coldStartMs: cold, coldStartBareMs: coldBare, coldStartAfterLoadMs: coldAfterLoad, coldStartMockoonMs: peerCold?.coldMs, reset100kMs: resetMs }, null, 2))
} finally {
  rmSync(dir, { recursive: true, force: true })
}
