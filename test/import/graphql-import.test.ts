import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildSchema } from 'graphql'
import { cleanup, ROOT, send, serve, startReceiver, waitFor, cliWorkspace } from '../_helpers.ts'
import { queriesFor, schemaOf, shapeProblems } from '../graphql/_queries.ts'
import type { RunningServer } from '../../src/server/start.ts'

afterAll(cleanup)

const FIXTURES = join(ROOT, 'fixtures', 'graphql')
const SWAPI = join(FIXTURES, 'swapi', 'schema.graphql')
const GITHUB = join(FIXTURES, 'github', 'schema.graphql')

const workspace = cliWorkspace

interface GraphqlReply {
  status: number
  type: string | null
  body: { data?: Record<string, unknown> | null; errors?: { message: string; path?: string[]; locations?: unknown[] }[] }
}

/** A POST to the server of this file, handed to its app without a socket (`send`). */
async function graphql(url: string, body: unknown, headers: Record<string, string> = {}): Promise<GraphqlReply> {
  const reply = await send(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) })
  return { status: reply.status, type: reply.headers.get('content-type'), body: JSON.parse(reply.text) as GraphqlReply['body'] }
}

describe('GraphQL import: the real schemas answer every root field over HTTP', () => {
  const { ok, db } = workspace()
  let server: RunningServer

  beforeAll(async () => {
    // An empty database: the schema makes the first project, named after its folder.
    expect(await ok('import', SWAPI)).toMatch(/imported GraphQL schema "swapi" into project swapi in \d+ ms: \d+ created, 0 kept/)
    await ok('project', 'create', 'GitHub', '--slug', 'github')
    await ok('import', GITHUB, '--project', 'github')
    server = await serve(db)
  }, 60_000)

  it('lists each root field as an endpoint of kind graphql', async () => {
    const endpoints = JSON.parse(await ok('endpoints', '--project', 'swapi', '--json')) as { method: string; path: string; kind: string; status: number }[]
    const sdl = readFileSync(SWAPI, 'utf8')
    expect(endpoints.map((e) => e.path).sort()).toEqual(queriesFor(sdl).map((q) => `/graphql#${q.type === 'query' ? 'Query' : 'Mutation'}.${q.field}`).sort())
    expect(new Set(endpoints.map((e) => `${e.method} ${e.kind} ${e.status}`))).toEqual(new Set(['POST graphql 200']))
    expect(await ok('endpoints', '--project', 'swapi')).toContain('/graphql#Query.allFilms')
  })

  for (const [name, slug] of [['swapi', 'swapi'], ['GitHub', 'github']] as const) {
    it(`${name}: a real query per root field, with its variables, answers data shaped as selected`, async () => {
      // The stored SDL: GitHub's file repeats two fields, which the import folds.
      const sdl = (await send(`${server.url}/api/${slug}/graphql?sdl`)).text
      const schema = schemaOf(sdl)
      const failures: string[] = []
      for (const { field, query, variables } of queriesFor(sdl)) {
        const reply = await graphql(`${server.url}/api/${slug}/graphql`, { query, variables })
        if (reply.status !== 200 || reply.body.errors) failures.push(`${field}: ${reply.status} ${JSON.stringify(reply.body.errors)}`)
        else failures.push(...shapeProblems(schema, query, reply.body.data).map((p) => `${field}: ${p}`))
      }
      expect(failures).toEqual([])
    }, 60_000)
  }

  it('the default project answers at /graphql too; realistic values by field name', async () => {
    const reply = await graphql(`${server.url}/graphql`, { query: '{ allPeople(first: 3) { people { name birthYear created } } }' })
    expect(reply.status).toBe(200)
    expect(reply.type).toMatch(/^application\/json/)
    const people = (reply.body.data!.allPeople as { people: { name: string; created: string }[] }).people
    expect(people.length).toBeGreaterThanOrEqual(2)
    for (const person of people) {
      expect(person.name).toMatch(/\S+ \S+/)
      expect(Number.isNaN(Date.parse(person.created))).toBe(false)
    }
  })

  it('variables, fragments, aliases and operationName work', async () => {
    const query = `
      fragment FilmBits on Film { title episodeID releaseDate }
      query One($id: ID) { first: film(id: $id) { ...FilmBits } second: film(id: $id) { title } }
      query Two { allFilms { totalCount } }`
    const reply = await graphql(`${server.url}/api/swapi/graphql`, { query, variables: { id: 'ZmlsbXM6MQ==' }, operationName: 'One' })
    expect(reply.body.errors).toBeUndefined()
    expect(Object.keys(reply.body.data!)).toEqual(['first', 'second'])
    expect(typeof (reply.body.data!.first as { title: string }).title).toBe('string')
    const ambiguous = await graphql(`${server.url}/api/swapi/graphql`, { query })
    expect(ambiguous.status).toBe(200)
    expect(ambiguous.body.errors![0]!.message).toMatch(/operation name/i)
  })

  it('invalid queries get GraphQL errors, not a crash: 200 for application/json, 400 for graphql-response+json', async () => {
    const url = `${server.url}/api/swapi/graphql`
    const syntax = await graphql(url, { query: '{ allFilms { ' })
    expect(syntax.status).toBe(200)
    expect(syntax.body.errors![0]!.message).toMatch(/Syntax Error/)
    expect(syntax.body.errors![0]!.locations).toBeDefined()
    const unknown = await graphql(url, { query: '{ nope }' }, { accept: 'application/graphql-response+json' })
    expect(unknown.status).toBe(400)
    expect(unknown.type).toMatch(/^application\/graphql-response\+json/)
    expect(unknown.body.errors![0]!.message).toMatch(/Cannot query field "nope" on type "Root"/)
    const badVariable = await graphql(url, { query: 'query($id: ID!) { film(id: $id) { title } }', variables: {} }, { accept: 'application/graphql-response+json' })
    expect(badVariable.status).toBe(400)
    expect(badVariable.body.data).toBeUndefined()
  })

  it('malformed requests: not JSON, no query, batches, another content type, GET mutations', async () => {
    const url = `${server.url}/api/swapi/graphql`
    const notJson = await graphql(url, '{"query":')
    expect(notJson.status).toBe(400)
    expect(notJson.body.errors![0]!.message).toMatch(/not valid JSON/)
    expect((await graphql(url, { variables: {} })).body.errors![0]!.message).toMatch(/"query" string/)
    expect((await graphql(url, [{ query: '{ __typename }' }])).body.errors![0]!.message).toMatch(/batched/)
    expect((await graphql(url, { query: '{ __typename }', variables: [1] })).status).toBe(400)
    const xml = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/xml' }, body: '<q/>' })
    expect(xml.status).toBe(415)
    const plain = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/graphql' }, body: '{ allFilms { totalCount } }' })
    expect(((await plain.json()) as GraphqlReply['body']).data).toHaveProperty('allFilms')
    const viaGet = await fetch(`${url}?query=${encodeURIComponent('{ allFilms { totalCount } }')}`)
    expect(viaGet.status).toBe(200)
    expect(((await viaGet.json()) as GraphqlReply['body']).data).toHaveProperty('allFilms')
  })

  it('GET without a query serves the playground; ?sdl the schema', async () => {
    const page = await fetch(`${server.url}/api/swapi/graphql`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await page.text()).toContain('GraphQL playground')
    const sdl = await fetch(`${server.url}/api/swapi/graphql?sdl`)
    expect(await sdl.text()).toContain('type Film')
  })
})

describe('GraphQL import: settings, events, re-import, export/apply, broken input', () => {
  it('a root field answers its configured body, error rate, delay; each operation raises mock.request, errors mock.error', async () => {
    const { ok, db } = workspace()
    await ok('import', SWAPI)
    await ok('endpoint', 'set', 'POST', '/graphql#Query.film', '--body', '{"title":"A New Hope","episodeID":4}', '--delay', '50')
    await ok('endpoint', 'set', 'POST', '/graphql#Query.person', '--error-rate', '100')
    const receiver = await startReceiver()
    await ok('webhooks', 'add', receiver.url, '--events', 'mock.request,mock.error')
    const server = await serve(db, { retryDelaysMs: [50] })
    const url = `${server.url}/api/swapi/graphql`
    const started = performance.now()
    const film = await graphql(url, { query: '{ film(id: "1") { title episodeID director } }' })
    expect(performance.now() - started).toBeGreaterThanOrEqual(45)
    expect(film.body.data!.film).toMatchObject({ title: 'A New Hope', episodeID: 4 })
    expect(typeof (film.body.data!.film as { director: unknown }).director).toBe('string')
    const person = await graphql(url, { query: '{ person(id: "1") { name } allFilms { totalCount } }' })
    expect(person.status).toBe(200)
    expect(person.body.data!.person).toBeNull()
    expect(person.body.data!.allFilms).toBeTruthy()
    expect(person.body.errors![0]).toMatchObject({ message: expect.stringMatching(/simulated error/), path: ['person'] })
    const events = await waitFor(() => (receiver.requests.length >= 3 ? receiver.requests : null))
    const types = events.map((r) => (JSON.parse(r.body) as { type: string }).type).sort()
    expect(types).toEqual(['mock.error', 'mock.request', 'mock.request'])
    const error = events.map((r) => JSON.parse(r.body) as { type: string; data: { path: string; status: number; endpointId: number } }).find((e) => e.type === 'mock.error')!
    expect(error.data).toMatchObject({ path: '/api/swapi/graphql', status: 200 })
    expect(error.data.endpointId).toBeGreaterThan(0)
  })

  it('export then apply elsewhere serves the same schema with its settings; importing again keeps settings', async () => {
    const { ok, cwd } = workspace()
    await ok('import', SWAPI)
    await ok('endpoint', 'set', 'POST', '/graphql#Query.film', '--body', '{"title":"Kept"}')
    expect(await ok('import', SWAPI)).toMatch(/0 created, \d+ kept/)
    const file = join(cwd, 'swapi.yaml')
    writeFileSync(file, await ok('export'))
    const other = workspace()
    await other.ok('apply', file)
    expect(await other.ok('apply', file)).toMatch(/already matches/)
    const server = await serve(other.db)
    const reply = await graphql(`${server.url}/graphql`, { query: '{ film { title } allSpecies { totalCount } }' })
    expect(reply.body).toEqual({ data: { film: { title: 'Kept' }, allSpecies: { totalCount: expect.any(Number) } } })
  })

  it('a root field whose endpoint was removed answers a GraphQL error at that field; the others still answer', async () => {
    const { ok, db } = workspace()
    await ok('import', SWAPI)
    await ok('remove-endpoint', 'POST', '/graphql#Query.film')
    const server = await serve(db)
    const reply = await graphql(`${server.url}/graphql`, { query: '{ film(id: "1") { title } allFilms { totalCount } }' })
    expect(reply.status).toBe(200)
    expect(reply.body.data!.film).toBeNull()
    expect(reply.body.data!.allFilms).toBeTruthy()
    expect(reply.body.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/Query\.film is not mocked/), path: ['film'] })])
  })

  it('an introspection JSON imports like SDL', async () => {
    const { ok, cwd, db } = workspace()
    const { introspectionFromSchema } = await import('graphql')
    const file = join(cwd, 'introspection.json')
    writeFileSync(file, JSON.stringify({ data: introspectionFromSchema(buildSchema(readFileSync(SWAPI, 'utf8'))) }))
    await ok('import', file, '--format', 'graphql')
    const server = await serve(db)
    const reply = await graphql(`${server.url}/graphql`, { query: '{ allPlanets { planets { name diameter } } }' })
    expect(reply.body.errors).toBeUndefined()
  })

  it('refuses broken schemas with the parser message and creates nothing; clashes are refused', async () => {
    const { run, ok, cwd } = workspace()
    const broken = await run('import', join(FIXTURES, 'broken', 'syntax-error.graphql'))
    expect(broken.code).toBe(1)
    expect(broken.stderr).toMatch(/syntax-error\.graphql: Syntax Error: .*\(line \d+, column \d+\)/)
    expect(JSON.parse(await ok('projects', '--json'))).toEqual([])
    await ok('project', 'create', 'Shop', '--slug', 'shop')
    await ok('add-endpoint', 'POST', '/api/graphql', '--body', '{}', '--project', 'shop')
    const clash = await run('import', SWAPI, '--project', 'shop')
    expect(clash.code).toBe(1)
    expect(clash.stderr).toMatch(/served at \/graphql, where project "shop" has POST \/api\/graphql/)
    const other = join(cwd, 'other.graphql')
    writeFileSync(other, 'type Query { hello: String }')
    await ok('project', 'create', 'Two', '--slug', 'two')
    await ok('import', SWAPI, '--project', 'two')
    const second = await run('import', other, '--project', 'two')
    expect(second.code).toBe(1)
    expect(second.stderr).toMatch(/already serves another GraphQL schema at \/graphql/)
    expect(JSON.parse(await ok('endpoints', '--project', 'shop', '--json'))).toHaveLength(1)
    // The other way round: an endpoint added where the schema is served would shadow it at /api/two/graphql.
    const shadow = await run('add-endpoint', 'POST', '/api/graphql', '--body', '{}', '--project', 'two')
    expect(shadow.code).toBe(1)
    expect(shadow.stderr).toMatch(/POST \/api\/graphql would be served at the same URL as the GraphQL schema at \/graphql in project "two"/)
  })
})
