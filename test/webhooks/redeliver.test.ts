import { afterEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { mintToken } from '../../src/domain/auth.ts'
import { redeliverMany } from '../../src/domain/redelivery.ts'
import { deleteSubscription } from '../../src/domain/subscriptions.ts'
import type { ProgressStep } from '../../src/engine/progress.ts'
import { cleanup, cli, cliProcessAsync, openStore, send, serve, spawnServe, startReceiver, tempDir, waitFor } from '../_helpers.ts'
import { arrangeFailed } from './_failed.ts'

afterEach(cleanup)

/** A project `one` (and `two`) with subscriptions made by the CLI; `run` runs it in-process on that database. */
async function workspace(subscriptions: { project?: string; url?: string }[]) {
  const cwd = tempDir()
  const db = join(cwd, 'r.db')
  const run = (...args: string[]) => cli(['--db', db, ...args], { cwd })
  expect((await run('init', '--yes', '--slug', 'one', '--resource', '/api/items')).code).toBe(0)
  expect((await run('project', 'create', 'Two', '--slug', 'two')).code).toBe(0)
  for (const { project = 'one', url = 'http://127.0.0.1:9/hook' } of subscriptions) {
    const added = await run('webhooks', 'add', url, '--project', project, '--events', 'mock.request')
    expect(added.code, added.stderr).toBe(0)
  }
  return { cwd, db, run }
}

/** Each delivery of a subscription as the queue holds it, oldest first: `event state`. */
function deliveries(db: string, subscriptionId: number): string[] {
  const { context } = openStore(db)
  return context.db.prepare("SELECT event_id || ' ' || state FROM deliveries WHERE subscription_id = ? ORDER BY id").pluck().all(subscriptionId) as string[]
}

const pending = (db: string, subscriptionId: number) => deliveries(db, subscriptionId).filter((d) => d.endsWith(' pending')).map((d) => d.split(' ')[0])

/** The ids of the delivery log (attempt ids), oldest first. */
async function attemptIds(run: (...args: string[]) => Promise<{ stdout: string }>, subscriptionId: number): Promise<number[]> {
  const log = JSON.parse((await run('webhooks', 'deliveries', String(subscriptionId), '--json')).stdout) as { id: number }[]
  return log.map((a) => a.id).reverse()
}

describe('mockapi webhooks redeliver of many', () => {
  it('queues the events of several ids once each, skips a repeated event and a subscription turned off, and says so', async () => {
    const { db, run } = await workspace([{}, {}])
    const one = arrangeFailed(db, 1, 3)
    const two = arrangeFailed(db, 2, 1)
    const [a, b, c] = await attemptIds(run, 1)
    const [d] = await attemptIds(run, 2)
    expect((await run('webhooks', 'toggle', '2', '--off')).code).toBe(0)

    const result = await run('webhooks', 'redeliver', String(a), String(c), String(a), String(d))
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe([
      '✔ queued 2 deliveries again (a running serve sends them within a second)',
      '  skipped 1: another id named the same event for subscription 1',
      '  skipped 1: subscription 2 is off (mockapi webhooks toggle 2 --on turns it on)',
      '',
    ].join('\n'))
    expect(pending(db, 1)).toEqual([one[0], one[2]])
    expect(pending(db, 2)).toEqual([])

    expect((await run('webhooks', 'toggle', '2', '--on')).code).toBe(0)
    const json = await run('webhooks', 'redeliver', String(b), String(d), '--json')
    expect(JSON.parse(json.stdout)).toEqual({ queued: 2, skipped: 0, skips: [] })
    expect(pending(db, 1)).toEqual([one[0], one[2], one[1]])
    expect(pending(db, 2)).toEqual([two[0]])
    // One id keeps its one-line answer, and its refusal of a subscription turned off.
    expect((await run('webhooks', 'redeliver', String(b))).stdout).toBe(`✔ queued mock.request ${one[1]} again for subscription 1\n`)
  })

  it('refuses unknown ids, ids of another project and malformed ones before queuing any', async () => {
    const { db, run } = await workspace([{}, { project: 'two' }])
    arrangeFailed(db, 1, 2)
    arrangeFailed(db, 2, 1)
    const [a, b] = await attemptIds(run, 1)
    const [other] = await attemptIds(run, 2)
    const refusals: [string[], RegExp][] = [
      [[String(a), '999', '1000'], /^✖ no deliveries with id "999", "1000" \(ids are listed by "mockapi webhooks deliveries"\); nothing was queued\n$/],
      [[String(a), String(other), '--project', 'one'], new RegExp(`^✖ no delivery with id "${other}" in project 1 `)],
      [[String(a), 'abc'], /^✖ "abc" is not a delivery id: give the ids "mockapi webhooks deliveries" lists\n$/],
      [[String(a), '0'], /"0" is not a delivery id/],
      [[], /give the ids of deliveries to queue again \(mockapi webhooks deliveries lists them\), or --failed/],
      [[String(a), '--failed'], /give delivery ids or --failed, not both/],
      [[String(a), String(b), '--since', '1h'], /--subscription and --since go with --failed/],
      [['--subscription', '1'], /--subscription and --since go with --failed/],
      [['--failed', '--since', 'yesterday'], /"--since" must be an ISO time \(2026-01-31T10:00:00Z\) or a span back from now \(30s, 5m, 2h, 1d\), got "yesterday"/],
      [['--failed', '--subscription', '2', '--project', 'one'], /no webhook subscription with id "2" in project 1/],
      [['--failed', '--subscription', '7'], /no webhook subscription with id "7"/],
      [['--failed', '--project', 'nope'], /nope/],
    ]
    for (const [args, message] of refusals) {
      const result = await run('webhooks', 'redeliver', ...args)
      expect(result.code, args.join(' ')).toBe(1)
      expect(result.stdout).toBe('')
      expect(result.stderr, args.join(' ')).toMatch(message)
    }
    expect(pending(db, 1)).toEqual([])
    expect(pending(db, 2)).toEqual([])
  })

  it('--failed queues each failed delivery not queued again since, of the project or one subscription, failed since a time', async () => {
    const { db, run } = await workspace([{}, {}, {}, { project: 'two' }])
    const hourAgo = Date.now() - 3_600_000
    const oldOfOne = arrangeFailed(db, 1, 3, hourAgo - 60_000)
    const newOfOne = arrangeFailed(db, 1, 2)
    const ofTwo = arrangeFailed(db, 2, 4)
    arrangeFailed(db, 3, 1)
    arrangeFailed(db, 4, 5)
    expect((await run('webhooks', 'toggle', '3', '--off')).code).toBe(0)

    const narrow = await run('webhooks', 'redeliver', '--failed', '--subscription', '1', '--since', '30m', '--json')
    expect(JSON.parse(narrow.stdout)).toEqual({ queued: 2, skipped: 0, skips: [] })
    expect(pending(db, 1)).toEqual(newOfOne)

    const recent = await run('webhooks', 'redeliver', '--failed', '--since', new Date(hourAgo).toISOString())
    expect(recent.stdout).toBe([
      '✔ queued 4 deliveries again (a running serve sends them within a second)',
      '  skipped 1: subscription 3 is off (mockapi webhooks toggle 3 --on turns it on)',
      '',
    ].join('\n'))
    expect(pending(db, 2)).toEqual(ofTwo)

    const rest = JSON.parse((await run('webhooks', 'redeliver', '--failed', '--json')).stdout)
    expect(rest).toEqual({ queued: 3, skipped: 1, skips: [{ subscriptionId: 3, reason: 'subscription-off', count: 1 }] })
    expect(pending(db, 1)).toEqual([...newOfOne, ...oldOfOne])
    // Another project's failed deliveries are its own.
    expect(pending(db, 4)).toEqual([])

    const again = await run('webhooks', 'redeliver', '--failed')
    expect(again.stdout).toBe('! queued 0 deliveries again\n  skipped 1: subscription 3 is off (mockapi webhooks toggle 3 --on turns it on)\n')
    expect((await run('webhooks', 'redeliver', '--failed', '--subscription', '1')).stdout).toBe('✔ no failed deliveries of subscription 1 to queue again\n')
    expect(JSON.parse((await run('webhooks', 'redeliver', '--failed', '--project', 'two', '--json')).stdout)).toMatchObject({ queued: 5 })
  })

  it('skips what was deleted between selection and queueing: a subscription, an event pruned; queues the rest across batches', async () => {
    const { db } = await workspace([{}, {}, {}])
    const ofOne = arrangeFailed(db, 1, 700)
    arrangeFailed(db, 2, 600)
    const ofThree = arrangeFailed(db, 3, 2)
    const { context } = openStore(db)
    // Another connection, as another process: it writes when the first step is reported, after the selection and before the first batch.
    const other = openStore(db).context
    const steps: ProgressStep[] = []
    const summary = await redeliverMany(context, { failed: true, project: context.repos.projects.byId(1)!, subscription: null, since: null }, {
      onProgress: (step) => {
        if (steps.length === 0) {
          deleteSubscription(other, other.repos.subscriptions.byId(2)!)
          other.db.prepare('DELETE FROM events WHERE id = ?').run(ofThree[1])
        }
        steps.push({ ...step })
      },
    })
    expect(summary).toEqual({
      queued: 701,
      skipped: 601,
      skips: [{ subscriptionId: 2, reason: 'subscription-deleted', count: 600 }, { subscriptionId: 3, reason: 'event-pruned', count: 1 }],
    })
    expect(pending(db, 1)).toEqual(ofOne)
    expect(pending(db, 3)).toEqual([ofThree[0]])
    expect(steps[0]).toEqual({ label: 'queuing deliveries', done: 0, total: 1302 })
    expect(steps.at(-1)).toEqual({ label: 'queuing deliveries', done: 1302, total: 1302 })
    expect(steps.map((s) => s.done)).toEqual([...steps.map((s) => s.done)].sort((x, y) => x - y))
  })

  it('a serve in another process sends what the CLI queues again: the failed events arrive, with their webhook-ids, while it keeps answering', async () => {
    let failing = true
    const receiver = await startReceiver(() => (failing ? 500 : 200))
    const { cwd, db, run } = await workspace([{ url: receiver.url }])
    const served = await spawnServe(['--db', db, 'serve', '--port', '0', '--quiet', '--webhook-retry-delays', '0ms', '--keep-deliveries', '5000'], { cwd })
    for (let i = 0; i < 20; i++) expect((await send(`${served.url}/api/one/items?n=${i}`)).status).toBe(200)
    await waitFor(() => deliveries(db, 1).filter((d) => d.endsWith(' failed')).length === 20, 10_000, '20 failed deliveries')
    const failedIds = new Set(receiver.requests.map((r) => r.headers['webhook-id']))
    expect(failedIds.size).toBe(20)
    // And a backlog the CLI takes some batches over, to send meanwhile.
    arrangeFailed(db, 1, 600)
    failing = false
    const before = receiver.requests.length

    const redelivering = cliProcessAsync(['--db', db, 'webhooks', 'redeliver', '--failed', '--json'], { cwd })
    let done = false
    void redelivering.then(() => (done = true))
    const token = (await run('token')).stdout.trim()
    const answers: number[] = []
    while (!done) {
      answers.push((await send(`${served.url}/api/one/items?during=1`)).status)
      answers.push((await send(`${served.url}/api/projects/1`, { method: 'PATCH', body: { openapiSecurity: answers.length % 4 === 1 }, headers: { Authorization: `Bearer ${token}` } })).status)
    }
    const result = await redelivering
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ queued: 620, skipped: 0, skips: [] })
    expect(answers.length).toBeGreaterThan(0)
    expect(new Set(answers)).toEqual(new Set([200]))

    const again = await waitFor(() => {
      const ids = receiver.requests.slice(before).filter((r) => failedIds.has(r.headers['webhook-id']))
      return ids.length >= 20 ? ids : null
    }, 20_000, 'the 20 failed events sent again')
    expect(new Set(again.map((r) => r.headers['webhook-id']))).toEqual(failedIds)
    const queuedAgain = (id: string | string[] | undefined) => failedIds.has(id) || String(id).startsWith('evt_1_')
    await waitFor(() => new Set(receiver.requests.slice(before).map((r) => r.headers['webhook-id']).filter(queuedAgain)).size === 620, 30_000, 'every event queued again')
    const log = JSON.parse((await run('webhooks', 'deliveries', '--limit', '1000', '--json')).stdout) as { succeeded: boolean; attempt: number }[]
    expect(log.some((a) => a.succeeded && a.attempt === 1)).toBe(true)
    served.child.kill('SIGTERM')
  }, 60_000)
})

describe('POST /api/projects/{id}/deliveries/redeliver', () => {
  it('queues the failed deliveries (or the ids) of the project, which its serve sends at once; refuses bad bodies', async () => {
    const receiver = await startReceiver()
    const { db, run } = await workspace([{ url: receiver.url }, { project: 'two' }])
    const failed = arrangeFailed(db, 1, 3)
    arrangeFailed(db, 2, 1)
    const [first] = await attemptIds(run, 1)
    const [other] = await attemptIds(run, 2)
    const server = await serve(db)
    const { context } = openStore(db)
    const headers = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 600_000 })}` }
    const post = (body: unknown, project = 1) => send(`${server.url}/api/projects/${project}/deliveries/redeliver`, { method: 'POST', body, headers })

    const refusals: [unknown, number, string, RegExp][] = [
      [[1, 2], 400, 'INVALID_BODY', /request body must be a JSON object/],
      [{}, 400, 'INVALID_INPUT', /"failed" must be true \(or send "attemptIds"\)/],
      [{ failed: 'yes' }, 400, 'INVALID_INPUT', /"failed" must be true/],
      [{ failed: true, subscription: 1 }, 400, 'INVALID_INPUT', /"subscription" is not a field of a redelivery/],
      [{ failed: true, since: 'yesterday' }, 400, 'INVALID_INPUT', /"since" must be an ISO time/],
      [{ failed: true, subscriptionId: '1' }, 400, 'INVALID_INPUT', /"subscriptionId" must be a subscription id/],
      [{ failed: true, subscriptionId: 2 }, 404, 'NOT_FOUND', /no webhook subscription with id "2" in project 1/],
      [{ attemptIds: [] }, 400, 'INVALID_INPUT', /"attemptIds" must be a non-empty list/],
      [{ attemptIds: ['1'] }, 400, 'INVALID_INPUT', /"attemptIds" must hold positive integers, got "1"/],
      [{ attemptIds: [first], failed: true }, 400, 'INVALID_INPUT', /not both/],
      [{ attemptIds: [first, other] }, 404, 'NOT_FOUND', new RegExp(`no delivery with id "${other}" in project 1`)],
    ]
    for (const [body, status, code, message] of refusals) {
      const response = await post(body)
      expect(response.status, JSON.stringify(body)).toBe(status)
      expect(response.json.error.code).toBe(code)
      expect(response.json.error.message).toMatch(message)
    }
    expect((await send(`${server.url}/api/projects/1/deliveries/redeliver`, { headers })).status).toBe(405)
    expect(receiver.requests).toHaveLength(0)

    const queued = await post({ failed: true, since: '10m' })
    expect(queued.status).toBe(202)
    expect(queued.json).toEqual({ queued: 3, skipped: 0, skips: [] })
    await waitFor(() => receiver.requests.length === 3, 5000, 'the three sent')
    expect(receiver.requests.map((r) => JSON.parse(r.body).id).sort()).toEqual([...failed].sort())
    expect((await post({ failed: true })).json).toEqual({ queued: 0, skipped: 0, skips: [] })
    expect((await post({ attemptIds: [first, first] })).json).toEqual({ queued: 1, skipped: 1, skips: [{ subscriptionId: 1, reason: 'duplicate', count: 1 }] })
    await waitFor(() => receiver.requests.length === 4, 5000, 'the one sent again')
    expect((await post({ failed: true }, 2)).json).toEqual({ queued: 1, skipped: 0, skips: [] })
  })
})
