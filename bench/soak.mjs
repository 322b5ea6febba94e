#!/usr/bin/env node
// npm run soak: after a warm-up, 5,000 mock requests + 5,000 inbox posts + 1,000 management calls;
// heapUsed after GC must stay within 5 % of the baseline. Loopback only, bounded, stops by itself.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc (npm run soak does)')
  process.exit(2)
}
const ROOT = fileURLToPath(new URL('..', import.meta.url))
if (process.argv.includes('--faults')) {
  await import('./soak-faults.mjs')
  process.exit()
}
const { startServer } = await import(join(ROOT, 'dist/server/start.js'))
const { openRuntime } = await import(join(ROOT, 'dist/runtime.js'))
const { mintToken } = await import(join(ROOT, 'dist/domain/auth.js'))
const { createSubscription } = await import(join(ROOT, 'dist/domain/subscriptions.js'))
const { createServer } = await import('node:http')

const CONCURRENCY = 20
const dir = mkdtempSync(join(tmpdir(), 'mockapi-soak-'))
const dbPath = join(dir, 'soak.db')

const receiver = createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(200).end()) })
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve))

const server = await startServer({ dbPath, port: 0, host: '127.0.0.1', retryDelaysMs: [50, 100] })
const setup = openRuntime(dbPath)
const project = setup.context.repos.projects.bySlug('demo')
createSubscription(setup.context, project, { name: 'soak', targetUrl: `http://127.0.0.1:${receiver.address().port}/hook`, events: ['mock.request', 'mock.error'] })
const token = await mintToken(setup.context, { expiresInMs: 3_600_000 })
setup.close()

const base = server.url
const mock = (i) => (i % 4 === 0
  ? fetch(`${base}/api/demo/comments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ body: `c${i}`, postId: '1' }) })
  : fetch(`${base}/api/demo/posts?sort=title&page=${(i % 3) + 1}&limit=2`))
const inbox = (i) => fetch(`${base}/api/webhooks/inbox/demo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'soak', i, pad: 'x'.repeat(200) }) })
const admin = (i) => fetch(`${base}/api/projects/${project.id}/${i % 2 ? 'webhooks?deliveries=true' : 'webhook-inbox?limit=20'}`, { headers: { authorization: `Bearer ${token}` } })

async function run(count, make) {
  let next = 0
  const lanes = Array.from({ length: CONCURRENCY }, async () => {
    while (next < count) {
      const response = await make(next++)
      await response.arrayBuffer()
      if (response.status >= 500) throw new Error(`HTTP ${response.status}`)
    }
  })
  await Promise.all(lanes)
}

async function settledHeap() {
  // Let deliveries and pruning catch up, then collect until the heap stops shrinking.
  await new Promise((resolve) => setTimeout(resolve, 6000))
  let heap = Infinity
  for (let i = 0; i < 5; i += 1) {
    globalThis.gc()
    await new Promise((resolve) => setTimeout(resolve, 100))
    heap = Math.min(heap, process.memoryUsage().heapUsed)
  }
  return heap
}

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MB`
try {
  const started = Date.now()
  await run(1000, mock); await run(1000, inbox); await run(200, admin)
  const baseline = await settledHeap()
  await run(5000, mock); await run(5000, inbox); await run(1000, admin)
  const after = await settledHeap()
  const runtime = openRuntime(dbPath)
  const rows = runtime.context.db.prepare('SELECT (SELECT count(*) FROM inbox), (SELECT count(*) FROM attempts), (SELECT count(*) FROM events)').raw().get()
  runtime.close()
  const ratio = after / baseline
  console.log(`soak: baseline heapUsed ${mb(baseline)}, after ${mb(after)} (${ratio.toFixed(3)}×), ${((Date.now() - started) / 1000).toFixed(1)} s`)
  console.log(`log tables after the run: inbox ${rows[0]} rows, attempts ${rows[1]}, events ${rows[2]} (retention 1,000 per project / subscription)`)
  console.log(ratio <= 1.05 ? 'PASS: heap within 5 % of the baseline' : 'FAIL: heap grew more than 5 %')
  process.exitCode = ratio <= 1.05 ? 0 : 1
} finally {
  await server.close()
  receiver.close()
  rmSync(dir, { recursive: true, force: true })
}
