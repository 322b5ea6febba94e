// npm run soak -- --faults [--seconds N]: load and deliveries run while admin deletes, re-applies,
// resets, subscription removals (some mid-delivery) and a second process holding the write lock
// for seconds hit the same database, and lanes ask for simulated network faults (reset, empty,
// malformed, hang given up after 50 ms) over a delay range. Passes when serve is alive at the end, no answer was a 5xx
// other than 503 STORE_BUSY, every acknowledged write to the untouched project is stored, the file
// passes SQLite's checks, the delivery log is consistent, and heapUsed after GC is within 5 % of the
// warm-up baseline. Loopback only; bounded in time; stops by itself.
import Database from 'better-sqlite3'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin', 'mockapi.js')
const { startServer } = await import(join(ROOT, 'dist/server/start.js'))
const { openRuntime } = await import(join(ROOT, 'dist/runtime.js'))
const { mintToken } = await import(join(ROOT, 'dist/domain/auth.js'))

const argSeconds = process.argv.indexOf('--seconds')
const SECONDS = argSeconds > 0 ? Number(process.argv[argSeconds + 1]) : Number(process.env.SOAK_SECONDS ?? 60)
const LANES = 16
const dir = mkdtempSync(join(tmpdir(), 'mockapi-soak-faults-'))
const dbPath = join(dir, 'soak.db')
const random = (n) => Math.floor(Math.random() * n)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** The real CLI against the soak's database; resolves with its exit code and output. */
function cli(...args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, '--db', dbPath, ...args], { env: { ...process.env, FORCE_COLOR: '0' } })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('close', (code) => resolve({ code, output }))
  })
}

async function must(...args) {
  const result = await cli(...args)
  if (result.code !== 0) throw new Error(`mockapi ${args.join(' ')} failed:\n${result.output}`)
  return result.output
}

// A second process that takes the write lock and keeps it, as a long `reset` or `apply` would.
function holdLock(ms) {
  const script = `const D=require(${JSON.stringify(join(ROOT, 'node_modules', 'better-sqlite3'))});const d=new D(${JSON.stringify(dbPath)});d.pragma('busy_timeout = 10000');d.exec('BEGIN IMMEDIATE');Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0,${ms});d.exec('COMMIT');d.close()`
  return new Promise((resolve) => spawn(process.execPath, ['-e', script], { stdio: 'ignore' }).on('close', resolve))
}

function receiver(delayMs) {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => setTimeout(() => res.writeHead(200).end(), delayMs))
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}
const hookUrl = (server) => `http://127.0.0.1:${server.address().port}/hook`

await must('init', '--yes', '--name', 'Load', '--slug', 'load', '--resource', '/api/items')
await must('init', '--yes', '--name', 'Chaos', '--slug', 'chaos')
await must('add-endpoint', 'GET', '/api/flaky', '--project', 'load', '--body', '{"ok":true}', '--delay', '0-5')
await must('add-resource', '/api/things', '--project', 'chaos', '--fields', 'title:lorem.sentence,views:int', '--seed', '300')
const fast = await receiver(0)
const slow = await receiver(1500)
await must('webhooks', 'add', hookUrl(fast), '--project', 'load', '--events', 'mock.request')
await must('webhooks', 'add', hookUrl(slow), '--project', 'chaos', '--events', 'mock.request,mock.error')
const chaosFile = join(dir, 'chaos.yaml')
writeFileSync(chaosFile, await must('export', '--project', 'chaos'))

const server = await startServer({ dbPath, port: 0, host: '127.0.0.1', demo: false, retryDelaysMs: [100, 300], deliveryTimeoutMs: 2000 })
const setup = openRuntime(dbPath)
const token = await mintToken(setup.context, { expiresInMs: 3_600_000 })
setup.close()
const base = server.url
const auth = { authorization: `Bearer ${token}` }

const statuses = new Map()
const acknowledged = []
let failures = 0
let stopLoad = false
const NETWORK_FAULTS = ['reset', 'empty', 'malformed', 'hang']
let faultsAsked = 0
let faultsAnswered = 0

/** A simulated network fault must reach the client as a failed fetch, never as an answer. */
async function faultRequest() {
  const fault = NETWORK_FAULTS[random(NETWORK_FAULTS.length)]
  faultsAsked += 1
  try {
    const response = await fetch(`${base}/api/load/flaky`, { headers: { prefer: `fault=${fault}` }, signal: fault === 'hang' ? AbortSignal.timeout(50) : undefined })
    await response.text()
    faultsAnswered += 1
  } catch {
    // Expected: reset, closed, broken or given up.
  }
}

async function request(url, init = {}) {
  try {
    const response = await fetch(url, init)
    const text = await response.text()
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
    return { status: response.status, text }
  } catch (error) {
    failures += 1
    return { status: 0, text: String(error) }
  }
}
const json = (body) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

async function lane() {
  for (let i = 0; !stopLoad; i += 1) {
    const pick = i % 6
    if (pick === 5) await faultRequest()
    else if (pick === 0) {
      const answer = await request(`${base}/api/load/items`, json({ n: i, at: Date.now() }))
      if (answer.status === 201) acknowledged.push(JSON.parse(answer.text).id)
    } else if (pick === 1) await request(`${base}/api/load/items?page=${random(5) + 1}&limit=10`)
    else if (pick === 2) await request(`${base}/api/chaos/things?sort=views&order=desc&limit=5`)
    else if (pick === 3) await request(`${base}/api/chaos/things`, json({ title: `t${i}` }))
    else await request(`${base}/api/webhooks/inbox/load`, json({ i }))
  }
}

async function chaosProjectId() {
  const answer = await request(`${base}/api/projects`, { headers: auth })
  return JSON.parse(answer.text).find((p) => p.slug === 'chaos')?.id
}

const faultCounts = {}
const FAULTS = {
  'hold the write lock 2-6 s': () => holdLock(2000 + random(4000)),
  'reset chaos (CLI)': () => cli('reset', '--project', 'chaos'),
  're-apply chaos with another count (CLI)': async () => {
    writeFileSync(chaosFile, (await must('export', '--project', 'chaos')).replace(/count: \d+/, `count: ${200 + random(300)}`))
    return cli('apply', chaosFile)
  },
  'delete the chaos project, then apply it back (CLI)': async () => {
    await cli('project', 'delete', 'chaos')
    return cli('apply', chaosFile)
  },
  'remove chaos subscriptions mid-delivery (API), then add one back (CLI)': async () => {
    const id = await chaosProjectId()
    if (id === undefined) return
    const list = await request(`${base}/api/projects/${id}/webhooks`, { headers: auth })
    for (const subscription of JSON.parse(list.text)) {
      await request(`${base}/api/projects/${id}/webhooks/${subscription.id}`, { method: 'DELETE', headers: auth })
    }
    return cli('webhooks', 'add', hookUrl(slow), '--project', 'chaos', '--events', 'mock.request,mock.error')
  },
  'remove a chaos subscription (CLI), then add it back': async () => {
    const id = await chaosProjectId()
    if (id === undefined) return
    const list = JSON.parse((await request(`${base}/api/projects/${id}/webhooks`, { headers: auth })).text)
    if (list[0]) await cli('webhooks', 'remove', String(list[0].id))
    return cli('webhooks', 'add', hookUrl(slow), '--project', 'chaos', '--events', 'mock.request')
  },
}

async function faults(until) {
  const names = Object.keys(FAULTS)
  // Every fault at least once per phase, so the warm-up has run (and compiled) every path.
  const unseen = [...names]
  while (Date.now() < until || unseen.length > 0) {
    const name = unseen.length > 0 ? unseen.splice(random(unseen.length), 1)[0] : names[random(names.length)]
    faultCounts[name] = (faultCounts[name] ?? 0) + 1
    await FAULTS[name]()
    await sleep(200 + random(400))
  }
}

async function phase(seconds) {
  stopLoad = false
  const lanes = Array.from({ length: LANES }, lane)
  await faults(Date.now() + seconds * 1000)
  stopLoad = true
  await Promise.all(lanes)
}

// Read right after each collection: deliveries still run between reads, and what they allocate
// in the pause is garbage, not growth.
async function settledHeap() {
  await sleep(4000)
  let heap = Infinity
  for (let i = 0; i < 5; i += 1) {
    await sleep(100)
    globalThis.gc()
    heap = Math.min(heap, process.memoryUsage().heapUsed)
  }
  return heap
}

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MB`
const problems = []
try {
  const started = Date.now()
  await phase(Math.max(10, Math.round(SECONDS / 2)))
  const baseline = await settledHeap()
  await phase(SECONDS)
  const after = await settledHeap()

  const health = await request(`${base}/api/health`)
  if (health.status !== 200) problems.push(`health answered ${health.status}`)
  if (failures > 0) problems.push(`${failures} requests got no answer`)
  if (faultsAnswered > 0) problems.push(`${faultsAnswered} of ${faultsAsked} simulated network faults were answered`)
  for (const [status, count] of statuses) if (status >= 500 && status !== 503) problems.push(`${count} answers with status ${status}`)
  const file = new Database(dbPath, { readonly: true })
  const integrity = file.pragma('integrity_check', { simple: true })
  if (integrity !== 'ok') problems.push(`integrity_check: ${integrity}`)
  const foreign = file.pragma('foreign_key_check')
  if (foreign.length > 0) problems.push(`${foreign.length} foreign key violations`)
  const stored = new Set(file.prepare("SELECT r.id FROM records r JOIN collections c ON c.id = r.collection_id JOIN projects p ON p.id = c.project_id WHERE p.slug = 'load'").pluck().all())
  const lost = acknowledged.filter((id) => !stored.has(id))
  if (lost.length > 0) problems.push(`${lost.length} acknowledged records missing`)
  const twice = file.prepare('SELECT count(*) FROM (SELECT 1 FROM attempts GROUP BY delivery_id, attempt HAVING count(*) > 1)').pluck().get()
  if (twice > 0) problems.push(`${twice} attempts logged twice`)
  const overLogged = file.prepare('SELECT count(*) FROM deliveries d WHERE (SELECT count(*) FROM attempts a WHERE a.delivery_id = d.id) > d.attempts').pluck().get()
  if (overLogged > 0) problems.push(`${overLogged} deliveries with more attempts logged than counted`)
  const attempts = file.prepare('SELECT count(*) FROM attempts').pluck().get()
  file.close()
  const ratio = after / baseline
  if (ratio > 1.05) problems.push(`heap grew ${ratio.toFixed(3)}×`)

  console.log(`soak --faults: ${((Date.now() - started) / 1000).toFixed(1)} s, ${LANES} lanes`)
  console.log(`answers by status: ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(', ')}`)
  console.log(`faults: ${Object.entries(faultCounts).map(([name, n]) => `${name} ×${n}`).join('; ')}`)
  console.log(`simulated network faults asked: ${faultsAsked}, none answered: ${faultsAnswered === 0}`)
  console.log(`acknowledged writes to the untouched project: ${acknowledged.length}, all stored: ${lost.length === 0}; delivery attempts logged: ${attempts}`)
  console.log(`heapUsed after GC: baseline ${mb(baseline)}, after ${mb(after)} (${ratio.toFixed(3)}×)`)
  for (const problem of problems) console.log(`FAIL: ${problem}`)
  if (problems.length === 0) console.log('PASS: serve alive, nothing acknowledged lost, file intact, delivery log consistent, heap within 5 %')
  process.exitCode = problems.length === 0 ? 0 : 1
} finally {
  await server.close()
  fast.close()
  slow.close()
  rmSync(dir, { recursive: true, force: true })
}
