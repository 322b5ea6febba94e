import { afterAll, describe, expect, it } from 'vitest'
import { createProject } from '../../src/domain/projects.ts'
import { createSubscription, updateSubscription } from '../../src/domain/subscriptions.ts'
import type { RequestServed } from '../../src/events.ts'
import { createEventRecorder } from '../../src/queue/event-recorder.ts'
import { cleanup, openStore, tempDb, testClock } from '../_helpers.ts'

afterAll(cleanup)

const quiet = { failed: () => {}, succeeded: () => {}, note: () => {} }

describe('event payloads', () => {
  it('are the envelope as JSON.stringify writes it, for every optional field, odd text and numbers', async () => {
    const clock = testClock()
    const runtime = openStore(tempDb())
    const context = { ...runtime.context, clock }
    const project = createProject(context, { name: 'Hooked', slug: 'hooked' })
    createSubscription(context, project, { name: 'all', targetUrl: 'http://127.0.0.1:9/hook', events: ['mock.request', 'mock.error'] })
    const recorder = createEventRecorder(context, runtime.events, { onQueued: () => {}, log: quiet })
    const base = { projectId: project.id, endpointId: null, method: 'GET', path: '/api/hooked/posts/1', query: new URLSearchParams(), status: 200, durationMs: 3, at: 1_700_000_000_000, fromDelivery: false }
    const served: RequestServed[] = [
      base,
      { ...base, endpointId: 7, method: 'PATCH', path: '/api/hooked/"quoted"/\\back/é/😀/\u2028', query: new URLSearchParams('a=1&a=2&b=&%22k%22=%F0%9F%98%80'), status: 404, durationMs: 12.5 },
      { ...base, status: 0, fault: 'reset', note: 'not shown beside a fault', durationMs: Number.NaN },
      { ...base, status: 200, failed: true, note: 'client closed the connection' },
      { ...base, answeredBy: { position: 2, name: 'when "x"' }, proxied: true, durationMs: 0 },
    ]
    for (const one of served) runtime.events.emit('request.served', one)
    recorder.flush()
    // The batch's one time: when it was written.
    const timestamp = context.db.prepare<[], string>('SELECT created_at FROM events LIMIT 1').pluck().get()
    const expected = served.flatMap((one) => {
      const data = {
        projectId: one.projectId,
        endpointId: one.endpointId,
        method: one.method,
        path: one.path,
        query: Object.fromEntries([...new Set(one.query.keys())].map((key) => [key, one.query.getAll(key).length === 1 ? one.query.get(key) : one.query.getAll(key)])),
        status: one.status,
        durationMs: one.durationMs,
        ...(one.fault ? { fault: one.fault } : {}),
        ...(one.failed && !one.fault && one.note ? { note: one.note } : {}),
        ...(one.answeredBy ? { answeredBy: one.answeredBy } : {}),
        ...(one.proxied ? { proxied: true } : {}),
      }
      const types = one.status >= 400 || one.failed || one.fault ? ['mock.request', 'mock.error'] : ['mock.request']
      return types.map((type) => JSON.stringify({ type, timestamp, data }))
    })
    const rows = context.db.prepare<[], { payload: string; deliveries: number }>(
      'SELECT payload, (SELECT count(*) FROM deliveries d WHERE d.event_id = e.id) AS deliveries FROM events e ORDER BY rowid',
    ).all()
    expect(rows.map((row) => row.payload)).toEqual(expected)
    expect(rows.every((row) => row.deliveries === 1)).toBe(true)
    await recorder.close()
  })

  it('are written only for subscriptions still on when the batch is written, and none when none is', async () => {
    const clock = testClock()
    const runtime = openStore(tempDb())
    const context = { ...runtime.context, clock }
    const project = createProject(context, { name: 'Hooked', slug: 'hooked' })
    const first = createSubscription(context, project, { name: 'first', targetUrl: 'http://127.0.0.1:9/a', events: ['mock.request'] })
    const second = createSubscription(context, project, { name: 'second', targetUrl: 'http://127.0.0.1:9/b', events: ['mock.request'] })
    const recorder = createEventRecorder(context, runtime.events, { onQueued: () => {}, log: quiet })
    const request = { projectId: project.id, endpointId: null, method: 'GET', path: '/api/hooked/x', query: new URLSearchParams(), status: 200, durationMs: 1, at: 1_700_000_000_000, fromDelivery: false }
    runtime.events.emit('request.served', request)
    // Turned off by another connection while the request waits in the batch: the recorder's cache still lists it.
    runtime.context.db.prepare('UPDATE subscriptions SET enabled = 0 WHERE id = ?').run(first.id)
    recorder.flush()
    const targets = () => context.db.prepare<[], number>('SELECT subscription_id FROM deliveries ORDER BY id').pluck().all()
    expect(targets()).toEqual([second.id])
    updateSubscription(context, second, { enabled: false })
    runtime.events.emit('request.served', request)
    recorder.flush()
    expect(targets()).toEqual([second.id])
    expect(context.db.prepare('SELECT count(*) FROM events').pluck().get()).toBe(1)
    await recorder.close()
  })

  it('of a batch larger than one INSERT takes are all written, each with its delivery, ids in order', async () => {
    const clock = testClock()
    const runtime = openStore(tempDb())
    const context = { ...runtime.context, clock }
    const project = createProject(context, { name: 'Hooked', slug: 'hooked' })
    const subscription = createSubscription(context, project, { name: 'all', targetUrl: 'http://127.0.0.1:9/hook', events: ['mock.request'] })
    const recorder = createEventRecorder(context, runtime.events, { onQueued: () => {}, log: quiet })
    for (let i = 0; i < 203; i += 1) {
      runtime.events.emit('request.served', { projectId: project.id, endpointId: null, method: 'GET', path: `/api/hooked/${i}`, query: new URLSearchParams(), status: 200, durationMs: 1, at: 1_700_000_000_000, fromDelivery: false })
    }
    recorder.flush()
    const rows = context.db.prepare<[], { id: string; path: string; subscription: number }>(
      "SELECT e.id, e.payload ->> '$.data.path' AS path, d.subscription_id AS subscription FROM events e JOIN deliveries d ON d.event_id = e.id ORDER BY e.rowid",
    ).all()
    expect(rows.map((row) => row.path)).toEqual(Array.from({ length: 203 }, (_, i) => `/api/hooked/${i}`))
    expect(rows.every((row) => row.subscription === subscription.id)).toBe(true)
    expect([...rows.map((row) => row.id)].sort()).toEqual(rows.map((row) => row.id))
    await recorder.close()
  })
})
