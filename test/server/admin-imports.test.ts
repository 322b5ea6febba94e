import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import Database from 'better-sqlite3'
import { createProject, deleteProject } from '../../src/domain/projects.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { cleanup, expectAliveAndIntact, openStore, ROOT, send, serve, tempDb } from '../_helpers.ts'

const text = (path: string) => readFileSync(join(ROOT, 'fixtures', path), 'utf8')
const PETSTORE = text('openapi/oai-v3.0/petstore.yaml')

const LOCK_WAIT_MS = 1000

let dbPath: string
let url: string
let api: string
let auth: Record<string, string>
let specs: { url: string; close(): Promise<void> }
/** `/slow.graphql` answers only once the test calls this (set when a request for it arrives). */
let answerSlow: (() => void) | null = null
let slowAsked: Promise<void>
let slowArrived: () => void = () => {}

beforeAll(async () => {
  dbPath = tempDb()
  const { context } = openStore(dbPath)
  createProject(context, { name: 'Shop', slug: 'shop' })
  createProject(context, { name: 'Other', slug: 'other' })
  createProject(context, { name: 'Busy', slug: 'busy' })
  addEndpoint(context, { project: 'busy', method: 'GET', path: '/pets', body: '[]', rules: false })
  auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
  const server = createServer((req, res) => {
    if (req.url === '/petstore.yaml') res.writeHead(200).end(PETSTORE)
    else if (req.url === '/huge.graphql') res.writeHead(200, { 'content-length': String(17 * 1024 * 1024) }).end()
    else if (req.url === '/slow.graphql') {
      answerSlow = () => res.writeHead(200).end('type Query { late: String }')
      slowArrived()
    } else if (req.url === '/cut.graphql') {
      // Promises a body, sends a little of it, then hangs up.
      res.writeHead(200, { 'content-length': '1000' })
      res.write('type Query {')
      setImmediate(() => res.socket?.destroy())
    } else res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  specs = { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) }
  // A short lock wait (a request's is 5 s by default): the lock test waits it out.
  url = (await serve(dbPath, { lockWaitMs: LOCK_WAIT_MS })).url
  api = `${url}/api/projects`
})
afterAll(async () => {
  await specs.close()
  await cleanup()
})

const post = (projectId: number, body: unknown, headers: Record<string, string> = auth) =>
  send(`${api}/${projectId}/imports`, { method: 'POST', body, headers })
const endpoints = async (projectId: number) => (await send(`${api}/${projectId}/endpoints`, { headers: auth })).json as { method: string; path: string; kind: string }[]

describe('GET /api/projects/{id}/imports/formats', () => {
  it('lists the formats an import takes, named as "format" takes them; a token needed, GET only', async () => {
    const formats = await send(`${api}/1/imports/formats`, { headers: auth })
    expect(formats.status).toBe(200)
    expect(formats.json.map((f: { name: string }) => f.name)).toEqual(['har', 'postman', 'openapi', 'graphql', 'grpc', 'soap', 'json-server'])
    expect(formats.json.find((f: { name: string }) => f.name === 'soap')).toEqual({ name: 'soap', label: 'WSDL', described: 'SOAP (WSDL 1.1)', extensions: ['.wsdl'] })
    expect((await send(`${api}/1/imports/formats`)).status).toBe(401)
    const posted = await send(`${api}/1/imports/formats`, { method: 'POST', body: {}, headers: auth })
    expect([posted.status, posted.headers.get('allow')]).toEqual([405, 'GET, HEAD'])
  })
})

describe('POST /api/projects/{id}/imports', () => {
  it('imports an OpenAPI spec from its text: 201 with what it created; the routes answer at once', async () => {
    const imported = await post(1, { text: PETSTORE, stateful: true, seed: 2 })
    expect(imported.status).toBe(201)
    expect(imported.json.import).toEqual({ id: expect.any(Number), title: 'Swagger Petstore', format: 'openapi', version: '3.0' })
    expect(imported.json.created.map((e: { method: string; path: string }) => `${e.method} ${e.path}`).sort()).toEqual(['GET /pets', 'GET /pets/:petId', 'POST /pets'])
    expect([imported.json.updated, imported.json.kept, imported.json.removed, imported.json.warnings]).toEqual([[], [], [], []])
    expect((await endpoints(1)).filter((e) => e.kind === 'openapi')).toHaveLength(3)
    const pets = await send(`${url}/api/shop/pets`)
    expect(pets.status).toBe(200)
    expect(pets.json).toHaveLength(2)

    const again = await post(1, { url: `${specs.url}/petstore.yaml` })
    expect(again.status).toBe(201)
    expect([again.json.created.length, again.json.updated.length]).toEqual([0, 3])
  })

  it.each([
    ['graphql', 'graphql/swapi/schema.graphql', 'SWAPI', 13],
    ['grpc', 'grpc/helloworld.proto', 'hello', 2],
    ['soap', 'soap/fastify-soap-client/calculator.wsdl', 'Calculator', 1],
  ])('imports a %s document from its text (sniffed)', async (format, path, title, count) => {
    const imported = await post(2, { text: text(path), title })
    expect(imported.status).toBe(201)
    expect(imported.json.import).toMatchObject({ title, format })
    expect(imported.json.created).toHaveLength(count)
    expect(imported.json.created[0]).toMatchObject({ kind: format, method: 'POST' })
  })

  it('the imported GraphQL schema answers over HTTP', async () => {
    const answer = await send(`${url}/api/other/graphql`, { method: 'POST', body: { query: '{ allFilms { totalCount } }' } })
    expect(answer.status).toBe(200)
    expect(answer.json.data.allFilms).toEqual({ totalCount: expect.any(Number) })
  })

  it.each([
    ['no body', undefined, 'INVALID_BODY', /^request body must be a JSON object/],
    ['neither text nor url', { format: 'openapi' }, 'INVALID_INPUT', /^send the document as "text", or its "url"$/],
    ['both text and url', { text: PETSTORE, url: `${specs?.url}/petstore.yaml` }, 'INVALID_INPUT', /^send either "text" or "url", not both$/],
    ['an unknown field', { text: PETSTORE, stateless: true }, 'INVALID_INPUT', /^"stateless" is not an import field/],
    ['a field of the wrong type', { text: PETSTORE, stateful: 'yes' }, 'INVALID_INPUT', /^"stateful" must be true or false/],
    ['an unknown format', { text: PETSTORE, format: 'raml' }, 'INVALID_INPUT', /^format "raml" must be one of openapi, graphql, grpc, soap, json-server, har, postman$/],
    ['a document in no format', { text: 'hello' }, 'INVALID_INPUT', /^the pasted document is none of the formats mockapi imports; tried .*say which with "format"$/],
    ['a document that does not parse', { text: 'type Query { a: }', format: 'graphql' }, 'INVALID_SPEC', /^the pasted document: Syntax Error/],
    ['a .proto that imports other files', { text: text('grpc/grpc-proto/grpc/testing/test.proto') }, 'INVALID_INPUT', /a \.proto that imports other files cannot be resolved from text/],
    ['a file path for url', { url: '/etc/passwd' }, 'INVALID_INPUT', /^url "\/etc\/passwd" must be an http\(s\) URL$/],
    ['a URL with no host', { url: 'http://' }, 'INVALID_INPUT', /^url "http:\/\/" must be an http\(s\) URL$/],
    ['a URL that does not parse', { url: 'http://[::1' }, 'INVALID_INPUT', /must be an http\(s\) URL$/],
    ['a filename without text', { url: 'http://127.0.0.1:1/a.proto', filename: 'a.proto' }, 'INVALID_INPUT', /^"filename" goes with "text"/],
  ])('refuses %s with 400 naming the problem, and changes nothing', async (_what, body, code, message) => {
    const before = await endpoints(1)
    const refused = await post(1, body)
    expect(refused.status).toBe(400)
    expect(refused.json.error.code).toBe(code)
    expect(refused.json.error.message).toMatch(message)
    expect(await endpoints(1)).toEqual(before)
  })

  it('refuses a URL that answers 404, and JSON that does not parse', async () => {
    const missing = await post(3, { url: `${specs.url}/gone.yaml` })
    expect([missing.status, missing.json.error.message]).toEqual([400, `cannot fetch ${specs.url}/gone.yaml: HTTP 404`])
    const broken = await send(`${api}/3/imports`, { method: 'POST', body: '{"text": ', headers: { ...auth, 'content-type': 'application/json' } })
    expect([broken.status, broken.json.error.code]).toEqual([400, 'INVALID_JSON'])
  })

  it('refuses a URL that sends more than 16 MiB, or hangs up mid-body, with 400', async () => {
    const huge = await post(3, { url: `${specs.url}/huge.graphql` })
    expect([huge.status, huge.json.error.message]).toEqual([400, `cannot fetch ${specs.url}/huge.graphql: larger than 16 MiB`])
    const cut = await post(3, { url: `${specs.url}/cut.graphql` })
    expect([cut.status, cut.json.error.code]).toEqual([400, 'INVALID_INPUT'])
    expect(cut.json.error.message).toMatch(new RegExp(`^cannot fetch ${specs.url}/cut.graphql: `))
  })

  it('two .proto files pasted stay two imports (titled by package); a filename says the format and titles it as the CLI would', async () => {
    const { context } = openStore(dbPath)
    const project = createProject(context, { name: 'Protos', slug: 'protos' })
    const hello = await post(project.id, { text: text('grpc/helloworld.proto') })
    const route = await post(project.id, { text: text('grpc/route_guide.proto') })
    expect([hello.status, hello.json.import.title, route.status, route.json.import.title]).toEqual([201, 'helloworld', 201, 'routeguide'])
    expect(route.json.removed).toEqual([])
    expect((await endpoints(project.id)).map((e) => e.path)).toContain('/helloworld.Greeter/SayHello')
    const named = await post(project.id, { text: 'type Query { hello: String }', filename: 'greetings.graphql' })
    expect([named.status, named.json.import.title, named.json.import.format]).toEqual([201, 'greetings', 'graphql'])
    // The endpoints come back as the endpoint list gives them: with where they are served, and how to call them.
    expect(named.json.created[0]).toMatchObject({ path: '/graphql#Query.hello', url: `${url}/api/protos/graphql` })
    expect(named.json.created[0].call).toMatch(/^curl -X POST /)
  })

  it('a spec larger than the route takes is refused with 413 before it is parsed, and nothing changes', async () => {
    const before = await endpoints(1)
    const huge = await post(1, { text: `type Query { a: String }\n# ${'x'.repeat(33 * 1024 * 1024)}` })
    expect([huge.status, huge.json.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE'])
    expect(await endpoints(1)).toEqual(before)
  })

  it('a project deleted while its spec is fetched: 404, and nothing of the import is stored', async () => {
    const { context } = openStore(dbPath)
    const doomed = createProject(context, { name: 'Doomed', slug: 'doomed' })
    slowAsked = new Promise((resolve) => (slowArrived = resolve))
    const importing = post(doomed.id, { url: `${specs.url}/slow.graphql` })
    await slowAsked
    deleteProject(context, 'doomed')
    answerSlow!()
    const answered = await importing
    expect([answered.status, answered.json.error.code]).toEqual([404, 'PROJECT_NOT_FOUND'])
    expect(context.repos.specs.listByProject(doomed.id)).toEqual([])
    expect(context.repos.endpoints.listByProject(doomed.id)).toEqual([])
    await expectAliveAndIntact(url, dbPath)
  })

  it('another process holding the write lock: the import waits and stores once it is released, or answers 503 STORE_BUSY past its lock wait with nothing stored', async () => {
    const { context } = openStore(dbPath)
    const waiting = createProject(context, { name: 'Waiting', slug: 'waiting' })
    const locker = new Database(dbPath)
    try {
      locker.exec('BEGIN IMMEDIATE')
      const importing = post(waiting.id, { text: 'type Query { patient: String }' })
      // Still waiting while the lock is held (a latch: the answer has not come).
      const early = await Promise.race([importing.then(() => 'answered'), new Promise((resolve) => setTimeout(resolve, 300, 'waiting'))])
      expect(early).toBe('waiting')
      locker.exec('ROLLBACK')
      expect((await importing).status).toBe(201)
      expect((await endpoints(waiting.id)).map((e) => e.path)).toEqual(['/graphql#Query.patient'])

      locker.exec('BEGIN IMMEDIATE')
      const asked = performance.now()
      const busy = await post(waiting.id, { text: 'type Query { never: String }', title: 'never' })
      expect([busy.status, busy.json.error.code, busy.headers.get('retry-after')]).toEqual([503, 'STORE_BUSY', '2'])
      // It waited the whole lock wait the server was given, and gave up then rather than after the default 5 s.
      expect(performance.now() - asked).toBeGreaterThanOrEqual(LOCK_WAIT_MS - 5)
      expect(performance.now() - asked).toBeLessThan(4000)
    } finally {
      if (locker.inTransaction) locker.exec('ROLLBACK')
      locker.close()
    }
    expect((await endpoints(waiting.id)).map((e) => e.path)).toEqual(['/graphql#Query.patient'])
    await expectAliveAndIntact(url, dbPath)
  })

  it('409 when the routes clash with the project\'s endpoints; 404 for an unknown project; POST only; a token needed', async () => {
    const clash = await post(3, { text: PETSTORE })
    expect([clash.status, clash.json.error.code]).toEqual([409, 'CONFLICT'])
    expect((await endpoints(3)).map((e) => `${e.method} ${e.path}`)).toEqual(['GET /pets'])
    expect((await post(99, { text: PETSTORE })).status).toBe(404)
    const listed = await send(`${api}/1/imports`, { headers: auth })
    expect([listed.status, listed.headers.get('allow')]).toEqual([405, 'POST'])
    expect((await post(1, { text: PETSTORE }, {})).status).toBe(401)
    await expectAliveAndIntact(url, dbPath)
  })
})
