import { afterEach, describe, expect, it } from 'vitest'
import { createHmac } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanup, cli, send, serveCli, startReceiver, tempDir, waitFor } from '../_helpers.ts'

afterEach(cleanup)

describe('reset', () => {
  it('puts seeded records back, from the CLI and from POST /api/projects/{id}/reset', async () => {
    const cwd = tempDir()
    const db = join(cwd, 'r.db')
    const run = (...args: string[]) => cli(['--db', db, ...args], { cwd })
    expect((await run('init', '--template', 'todo', '--yes', '--slug', 'todo')).code).toBe(0)
    const { url, stop } = await serveCli(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    const seeded = (await send(`${url}/api/todo/todos`)).text
    await send(`${url}/api/todo/todos`, { method: 'POST', body: { title: 'extra' } })
    await send(`${url}/api/todo/todos/1`, { method: 'DELETE' })
    await send(`${url}/api/todo/lists/2`, { method: 'PUT', body: { name: 'Changed' } })
    expect((await run('reset')).stdout).toContain('reset todo: 33 records in 2 collections')
    expect((await send(`${url}/api/todo/todos`)).text).toBe(seeded)
    expect((await send(`${url}/api/todo/lists/2`)).json.name).toBe('Work')
    // Generated ids continue after the seed again.
    expect((await send(`${url}/api/todo/todos`, { method: 'POST', body: { title: 'n' } })).json.id).toBe(31)

    const token = (await run('token')).stdout.trim()
    const reset = await send(`${url}/api/projects/1/reset`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } })
    expect(reset.status).toBe(200)
    expect(reset.json).toEqual({ collections: 2, records: 33 })
    expect((await send(`${url}/api/todo/todos`)).text).toBe(seeded)
    expect((await send(`${url}/api/projects/1/reset`, { method: 'POST' })).status).toBe(401)
    expect((await send(`${url}/api/projects/1/reset`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(405)
    await stop()
  })
})

describe('serve --watch', () => {
  it('applies the file at start and on every change; a broken edit keeps the last good state', async () => {
    const cwd = tempDir()
    const file = join(cwd, 'mockapi.yaml')
    writeFileSync(file, 'name: Watched\nslug: watched\nresources:\n  - path: /api/notes\n    records:\n      - { id: "1", text: first }\n')
    const { url, output, stop } = await serveCli(['--db', join(cwd, 'w.db'), 'serve', '--port', '0', '--watch', 'mockapi.yaml'], { cwd })
    expect(output()).toContain('applied mockapi.yaml to project watched')
    expect((await send(`${url}/api/notes/1`)).json.text).toBe('first')
    expect(output()).not.toContain('demo project')

    writeFileSync(file, `${readFileSync(file, 'utf8')}endpoints:\n  - method: GET\n    path: /api/stats\n    body: { notes: 1 }\n`)
    await waitFor(async () => (await send(`${url}/api/stats`)).status === 200, 5000, 'the new endpoint')
    expect((await send(`${url}/api/watched/stats`)).json).toEqual({ notes: 1 })
    await waitFor(() => output().includes('+ endpoint GET /api/stats'), 3000, 'the applied line')

    writeFileSync(file, 'name: Watched\nslug: watched\nresources: [\n')
    await waitFor(() => output().includes('not applied, still serving the last good version'), 5000, 'the error line')
    expect((await send(`${url}/api/stats`)).json).toEqual({ notes: 1 })
    expect((await send(`${url}/api/notes/1`)).status).toBe(200)
    expect(await stop()).toBe(0)
  })

  it('refuses to start on a broken file', async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, 'bad.yaml'), 'name: [\n')
    const result = await cli(['serve', '--port', '0', '--watch', 'bad.yaml'], { cwd })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/bad\.yaml, line \d+/)
  })
})

describe('mockapi webhooks send', () => {
  it('posts a sample payload with id, epoch-ms timestamp and a hex HMAC signature', async () => {
    const receiver = await startReceiver()
    const result = await cli(['webhooks', 'send', receiver.url, '--event', 'payment.succeeded', '--sign', 'topsecret'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('payment.succeeded')
    const [request] = receiver.requests
    const timestamp = String(request!.headers['x-webhook-timestamp'])
    expect(Math.abs(Number(timestamp) - Date.now())).toBeLessThan(10_000)
    expect(request!.headers['x-webhook-id']).toMatch(/^[0-9a-f-]{36}$/)
    const expected = createHmac('sha256', 'topsecret').update(`${timestamp}.${request!.body}`).digest('hex')
    expect(request!.headers['x-webhook-signature']).toBe(expected)
    expect(JSON.parse(request!.body)).toMatchObject({ event: 'payment.succeeded', data: { object: { status: 'succeeded' } } })

    expect((await cli(['webhooks', 'send', receiver.url, '--event', 'user.created'])).code).toBe(0)
    expect(receiver.requests[1]!.headers['x-webhook-signature']).toBeUndefined()
    expect(JSON.parse(receiver.requests[1]!.body)).toMatchObject({ event: 'user.created', data: { email: expect.stringMatching(/@/) } })
  })

  it('refuses an unknown event and reports a receiver that fails', async () => {
    const failing = await startReceiver(() => 500)
    expect((await cli(['webhooks', 'send', failing.url, '--event', 'nope.event'])).stderr).toMatch(/unknown event "nope\.event"; samples: payment\.succeeded/)
    const failed = await cli(['webhooks', 'send', failing.url, '--event', 'user.created'])
    expect(failed.code).toBe(1)
    expect(failed.stderr).toContain(': 500 in')
  })
})
