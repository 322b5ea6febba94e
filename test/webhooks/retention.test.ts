import { afterAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { createSubscription } from '../../src/domain/subscriptions.ts'
import { cleanup, openStore, send, startReceiver, tempDb, waitFor } from '../_helpers.ts'
import { startServer } from '../../src/server/start.ts'

afterAll(cleanup)

describe('retention', () => {
  it('caps the inbox per project and the delivery log per subscription, keeping the newest', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    const project = createProject(context, { name: 'R', slug: 'r' })
    createResource(context, { project: 'r', path: '/api/items' })
    const receiver = await startReceiver()
    const subscription = createSubscription(context, project, { name: 'r', targetUrl: receiver.url, events: ['mock.request'] })
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const server = await startServer({ dbPath, port: 0, host: '127.0.0.1', demo: false, retention: { inboxPerProject: 5, deliveriesPerSubscription: 3, everyMs: 100 } })
    try {
      for (let i = 1; i <= 12; i += 1) {
        await send(`${server.url}/api/webhooks/inbox/r`, { method: 'POST', body: { n: i } })
        await send(`${server.url}/api/r/items?n=${i}`)
      }
      await waitFor(() => receiver.requests.length === 12, 5000, 'twelve deliveries')
      const inbox = await waitFor(async () => {
        const list = (await send(`${server.url}/api/projects/${project.id}/webhook-inbox`, { headers: auth })).json
        return list.length === 5 ? list : null
      }, 3000, 'the inbox pruned to 5')
      expect(inbox.map((item: { body: { n: number } }) => item.body.n)).toEqual([12, 11, 10, 9, 8])
      const log = await waitFor(async () => {
        const list = (await send(`${server.url}/api/projects/${project.id}/webhooks?deliveries=true`, { headers: auth })).json[0].deliveries
        return list.length === 3 ? list : null
      }, 3000, 'the delivery log pruned to 3')
      expect(log.every((a: { succeeded: boolean }) => a.succeeded)).toBe(true)
      const counts = context.db.prepare('SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM deliveries WHERE subscription_id = ?)').raw().get(subscription.id)
      expect(counts).toEqual([3, 3])
    } finally {
      await server.close()
    }
  })

  it("finds a pruned delivery's attempts by their index, not by reading every attempt kept", () => {
    const { context } = openStore(tempDb())
    const plan = context.db.prepare('EXPLAIN QUERY PLAN DELETE FROM attempts WHERE delivery_id = ?').all(1) as { detail: string }[]
    expect(plan.map((step) => step.detail)).toEqual([expect.stringMatching(/USING (COVERING )?INDEX attempts_by_delivery/)])
  })
})
