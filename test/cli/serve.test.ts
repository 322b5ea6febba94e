import { afterEach, describe, expect, it } from 'vitest'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { cleanup, cli, exited, send, serveCli, spawnServe, tempDir } from '../_helpers.ts'

afterEach(cleanup)

describe('mockapi serve', () => {
  // The one serve of this file in a child process: the binary as a user starts it, stopped by a real signal.
  it('creates the default database and demo project on first run and answers from SQLite', async () => {
    const cwd = tempDir()
    const { url, child, output } = await spawnServe(['serve', '--port', '0'], { cwd })
    expect(existsSync(join(cwd, '.mockapi', 'mockapi.db'))).toBe(true)
    expect(output()).toContain('demo project')
    expect(output()).toContain(`${url}/api/demo/`)

    const page = await send(`${url}/api/demo/posts?sort=title&order=desc&page=1&limit=5`)
    expect(page.status).toBe(200)
    expect(page.json).toHaveLength(5)
    expect(page.headers.get('x-total-count')).toBe('8')
    const titles = page.json.map((p: { title: string }) => p.title)
    expect(titles).toEqual([...titles].sort().reverse())
    // The default project is also served at its endpoints' own paths.
    expect((await send(`${url}/api/posts/1`)).json.id).toBe(1)
    expect((await send(`${url}/api/users/1/posts`)).json.every((p: { userId: number }) => p.userId === 1)).toBe(true)
    expect(output()).toMatch(/GET\s+\/api\/posts\/1 200/)

    child.kill('SIGTERM')
    const { code } = await exited(child)
    expect(code).toBe(0)
    expect(output()).toContain('SIGTERM: shutting down')
  })

  it('picks up endpoint changes made by the CLI while serving', async () => {
    const cwd = tempDir()
    const db = join(cwd, 'live.db')
    expect((await cli(['--db', db, 'init', '--yes', '--slug', 'live', '--resource', '/api/posts'], { cwd })).code).toBe(0)
    const { url, stop } = await serveCli(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    const base = `${url}/api/live`
    await send(`${base}/posts`, { method: 'POST', body: { title: 'a', tags: ['x'] } })

    expect((await cli(['--db', db, 'add-endpoint', 'GET', '/api/stats', '--body', '{"posts":1}', '--status', '203'], { cwd })).code).toBe(0)
    const stats = await send(`${base}/stats`)
    expect(stats.status).toBe(203)
    expect(stats.json).toEqual({ posts: 1 })
    expect((await send(`${url}/api/stats`)).status).toBe(203)

    // A resource's PATCH, removed and brought back while serving.
    expect((await cli(['--db', db, 'remove-endpoint', 'PATCH', '/api/posts/:id'], { cwd })).code).toBe(0)
    expect((await send(`${base}/posts/1`, { method: 'PATCH', body: { views: 2 } })).status).toBe(405)
    expect((await cli(['--db', db, 'add-endpoint', 'PATCH', '/api/posts/:id'], { cwd })).code).toBe(0)
    const patched = await send(`${base}/posts/1`, { method: 'PATCH', body: { views: 3 } })
    expect(patched.status).toBe(200)
    expect(patched.json).toEqual({ id: 1, title: 'a', tags: ['x'], views: 3 })

    expect((await cli(['--db', db, 'remove-endpoint', 'DELETE', '/api/posts/:id'], { cwd })).code).toBe(0)
    const removed = await send(`${base}/posts/1`, { method: 'DELETE' })
    expect(removed.status).toBe(405)
    expect(removed.headers.get('allow')).toBe('GET, HEAD, PATCH, PUT')
    expect((await send(`${base}/posts/1`)).status).toBe(200)

    expect(await stop()).toBe(0)
  })

  it('refuses a port that is taken when it was asked for explicitly', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      const cwd = tempDir()
      const result = await cli(['serve', '--port', String(port)], { cwd })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`port ${port} is in use`)
    } finally {
      blocker.close()
    }
  })

  it('serves another project at its own paths with --project', async () => {
    const cwd = tempDir()
    const db = join(cwd, 'two.db')
    await cli(['--db', db, 'init', '--yes', '--slug', 'first', '--resource', '/api/cats'], { cwd })
    await cli(['--db', db, 'project', 'create', 'Second', '--slug', 'second'], { cwd })
    await cli(['--db', db, 'add-resource', '/api/dogs', '--project', 'second'], { cwd })
    const { url, stop } = await serveCli(['--db', db, 'serve', '--port', '0', '--project', 'second'], { cwd })
    expect((await send(`${url}/api/dogs`)).status).toBe(200)
    expect((await send(`${url}/api/cats`)).status).toBe(404)
    expect((await send(`${url}/api/first/cats`)).status).toBe(200)
    await stop()
  })

  it('runs in-process until its AbortSignal stops it, leaving the process\'s signal and error handlers alone', async () => {
    const cwd = tempDir()
    const db = join(cwd, 'inproc.db')
    await cli(['--db', db, 'init', '--yes', '--slug', 'p', '--resource', '/api/notes'], { cwd })
    const handlers = () => ['SIGINT', 'SIGTERM', 'uncaughtException', 'unhandledRejection'].map((event) => process.listenerCount(event))
    const before = handlers()
    const { url, output, stop } = await serveCli(['--db', db, 'serve', '--port', '0'], { cwd })
    expect(handlers()).toEqual(before)
    expect((await send(`${url}/api/notes`)).status).toBe(200)
    expect(output()).toMatch(/GET\s+\/api\/notes 200/)
    expect(await stop()).toBe(0)
    expect(output()).toContain('stopped: shutting down')
    // Stopped means closed: nothing listens and the database can be served again at once.
    await expect(fetch(`${url}/api/health`)).rejects.toThrow()
    const again = await serveCli(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    expect((await send(`${again.url}/api/notes`)).status).toBe(200)
    // Left running (as by a test that failed), it is stopped by cleanup().
    await cleanup()
    await expect(fetch(`${again.url}/api/health`)).rejects.toThrow()
    expect(again.output()).toContain('stopped: shutting down')
  })
})
