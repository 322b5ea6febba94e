import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { main } from '../../src/cli/main.ts'
import { mintToken } from '../../src/domain/auth.ts'
import { systemClock, type Context } from '../../src/domain/context.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { createSubscription } from '../../src/domain/subscriptions.ts'
import { writeTransaction } from '../../src/domain/transaction.ts'
import { createVersionedCache } from '../../src/domain/versioned-cache.ts'
import type { DeliveryAttempted } from '../../src/events.ts'
import { startServer, type RunningServer } from '../../src/server/start.ts'
import { configurationWriteCount } from '../../src/store/changes.ts'
import { createRepos } from '../../src/store/repos.ts'
import { setBusyWait } from '../../src/store/db.ts'
import { cleanup, expectAliveAndIntact, openStore, send, serve, startReceiver, tempDb, tempDir, waitFor } from '../_helpers.ts'

// Every check below asks right after the write, without waiting: the store counts this process's
// writes to what caches are built from, so nothing has to be told to rebuild.

let dbPath: string
let context: Context
let server: RunningServer
let api: string
let auth: Record<string, string>

beforeAll(async () => {
  dbPath = tempDb()
  context = openStore(dbPath).context
  createProject(context, { name: 'Shop', slug: 'shop' })
  createResource(context, { project: 'shop', path: '/api/items' })
  addEndpoint(context, { project: 'shop', method: 'GET', path: '/api/stats', body: '{"visits":1}' })
  auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 600_000 })}` }
  server = await serve(dbPath, { retryDelaysMs: [60_000] })
  api = `${server.url}/api/projects`
})
afterAll(cleanup)

/** The CLI in this process, on its own connection, without the pause `cli()` leaves for other processes' commits. */
async function inProcessCli(args: string[]): Promise<{ code: number; output: string }> {
  let output = ''
  const io = { out: (text: string) => void (output += text), err: (text: string) => void (output += text), isInteractive: false }
  const code = await main(['--db', dbPath, ...args], io, { cwd: tempDir(), env: { ...process.env, FORCE_COLOR: '0' } })
  return { code, output }
}

const status = async (path: string) => (await fetch(`${server.url}${path}`)).status

describe('what is not counted as a change', () => {
  it('serving traffic (records written, inbox payloads, events and deliveries) never makes the caches rebuild', async () => {
    const receiver = await startReceiver()
    const hooked = createProject(context, { name: 'Counted', slug: 'counted' })
    createResource(context, { project: 'counted', path: '/api/notes' })
    createSubscription(context, hooked, { name: 'all', targetUrl: receiver.url, events: ['mock.request', 'mock.error'] })
    const before = configurationWriteCount()
    const created = await send(`${server.url}/api/counted/notes`, { method: 'POST', body: { text: 'a' } })
    expect(created.status).toBe(201)
    expect((await send(`${server.url}/api/counted/notes/${created.json.id}`, { method: 'PUT', body: { text: 'b' } })).status).toBe(200)
    expect((await send(`${server.url}/api/counted/notes/${created.json.id}`, { method: 'DELETE' })).status).toBe(200)
    expect((await send(`${server.url}/api/counted/notes/nope`)).status).toBe(404)
    expect((await send(`${server.url}/api/webhooks/inbox/${hooked.shareToken}`, { method: 'POST', body: { event: 'x' } })).status).toBe(201)
    await waitFor(() => receiver.requests.length >= 5, 5000, 'the five deliveries')
    expect(configurationWriteCount()).toBe(before)
    await receiver.close()
  })

  it('a reset counts once: it starts every sequence of responses again (projects.sequence_epoch)', async () => {
    const before = configurationWriteCount()
    expect((await send(`${api}/1/reset`, { method: 'POST', headers: auth })).status).toBe(200)
    expect(configurationWriteCount()).toBe(before + 1)
  })
})

describe('a write changes routing and delivery at once', () => {
  it('PATCH of an endpoint through the management API', async () => {
    expect((await send(`${server.url}/api/shop/stats`)).json).toEqual({ visits: 1 })
    const endpoints = (await send(`${api}/1/endpoints`, { headers: auth })).json as { id: number; path: string }[]
    const stats = endpoints.find((e) => e.path === '/api/stats')!
    const patched = await send(`${api}/1/endpoints/${stats.id}`, { method: 'PATCH', body: { status: 203, body: { visits: 2 } }, headers: auth })
    expect(patched.status).toBe(200)
    const answered = await send(`${server.url}/api/shop/stats`)
    expect([answered.status, answered.json]).toEqual([203, { visits: 2 }])
  })

  it('a resource created, then deleted, through the management API', async () => {
    const created = await send(`${api}/1/resources`, { method: 'POST', body: { path: '/api/orders' }, headers: auth })
    expect(created.status).toBe(201)
    expect(await status('/api/shop/orders')).toBe(200)
    expect((await send(`${api}/1/resources/${created.json.resource.id}`, { method: 'DELETE', headers: auth })).status).toBe(204)
    expect(await status('/api/shop/orders')).toBe(404)
  })

  it('the CLI in-process beside serve: an endpoint added, a project created and deleted', async () => {
    expect((await inProcessCli(['add-endpoint', 'GET', '/api/hello', '--body', '{"hi":1}', '--project', 'shop'])).code).toBe(0)
    expect((await send(`${server.url}/api/shop/hello`)).json).toEqual({ hi: 1 })
    expect((await inProcessCli(['project', 'create', 'Gone', '--slug', 'gone'])).code).toBe(0)
    expect((await inProcessCli(['add-endpoint', 'GET', '/api/ping', '--body', '{}', '--project', 'gone'])).code).toBe(0)
    expect(await status('/api/gone/ping')).toBe(200)
    expect((await inProcessCli(['project', 'delete', 'gone'])).code).toBe(0)
    expect(await status('/api/gone/ping')).toBe(404)
  })

  it('apply from the CLI in-process beside serve', async () => {
    const file = join(tempDir(), 'mockapi.yaml')
    writeFileSync(file, 'name: Applied\nslug: applied\nresources:\n  - path: /api/notes\n')
    expect((await inProcessCli(['apply', file])).code).toBe(0)
    expect(await status('/api/applied/notes')).toBe(200)
    writeFileSync(file, 'name: Applied\nslug: applied\nresources:\n  - path: /api/tasks\n')
    const applied = await inProcessCli(['apply', file])
    expect(applied.code, applied.output).toBe(0)
    expect(await status('/api/applied/tasks')).toBe(200)
    expect(await status('/api/applied/notes')).toBe(404)
  })

  it('serve --watch: the file applied on a change is served as soon as the apply reports', async () => {
    const folder = tempDir()
    const file = join(folder, 'mockapi.yaml')
    writeFileSync(file, 'name: Watched\nslug: watched\nresources:\n  - path: /api/notes\n')
    const applied: boolean[] = []
    const watched = await startServer({
      dbPath: join(folder, 'w.db'), port: 0, host: '127.0.0.1', demo: false, watch: true, config: { path: file },
      onWatch: (result) => void applied.push(result.ok),
    })
    try {
      expect((await fetch(`${watched.url}/api/watched/notes`)).status).toBe(200)
      writeFileSync(file, 'name: Watched\nslug: watched\nresources:\n  - path: /api/tasks\n')
      await waitFor(() => applied.length > 0, 5000, 'the watcher to apply the file')
      expect(applied).toEqual([true])
      expect((await fetch(`${watched.url}/api/watched/tasks`)).status).toBe(200)
      expect((await fetch(`${watched.url}/api/watched/notes`)).status).toBe(404)
    } finally {
      await watched.close()
    }
  })

  it('a subscription created, then changed, through the management API gets the very next request\'s event', async () => {
    const receiver = await startReceiver()
    const project = createProject(context, { name: 'Subscribed', slug: 'subscribed' })
    createResource(context, { project: 'subscribed', path: '/api/items' })
    // The event recorder has read this project's subscriptions (none) before the first one is made.
    expect(await status('/api/subscribed/items')).toBe(200)
    const created = await send(`${api}/${project.id}/webhooks`, { method: 'POST', body: { name: 'errors', targetUrl: receiver.url, events: ['mock.error'] }, headers: auth })
    expect(created.status).toBe(201)
    expect(await status('/api/subscribed/items/nope')).toBe(404)
    await waitFor(() => receiver.requests.length === 1, 5000, 'the mock.error event')
    const changed = await send(`${api}/${project.id}/webhooks/${created.json.id}`, { method: 'PATCH', body: { events: ['mock.request'] }, headers: auth })
    expect(changed.status).toBe(200)
    expect(await status('/api/subscribed/items')).toBe(200)
    await waitFor(() => receiver.requests.length === 2, 5000, 'the mock.request event')
    expect(receiver.requests.map((r) => JSON.parse(r.body).type)).toEqual(['mock.error', 'mock.request'])
    await receiver.close()
  })

  it('a 410 turns a subscription off: the very next request queues nothing for it', async () => {
    const gone = await startReceiver(() => 410)
    const kept = await startReceiver(() => 200)
    const project = createProject(context, { name: 'Hooks', slug: 'hooks' })
    createResource(context, { project: 'hooks', path: '/api/items' })
    const goneSubscription = createSubscription(context, project, { name: 'gone', targetUrl: gone.url, events: ['mock.request'] })
    createSubscription(context, project, { name: 'kept', targetUrl: kept.url, events: ['mock.request'] })
    const turnedOff = new Promise<void>((resolve) => {
      const onAttempt = (attempt: DeliveryAttempted) => {
        if (attempt.subscriptionId !== goneSubscription.id) return
        server.events.off('delivery.attempted', onAttempt)
        resolve()
      }
      server.events.on('delivery.attempted', onAttempt)
    })
    const writesBefore = configurationWriteCount()
    expect(await status('/api/hooks/items')).toBe(200)
    await turnedOff
    // Turning it off is a change like any other (the store also queues nothing for a subscription that is off).
    expect(configurationWriteCount()).toBeGreaterThan(writesBefore)
    expect(await status('/api/hooks/items')).toBe(200)
    await waitFor(() => kept.requests.length === 2, 5000, 'the kept subscription to get both events')
    const file = new Database(dbPath, { readonly: true })
    try {
      const queued = file.prepare('SELECT state FROM deliveries WHERE subscription_id = ?').pluck().all(goneSubscription.id)
      expect(queued).toEqual(['failed'])
    } finally {
      file.close()
    }
    expect(gone.requests).toHaveLength(1)
    await Promise.all([gone.close(), kept.close()])
  })
})

describe('what others commit', () => {
  it('a serve sees another process\'s commit within its recheck window', async () => {
    // Another process: to SQLite's data_version, a commit through a second connection of this
    // process is the same thing as one from another process. This connection is opened bare, not
    // through the store, so this process's own count of writes does not see it either: only
    // data_version can tell the serve.
    expect(await status('/api/shop/far')).toBe(404)
    const other = new Database(dbPath)
    try {
      other.pragma('foreign_keys = ON')
      const writes = configurationWriteCount()
      const elsewhere: Context = { db: other, repos: createRepos(other), clock: systemClock }
      addEndpoint(elsewhere, { project: 'shop', method: 'GET', path: '/api/far', body: '{"far":true}' })
      expect(configurationWriteCount()).toBe(writes)
    } finally {
      other.close()
    }
    await waitFor(async () => (await status('/api/shop/far')) === 200, 2000, 'the other process\'s endpoint to be served')
    await expectAliveAndIntact(server.url, dbPath)
  })

  it('a cache read inside a transaction that rolls back keeps nothing of it, and one that fails to start counts nothing', () => {
    const names = createVersionedCache(context.db, () => context.repos.projects.list().map((p) => p.slug))
    const before = names.get()
    expect(() => writeTransaction(context.db, () => {
      createProject(context, { name: 'Rolled back', slug: 'rolled-back' })
      expect(names.get()).toContain('rolled-back')
      throw new Error('roll back')
    })).toThrow('roll back')
    expect(names.get()).toEqual(before)

    const writes = configurationWriteCount()
    expect(() => writeTransaction(context.db, () => {
      throw new Error('nothing written')
    })).toThrow('nothing written')
    const locker = new Database(dbPath)
    const waiting = openStore(dbPath).context
    setBusyWait(waiting.db, 0)
    locker.exec('BEGIN IMMEDIATE')
    try {
      expect(() => writeTransaction(waiting.db, () => createProject(waiting, { name: 'Locked out', slug: 'locked-out' }))).toThrow(/locked|busy/i)
    } finally {
      locker.exec('ROLLBACK')
      locker.close()
    }
    expect(configurationWriteCount()).toBe(writes)
  })

  it('a cache stale when a transaction starts is built once in it, however often it is read there', () => {
    let builds = 0
    const names = createVersionedCache(context.db, () => {
      builds += 1
      return context.repos.projects.list().length
    })
    names.get()
    createProject(openStore(dbPath).context, { name: 'Elsewhere', slug: 'elsewhere' })
    writeTransaction(context.db, () => {
      for (let i = 0; i < 100; i += 1) names.get()
    })
    expect(builds).toBe(2)
  })
})
