import { beforeAll, describe, expect, it } from 'vitest'
import { loadFaker } from '../../src/engine/generators.ts'
import { createGraphqlExecutor, type GraphqlExecutor } from '../../src/kinds/graphql/execute.ts'
import { loadGraphqlSchema, type GraphqlSpec } from '../../src/kinds/graphql/load.ts'
import { readFixture } from './_fixtures.ts'
import { queriesFor, schemaOf, shapeProblems } from './_queries.ts'

interface Setup { definition: GraphqlSpec; executor: GraphqlExecutor }

// One executor per schema for the whole file: building GitHub's mocked schema is the expensive part.
const setups = new Map<string, Promise<Setup>>()
function setup(name: string): Promise<Setup> {
  let found = setups.get(name)
  if (!found) {
    found = loadFaker().then((makeFaker) => {
      const definition = loadGraphqlSchema(readFixture(`${name}/schema.graphql`), `${name}.graphql`)
      return { definition, executor: createGraphqlExecutor(definition.sdl, makeFaker) }
    })
    setups.set(name, found)
  }
  return found
}

function run(executor: GraphqlExecutor, query: string, variables?: Record<string, unknown>) {
  const prepared = executor.prepare({ query, variables: variables ?? null })
  if (!prepared.ok) throw new Error(prepared.errors.map((error) => error.message).join('; '))
  return prepared.execute()
}

describe.each(['swapi', 'github'])('every root field of %s', (name) => {
  let definition: GraphqlSpec
  let executor: GraphqlExecutor
  beforeAll(async () => ({ definition, executor } = await setup(name)))

  it('has a query document for each operation the loader lists', () => {
    const listed = definition.operations.map(({ type, field }) => `${type} ${field}`)
    expect(queriesFor(definition.sdl).map(({ type, field }) => `${type} ${field}`)).toEqual(listed)
  })

  it('answers each with data shaped as selected and no errors', () => {
    const schema = schemaOf(definition.sdl)
    const failures: string[] = []
    for (const { type, field, query, variables } of queriesFor(definition.sdl)) {
      const prepared = executor.prepare({ query, variables })
      if (!prepared.ok) {
        failures.push(`${field}: ${prepared.errors.map((error) => error.message).join('; ')}`)
        continue
      }
      expect(prepared.operationType).toBe(type)
      expect(prepared.rootFields).toEqual([field])
      const result = prepared.execute()
      if (result.errors) failures.push(`${field}: ${result.errors.map((error) => `${error.message} at ${error.path?.join('.')}`).join('; ')}`)
      else failures.push(...shapeProblems(schema, query, result.data).map((problem) => `${field}: ${problem}`))
    }
    expect(failures).toEqual([])
  })
})

describe('values from the real schemas', () => {
  it('GitHub: field names and custom scalars give realistic values', async () => {
    const { executor } = await setup('github')
    const result = run(executor, `{ viewer { id login email createdAt avatarUrl url databaseId
      repositories(first: 5) { totalCount nodes { id nameWithOwner diskUsage pushedAt sshUrl defaultBranchRef { target { oid abbreviatedOid } } } } } }`)
    expect(result.errors).toBeUndefined()
    const viewer = (result.data as { viewer: Record<string, unknown> }).viewer
    expect(viewer.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(viewer.email).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/i)
    expect(new Date(viewer.createdAt as string).toISOString()).toBe(viewer.createdAt)
    expect(new URL(viewer.avatarUrl as string).protocol).toMatch(/^https?:$/)
    expect(new URL(viewer.url as string).protocol).toMatch(/^https?:$/)
    expect(Number.isInteger(viewer.databaseId)).toBe(true)
    const nodes = (viewer.repositories as { nodes: Record<string, unknown>[] }).nodes
    for (const node of nodes) {
      expect(node.sshUrl).toMatch(/^git@github\.com:[^/]+\/[^/]+\.git$/)
      const target = (node.defaultBranchRef as { target: { oid: string; abbreviatedOid: string } }).target
      expect(target.oid).toMatch(/^[0-9a-f]{40}$/)
    }
    expect(new Set(nodes.map((node) => node.id)).size).toBe(nodes.length)
  })

  it('swapi: Node resolves to a concrete type, __typename included', async () => {
    const { executor } = await setup('swapi')
    const concrete = new Set(['Film', 'Person', 'Planet', 'Species', 'Starship', 'Vehicle'])
    const seen = new Set<string>()
    for (let i = 0; i < 20; i++) {
      const result = run(executor, '{ node(id: "ZmlsbXM6MQ==") { __typename id ... on Film { title } ... on Person { name } } }')
      const node = (result.data as { node: { __typename: string; id: string; title?: string; name?: string } }).node
      expect(concrete).toContain(node.__typename)
      if (node.__typename === 'Film') expect(typeof node.title).toBe('string')
      if (node.__typename === 'Person') expect(typeof node.name).toBe('string')
      seen.add(node.__typename)
    }
    expect(seen.size).toBeGreaterThan(1)
  })
})
