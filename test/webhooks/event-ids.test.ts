import { afterAll, describe, expect, it } from 'vitest'
import { createProject } from '../../src/domain/projects.ts'
import { createSubscription } from '../../src/domain/subscriptions.ts'
import { createEventRecorder } from '../../src/queue/event-recorder.ts'
import { cleanup, openStore, tempDb, testClock } from '../_helpers.ts'

afterAll(cleanup)

describe('event ids', () => {
  it('are msg_ and 32 hex digits, in the order the events were written', async () => {
    const clock = testClock()
    const runtime = openStore(tempDb())
    const context = { ...runtime.context, clock }
    const project = createProject(context, { name: 'Hooked', slug: 'hooked' })
    createSubscription(context, project, { name: 'all', targetUrl: 'http://127.0.0.1:9/hook', events: ['mock.request'] })
    const recorder = createEventRecorder(context, runtime.events, { onQueued: () => {}, log: { failed: () => {}, succeeded: () => {}, note: () => {} } })
    for (let i = 0; i < 30; i += 1) {
      runtime.events.emit('request.served', { projectId: project.id, endpointId: null, method: 'GET', path: `/api/items/${i}`, query: new URLSearchParams(), status: 200, durationMs: 1, at: 1_700_000_000_000, fromDelivery: false })
      recorder.flush()
      clock.advance(1)
    }
    await recorder.close()
    const ids = context.db.prepare<[], { id: string }>('SELECT id FROM events ORDER BY rowid').all().map((row) => row.id)
    expect(ids).toHaveLength(30)
    for (const id of ids) expect(id).toMatch(/^msg_[0-9a-f]{32}$/)
    expect([...ids].sort()).toEqual(ids)
  })
})
