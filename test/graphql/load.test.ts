import { buildSchema, introspectionFromSchema } from 'graphql'
import { afterAll, describe, expect, it } from 'vitest'
import { AppError } from '../../src/errors.ts'
import { loadGraphqlSchema } from '../../src/kinds/graphql/load.ts'
import { readFixture } from './_fixtures.ts'

function loadError(text: string, origin: string): AppError {
  try {
    loadGraphqlSchema(text, origin)
  } catch (error) {
    if (error instanceof AppError) return error
    throw error
  }
  throw new Error(`${origin} loaded without error`)
}

/** GitHub's schema (1.2 MB), loaded once for the tests that read it: each load takes about a second. */
let github: ReturnType<typeof loadGraphqlSchema> | undefined
const loadGithub = () => (github ??= loadGraphqlSchema(readFixture('github/schema.graphql'), 'github.graphql'))
// Files share a worker: nothing of this one stays behind it.
afterAll(() => {
  github = undefined
})

describe('loadGraphqlSchema: real schemas', () => {
  it('loads swapi: its Root query type, connection and interface returns', () => {
    const { sdl, operations } = loadGraphqlSchema(readFixture('swapi/schema.graphql'), 'schema.graphql')
    expect(operations).toHaveLength(13)
    expect(operations.every((operation) => operation.type === 'query')).toBe(true)
    expect(operations).toContainEqual({ type: 'query', field: 'allFilms', returns: 'FilmsConnection' })
    expect(operations).toContainEqual({ type: 'query', field: 'node', returns: 'Node' })
    expect(sdl).toContain('schema {\n  query: Root\n}')
    // What gets stored loads again to the same operations.
    expect(loadGraphqlSchema(sdl, 'stored').operations).toEqual(operations)
  })

  it('loads GitHub (1.2 MB): queries and mutations, identical repeated fields tolerated', () => {
    const { sdl, operations } = loadGithub()
    const queries = operations.filter((operation) => operation.type === 'query')
    const mutations = operations.filter((operation) => operation.type === 'mutation')
    expect(queries.length).toBeGreaterThan(25)
    expect(mutations.length).toBeGreaterThan(200)
    expect(operations).toContainEqual({ type: 'query', field: 'viewer', returns: 'User!' })
    expect(operations).toContainEqual({ type: 'query', field: 'nodes', returns: '[Node]!' })
    expect(operations).toContainEqual({ type: 'mutation', field: 'addComment', returns: 'AddCommentPayload' })
    expect(sdl.match(/^ {2}repositoryDeployKeySetting:/gm)).toHaveLength(1)
  })

  it('leaves subscription fields out (no stream over plain HTTP)', () => {
    const sdl = 'type Query { a: Int } type Mutation { b: Int } type Subscription { c: Int }'
    expect(loadGraphqlSchema(sdl, 'inline').operations).toEqual([
      { type: 'query', field: 'a', returns: 'Int' },
      { type: 'mutation', field: 'b', returns: 'Int' },
    ])
  })

  it('reads introspection JSON, with or without the {"data": …} envelope, to the same SDL', () => {
    const text = readFixture('swapi/schema.graphql')
    const fromSdl = loadGraphqlSchema(text, 'schema.graphql')
    const introspection = introspectionFromSchema(buildSchema(text))
    const wrapped = loadGraphqlSchema(JSON.stringify({ data: introspection }), 'introspection.json')
    const bare = loadGraphqlSchema(JSON.stringify(introspection, null, 2), 'introspection.json')
    expect(wrapped.sdl).toBe(fromSdl.sdl)
    expect(bare).toEqual(wrapped)
    expect(wrapped.operations).toEqual(fromSdl.operations)
  })

  it('reads the GitHub schema as introspection JSON', () => {
    const { sdl } = loadGithub()
    const fromJson = loadGraphqlSchema(JSON.stringify({ data: introspectionFromSchema(buildSchema(sdl)) }), 'github.json')
    expect(fromJson.sdl).toBe(sdl)
  })
})

describe('loadGraphqlSchema: broken inputs are INVALID_SPEC naming the problem', () => {
  it('a syntax error, with its location', () => {
    const error = loadError(readFixture('broken/syntax-error.graphql'), 'syntax-error.graphql')
    expect(error.code).toBe('INVALID_SPEC')
    expect(error.message).toBe('syntax-error.graphql: Syntax Error: Unexpected "}". (line 3, column 2)')
  })

  it('a type that is referenced but not defined', () => {
    const error = loadError(readFixture('broken/unknown-type.graphql'), 'unknown-type.graphql')
    expect(error.code).toBe('INVALID_SPEC')
    expect(error.message).toBe('unknown-type.graphql: Unknown type "Planet".')
  })

  it('a schema without a Query type, or nothing at all', () => {
    for (const text of [readFixture('broken/no-query.graphql'), '', '  \n']) {
      const error = loadError(text, 'no-query.graphql')
      expect(error.code).toBe('INVALID_SPEC')
      expect(error.message).toMatch(/^no-query\.graphql: .*defines no Query type/)
    }
  })

  it('a type missing a field of its interface', () => {
    const error = loadError(readFixture('broken/missing-interface-field.graphql'), 'iface.graphql')
    expect(error.code).toBe('INVALID_SPEC')
    expect(error.message).toMatch(/^iface\.graphql: Interface field Node\.id expected but Film does not provide it\. \(line \d+, column \d+; line \d+, column \d+\)$/)
  })

  it('a field repeated with a different type', () => {
    const error = loadError(readFixture('broken/conflicting-duplicate-field.graphql'), 'dup.graphql')
    expect(error.code).toBe('INVALID_SPEC')
    expect(error.message).toBe('dup.graphql: Field "Film.year" can only be defined once.')
  })

  it('lists the first five problems and counts the rest', () => {
    const text = `type Query { ${Array.from({ length: 7 }, (_, i) => `f${i}: Missing${i}`).join(' ')} }`
    const error = loadError(text, 'many.graphql')
    expect(error.message).toBe('many.graphql: Unknown type "Missing0".; Unknown type "Missing1".; Unknown type "Missing2".; Unknown type "Missing3".; Unknown type "Missing4". (and 2 more)')
    expect(error.details).toEqual({ issues: expect.arrayContaining(['Unknown type "Missing6".']) })
  })

  it('text that is not JSON though it starts like it', () => {
    const error = loadError(readFixture('broken/not-json.json'), 'not-json.json')
    expect(error.code).toBe('INVALID_SPEC')
    expect(error.message).toMatch(/^not-json\.json: not valid JSON \(.+\); expected GraphQL SDL or an introspection result$/)
  })

  it('JSON that is not an introspection result', () => {
    for (const text of [readFixture('broken/not-introspection.json'), '[]', '{"data": null}']) {
      const error = loadError(text, 'result.json')
      expect(error.code).toBe('INVALID_SPEC')
      expect(error.message).toBe('result.json: the JSON is not a GraphQL introspection result (expected {"data":{"__schema":…}} or {"__schema":…})')
    }
  })

  it('an introspection result graphql cannot build a schema from', () => {
    const error = loadError(JSON.stringify({ __schema: { types: [] } }), 'partial.json')
    expect(error.code).toBe('INVALID_SPEC')
    expect(error.message).toMatch(/^partial\.json: /)
  })
})
