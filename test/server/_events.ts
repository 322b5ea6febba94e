/** Reads a `text/event-stream` opened with fetch: events in order, comments counted. */
export interface EventReader {
  status: number
  headers: Headers
  /** The next event (optionally of one name, skipping others) within `timeoutMs`. */
  next(name?: string, timeoutMs?: number): Promise<{ event: string; data: string }>
  /** Resolves when the server ends the stream. */
  ended: Promise<void>
  comments: string[]
  close(): void
}

export async function openEvents(url: string, headers: Record<string, string> = {}): Promise<EventReader> {
  const abort = new AbortController()
  const response = await fetch(url, { headers, signal: abort.signal })
  const queue: { event: string; data: string }[] = []
  const comments: string[] = []
  // A holder, not a `let`: TypeScript would narrow a `let` to null inside the reading loop below.
  const waiter: { wake: (() => void) | null } = { wake: null }
  let finished = false
  const ended = (async () => {
    if (!response.body) return
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true })
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          let event = 'message'
          const data: string[] = []
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim())
            else if (line.startsWith('event: ')) event = line.slice(7)
            else if (line.startsWith('data: ')) data.push(line.slice(6))
          }
          if (data.length > 0) queue.push({ event, data: data.join('\n') })
          waiter.wake?.()
        }
      }
    } catch {
      // aborted by the test
    } finally {
      finished = true
      waiter.wake?.()
    }
  })()
  return {
    status: response.status,
    headers: response.headers,
    comments,
    ended,
    async next(name, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const index = queue.findIndex((e) => name === undefined || e.event === name)
        if (index >= 0) return queue.splice(index, 1)[0]!
        if (finished) throw new Error(`the stream ended before a "${name ?? 'any'}" event`)
        const left = deadline - Date.now()
        if (left <= 0) throw new Error(`no "${name ?? 'any'}" event within ${timeoutMs} ms`)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left)
          waiter.wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        waiter.wake = null
      }
    },
    close: () => abort.abort(),
  }
}
