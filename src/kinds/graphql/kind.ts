import type { SpecKind } from '../kind.ts'

/** Every root field of a schema is answered at this one URL. */
export const GRAPHQL_MOUNT = '/graphql'

/** `/graphql#Query.film`: the endpoint path of a root field. */
export function graphqlOperationPath(type: 'query' | 'mutation', field: string): string {
  return `${GRAPHQL_MOUNT}#${type === 'query' ? 'Query' : 'Mutation'}.${field}`
}

/** A GraphQL schema (SDL or introspection JSON), stored as SDL; one endpoint per root field. */
export const graphqlKind: SpecKind<'graphql'> = {
  name: 'graphql',
  routing: 'mount',
  answerAtMount: async () => (await import('./answer.ts')).answerGraphql,
  callArguments: ['-H', "'content-type: application/json'", '-d', `'{"query":"{ __typename }"}'`],
  label: 'GraphQL schema',
  mounted: { noun: 'GraphQL schema', another: 'another GraphQL schema' },
  defaultStatus: () => 200,
  detect: {
    extensions: ['.graphql', '.gql', '.graphqls'],
    looksLike: /"__schema"\s*:|\btype\s+(?:Query|Mutation|Subscription)\b|^\s*schema\s*\{/m,
    described: 'GraphQL (SDL or introspection JSON)',
  },
  async load(input) {
    const [{ loadGraphqlSchema }, text] = await Promise.all([import('./load.ts'), input.read()])
    const schema = loadGraphqlSchema(text, input.name)
    return {
      title: null,
      version: 'SDL',
      document: schema.sdl,
      operations: schema.operations.map((op) => ({ method: 'POST' as const, path: graphqlOperationPath(op.type, op.field), operation: null })),
      describe: (title) => `GraphQL schema "${title}"`,
    }
  },
  nothingToServe: 'the GraphQL schema defines no operations: nothing to serve',
  operations: { by: 'named', pattern: /^\/graphql#(Query|Mutation)\.[_A-Za-z][_0-9A-Za-z]*$/, example: `${GRAPHQL_MOUNT}#Query.film` },
  exportDocument: (stored) => stored,
}
