import { afterAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { createProject } from '../../src/domain/projects.ts'
import { cleanup, cli, openStore, send, serve, startReceiver, tempDb, waitFor } from '../_helpers.ts'

afterAll(cleanup)

interface Outcomes { succeeded: number; retrying: number; failed: number }
interface ListedAttempt { id: number; eventId: string; attempt: number; statusCode: number | null; succeeded: boolean; outcome: keyof Outcomes; error: string | null }

describe('each attempt of the delivery log has its outcome, as the stats count it', () => {
  it('a receiver failing some attempts, then answering: outcomes per attempt sum to the stats, in the API and the CLI', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    createProject(context, { name: 'Hooks', slug: 'hooks' })
    addEndpoint(context, { project: 'hooks', method: 'POST', path: '/api/orders', status: 201 })
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 10 * 60_000 })}` }
    // Each event says in its query how many of its attempts fail before one gets through; three
    // attempts at most (two retries), so `fail=3` is given up.
    const tries = new Map<string, number>()
    const receiver = await startReceiver((_, request) => {
      const id = String(request.headers['webhook-id'])
      const failures = Number((JSON.parse(request.body) as { data: { query: { fail: string } } }).data.query.fail)
      const attempt = (tries.get(id) ?? 0) + 1
      tries.set(id, attempt)
      return attempt <= failures ? 500 : 204
    })
    const server = await serve(dbPath, { retryDelaysMs: [20, 20] })
    const api = `${server.url}/api/projects/1`
    const created = await send(`${api}/webhooks`, { method: 'POST', headers: auth, body: { name: 'flaky', targetUrl: receiver.url, events: ['mock.request'] } })
    expect(created.status).toBe(201)
    for (const fail of [0, 1, 2, 3]) expect((await send(`${server.url}/api/hooks/orders?fail=${fail}`, { method: 'POST', body: {} })).status).toBe(201)

    // 1 + 2 + 3 + 3 attempts, the last one given up.
    const log = async () => (await send(`${api}/webhooks/${created.json.id}/deliveries`, { headers: auth })).json as ListedAttempt[]
    const attempts = await waitFor(async () => {
      const listed = await log()
      return listed.length === 9 && listed.filter((a) => a.outcome === 'failed').length === 1 && listed
    }, 8000, 'nine attempts, one delivery given up')
    // Per event, oldest attempt first (the four events are delivered side by side, in any order).
    const byEvent = new Map<string, string[]>()
    for (const a of [...attempts].reverse()) byEvent.set(a.eventId, [...byEvent.get(a.eventId) ?? [], `#${a.attempt} ${a.statusCode} ${a.outcome}`])
    expect([...byEvent.values()].sort((a, b) => a.join().localeCompare(b.join()))).toEqual([
      ['#1 204 succeeded'],
      ['#1 500 retrying', '#2 204 succeeded'],
      ['#1 500 retrying', '#2 500 retrying', '#3 204 succeeded'],
      ['#1 500 retrying', '#2 500 retrying', '#3 500 failed'],
    ])
    // A retried attempt still says it did not get through, and why.
    expect(attempts.filter((a) => a.outcome === 'retrying').every((a) => !a.succeeded && a.error === 'HTTP 500')).toBe(true)

    const counted = (list: { outcome: keyof Outcomes }[]) => list.reduce((sum, a) => ({ ...sum, [a.outcome]: sum[a.outcome] + 1 }), { succeeded: 0, retrying: 0, failed: 0 })
    const buckets = (await send(`${api}/stats?window=1h`, { headers: auth })).json.deliveries as Outcomes[]
    const stats = buckets.reduce((sum, b) => ({ succeeded: sum.succeeded + b.succeeded, retrying: sum.retrying + b.retrying, failed: sum.failed + b.failed }), { succeeded: 0, retrying: 0, failed: 0 })
    console.log('listed', JSON.stringify(counted(attempts)), 'stats', JSON.stringify(stats))
    expect(counted(attempts)).toEqual({ succeeded: 3, retrying: 5, failed: 1 })
    expect(stats).toEqual(counted(attempts))

    // The subscriptions list with its deliveries, and the CLI's JSON, say the same of each attempt.
    const listedWith = (await send(`${api}/webhooks?deliveries=true`, { headers: auth })).json[0].deliveries as ListedAttempt[]
    expect(listedWith.map((a) => [a.id, a.outcome])).toEqual(attempts.map((a) => [a.id, a.outcome]))
    const fromCli = JSON.parse((await cli(['webhooks', 'deliveries', '--json', '--db', dbPath])).stdout) as ListedAttempt[]
    expect(fromCli.map((a) => [a.id, a.outcome])).toEqual(attempts.map((a) => [a.id, a.outcome]))
  })
})
