import { afterEach, describe, expect, it } from 'vitest'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { cleanup, cli, exited, send, serveCli, spawnServe, startReceiver, tempDir, waitFor } from '../_helpers.ts'

afterEach(cleanup)

interface LoggedAttempt { attempt: number; succeeded: boolean; statusCode: number | null; eventId: string; error: string | null }

async function setup() {
  const cwd = tempDir()
  const db = join(cwd, 'crash.db')
  const run = (...args: string[]) => cli(['--db', db, ...args], { cwd })
  expect((await run('init', '--yes', '--slug', 'crash', '--resource', '/api/items')).code).toBe(0)
  const attempts = async () => JSON.parse((await run('webhooks', 'deliveries', '--json')).stdout) as LoggedAttempt[]
  return { cwd, db, run, attempts }
}

/** A receiver on a fixed port, for bringing the "same" receiver back up. */
function listenOn(port: number, handler: (body: string, id: string) => void, delayMs = 0): Promise<Server> {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      handler(body, String(req.headers['webhook-id']))
      setTimeout(() => res.writeHead(200).end(), delayMs)
    })
  })
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)))
}

// The serve that crashes (or gets SIGTERM) is the binary in a child process; the one started after
// it runs in this process: to it the file and the dead process's lease are the same either way.
describe('deliveries survive kill -9', () => {
  it('continues with attempt 2 after a crash between attempts', async () => {
    const { cwd, db, run, attempts } = await setup()
    const placeholder = await startReceiver()
    const port = Number(new URL(placeholder.url).port)
    await placeholder.close() // the receiver is down
    expect((await run('webhooks', 'add', `http://127.0.0.1:${port}/hook`, '--events', 'mock.request')).code).toBe(0)

    const env = { MOCKAPI_WEBHOOK_RETRY_DELAYS: '1500ms' }
    const first = await spawnServe(['--db', db, 'serve', '--port', '0'], { cwd, env })
    await send(`${first.url}/api/crash/items`)
    const failed = await waitFor(async () => { const list = await attempts(); return list.length === 1 && list }, 8000, 'first failed attempt')
    expect(failed[0]).toMatchObject({ attempt: 1, succeeded: false, statusCode: null })
    first.child.kill('SIGKILL')
    expect((await exited(first.child)).signal).toBe('SIGKILL')

    const received: string[] = []
    const receiver = await listenOn(port, (_body, id) => received.push(id))
    try {
      const second = await serveCli(['--db', db, 'serve', '--port', '0'], { cwd, env })
      const done = await waitFor(async () => (await attempts()).find((a) => a.succeeded), 10_000, 'delivery after restart')
      expect(done.attempt).toBe(2)
      expect(received).toEqual([failed[0]!.eventId])
      expect(await second.stop()).toBe(0)
    } finally {
      receiver.close()
    }
  })

  it('delivers again after a crash while an attempt was in flight (same webhook-id)', async () => {
    const { cwd, db, run, attempts } = await setup()
    const received: string[] = []
    const slow = await listenOn(0, (_body, id) => received.push(id), 5000)
    const port = (slow.address() as { port: number }).port
    expect((await run('webhooks', 'add', `http://127.0.0.1:${port}/hook`, '--events', 'mock.request')).code).toBe(0)
    const first = await spawnServe(['--db', db, 'serve', '--port', '0'], { cwd })
    await send(`${first.url}/api/crash/items`)
    await waitFor(() => received.length === 1, 8000, 'the attempt to start')
    first.child.kill('SIGKILL')
    await exited(first.child)
    slow.closeAllConnections()
    slow.close()

    const fast = await listenOn(port, (_body, id) => received.push(id))
    try {
      const second = await serveCli(['--db', db, 'serve', '--port', '0'], { cwd })
      const done = await waitFor(async () => (await attempts()).find((a) => a.succeeded), 10_000, 'redelivery after restart')
      expect(done.attempt).toBe(1)
      expect(received).toHaveLength(2)
      expect(received[1]).toBe(received[0])
      expect(await second.stop()).toBe(0)
    } finally {
      fast.close()
    }
  })

  it('on SIGTERM lets an attempt in flight finish before exiting', async () => {
    const { cwd, db, run, attempts } = await setup()
    const received: string[] = []
    const slow = await listenOn(0, (_body, id) => received.push(id), 600)
    const port = (slow.address() as { port: number }).port
    expect((await run('webhooks', 'add', `http://127.0.0.1:${port}/hook`, '--events', 'mock.request')).code).toBe(0)
    try {
      const server = await spawnServe(['--db', db, 'serve', '--port', '0'], { cwd })
      await send(`${server.url}/api/crash/items`)
      await waitFor(() => received.length === 1, 8000, 'the attempt to start')
      server.child.kill('SIGTERM')
      expect((await exited(server.child)).code).toBe(0)
      expect(await attempts()).toMatchObject([{ attempt: 1, succeeded: true, statusCode: 200 }])
    } finally {
      slow.close()
    }
  })
})
