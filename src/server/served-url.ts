import { servedPath } from '../domain/endpoints.ts'
import { splitOperationPath } from '../domain/protocol-paths.ts'
import type { Endpoint } from '../model.ts'

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
  if (endpoint.kind === 'grpc') return at.grpcPort === null ? null : `${at.hostname}:${at.grpcPort}${endpoint.path}`
  const path = splitOperationPath(endpoint.path)?.mount ?? endpoint.path
  return `${at.origin}/api/${projectSlug}${servedPath(path)}`
}
