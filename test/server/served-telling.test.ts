import { afterAll, describe, expect, it } from 'vitest'
import { MockEvents, type RequestServed } from '../../src/events.ts'
import { recordServed, settleServed } from '../../src/server/pipeline/record.ts'
import { countServedRequests } from '../../src/server/served-counts.ts'
import { cleanup, openStore, tempDb } from '../_helpers.ts'

const served = (path: string, projectId: number | null = 1): RequestServed => ({ projectId, endpointId: null, method: 'GET', path, query: new URLSearchParams(), status: 200, durationMs: 1, at: 1_700_000_000_000, fromDelivery: false })
const turnEnd = () => new Promise((resolve) => setImmediate(resolve))

afterAll(cleanup)

describe('requests served, told at the end of the turn', () => {
  it('reach the listeners once the turn is over, in order, each once', async () => {
    const events = new MockEvents()
    const heard: string[] = []
    events.on('request.served', (one) => heard.push(one.path))
    recordServed(events, served('/a'), null, null)
    recordServed(events, served('/b'), null, null)
    expect(heard).toEqual([])
    await turnEnd()
    expect(heard).toEqual(['/a', '/b'])
    settleServed(events)
    await turnEnd()
    expect(heard).toEqual(['/a', '/b'])
  })

  it('reach them at once when settled first, and are not told again at the end of the turn', async () => {
    const events = new MockEvents()
    const heard: string[] = []
    events.on('request.served', (one) => heard.push(one.path))
    recordServed(events, served('/a'), null, null)
    settleServed(events)
    expect(heard).toEqual(['/a'])
    recordServed(events, served('/b'), null, null)
    await turnEnd()
    expect(heard).toEqual(['/a', '/b'])
  })

  it('are not held when no one listens, and one server’s are not another’s', async () => {
    const quiet = new MockEvents()
    const other = new MockEvents()
    const heard: string[] = []
    other.on('request.served', (one) => heard.push(one.path))
    recordServed(quiet, served('/nobody'), null, null)
    quiet.on('request.served', (one) => heard.push(one.path))
    settleServed(quiet)
    recordServed(other, served('/other'), null, null)
    settleServed(quiet)
    expect(heard).toEqual([])
    await turnEnd()
    expect(heard).toEqual(['/other'])
  })

  it('survive a listener that fails: the others, and the turn’s other requests, are told', async () => {
    const events = new MockEvents()
    const heard: string[] = []
    events.on('request.served', (one) => {
      if (one.path === '/bad') throw new Error('the listener fails')
    })
    events.on('request.served', (one) => heard.push(one.path))
    recordServed(events, served('/bad'), null, null)
    recordServed(events, served('/good'), null, null)
    await turnEnd()
    expect(heard).toEqual(['/good'])
  })

  it('are counted before `…/stats` reads the counts, in the same turn', () => {
    const { context } = openStore(tempDb())
    const events = new MockEvents()
    const stop = new AbortController()
    const requests = countServedRequests({ context, events, signal: stop.signal, ownPathsProject: () => null })
    recordServed(events, { ...served('/counted', 4), at: Date.now() }, null, null)
    const fromMs = Math.floor(Date.now() / 60_000) * 60_000 - 60_000
    const window = { window: '3m', bucketSeconds: 60, bucketCount: 3, fromMs, toMs: fromMs + 180_000 }
    expect(requests.buckets(4, window).reduce((sum, bucket) => sum + bucket.total, 0)).toBe(1)
    stop.abort()
  })

})
