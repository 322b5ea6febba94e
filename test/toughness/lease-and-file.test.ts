import { afterAll, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { renameSync, rmSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { cleanup, itemsProject, cli, exited, expectAliveAndIntact, send, serve, serveCli, spawnServe, startReceiver, tempDir, testClock, waitFor, cliProcess } from '../_helpers.ts'

// Each test has a database, a serve and a receiver of its own, and mostly waits on them: they run
// side by side, and the folders and children go at the end.
afterAll(cleanup)

/** Renewals this often (instead of every 2 s): a test sees the next one at once. */
const RENEW_MS = 20

function readLease(db: string): { id: string; pid: number; renewedAt: number } {
  const file = new Database(db, { readonly: true })
  try {
    return JSON.parse(file.prepare("SELECT value FROM meta WHERE key = 'serve_lease'").pluck().get() as string)
  } finally {
    file.close()
  }
}

function writeLease(db: string, holder: Record<string, unknown>): void {
  const file = new Database(db)
  file.prepare("INSERT INTO meta (key, value) VALUES ('serve_lease', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(JSON.stringify(holder))
  file.close()
}

describe.concurrent('one serve per database', () => {
  it('refuses a second serve, naming the first one\'s pid and URL; the first keeps its in-flight deliveries and sends each once', async () => {
    const { cwd, db } = await itemsProject()
    const receiver = await startReceiver((n) => (n === 1 ? 'hang' : 200))
    expect((await cli(['--db', db, 'webhooks', 'add', receiver.url, '--events', 'mock.request'], { cwd })).code).toBe(0)
    const first = await spawnServe(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    await send(`${first.url}/api/t/items`)
    await waitFor(() => receiver.requests.length === 1, 8000, 'the first delivery in flight')

    const second = cliProcess(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    expect(second.code).toBe(1)
    expect(second.stderr).toContain(`already being served (pid ${first.child.pid}, ${first.url}`)
    expect(second.stderr).toContain('pass another --db')

    // The refused serve touched nothing: the attempt in flight is still the first one's, not re-sent.
    const file = new Database(db, { readonly: true })
    expect(file.prepare("SELECT count(*) FROM deliveries WHERE state = 'sending'").pluck().get()).toBe(1)
    file.close()
    expect(receiver.requests.length).toBe(1)
    expect((await send(`${first.url}/api/t/items`)).status).toBe(200)
    await expectAliveAndIntact(first.url, db)
    first.child.kill('SIGTERM')
    await exited(first.child)
  })

  it('a serve killed with -9 does not lock the database out: the next serve starts at once', async () => {
    const { cwd, db } = await itemsProject()
    const first = await spawnServe(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    first.child.kill('SIGKILL')
    await exited(first.child)
    const again = await spawnServe(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    await expectAliveAndIntact(again.url, db)
    again.child.kill('SIGTERM')
    expect((await exited(again.child)).code).toBe(0)
    // A clean stop gives the lease back.
    const file = new Database(db, { readonly: true })
    expect(file.prepare("SELECT count(*) FROM meta WHERE key = 'serve_lease'").pluck().get()).toBe(0)
    file.close()
  })

  it('a lease from another host is honoured while it is renewed, and taken over once it lapses', async () => {
    const { cwd, db } = await itemsProject()
    const clock = testClock()
    const base = { id: 'elsewhere', pid: 1, hostname: `${hostname()}-other`, url: 'http://10.0.0.9:3000', startedAt: '2026-01-01T00:00:00.000Z' }
    writeLease(db, { ...base, renewedAt: clock.now().getTime() })
    // Refused before it listens, so the command ends here.
    const refused = await cli(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`pid 1 on ${hostname()}-other, http://10.0.0.9:3000`)

    // Not renewed for 14 s: still honoured (a lease lasts 15 s unrenewed); for 16 s: taken over.
    clock.advance(14_000)
    await expect(serve(db, { clock })).rejects.toThrow(`pid 1 on ${hostname()}-other, http://10.0.0.9:3000`)
    clock.advance(2_000)
    const server = await serve(db, { clock })
    expect(readLease(db)).toMatchObject({ pid: process.pid })
    await expectAliveAndIntact(server.url, db)
    await server.close()
  })

  it('a renewal that meets another process\'s write lock is tried again: the lease is kept, a second serve still refused', async () => {
    const { cwd, db } = await itemsProject()
    const clock = testClock()
    const logged: string[] = []
    const server = await serve(db, { clock, leaseRenewMs: RENEW_MS, log: (line) => logged.push(line) })
    const before = readLease(db).renewedAt
    const holder = new Database(db)
    holder.exec('BEGIN IMMEDIATE')
    // Ten renewals meet the lock while 10 s pass for the lease: well within the 15 s it lasts unrenewed.
    clock.advance(10_000)
    await new Promise((resolve) => setTimeout(resolve, 10 * RENEW_MS))
    expect(readLease(db).renewedAt).toBe(before)
    holder.exec('COMMIT')
    holder.close()
    // Renewed again once the lock is free, at the lease's time.
    await waitFor(() => readLease(db).renewedAt >= before + 10_000, 5000, 'a renewal after the lock')
    const second = await cli(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    expect(second.code).toBe(1)
    expect(second.stderr).toContain(`already being served (pid ${process.pid}`)
    expect(logged.join('\n')).not.toContain('took this database over')
    await expectAliveAndIntact(server.url, db)
    await server.close()
  })

  it('a serve whose lease is taken over stops delivering and says so, and keeps answering', async () => {
    const { db } = await itemsProject()
    const logged: string[] = []
    const server = await serve(db, { leaseRenewMs: RENEW_MS, log: (line) => logged.push(line) })
    writeLease(db, { id: 'intruder', pid: 1, hostname: `${hostname()}-other`, url: 'http://10.0.0.9:3000', startedAt: '2026-01-01T00:00:00.000Z', renewedAt: Date.now() })
    await waitFor(() => logged.join('\n').includes('another serve took this database over (pid 1, http://10.0.0.9:3000)'), 8000, 'the lost-lease message')
    expect((await send(`${server.url}/api/t/items`)).status).toBe(200)
    await expectAliveAndIntact(server.url, db)
    await server.close()
  })
})

const REMOVALS = [
  ['deleted', (db: string) => rmSync(db)],
  ['moved away', (db: string) => renameSync(db, `${db}.moved`)],
  ['its write-ahead log deleted', (db: string) => rmSync(`${db}-wal`)],
] as const

const LOST = /the (database file|write-ahead log) .* was deleted(, moved)? or replaced while in use; nothing more can be kept: restart mockapi serve/

describe.concurrent('the database file removed under a running serve', () => {
  for (const [what, remove] of REMOVALS) {
    it(`${what}: writes answer 503 STORE_UNAVAILABLE, never 201, and serve is told to stop with a clear message`, async () => {
      const { db } = await itemsProject()
      const lost: string[] = []
      const server = await serve(db, { onStoreLost: (message) => lost.push(message) })
      expect((await send(`${server.url}/api/t/items`, { method: 'POST', body: { n: 1 } })).status).toBe(201)
      remove(db)
      // Later than the file guard's few milliseconds between looks at the file, as a request over a
      // socket comes: this write looks for itself, whether or not the folder watch told yet.
      await new Promise((resolve) => setTimeout(resolve, 10))
      const refused = await send(`${server.url}/api/t/items`, { method: 'POST', body: { n: 2 } })
      expect(refused.status).toBe(503)
      expect(refused.json.error.code).toBe('STORE_UNAVAILABLE')
      expect(refused.json.error.message).toContain('restart mockapi serve')
      await waitFor(() => lost.length > 0, 5000, 'serve told the database is gone')
      expect(lost[0]).toMatch(new RegExp(`^${LOST.source}$`))
      await server.close()
    })
  }

  it('mockapi serve stops by itself (exit 1) with that message', async () => {
    const { cwd, db } = await itemsProject()
    const server = await serveCli(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    expect((await send(`${server.url}/api/t/items`, { method: 'POST', body: { n: 1 } })).status).toBe(201)
    rmSync(db)
    // serve notices within moments and stops: a write either meets the 503 or nobody at all.
    const refused = await send(`${server.url}/api/t/items`, { method: 'POST', body: { n: 2 } }).catch(() => null)
    if (refused) {
      expect(refused.status).toBe(503)
      expect(refused.json.error.code).toBe('STORE_UNAVAILABLE')
    }
    expect(await server.exited).toBe(1)
    expect(server.output()).toMatch(new RegExp(`✖ ${LOST.source}`))
  })
})

describe('the file guard a write consults', () => {
  it('tells at the first look after a delete, a move or a replacement, without waiting for the folder watch', async () => {
    const { createFileGuard } = await import('../../src/store/file-guard.ts')
    const { writeFileSync } = await import('node:fs')
    for (const change of [
      (path: string) => rmSync(path),
      (path: string) => renameSync(path, `${path}.moved`),
      (path: string) => {
        rmSync(path)
        writeFileSync(path, 'another file')
      },
    ]) {
      const path = join(tempDir(), 'g.db')
      writeFileSync(path, 'x')
      const told: string[] = []
      const guard = createFileGuard(path, (reason) => told.push(reason))
      expect(guard.lost()).toBeNull()
      change(path)
      await new Promise((resolve) => setTimeout(resolve, 6))
      expect(guard.lost()).toMatch(/was deleted, moved or replaced while in use/)
      expect(told).toHaveLength(1)
      guard.close()
    }
  })
})
