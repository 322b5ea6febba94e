import { afterAll, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { renameSync, rmSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { cleanup, itemsProject, cli, exited, expectAliveAndIntact, send, spawnServe, startReceiver, tempDir, waitFor, cliProcess, cliProcessAsync } from '../_helpers.ts'

// Each test has a database, a serve and a receiver of its own, and mostly waits on them: they run
// side by side, and the folders and children go at the end.
afterAll(cleanup)


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
    const base = { id: 'elsewhere', pid: 1, hostname: `${hostname()}-other`, url: 'http://10.0.0.9:3000', startedAt: '2026-01-01T00:00:00.000Z' }
    writeLease(db, { ...base, renewedAt: Date.now() })
    const refused = cliProcess(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`pid 1 on ${hostname()}-other, http://10.0.0.9:3000`)

    writeLease(db, { ...base, renewedAt: Date.now() - 60_000 })
    return spawnServe(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd }).then(async (server) => {
      await expectAliveAndIntact(server.url, db)
      server.child.kill('SIGTERM')
      await exited(server.child)
    })
  })

  it('a renewal that meets another process\'s write lock is tried again: the lease is kept, a second serve still refused', async () => {
    const { cwd, db } = await itemsProject()
    const server = await spawnServe(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    const holder = new Database(db)
    holder.exec('BEGIN IMMEDIATE')
    // Longer than a renewal period (2 s), well within the 15 s a lease lasts unrenewed.
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    holder.exec('COMMIT')
    holder.close()
    const second = await cliProcessAsync(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    expect(second.code).toBe(1)
    expect(second.stderr).toContain(`already being served (pid ${server.child.pid}`)
    expect(server.output()).not.toContain('took this database over')
    await expectAliveAndIntact(server.url, db)
    server.child.kill('SIGTERM')
    await exited(server.child)
  })

  it('a serve whose lease is taken over stops delivering and says so, and keeps answering', async () => {
    const { cwd, db } = await itemsProject()
    const server = await spawnServe(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    writeLease(db, { id: 'intruder', pid: 1, hostname: `${hostname()}-other`, url: 'http://10.0.0.9:3000', startedAt: '2026-01-01T00:00:00.000Z', renewedAt: Date.now() })
    await waitFor(() => server.output().includes('another serve took this database over (pid 1, http://10.0.0.9:3000)'), 8000, 'the lost-lease message')
    expect((await send(`${server.url}/api/t/items`)).status).toBe(200)
    await expectAliveAndIntact(server.url, db)
    server.child.kill('SIGTERM')
    await exited(server.child)
  })
})

describe.concurrent('the database file removed under a running serve', () => {
  for (const [what, remove] of [
    ['deleted', (db: string) => rmSync(db)],
    ['moved away', (db: string) => renameSync(db, `${db}.moved`)],
    ['its write-ahead log deleted', (db: string) => rmSync(`${db}-wal`)],
  ] as const) {
    it(`${what}: writes answer 503 STORE_UNAVAILABLE (or find serve stopped), never 201, and serve stops with a clear message`, async () => {
      const { cwd, db } = await itemsProject()
      const server = await spawnServe(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
      expect((await send(`${server.url}/api/t/items`, { method: 'POST', body: { n: 1 } })).status).toBe(201)
      remove(db)
      // serve notices within moments and stops: a write either meets the 503 or nobody at all.
      const refused = await send(`${server.url}/api/t/items`, { method: 'POST', body: { n: 2 } }).catch(() => null)
      if (refused) {
        expect(refused.status).toBe(503)
        expect(refused.json.error.code).toBe('STORE_UNAVAILABLE')
        expect(refused.json.error.message).toContain('restart mockapi serve')
      }
      const end = await exited(server.child)
      expect(end.code).toBe(1)
      expect(server.output()).toMatch(/✖ the (database file|write-ahead log) .* was deleted(, moved)? or replaced while in use; nothing more can be kept: restart mockapi serve/)
    })
  }
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
