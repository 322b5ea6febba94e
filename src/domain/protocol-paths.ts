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
