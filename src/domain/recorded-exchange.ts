export interface RecordedExchange {
  method: string            // upper case
  path: string              // the path as the mock will serve it (after pathRewrite undone, see P)
  query: string             // the search part, '' or '?a=1'
  requestHeaders: [string, string][]
  requestBody: Uint8Array | null
  status: number
  responseHeaders: [string, string][]   // as received (hop-by-hop already dropped)
  responseBody: Uint8Array              // whole body (P buffers a copy up to a cap, see below)
  startedAt: string                     // ISO
  durationMs: number
}
