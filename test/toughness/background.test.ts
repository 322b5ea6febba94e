import { afterAll, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { spawn } from 'node:child_process'
import { copyFileSync, existsSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type ServerResponse } from 'node:http'
import { join } from 'node:path'
import { BIN, cleanup, cli, cliProcessAsync, expectAliveAndIntact, send, serve, spawnServe, startReceiver, tempDir, waitFor } from '../_helpers.ts'

afterAll(cleanup)

/** A database with project `t` (resource /api/orders) and project `u` (resource /api/items). */
async function twoProjects() {
  const cwd = tempDir()
  const db = join(cwd, 't.db')
  const ok = async (...args: string[]) => {
    const result = await cli(['--db', db, ...args], { cwd })
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
    return result.stdout
  }
  await ok('init', '--yes', '--name', 'T', '--slug', 't', '--resource', '/api/orders')
  await ok('project', 'create', 'U', '--slug', 'u')
  await ok('add-resource', '/api/items', '--project', 'u')
  return { cwd, db, ok }
}

/** A real receiver that holds every request until the test lets it answer; counts how many it holds at once. */
async function heldReceiver() {
  const waiting: ServerResponse[] = []
  let received = 0
  let holding = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      received += 1
      holding += 1
      res.on('close', () => (holding -= 1))
      waiting.push(res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    received: () => received,
    holding: () => holding,
    release(status = 200) {
      for (const res of waiting.splice(0)) res.writeHead(status).end()
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

function readDb<T>(dbPath: string, read: (file: Database.Database) => T): T {
  const file = new Database(dbPath, { readonly: true, fileMustExist: true })
  try {
    return read(file)
  } finally {
    file.close()
  }
}

async function stop(child: { kill(signal: NodeJS.Signals): boolean; exitCode: number | null; signalCode: string | null; once(event: 'exit', listener: () => void): unknown }): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const gone = new Promise<void>((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await gone
}

describe('rows deleted under work in flight (items 1, 2)', () => {
  it('a subscription deleted (management API) and a project deleted (CLI) while their attempts are in flight: serve stays up, the outcomes are dropped, other deliveries go on', async () => {
    const { db, ok } = await twoProjects()
    const held = await heldReceiver()
    const fast = await startReceiver()
    await ok('webhooks', 'add', held.url, '--project', 't', '--events', 'mock.request') // subscription 1
    await ok('webhooks', 'add', held.url, '--project', 'u', '--events', 'mock.request') // subscription 2
    await ok('webhooks', 'add', fast.url, '--project', 't', '--events', 'mock.request') // subscription 3
    const logged: string[] = []
    const server = await serve(db, { log: (line) => logged.push(line) })
    expect((await send(`${server.url}/api/t/orders`)).status).toBe(200)
    expect((await send(`${server.url}/api/u/items`)).status).toBe(200)
    await waitFor(() => held.received() === 2 && fast.requests.length === 1, 8000, 'attempts in flight')

    const token = (await ok('token')).trim()
    const removed = await send(`${server.url}/api/projects/1/webhooks/1`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })
    expect(removed.status).toBe(204)
    // The CLI's own connection: to SQLite a second process's.
    const deleted = await cli(['--db', db, 'project', 'delete', 'u'])
    expect(deleted.code, deleted.stderr).toBe(0)
    held.release(200)
    await waitFor(() => held.holding() === 0, 5000, 'the held attempts to end')

    // The worker records those outcomes, finds their deliveries gone, and goes on delivering.
    expect((await send(`${server.url}/api/t/orders`)).status).toBe(200)
    await waitFor(() => fast.requests.length === 2, 8000, 'a delivery after the deletes')
    await waitFor(() => readDb(db, (file) => file.prepare('SELECT count(*) FROM attempts WHERE subscription_id = 3').pluck().get() === 2), 5000, 'both attempts of subscription 3 logged')
    const orphans = readDb(db, (file) => file.prepare('SELECT count(*) FROM attempts WHERE subscription_id IN (1, 2)').pluck().get())
    expect(orphans).toBe(0)
    expect(logged.join('\n')).not.toMatch(/SQLITE_CONSTRAINT|unexpected/i)
    await expectAliveAndIntact(server.url, db)
    await server.close()
  })

  it('the CLI removes a subscription and deletes a project under traffic: serve stays up and no event of another project is lost', async () => {
    const { db, ok } = await twoProjects()
    await ok('project', 'create', 'V', '--slug', 'v')
    await ok('add-resource', '/api/things', '--project', 'v')
    const receiver = await startReceiver()
    await ok('webhooks', 'add', receiver.url, '--project', 't', '--events', 'mock.request') // 1: removed under traffic
    await ok('webhooks', 'add', receiver.url, '--project', 'u', '--events', 'mock.request') // 2: must lose nothing
    await ok('webhooks', 'add', receiver.url, '--project', 'v', '--events', 'mock.request') // 3: its project deleted under traffic
    const logged: string[] = []
    const server = await serve(db, { log: (line) => logged.push(line) })

    // Every lane keeps requests of the doomed projects in each event recorder batch, next to project u's.
    // Over sockets: answered without one, the lanes would never let the event loop turn.
    let running = true
    let answeredU = 0
    const lane = async () => {
      while (running) {
        const [, u] = await Promise.all([
          fetch(`${server.url}/api/t/orders`).then((r) => r.arrayBuffer()),
          fetch(`${server.url}/api/u/items`).then(async (r) => (await r.arrayBuffer(), r.status)),
          fetch(`${server.url}/api/v/things`).then((r) => r.arrayBuffer()),
        ])
        if (u === 200) answeredU += 1
      }
    }
    const lanes = Array.from({ length: 8 }, lane)
    await waitFor(() => answeredU >= 50, 10_000, 'traffic')
    // The CLI's own connections: to SQLite a second process's.
    const [removed, deleted] = await Promise.all([
      cli(['--db', db, 'webhooks', 'remove', '1']),
      cli(['--db', db, 'project', 'delete', 'v']),
    ])
    expect(removed.code, removed.stderr).toBe(0)
    expect(deleted.code, deleted.stderr).toBe(0)
    const seen = answeredU
    await waitFor(() => answeredU >= seen + 50, 10_000, 'traffic after the deletes')
    running = false
    await Promise.all(lanes)

    const deliveredU = () => receiver.requests.filter((r) => JSON.parse(r.body).data.path === '/api/u/items').length
    await waitFor(() => deliveredU() === answeredU, 15_000, `a delivery for each of the ${answeredU} requests to project u`)
    expect(logged.join('\n')).not.toMatch(/SQLITE_CONSTRAINT|unexpected|not recorded/i)
    await expectAliveAndIntact(server.url, db)
    await server.close()
  })
})

/** Short lock waits, set as a user sets them (MOCKAPI_LOCK_WAIT): serve's requests 2 s, a command 1 s. */
const SERVE_LOCK_WAIT_MS = 2000
const CLI_LOCK_WAIT_MS = 1000

describe('another process holds the write lock (item 3)', () => {
  it('GETs answer at once, writes wait for the lock (201) or answer 503 STORE_BUSY with Retry-After, events are written afterwards, the CLI says the database is busy', async () => {
    const { cwd, db, ok } = await twoProjects()
    const receiver = await startReceiver()
    await ok('webhooks', 'add', receiver.url, '--project', 't', '--events', 'mock.request')
    const server = await spawnServe(['--db', db, 'serve', '--port', '0', '--quiet', '--keep-inbox', '5'], { cwd, env: { MOCKAPI_LOCK_WAIT: `${SERVE_LOCK_WAIT_MS}ms` } })
    const other = new Database(db)
    other.pragma('busy_timeout = 5000')
    const hold = () => other.exec('BEGIN IMMEDIATE')
    const free = () => other.exec('COMMIT')
    const timed = async (url: string, init?: Parameters<typeof send>[1]) => {
      const started = performance.now()
      const answer = await send(url, init)
      return { ...answer, ms: performance.now() - started }
    }
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

    // A short hold (well within the lock wait): the write waits for it and is kept; reads never wait.
    hold()
    const write = timed(`${server.url}/api/t/orders`, { method: 'POST', body: { n: 1 } })
    const reads = []
    for (let i = 0; i < 5; i += 1) {
      reads.push(await timed(`${server.url}/api/t/orders`))
      await pause(100)
    }
    free()
    expect((await write).status).toBe(201)
    expect(reads.every((r) => r.status === 200)).toBe(true)
    // A frozen event loop held every read for the whole wait; generous bound.
    expect(Math.max(...reads.map((r) => r.ms))).toBeLessThan(1000)

    // A hold longer than the lock wait: 503 STORE_BUSY with Retry-After, and a CLI write gives up with one line.
    hold()
    const cliStarted = performance.now()
    const cliWrite = cliProcessAsync(['--db', db, 'add-endpoint', 'GET', '/api/extra', '--body', '{"x":1}'], { cwd, env: { MOCKAPI_LOCK_WAIT: `${CLI_LOCK_WAIT_MS}ms` } })
      .then((result) => ({ ...result, ms: performance.now() - cliStarted }))
    const busyWrite = timed(`${server.url}/api/t/orders`, { method: 'POST', body: { n: 2 } })
    const inboxWrite = timed(`${server.url}/api/webhooks/inbox/t`, { method: 'POST', body: { hello: 1 } })
    const apiWrite = timed(`${server.url}/api/projects/1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${(await ok('token')).trim()}` },
      body: { name: 'x', targetUrl: receiver.url, events: ['mock.error'] },
    })
    // Reads all through the waits, until every write has been answered and the CLI has given up.
    let waiting = true
    void Promise.allSettled([busyWrite, inboxWrite, apiWrite, cliWrite]).then(() => (waiting = false))
    const heldReads = []
    while (waiting || heldReads.length < 3) {
      heldReads.push(await timed(`${server.url}/api/t/orders`))
      await pause(200)
    }
    for (const answer of [await busyWrite, await inboxWrite, await apiWrite]) {
      expect(answer.status).toBe(503)
      expect(answer.json.error.code).toBe('STORE_BUSY')
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0)
      // After the lock wait MOCKAPI_LOCK_WAIT set, not the default 5 s (generous bound).
      expect(answer.ms).toBeGreaterThanOrEqual(SERVE_LOCK_WAIT_MS - 50)
      expect(answer.ms).toBeLessThan(4500)
    }
    expect(heldReads.every((r) => r.status === 200)).toBe(true)
    expect(Math.max(...heldReads.map((r) => r.ms))).toBeLessThan(1000)
    const cliResult = await cliWrite
    expect(cliResult.code).toBe(1)
    expect(cliResult.stderr.trim()).toMatch(/^✖ the database is busy: another process .* try again$/)
    expect(cliResult.stderr.trim().split('\n')).toHaveLength(1)
    // It gave up after its own lock wait, not the default 10 s (generous bound).
    expect(cliResult.ms).toBeGreaterThanOrEqual(CLI_LOCK_WAIT_MS)
    expect(cliResult.ms).toBeLessThan(8000)
    free()

    // The reads of both holds and the two POSTs were buffered as events and are delivered now; the lock is free again.
    const served = reads.length + heldReads.length + 2
    await waitFor(() => receiver.requests.length >= served, 15_000, `the events of all ${served} mock requests`)
    expect((await send(`${server.url}/api/t/orders`, { method: 'POST', body: { n: 3 } })).status).toBe(201)
    expect(server.output()).toMatch(/database is busy/)
    expect(server.output()).toMatch(/working again/)
    other.close()
    await expectAliveAndIntact(server.url, db)
    const stored = readDb(db, (file) => file.prepare("SELECT count(*) FROM records WHERE json_extract(data, '$.n') IN (1, 2, 3)").pluck().get())
    expect(stored).toBe(2)
    await stop(server.child)
  }, 60_000)

  it('refuses a MOCKAPI_LOCK_WAIT that is not a duration, or is over a day, with one line, in a command and in serve', async () => {
    const { db } = await twoProjects()
    for (const args of [['projects'], ['serve', '--port', '0', '--quiet']]) {
      const refused = await cli(['--db', db, ...args], { env: { MOCKAPI_LOCK_WAIT: '10' } })
      expect(refused.code).toBe(1)
      expect(refused.stderr).toBe('✖ MOCKAPI_LOCK_WAIT "10" must be a number with a unit: ms, s, m, h or d (e.g. 30s, 15m, 1h, 7d)\n')
    }
    // Past a day is a mistake; SQLite would silently have taken a value past its int as no wait at all.
    const long = await cli(['--db', db, 'projects'], { env: { MOCKAPI_LOCK_WAIT: '99999d' } })
    expect(long.code).toBe(1)
    expect(long.stderr).toBe('✖ MOCKAPI_LOCK_WAIT "99999d" is longer than a lock wait can be (1d)\n')
    const fine = await cli(['--db', db, 'projects'], { env: { MOCKAPI_LOCK_WAIT: '250ms' } })
    expect(fine.code, fine.stderr).toBe(0)
  })
})

/**
 * serve in a mount namespace of its own with a 2 MB tmpfs for its database, so the disk can really
 * fill up (`unshare -rm`: an unprivileged user namespace). The test reaches the tmpfs through
 * /proc/<pid>/root, which shows the files as serve sees them.
 */
async function serveOnSmallDisk(receiverUrl: string) {
  const disk = tempDir()
  const script = [
    'set -e',
    'mount -t tmpfs -o size=2m tmpfs "$DISK"',
    'node "$BIN" --db "$DISK/m.db" init --yes --name T --slug t --resource /api/orders >/dev/null',
    'node "$BIN" --db "$DISK/m.db" webhooks add "$RECEIVER" --events mock.request >/dev/null',
    'exec node "$BIN" --db "$DISK/m.db" serve --port 0 --quiet',
  ].join('\n')
  const child = spawn('unshare', ['-rm', 'sh', '-c', script], {
    env: { ...process.env, FORCE_COLOR: '0', DISK: disk, BIN, RECEIVER: receiverUrl, PATH: `${process.execPath.replace(/\/node$/, '')}:${process.env.PATH}` },
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const url = await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`serve exited:\n${output}`)
    return output.includes('Ctrl-C to stop') && /listening on (http:\/\/\S+)/.exec(output)?.[1]
  }, 20_000, 'serve on the small disk')
  const seen = (name: string) => `/proc/${child.pid}/root${disk}/${name}`
  return { url, child, output: () => output, seen }
}

describe('a full disk (item 4)', () => {
  it('writes answer 503 STORE_UNAVAILABLE and a delivery outcome waits, serve stays up, and everything works again once space returns', async () => {
    const held = await heldReceiver()
    const server = await serveOnSmallDisk(held.url)
    try {
      expect((await send(`${server.url}/api/t/orders`, { method: 'POST', body: { n: 1 } })).status).toBe(201)
      await waitFor(() => held.received() === 1, 8000, 'an attempt in flight')

      // Fill the disk: the WAL cannot grow by one more frame.
      const filler = server.seen('filler')
      const chunk = Buffer.alloc(64 * 1024, 1)
      let size = 0
      for (;;) {
        try {
          writeFileSync(filler, chunk, { flag: 'a' })
          size += chunk.length
        } catch (error) {
          expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC')
          break
        }
      }
      expect(size).toBeGreaterThan(0)

      const full = await send(`${server.url}/api/t/orders`, { method: 'POST', body: { n: 2, pad: 'x'.repeat(20_000) } })
      expect(full.status).toBe(503)
      expect(full.json.error.code).toBe('STORE_UNAVAILABLE')
      expect(full.json.error.message).toMatch(/SQLITE_FULL/)
      const inbox = await send(`${server.url}/api/webhooks/inbox/t`, { method: 'POST', body: { hello: 'x'.repeat(20_000) } })
      expect(inbox.status).toBe(503)
      // The attempt ends now: its outcome cannot be written (this killed serve before).
      held.release(200)
      await waitFor(() => /webhook deliveries: the database cannot be written \(SQLITE_FULL/.test(server.output()), 8000, 'the worker to meet the full disk')
      expect((await send(`${server.url}/api/t/orders`)).status).toBe(200)
      expect((await send(`${server.url}/api/health`)).status).toBe(200)

      rmSync(filler)
      await waitFor(() => /webhook deliveries: working again/.test(server.output()), 8000, 'the worker to recover')
      expect((await send(`${server.url}/api/t/orders`, { method: 'POST', body: { n: 3 } })).status).toBe(201)
      // The GET during the full disk was buffered as an event and is delivered now.
      await waitFor(() => held.received() >= 3, 8000, 'the buffered events delivered')
      held.release(200)

      // Checked on a copy: SQLite resolves /proc/<pid>/root to this process's own root.
      await new Promise((resolve) => setTimeout(resolve, 300))
      const copy = join(tempDir(), 'm.db')
      copyFileSync(server.seen('m.db'), copy)
      if (existsSync(server.seen('m.db-wal'))) copyFileSync(server.seen('m.db-wal'), `${copy}-wal`)
      await expectAliveAndIntact(server.url, copy)
      const { records, attempts } = readDb(copy, (file) => ({
        records: file.prepare("SELECT json_extract(data, '$.n') FROM records ORDER BY 1").pluck().all(),
        attempts: file.prepare('SELECT count(*) FROM attempts WHERE succeeded = 1').pluck().get() as number,
      }))
      expect(records).toEqual([1, 3])
      expect(attempts).toBeGreaterThanOrEqual(1)
    } finally {
      await stop(server.child)
      await held.close()
    }
  }, 60_000)
})

describe('slow receivers (item 9)', () => {
  const TIMEOUT_MS = 1000

  it('a receiver slower than --webhook-timeout is a timeout failure at that timeout, and cannot hold every slot from another project', async () => {
    const { db, ok } = await twoProjects()
    const slow = await heldReceiver()
    const fast = await startReceiver()
    await ok('webhooks', 'add', slow.url, '--project', 't', '--events', 'mock.request')
    await ok('webhooks', 'add', fast.url, '--project', 'u', '--events', 'mock.request')
    // As `serve --webhook-timeout 1s --webhook-retry-delays 1h`.
    const server = await serve(db, { deliveryTimeoutMs: TIMEOUT_MS, retryDelaysMs: [3_600_000] })
    // Twice the subscription's cap of 8 attempts at once: two rounds of timeouts.
    for (let i = 0; i < 16; i += 1) expect((await send(`${server.url}/api/t/orders`)).status).toBe(200)
    await waitFor(() => slow.received() >= 1, 8000, 'the slow receiver to be called')

    const asked = performance.now()
    expect((await send(`${server.url}/api/u/items`)).status).toBe(200)
    await waitFor(() => fast.requests.length === 1, 8000, 'project u delivered while project t is stuck')
    // Sooner than the slow receiver's timeout: it did not wait for a slot.
    expect(performance.now() - asked).toBeLessThan(TIMEOUT_MS)
    expect(slow.holding()).toBeGreaterThan(0)

    // Answering late does not make it a success: each attempt timed out at 1 s. Never more
    // than 8 attempts to one subscription at once (the queue's own record of what is in flight).
    let mostSending = 0
    await waitFor(() => readDb(db, (file) => {
      mostSending = Math.max(mostSending, file.prepare("SELECT count(*) FROM deliveries WHERE subscription_id = 1 AND state = 'sending'").pluck().get() as number)
      return file.prepare('SELECT count(*) FROM attempts WHERE subscription_id = 1').pluck().get() === 16
    }), 20_000, 'every slow attempt to time out')
    slow.release(200)
    const attempts = readDb(db, (file) => file.prepare('SELECT succeeded, error, duration_ms FROM attempts WHERE subscription_id = 1').all() as { succeeded: number; error: string; duration_ms: number }[])
    expect(attempts.every((a) => a.succeeded === 0 && a.error === `timed out after ${TIMEOUT_MS} ms`)).toBe(true)
    expect(Math.max(...attempts.map((a) => a.duration_ms))).toBeLessThan(5000)
    expect(mostSending).toBe(8)
    await expectAliveAndIntact(server.url, db)
    await server.close()
  }, 60_000)
})
