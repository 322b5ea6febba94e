/**
 * What the delivery worker sends to: an absolute http(s) URL without credentials. Webhook
 * subscriptions and OpenAPI callbacks are refused by the same rule.
 */
export function targetUrlProblem(value: string): string | null {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return `must be an absolute http(s) URL, got "${value}"`
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must use http or https, not ${url.protocol.slice(0, -1)}`
  if (url.username || url.password) return 'must not carry credentials; use the signature to authenticate deliveries'
  return null
}
