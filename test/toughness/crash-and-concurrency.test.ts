import { afterEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { cleanup, itemsProject, cli, cliProcessAsync, exited, send, serveCli, spawnServe, startReceiver, waitFor } from '../_helpers.ts'

afterEach(cleanup)


describe('kill -9 in the middle of a burst of writes', () => {
  it('keeps every record it answered 201 for, and the file passes integrity_check', async () => {
    const { cwd, db } = await itemsProject()
    const server = await spawnServe(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    const acknowledged: string[] = []
    let next = 0
    const lane = async () => {
      while (next < 1000) {
        const n = next++
        try {
          const response = await fetch(`${server.url}/api/t/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ n }) })
          if (response.status === 201) acknowledged.push(String(((await response.json()) as { id: number }).id))
        } catch {
          // The server is gone: this request was never acknowledged.
        }
      }
    }
    const lanes = Array.from({ length: 20 }, lane)
    await waitFor(() => acknowledged.length >= 300, 10_000, '300 acknowledged writes')
    server.child.kill('SIGKILL')
    await Promise.all(lanes)
    await exited(server.child)
    expect(acknowledged.length).toBeLessThan(1000)

    const file = new Database(db, { readonly: true })
    expect(file.pragma('integrity_check', { simple: true })).toBe('ok')
    const stored = new Set(file.prepare('SELECT id FROM records').pluck().all() as string[])
    file.close()
    const lost = acknowledged.filter((id) => !stored.has(id))
    expect(lost).toEqual([])

    // The serve after the crash runs in this process: the file it opens is the same.
    const again = await serveCli(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    const list = await send(`${again.url}/api/t/items`)
    expect(Number(list.headers.get('x-total-count'))).toBe(stored.size)
    expect(await again.stop()).toBe(0)
  })
})

describe('two processes on one database', () => {
  it('the CLI changes endpoints while serve takes writes and delivers: no SQLITE_BUSY, nothing lost, nothing sent twice', async () => {
    const { cwd, db } = await itemsProject()
    const receiver = await startReceiver()
    expect((await cli(['--db', db, 'webhooks', 'add', receiver.url, '--events', 'mock.request'], { cwd })).code).toBe(0)
    const server = await spawnServe(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    const writes = Array.from({ length: 300 }, (_, n) =>
      fetch(`${server.url}/api/t/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ n }) }).then((r) => r.status))
    const changes = Array.from({ length: 8 }, (_, i) => cliProcessAsync(['--db', db, 'add-endpoint', 'GET', `/api/extras-${i}s`, '--body', `{"n":${i}}`], { cwd }))
    const settings = Array.from({ length: 4 }, (_, i) => cliProcessAsync(['--db', db, 'endpoint', 'set', 'GET', '/api/items', '--header', `X-Round: ${i}`], { cwd }))
    const statuses = await Promise.all(writes)
    const results = await Promise.all([...changes, ...settings])
    for (const result of results) {
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).not.toMatch(/SQLITE_BUSY|locked/i)
    }
    expect(statuses.every((status) => status === 201)).toBe(true)
    expect((await send(`${server.url}/api/t/items?limit=1`)).headers.get('x-total-count')).toBe('300')
    await waitFor(() => receiver.requests.length >= 300, 15_000, 'every delivery')
    await new Promise((resolve) => setTimeout(resolve, 300))
    const ids = receiver.requests.map((r) => r.headers['webhook-id'])
    expect(new Set(ids).size).toBe(ids.length)
    expect((await send(`${server.url}/api/t/extras-7s`)).json).toEqual({ n: 7 })
    server.child.kill('SIGTERM')
    await exited(server.child)
  })
})
