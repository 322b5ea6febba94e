/** The URL when it is absolute and http(s); else what is wrong with it. */
function httpUrl(value: string): URL | string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return `must be an absolute http(s) URL, got "${value}"`
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must use http or https, not ${url.protocol.slice(0, -1)}`
  return url
}

/**
 * What the delivery worker sends to: an absolute http(s) URL without credentials. Webhook
 * subscriptions and OpenAPI callbacks are refused by the same rule.
 */
export function targetUrlProblem(value: string): string | null {
  const url = httpUrl(value)
  if (typeof url === 'string') return url
  if (url.username || url.password) return 'must not carry credentials; use the signature to authenticate deliveries'
  return null
}

/**
 * What `serve --proxy` forwards to: an absolute http(s) URL, its path a prefix of every forwarded
 * path; no credentials (they would show in process lists and logs: a client's own `Authorization`
 * is forwarded), no query or fragment (the request's own query is the one sent).
 */
export function proxyTargetProblem(value: string): string | null {
  const url = httpUrl(value)
  if (typeof url === 'string') return url
  if (url.username || url.password) return 'must not carry credentials (user:password@): send them from the client, whose Authorization header is forwarded'
  if (url.search || url.hash) return 'must not have a query or fragment: each request\'s own query is forwarded'
  return null
}
