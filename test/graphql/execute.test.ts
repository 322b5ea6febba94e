import { buildSchema } from 'graphql'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadFaker, type FakerFactory } from '../../src/engine/generators.ts'
import { createGraphqlExecutor, MAX_LIST_ITEMS, type FieldOverride, type GraphqlExecutor, type GraphqlRequest } from '../../src/kinds/graphql/execute.ts'
import { loadGraphqlSchema } from '../../src/kinds/graphql/load.ts'
import { readFixture } from './_fixtures.ts'
import { shapeProblems } from './_queries.ts'

const SHOP = `
scalar DateTime
scalar URI
scalar HTML
scalar BigInt
scalar JSON
scalar Base64String
scalar Money

enum Role { ADMIN MEMBER GUEST }

interface Node { id: ID! }
type User implements Node {
  id: ID!
  email: String!
  firstName: String!
  name: String!
  createdAt: DateTime!
  homepage: URI!
  bio: HTML!
  followers: BigInt!
  settings: JSON!
  avatar: Base64String!
  balance: Money!
  age: Int!
  rating: Float!
  active: Boolean!
  role: Role!
  tags: [String!]!
  friends: [User!]!
  pets: [Pet!]!
}
type Dog { name: String! barks: Boolean! }
type Cat { name: String! lives: Int! }
union Pet = Dog | Cat

input CreateUserInput { email: String!, role: Role = MEMBER }
type CreateUserPayload { user: User! clientMutationId: String }

type Query {
  me: User!
  users(first: Int): [User!]!
  user(id: ID!): User
  node(id: ID!): Node
  count: Int!
}
type Mutation { createUser(input: CreateUserInput!): CreateUserPayload }
type Subscription { userCreated: User! }
`

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

let makeFaker: FakerFactory
let shop: GraphqlExecutor
let swapi: GraphqlExecutor
beforeAll(async () => {
  makeFaker = await loadFaker()
  shop = createGraphqlExecutor(loadGraphqlSchema(SHOP, 'shop.graphql').sdl, makeFaker)
  swapi = createGraphqlExecutor(loadGraphqlSchema(readFixture('swapi/schema.graphql'), 'swapi.graphql').sdl, makeFaker)
})

type Overrides = (field: string) => FieldOverride | undefined

function run(executor: GraphqlExecutor, request: GraphqlRequest | string, overrides?: Overrides) {
  const prepared = executor.prepare(typeof request === 'string' ? { query: request } : request)
  if (!prepared.ok) throw new Error(prepared.errors.map((error) => error.message).join('; '))
  return prepared.execute(overrides)
}

function dataOf<T>(executor: GraphqlExecutor, request: GraphqlRequest | string, overrides?: Overrides): T {
  const result = run(executor, request, overrides)
  expect(result.errors).toBeUndefined()
  return result.data as T
}

function failure(executor: GraphqlExecutor, request: GraphqlRequest) {
  const prepared = executor.prepare(request)
  if (prepared.ok) throw new Error('prepared without errors')
  return prepared.errors
}

interface User {
  id: string; email: string; firstName: string; name: string; createdAt: string; homepage: string; bio: string
  followers: string; settings: unknown; avatar: string; balance: string; age: number; rating: number; active: boolean
  role: string; tags: string[]; friends: { id: string; email: string }[]; pets: { __typename: string; name: string; barks?: boolean; lives?: number }[]
}
const ALL_USER_FIELDS = `id email firstName name createdAt homepage bio followers settings avatar balance age rating active role tags
  friends { id email } pets { __typename ... on Dog { name barks } ... on Cat { name lives } }`

describe('generated values', () => {
  it('follow field names and scalar names', () => {
    const { me } = dataOf<{ me: User }>(shop, `{ me { ${ALL_USER_FIELDS} } }`)
    expect(me.id).toMatch(UUID)
    expect(me.email).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/i)
    expect(me.firstName).toMatch(/^[A-Z][\p{L}'-]+$/u)
    expect(me.name).toMatch(/^\S+( \S+)+$/)
    expect(new Date(me.createdAt).toISOString()).toBe(me.createdAt)
    expect(new URL(me.homepage).protocol).toBe('https:')
    expect(me.bio).toMatch(/^<p>.+<\/p>$/)
    expect(me.followers).toMatch(/^\d+$/)
    expect(me.settings).toEqual(expect.any(Object))
    expect(Buffer.from(me.avatar, 'base64').toString('base64')).toBe(me.avatar)
    expect(typeof me.balance).toBe('string')
    expect(Number.isInteger(me.age) && me.age >= 18 && me.age <= 90).toBe(true)
    expect(me.rating).toEqual(expect.any(Number))
    expect(typeof me.active).toBe('boolean')
    expect(['ADMIN', 'MEMBER', 'GUEST']).toContain(me.role)
  })

  it('lists have 2–4 items that differ from each other; union items are concrete types', () => {
    const { users } = dataOf<{ users: User[] }>(shop, `{ users(first: 10) { ${ALL_USER_FIELDS} } }`)
    expect(users.length).toBeGreaterThanOrEqual(2)
    expect(users.length).toBeLessThanOrEqual(4)
    expect(new Set(users.map((user) => user.id)).size).toBe(users.length)
    expect(new Set(users.map((user) => user.email)).size).toBe(users.length)
    for (const user of users) {
      expect(user.tags.length).toBeGreaterThanOrEqual(2)
      expect(user.friends.length).toBeLessThanOrEqual(4)
      for (const pet of user.pets) {
        expect(['Dog', 'Cat']).toContain(pet.__typename)
        expect(pet.__typename === 'Dog' ? typeof pet.barks : typeof pet.lives).toBe(pet.__typename === 'Dog' ? 'boolean' : 'number')
      }
    }
    const schema = buildSchema(SHOP)
    expect(shapeProblems(schema, `{ users(first: 10) { ${ALL_USER_FIELDS} } }`, { users })).toEqual([])
  })

  it('are fresh on every execution without a seed, repeated with one', () => {
    const query = '{ users { id email tags pets { __typename } } }'
    expect(dataOf(shop, query)).not.toEqual(dataOf(shop, query))
    const seeded = createGraphqlExecutor(loadGraphqlSchema(SHOP, 'shop.graphql').sdl, makeFaker, { seed: 42 })
    expect(dataOf(seeded, query)).toEqual(dataOf(seeded, query))
    const otherSeed = createGraphqlExecutor(loadGraphqlSchema(SHOP, 'shop.graphql').sdl, makeFaker, { seed: 43 })
    expect(dataOf(otherSeed, query)).not.toEqual(dataOf(seeded, query))
  })

  it('keep one object consistent when it is read twice in a response', () => {
    const data = dataOf<{ me: { email: string }; again: { email: string; id: string } }>(shop, '{ me { email } again: me { id email } }')
    expect(data.again.email).toBe(data.me.email)
  })
})

describe('queries', () => {
  it('take variables', () => {
    const request = { query: 'query ($n: Int, $id: ID!) { users(first: $n) { id } user(id: $id) { email } }', variables: { n: 3, id: 'u1' } }
    const data = dataOf<{ users: unknown[]; user: { email: string } }>(shop, request)
    expect(data.users.length).toBeGreaterThanOrEqual(2)
    expect(data.user.email).toContain('@')
  })

  it('answer a missing or mistyped variable with errors and no data', () => {
    for (const variables of [null, {}, { id: { not: 'an id' } }]) {
      const result = run(shop, { query: 'query ($id: ID!) { user(id: $id) { email } }', variables })
      expect(result).not.toHaveProperty('data')
      expect(result.errors?.[0]?.message).toMatch(/^Variable "\$id" /)
    }
  })

  it('resolve fragments, aliases and __typename', () => {
    const query = `query { __typename first: me { ...Who } second: me { ...Who __typename } films: count }
      fragment Who on User { handle: email ... on User { role } }`
    const prepared = shop.prepare({ query })
    expect(prepared.ok && prepared.rootFields).toEqual(['me', 'count'])
    const data = dataOf<Record<string, Record<string, string>>>(shop, query)
    expect(data.__typename).toBe('Query')
    expect(data.first!.handle).toContain('@')
    expect(data.second!.__typename).toBe('User')
    expect(Object.keys(data)).toEqual(['__typename', 'first', 'second', 'films'])
  })

  it('count root fields of top-level fragments, by field name', () => {
    const query = `query { ...Root ... on Query { users { id } } mine: me { id } }
      fragment Root on Query { count ...More }
      fragment More on Query { node(id: "1") { id } }`
    const prepared = shop.prepare({ query })
    expect(prepared.ok && prepared.rootFields).toEqual(['count', 'node', 'users', 'me'])
  })

  it('answer introspection', () => {
    const data = dataOf<{ __schema: { types: { name: string }[] }; __type: { kind: string; possibleTypes: { name: string }[] } }>(
      swapi, '{ __schema { queryType { name } types { name } } __type(name: "Node") { kind possibleTypes { name } } }')
    expect(data.__schema.types.map((type) => type.name)).toEqual(expect.arrayContaining(['Film', 'Root', 'FilmsConnection', '__Schema']))
    expect(data.__type.kind).toBe('INTERFACE')
    expect(data.__type.possibleTypes).toHaveLength(6)
    const prepared = swapi.prepare({ query: '{ __schema { types { name } } }' })
    expect(prepared.ok && prepared.rootFields).toEqual([])
  })

  it('refuse a short query nesting lists before it runs, instead of blocking', () => {
    // Up to 4^13 generated objects: counted before execution, every list at its longest.
    const query = `{ users { ${'friends { '.repeat(12)}id${' }'.repeat(12)} } }`
    expect(failure(shop, { query })[0]?.message).toMatch(/the answer could hold [\d,]+ fields .* at most 50000 are served/)
  })

  it('stop generating past MAX_LIST_ITEMS: a configured list whose items nest mocked lists answers an error', () => {
    // The configured 3,000 users are more than the 4 items the count before execution assumes.
    const users = Array.from({ length: 3000 }, () => ({}))
    const result = run(shop, `{ users { ${'friends { '.repeat(3)}id${' }'.repeat(3)} } }`, (field) => (field === 'users' ? { value: users } : undefined))
    expect(result.errors?.[0]?.message).toMatch(new RegExp(`more than ${MAX_LIST_ITEMS} generated list items`))
    expect(JSON.stringify(result).length).toBeLessThan(100_000)
    // The next execution starts with a fresh budget.
    expect(run(shop, '{ users { id } }').errors).toBeUndefined()
  })

  it('run the operation named by operationName', () => {
    const query = 'query Films { allFilms { totalCount } } query People { allPeople { totalCount people { name } } }'
    const prepared = swapi.prepare({ query, operationName: 'People' })
    expect(prepared.ok && prepared.rootFields).toEqual(['allPeople'])
    const data = dataOf<Record<string, unknown>>(swapi, { query, operationName: 'People' })
    expect(Object.keys(data)).toEqual(['allPeople'])
    expect(failure(swapi, { query })).toEqual([{ message: 'Must provide operation name if query contains multiple operations.' }])
    expect(failure(swapi, { query, operationName: 'Planets' })).toEqual([{ message: 'Unknown operation named "Planets".' }])
  })

  it('refuse a syntax error with its location', () => {
    expect(failure(swapi, { query: '{ allFilms { totalCount }' })).toEqual([
      { message: 'Syntax Error: Expected Name, found <EOF>.', locations: [{ line: 1, column: 26 }] },
    ])
  })

  it('refuse unknown fields and wrong arguments as validation errors', () => {
    expect(failure(swapi, { query: '{ allFilms { totalCount nope } }' })).toEqual([
      { message: 'Cannot query field "nope" on type "FilmsConnection".', locations: [{ line: 1, column: 25 }] },
    ])
    expect(failure(shop, { query: '{ user { id } }' })[0]?.message).toBe('Field "user" argument "id" of type "ID!" is required, but it was not provided.')
  })

  it('run mutations with generated payloads, and report subscriptions as such', () => {
    const request = { query: 'mutation Create($input: CreateUserInput!) { createUser(input: $input) { user { id email role } } }', variables: { input: { email: 'a@b.c' } } }
    const prepared = shop.prepare(request)
    expect(prepared.ok && [prepared.operationType, prepared.rootFields]).toEqual(['mutation', ['createUser']])
    const data = dataOf<{ createUser: { user: { id: string; email: string } } }>(shop, request)
    expect(data.createUser.user.id).toMatch(UUID)
    // graphql-js executes a subscription operation like a query: one generated event. Offering it is the HTTP layer's call.
    const subscription = shop.prepare({ query: 'subscription { userCreated { id } }' })
    expect(subscription.ok && subscription.operationType).toBe('subscription')
    expect(subscription.ok && subscription.execute()).toEqual({ data: { userCreated: { id: expect.stringMatching(UUID) } } })
  })
})

describe('overrides', () => {
  const ask = '{ allFilms(first: 2) { totalCount films { title director episodeID } } allPeople { totalCount } }'

  it('answer a root field with the configured value, mocking the fields it leaves out', () => {
    const seen: string[] = []
    const data = dataOf<{ allFilms: { totalCount: number; films: Record<string, unknown>[] }; allPeople: { totalCount: number } }>(swapi, ask, (field) => {
      seen.push(field)
      return field === 'allFilms' ? { value: { totalCount: 1, films: [{ title: 'A New Hope', episodeID: 4 }] } } : undefined
    })
    expect(seen).toEqual(['allFilms', 'allPeople'])
    expect(data.allFilms.totalCount).toBe(1)
    expect(data.allFilms.films).toHaveLength(1)
    expect(data.allFilms.films[0]).toMatchObject({ title: 'A New Hope', episodeID: 4, director: expect.any(String) })
    expect(data.allPeople.totalCount).toEqual(expect.any(Number))
  })

  it('take scalars, null, and __typename for abstract types', () => {
    expect(dataOf(shop, '{ count }', () => ({ value: 7 }))).toEqual({ count: 7 })
    expect(dataOf(shop, '{ user(id: "1") { id } }', () => ({ value: null }))).toEqual({ user: null })
    const node = dataOf<{ node: { __typename: string; id: string; email: string } }>(shop, '{ node(id: "1") { __typename id ... on User { email } } }',
      () => ({ value: { __typename: 'User', id: 'user-1' } }))
    expect(node.node).toMatchObject({ __typename: 'User', id: 'user-1', email: expect.stringContaining('@') })
  })

  it('report a value that does not fit the field as that field\'s error', () => {
    const result = run(shop, '{ node(id: "1") { id } count }', (field) => (field === 'node' ? { value: { id: 'no-typename' } } : undefined))
    expect(result.data).toEqual({ node: null, count: expect.any(Number) })
    expect(result.errors).toEqual([expect.objectContaining({ path: ['node'], message: expect.stringMatching(/^the value configured for node does not fit its type Node: .*__typename/) })])
  })

  it('answer a root field with the configured error, leaving other fields alone', () => {
    const result = run(swapi, ask, (field) => (field === 'allFilms' ? { error: 'films are offline' } : undefined))
    expect(result.errors).toEqual([{ message: 'films are offline', locations: [{ line: 1, column: 3 }], path: ['allFilms'] }])
    expect(result.data).toEqual({ allFilms: null, allPeople: { totalCount: expect.any(Number) } })
  })

  it('null the whole data when an errored field is non-null, as GraphQL requires', () => {
    const result = run(shop, '{ me { id } count }', (field) => (field === 'me' ? { error: 'nobody is signed in' } : undefined))
    expect(result.data).toBeNull()
    expect(result.errors?.[0]).toMatchObject({ message: 'nobody is signed in', path: ['me'] })
  })
})

describe('shapeProblems (the real-schema tests rely on it)', () => {
  it('reports missing keys, nulls for non-null, list lengths, enum values and typenames', () => {
    const schema = buildSchema(SHOP)
    const query = '{ me { id role tags pets { __typename ... on Dog { barks } } } count }'
    const problems = shapeProblems(schema, query, { me: { id: null, role: 'OWNER', tags: ['a'], pets: [{ __typename: 'Pet' }, { __typename: 'Dog', barks: 'yes' }] } })
    expect(problems).toEqual([
      'data.me.id: null for non-null ID!',
      'data.me.role: "OWNER" is not a value of Role',
      'data.me.tags: 1 items, expected 2–4',
      'data.me.pets[0].__typename: "Pet" is not a concrete type of Pet',
      'data.me.pets[1].barks: "yes" is not a valid Boolean',
      'data.count: missing',
    ])
  })
})
