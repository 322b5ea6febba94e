import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { createServer } from 'node:http'
import { cleanup, cliWorkspace, exited, expectAliveAndIntact, openStore, spawnServe } from '../_helpers.ts'

afterAll(cleanup)

/** serve's lock wait in this test, set as a user sets it: a hold shorter than this is waited out, a longer one is not. */
const LOCK_WAIT_MS = 1500

describe('serve --proxy --record while another process holds the write lock', () => {
  it('keeps an exchange once a short hold ends, skips one held past the lock wait saying why, and goes on serving and recording', async () => {
    const upstream = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`answer of ${req.url}`))
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    const target = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`
    const workspace = cliWorkspace()
    await workspace.ok('init', '--yes', '--slug', 'api', '--path-rules', 'off')
    const server = await spawnServe(['--db', workspace.db, 'serve', '--port', '0', '--project', 'api', '--proxy', target, '--record'], {
      cwd: workspace.cwd,
      env: { MOCKAPI_LOCK_WAIT: `${LOCK_WAIT_MS}ms` },
    })
    const { context } = openStore(workspace.db)
    const recorded = () => context.repos.endpoints.listByProject(context.repos.projects.list()[0]!.id).map((e) => `${e.method} ${e.path}`).sort()
    const get = async (path: string) => {
      const started = performance.now()
      const response = await fetch(`${server.url}${path}`)
      return { status: response.status, text: await response.text(), ms: performance.now() - started }
    }
    // Another process with a write transaction open: what serve writes waits for it.
    const other = new Database(workspace.db)
    const hold = () => {
      other.exec('BEGIN IMMEDIATE')
      other.prepare("UPDATE projects SET name = name || '' WHERE slug = 'api'").run()
    }
    try {
      hold()
      expect(await get('/short')).toMatchObject({ status: 200, text: 'answer of /short' })
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(recorded()).toEqual([])
      other.exec('COMMIT')
      await expect.poll(recorded, { timeout: 5000 }).toEqual(['GET /short'])

      hold()
      const held = await get('/long')
      // The proxy answers without the lock: only the recording waits.
      expect(held).toMatchObject({ status: 200, text: 'answer of /long' })
      expect(held.ms).toBeLessThan(LOCK_WAIT_MS)
      await expect.poll(server.output, { timeout: LOCK_WAIT_MS + 5000 })
        .toContain("! recording: GET /long was not recorded: another process held the database's write lock for longer than the lock wait (MOCKAPI_LOCK_WAIT)")
      other.exec('COMMIT')
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK')
      other.close()
    }
    expect(await get('/after')).toMatchObject({ status: 200, text: 'answer of /after' })
    await expect.poll(recorded, { timeout: 5000 }).toEqual(['GET /after', 'GET /short'])
    await expectAliveAndIntact(server.url, workspace.db)

    expect(await workspace.ok('record', 'stop', '--project', 'api')).toContain('stopped recording project api')
    server.child.kill('SIGTERM')
    expect((await exited(server.child)).code).toBe(0)
    await new Promise<void>((resolve) => upstream.close(() => resolve()))
  })
})
