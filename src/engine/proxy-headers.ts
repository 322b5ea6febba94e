/**
 * What a forwarding proxy changes in the headers it passes on (RFC 9110 §7.6.1): the hop-by-hop
 * headers are the connection's, not the message's, so they go neither way; Host names the target.
 */

/** Always hop-by-hop, whether or not `Connection` names them. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'])

/** A flat `[name, value, name, value, …]` list (Node's `rawHeaders`) as pairs, without the hop-by-hop ones (and those `Connection` names). */
/** Headers a proxy setting may not set: the hop-by-hop ones (dropped on the way), Host (the target's) and Content-Length (the body's own). */
export function isConnectionHeader(name: string): boolean {
  const lower = name.toLowerCase()
  return HOP_BY_HOP.has(lower) || lower === 'host' || lower === 'content-length'
}

export function endToEndHeaders(raw: readonly string[]): [string, string][] {
  const named = new Set<string>()
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== 'connection') continue
    for (const token of raw[i + 1]!.split(',')) named.add(token.trim().toLowerCase())
  }
  const pairs: [string, string][] = []
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase()
    if (!HOP_BY_HOP.has(lower) && !named.has(lower)) pairs.push([raw[i]!, raw[i + 1]!])
  }
  return pairs
}

export interface ForwardedFrom {
  /** The client's address; null when unknown (a request without a socket). */
  clientIp: string | null
  /** The Host the client asked for. */
  host: string | null
  /** `http` or `https`: how the client reached us. */
  protocol: string
}

/**
 * The request headers as the target gets them: end to end only, Host the target's, and the
 * `X-Forwarded-*` trio (appended to any a proxy before us set), as nginx and WireMock send them.
 */
export function forwardedRequestHeaders(raw: readonly string[], targetHost: string, from: ForwardedFrom): [string, string][] {
  const kept = endToEndHeaders(raw).filter(([name]) => {
    const lower = name.toLowerCase()
    return lower !== 'host' && lower !== 'x-forwarded-host' && lower !== 'x-forwarded-proto'
  })
  const earlierFor = kept.filter(([name]) => name.toLowerCase() === 'x-forwarded-for').map(([, value]) => value)
  const headers = kept.filter(([name]) => name.toLowerCase() !== 'x-forwarded-for')
  const forwardedFor = [...earlierFor, ...(from.clientIp ? [from.clientIp] : [])].join(', ')
  headers.push(['Host', targetHost])
  if (forwardedFor) headers.push(['X-Forwarded-For', forwardedFor])
  if (from.host) headers.push(['X-Forwarded-Host', from.host])
  headers.push(['X-Forwarded-Proto', from.protocol])
  return headers
}
