import type { MockEvents, RequestServed } from '../events.ts'

/** A window with this many served requests or more (1,000 a second) is load. */
export const LOADED_REQUESTS = 100
export const LOAD_WINDOW_MS = 100
/** Load ends once no request came for this long. */
export const QUIET_MS = 20

export interface RequestLoad {
  /** Whether requests are pouring in now: the last full window had LOADED_REQUESTS and one came within QUIET_MS. */
  busy(): boolean
  /** Stops counting. */
  close(): void
}

/**
 * Counts the mock requests served, by windows of LOAD_WINDOW_MS, so background work can tell a
 * server answering a load from one idling. Requests our own deliveries made are not load.
 */
export function watchRequestLoad(events: MockEvents, options: { requests?: number; windowMs?: number; quietMs?: number } = {}): RequestLoad {
  const requests = options.requests ?? LOADED_REQUESTS
  const windowMs = options.windowMs ?? LOAD_WINDOW_MS
  const quietMs = options.quietMs ?? QUIET_MS
  let windowStart = performance.now()
  let inWindow = 0
  let lastAt = -Infinity
  let loaded = false
  const onServed = (served: RequestServed) => {
    if (served.fromDelivery) return
    const at = performance.now()
    if (at - windowStart >= windowMs) {
      // A window that ended long ago counts for nothing: its requests were spread over more time.
      loaded = inWindow >= requests && at - windowStart < 2 * windowMs
      windowStart = at
      inWindow = 0
    }
    inWindow += 1
    lastAt = at
  }
  events.on('request.served', onServed)
  return {
    busy: () => (loaded || inWindow >= requests) && performance.now() - lastAt < quietMs,
    close: () => void events.off('request.served', onServed),
  }
}
