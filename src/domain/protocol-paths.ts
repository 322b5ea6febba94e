/**
 * Where GraphQL, SOAP and gRPC operations live. GraphQL and SOAP operations share one URL per
 * schema or service, so each endpoint's path names its operation after a `#`, the way a fragment
 * names a part of a page: `/graphql#Query.film`, `/soap/Calculator#Add`. gRPC methods are their
 * own HTTP/2 path, `/helloworld.Greeter/SayHello`, served on the gRPC port.
 */

export const GRAPHQL_MOUNT = '/graphql'

export function graphqlOperationPath(type: 'query' | 'mutation', field: string): string {
  return `${GRAPHQL_MOUNT}#${type === 'query' ? 'Query' : 'Mutation'}.${field}`
}

export function soapMount(service: string): string {
  return `/soap/${service}`
}

export function soapOperationPath(service: string, operation: string): string {
  return `${soapMount(service)}#${operation}`
}

/** `/graphql#Query.film` → `{ mount: '/graphql', operation: 'Query.film' }`; null for a plain path. */
export function splitOperationPath(path: string): { mount: string; operation: string } | null {
  const hash = path.indexOf('#')
  return hash < 0 ? null : { mount: path.slice(0, hash), operation: path.slice(hash + 1) }
}

/** The endpoint path of each operation kind, as a project file must write it, with an example for messages. */
export const OPERATION_PATH_SHAPES: Record<'graphql' | 'grpc' | 'soap', { pattern: RegExp; example: string }> = {
  graphql: { pattern: /^\/graphql#(Query|Mutation)\.[_A-Za-z][_0-9A-Za-z]*$/, example: `${GRAPHQL_MOUNT}#Query.film` },
  grpc: { pattern: /^\/[^/#\s]+\/[^/#\s]+$/, example: '/helloworld.Greeter/SayHello' },
  soap: { pattern: /^\/soap\/[^/#\s]+#[^/#\s]+$/, example: soapOperationPath('Calculator', 'Add') },
}
