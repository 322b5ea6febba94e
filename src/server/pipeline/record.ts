import type { MockEvents, RequestEntry, RequestServed } from '../../events.ts'
import { queryObject } from '../../queue/event-recorder.ts'

/** The record stage's input: one answered request of any transport (a gRPC code given as its HTTP equivalent). */
export type Served = RequestServed

/** What the request log shows of an exchange, besides what `Served` holds. */
export type LoggedExchange = Pick<RequestEntry, 'time' | 'request' | 'response'>

/**
 * `request.served` (the CLI's log line, webhooks' `mock.request`) and, while the request log
 * listens, its entry: once per request, for every transport. `exchange` is given only when the
 * transport captured one.
 */
export function recordServed(events: MockEvents, served: Served, exchange: (() => Promise<LoggedExchange>) | null): Promise<void> | undefined {
  if (events.listenerCount('request.served') > 0) events.emit('request.served', served)
  // Most requests end here, without a promise: nothing listens for the request log.
  if (!exchange || served.projectId === null) return undefined
  const { projectId } = served
  return exchange().then(({ time, request, response }) => {
    events.emit('request.captured', {
      projectId,
      entry: {
        time,
        method: served.method,
        path: served.path,
        query: queryObject(served.query),
        status: served.status,
        durationMs: served.durationMs,
        endpointId: served.endpointId,
        ...(served.fault ? { fault: served.fault } : {}),
        ...(served.answeredBy ? { answeredBy: served.answeredBy } : {}),
        ...(served.note ? { note: served.note } : {}),
        request,
        response,
      },
    })
  })
}
