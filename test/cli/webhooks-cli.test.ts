import { afterEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { cleanup, cli, send, serve, serveCli, startReceiver, tempDir, testClock, waitFor } from '../_helpers.ts'

afterEach(cleanup)

async function setup() {
  const cwd = tempDir()
  const db = join(cwd, 'cli.db')
  const run = (...args: string[]) => cli(['--db', db, ...args], { cwd })
  expect((await run('init', '--yes', '--slug', 'one', '--resource', '/api/items')).code).toBe(0)
  return { cwd, db, run }
}

describe('mockapi token', () => {
  it('prints a token alone on stdout that the management API accepts', async () => {
    const { db, run } = await setup()
    const token = (await run('token')).stdout
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/)
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())
    expect(payload).toMatchObject({ sub: 'mockapi-cli' })
    expect(payload.exp - payload.iat).toBe(3600)
    expect(payload.projectId).toBeUndefined()
    const limited = JSON.parse(Buffer.from((await run('token', '--project', 'one', '--expires', '7d')).stdout.split('.')[1]!, 'base64url').toString())
    expect(limited.projectId).toBe(1)
    expect(limited.exp - limited.iat).toBe(7 * 86400)

    const clock = testClock()
    const { url } = await serve(db, { clock })
    const response = await send(`${url}/api/projects/1/webhooks`, { headers: { Authorization: `Bearer ${token.trim()}` } })
    expect(response.status).toBe(200)
    const short = (await run('token', '--expires', '1s')).stdout.trim()
    clock.advance(2100)
    expect((await send(`${url}/api/projects/1/webhooks`, { headers: { Authorization: `Bearer ${short}` } })).status).toBe(401)
  })

  it('refuses a bad --expires and an unknown project', async () => {
    const { run } = await setup()
    for (const args of [['token', '--expires', '2x'], ['token', '--expires', '1 hour'], ['token', '--project', 'nope']]) {
      const result = await run(...args)
      expect(result.code).toBe(1)
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(/^✖ /)
    }
  })
})

describe('mockapi webhooks and inbox', () => {
  it('adds, lists, toggles, shows deliveries, redelivers and removes', async () => {
    const { cwd, db, run } = await setup()
    const receiver = await startReceiver()
    const added = JSON.parse((await run('webhooks', 'add', receiver.url, '--name', 'local', '--events', 'mock.request', '--json')).stdout)
    expect(added).toMatchObject({ id: 1, name: 'local', events: ['mock.request'], enabled: true })
    expect((await run('webhooks', 'add', 'ftp://x', '--name', 'bad')).stderr).toMatch(/targetUrl/)
    expect((await run('webhooks', 'add', receiver.url, '--events', 'mock.nope')).code).toBe(1)
    expect((await run('webhooks', 'list')).stdout).toMatch(/1\s+local\s+on\s+mock\.request/)

    const { url, output, stop } = await serveCli(['--db', db, 'serve', '--port', '0'], { cwd })
    await send(`${url}/api/one/items`)
    await waitFor(() => receiver.requests.length === 1, 5000, 'a delivery')
    const log = await waitFor(async () => {
      const list = JSON.parse((await run('webhooks', 'deliveries', '--json')).stdout)
      return list.length === 1 ? list : null
    })
    expect(log[0]).toMatchObject({ subscriptionId: 1, eventType: 'mock.request', attempt: 1, statusCode: 200, succeeded: true })
    expect((await run('webhooks', 'deliveries', '1')).stdout).toMatch(/mock\.request\s+1\s+200\s+succeeded/)
    await waitFor(() => /webhook #1 mock\.request attempt 1 200/.test(output()), 3000, 'the delivery log line')

    expect((await run('webhooks', 'redeliver', String(log[0].id))).code).toBe(0)
    await waitFor(() => receiver.requests.length === 2, 5000, 'the redelivery')
    expect(receiver.requests[1]!.headers['webhook-id']).toBe(receiver.requests[0]!.headers['webhook-id'])
    expect((await run('webhooks', 'redeliver', '999')).stderr).toMatch(/no delivery with id "999"/)

    expect((await run('webhooks', 'toggle', '1')).stdout).toContain('is off')
    expect((await run('webhooks', 'redeliver', String(log[0].id))).stderr).toMatch(/is off/)
    await send(`${url}/api/one/items`)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(receiver.requests).toHaveLength(2)
    expect((await run('webhooks', 'toggle', '1', '--on')).stdout).toContain('is on')
    await send(`${url}/api/one/items?after=on`)
    await waitFor(() => receiver.requests.length === 3, 5000, 'delivery after --on')

    expect((await run('webhooks', 'remove', '1')).code).toBe(0)
    expect(JSON.parse((await run('webhooks', 'list', '--json')).stdout)).toEqual([])
    expect((await run('webhooks', 'remove', '1')).code).toBe(1)
    await stop()
  })

  it('shows the inbox as a table and as JSON', async () => {
    const { db, run } = await setup()
    expect((await run('inbox')).stdout).toContain('nothing received yet')
    const server = await serve(db)
    await send(`${server.url}/api/webhooks/inbox/one`, { method: 'POST', body: '{"event":"user.created","n":1e400}', headers: { 'content-type': 'application/json' }, overSocket: true })
    await server.close()
    const json = (await run('inbox', '--json')).stdout
    expect(json).toContain('"body":{"event":"user.created","n":1e400}')
    expect((await run('inbox')).stdout).toMatch(/1\s+\S+Z\s+127\.0\.0\.1\s+34 B\s+\{"event":"user\.created"/)
  })
})
