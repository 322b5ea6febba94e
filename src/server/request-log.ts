import type { MockEvents, RequestCaptured, RequestEntry } from '../events.ts'

/** How many mock requests are kept per project. */
export const REQUEST_LOG_SIZE = 200

export interface RequestLog {
  /**
   * Starts recording (the dashboard's first call). Until then nothing listens for
   * `request.captured`, so mock requests pay nothing for the log.
   */
  activate(): void
  /** The project's recent requests, newest first. */
  list(projectId: number): RequestEntry[]
  /** Calls `listener` with each request of the project from now on; returns the unsubscribe. */
  subscribe(projectId: number, listener: (entry: RequestEntry) => void): () => void
}

/** An in-memory ring of the last 200 mock requests of each project, for this server run only. */
export function createRequestLog(events: MockEvents, size = REQUEST_LOG_SIZE): RequestLog {
  const rings = new Map<number, { entries: RequestEntry[]; next: number }>()
  const listeners = new Map<number, Set<(entry: RequestEntry) => void>>()
  let nextId = 1
  let active = false

  const onCaptured = ({ projectId, entry }: RequestCaptured) => {
    const logged: RequestEntry = { id: nextId++, ...entry }
    let ring = rings.get(projectId)
    if (!ring) rings.set(projectId, (ring = { entries: [], next: 0 }))
    // Overwrite the oldest slot once full: no shifting 200 entries per request.
    if (ring.entries.length < size) ring.entries.push(logged)
    else ring.entries[ring.next] = logged
    ring.next = (ring.next + 1) % size
    for (const listener of listeners.get(projectId) ?? []) listener(logged)
  }

  return {
    activate() {
      if (active) return
      active = true
      events.on('request.captured', onCaptured)
    },
    list(projectId) {
      const ring = rings.get(projectId)
      if (!ring) return []
      const { entries, next } = ring
      const oldestFirst = entries.length < size ? entries : [...entries.slice(next), ...entries.slice(0, next)]
      return oldestFirst.slice().reverse()
    },
    subscribe(projectId, listener) {
      let set = listeners.get(projectId)
      if (!set) listeners.set(projectId, (set = new Set()))
      set.add(listener)
      return () => {
        set.delete(listener)
        if (set.size === 0 && listeners.get(projectId) === set) listeners.delete(projectId)
      }
    },
  }
}
