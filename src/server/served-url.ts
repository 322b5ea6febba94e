import type { H3Event } from 'h3'
import { servedPath } from '../domain/endpoints.ts'
import { splitOperationPath } from '../domain/operation-paths.ts'
import { WITH_BODY } from '../engine/exchange.ts'
import { kindOf } from '../kinds/registry.ts'
import type { Endpoint, Project } from '../model.ts'
import { servedEndpointView, type ServedEndpointView } from '../views.ts'

/** What a served URL is built from: the request that asked (its origin and host name) and the gRPC port. */
export interface ServedAt {
  /** `http://127.0.0.1:3000`: the scheme, host and port the client reached this server by. */
  origin: string
  /** The host name alone (`127.0.0.1`, `[::1]`), for the gRPC port. */
  hostname: string
  /** Null while nothing listens for gRPC (no gRPC method yet, or `serve` without gRPC). */
  grpcPort: number | null
}

/**
 * Where a client calls an endpoint: `/api/{slug}` and the path it is served at (a GraphQL or SOAP
 * operation at the URL its schema or service shares); a gRPC method as `host:port/package.Service/Method`
 * (the HTTP/2 path on the gRPC port; grpcurl takes the two apart), null while gRPC is not listening.
 * Path parameters stay as written (`:id`): the URL is a template to fill.
 */
export function servedUrl(endpoint: Pick<Endpoint, 'kind' | 'path'>, projectSlug: string, at: ServedAt): string | null {
  if (kindOf(endpoint.kind).routing === 'grpc-port') return at.grpcPort === null ? null : `${at.hostname}:${at.grpcPort}${endpoint.path}`
  const path = splitOperationPath(endpoint.path)?.mount ?? endpoint.path
  return `${at.origin}/api/${projectSlug}${servedPath(path)}`
}

const JSON_CALL = ['-H', "'content-type: application/json'", '-d', "'{}'"]

/** `'…'` for a shell: what the URL holds is passed as is (a `'` closes, escapes and reopens). */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`
}

/**
 * A line a shell runs to call the endpoint at its served URL: curl with what its kind sends, or
 * grpcurl (the gRPC server has reflection on) for a method on the gRPC port; null without a URL.
 */
export function callLine(endpoint: Pick<Endpoint, 'kind' | 'method'>, url: string | null): string | null {
  if (url === null) return null
  const kind = kindOf(endpoint.kind)
  if (kind.routing === 'grpc-port') {
    const slash = url.indexOf('/')
    return `grpcurl -plaintext -d '{}' ${url.slice(0, slash)} ${url.slice(slash + 1)}`
  }
  const words = ['curl']
  if (endpoint.method !== 'GET') words.push('-X', endpoint.method)
  words.push(shellQuote(url))
  if (kind.callArguments) words.push(...kind.callArguments)
  else if (WITH_BODY.has(endpoint.method)) words.push(...JSON_CALL)
  return words.join(' ')
}

/**
 * Endpoint views of `project` with the URL each is served at and the line that calls it, on the host
 * a request came to, and the credentials each demands (`authOf`).
 */
export function servedViews(project: Pick<Project, 'slug'>, at: ServedAt, authOf: (endpoint: Endpoint) => string): (endpoint: Endpoint) => ServedEndpointView {
  return (endpoint) => {
    const url = servedUrl(endpoint, project.slug, at)
    return servedEndpointView(endpoint, { url, call: callLine(endpoint, url), effectiveAuth: authOf(endpoint) })
  }
}

/** Where the request that asks came in: its origin and host name, and the gRPC port if gRPC listens. */
export function servedAt(event: H3Event, grpcPort: number | null): ServedAt {
  return { origin: event.url.origin, hostname: event.url.hostname, grpcPort }
}
