import { afterEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { createServer, type ServerResponse } from 'node:http'
import { join } from 'node:path'
import { cleanup, cli, exited, expectAliveAndIntact, send, serveCli, spawnServe, tempDir, waitFor } from '../_helpers.ts'

afterEach(cleanup)

/** A real receiver that holds requests until `open()`, then answers 200 at once. */
async function gatedReceiver() {
  const waiting: ServerResponse[] = []
  const ids: string[] = []
  let opened = false
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      ids.push(String(req.headers['webhook-id']))
      if (opened) res.writeHead(200).end()
      else waiting.push(res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    ids,
    open() {
      opened = true
      for (const res of waiting.splice(0)) if (!res.destroyed) res.writeHead(200).end()
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

describe('SIGTERM while responses are held (item 10)', () => {
  it('exits within a few seconds while a hang fault holds a client that never gives up', async () => {
    const cwd = tempDir()
    const db = join(cwd, 't.db')
    expect((await cli(['--db', db, 'init', '--yes', '--slug', 't'], { cwd })).code).toBe(0)
    expect((await cli(['--db', db, 'add-endpoint', 'GET', '/api/stuck', '--fault', 'hang'], { cwd })).code).toBe(0)
    const server = await spawnServe(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    const waiting = fetch(`${server.url}/api/t/stuck`).then((r) => r.status, () => 'cut')
    await new Promise((resolve) => setTimeout(resolve, 200))
    const started = performance.now()
    server.child.kill('SIGTERM')
    const { code } = await exited(server.child)
    expect(code).toBe(0)
    // The hang would last 60 s; the 2 s drain cuts it.
    expect(performance.now() - started).toBeLessThan(4000)
    expect(await waiting).toBe('cut')
  })

  it('exits within a few seconds with delayed responses whose clients left or still wait, and puts the delivery in flight back', async () => {
    const cwd = tempDir()
    const db = join(cwd, 't.db')
    const ok = async (...args: string[]) => {
      const result = await cli(['--db', db, ...args], { cwd })
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
    }
    await ok('init', '--yes', '--name', 'T', '--slug', 't', '--resource', '/api/orders')
    await ok('add-endpoint', 'GET', '/api/slow', '--body', '{"slow":true}', '--delay', '30000')
    const receiver = await gatedReceiver()
    await ok('webhooks', 'add', receiver.url, '--events', 'mock.request')
    const server = await spawnServe(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })

    expect((await send(`${server.url}/api/t/orders`)).status).toBe(200)
    await waitFor(() => receiver.ids.length === 1, 8000, 'a delivery in flight')
    // Two clients give up on a held response; a third keeps waiting.
    const leftEndpoint = fetch(`${server.url}/api/t/slow`, { signal: AbortSignal.timeout(300) }).catch((error: Error) => error.name)
    const leftPrefer = fetch(`${server.url}/api/t/orders`, { headers: { prefer: 'delay=40000' }, signal: AbortSignal.timeout(300) }).catch((error: Error) => error.name)
    expect(await leftEndpoint).toBe('TimeoutError')
    expect(await leftPrefer).toBe('TimeoutError')
    const waiting = fetch(`${server.url}/api/t/slow`).then((r) => r.status, () => 'cut')

    const started = performance.now()
    server.child.kill('SIGTERM')
    const { code } = await exited(server.child)
    const tookMs = performance.now() - started
    expect(code).toBe(0)
    // It took 19–59 s (the longest held delay) before; 2 s of drain is the design.
    expect(tookMs).toBeLessThan(4000)
    expect(await waiting).toBe('cut')

    // The attempt in flight was put back, not counted and not logged (the requests cut short are
    // events too, queued at shutdown for the next start).
    const file = new Database(db, { readonly: true })
    expect(file.prepare('SELECT state, attempts FROM deliveries WHERE id = 1').get()).toEqual({ state: 'pending', attempts: 0 })
    expect(file.prepare("SELECT count(*) FROM deliveries WHERE state <> 'pending' OR attempts <> 0").pluck().get()).toBe(0)
    expect(file.prepare('SELECT count(*) FROM attempts').pluck().get()).toBe(0)
    file.close()

    // After a restart (in this process: the file is what it reads) it is sent again (the same event) and logged once.
    receiver.open()
    const again = await serveCli(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    await waitFor(() => receiver.ids.filter((id) => id === receiver.ids[0]).length === 2, 8000, 'the delivery sent again')
    await waitFor(() => {
      const check = new Database(db, { readonly: true })
      try {
        return check.prepare('SELECT count(*) FROM attempts WHERE delivery_id = 1 AND succeeded = 1').pluck().get() === 1
      } finally {
        check.close()
      }
    }, 8000, 'the attempt logged')
    await expectAliveAndIntact(again.url, db)
    expect(await again.stop()).toBe(0)
    await receiver.close()
  }, 40_000)
})
