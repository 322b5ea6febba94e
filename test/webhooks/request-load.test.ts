import { describe, expect, it } from 'vitest'
import { MockEvents, type RequestServed } from '../../src/events.ts'
import { watchRequestLoad } from '../../src/queue/request-load.ts'

const served = (fromDelivery = false): RequestServed => ({ projectId: 1, endpointId: null, method: 'GET', path: '/x', query: new URLSearchParams(), status: 200, durationMs: 1, at: 1_700_000_000_000, fromDelivery })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('request load', () => {
  it('is busy while a window holds enough requests, and not once they stop or when they are our own deliveries', async () => {
    const events = new MockEvents()
    const load = watchRequestLoad(events, { requests: 10, windowMs: 1000, quietMs: 100 })
    for (let i = 0; i < 9; i += 1) events.emit('request.served', served())
    expect(load.busy()).toBe(false)
    for (let i = 0; i < 20; i += 1) events.emit('request.served', served(true))
    expect(load.busy()).toBe(false)
    events.emit('request.served', served())
    expect(load.busy()).toBe(true)
    await sleep(150)
    expect(load.busy()).toBe(false)
    load.close()
    expect(events.listenerCount('request.served')).toBe(0)
  })
})
