/**
 * One request and the answer a real API gave it, as the proxy saw it or a HAR file or Postman
 * collection wrote it down: what a recording turns into resources and endpoints (recording.ts).
 */
export interface RecordedExchange {
  /** Upper case. */
  method: string
  /** The path within the project, as the mock serves it: before the proxy's `pathRewrite`. */
  path: string
  /** The search part: `''` or `?a=1`. */
  query: string
  requestHeaders: [string, string][]
  requestBody: Uint8Array | null
  status: number
  /** As received, hop-by-hop headers already dropped. */
  responseHeaders: [string, string][]
  /** The whole body (the proxy copies bodies up to 32 MiB; larger exchanges are not recorded). */
  responseBody: Uint8Array
  /** ISO 8601. */
  startedAt: string
  durationMs: number
}
