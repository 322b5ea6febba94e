/**
 * Where operations that share one URL live: each endpoint's path names its operation after a `#`,
 * the way a fragment names a part of a page (`/graphql#Query.film`, `/soap/Calculator#Add`); the
 * part before it is the mount that answers them all. Each kind builds its own paths (src/kinds/).
 */

/** `/graphql#Query.film` → `{ mount: '/graphql', operation: 'Query.film' }`; null for a plain path. */
export function splitOperationPath(path: string): { mount: string; operation: string } | null {
  const hash = path.indexOf('#')
  return hash < 0 ? null : { mount: path.slice(0, hash), operation: path.slice(hash + 1) }
}
