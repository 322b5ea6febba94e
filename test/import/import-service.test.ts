import { readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Context } from '../../src/domain/context.ts'
import { importSpec, importTarget, loadImport, storeImport, type ImportRequest } from '../../src/domain/import.ts'
import { createProject, deleteProject } from '../../src/domain/projects.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import type { Project } from '../../src/model.ts'
import { cleanup, openStore, ROOT, tempDb, tempDir } from '../_helpers.ts'

const FIXTURES = join(ROOT, 'fixtures')
const PETSTORE = 'fixtures/openapi/oai-v3.0/petstore.yaml'
const SWAPI = 'fixtures/graphql/swapi/schema.graphql'
const HELLO = 'fixtures/grpc/helloworld.proto'
const CALCULATOR = 'fixtures/soap/fastify-soap-client/calculator.wsdl'
const text = (path: string) => readFileSync(join(ROOT, path), 'utf8')

/** Everything an import may change, to prove a refusal changed nothing. */
function stored(context: Context) {
  return context.repos.projects.list().map((project) => ({
    project,
    endpoints: context.repos.endpoints.listByProject(project.id),
    specs: context.repos.specs.listByProject(project.id),
  }))
}

function freshProject(slug = 'shop'): { context: Context; project: Project } {
  const { context } = openStore(tempDb())
  return { context, project: createProject(context, { name: slug, slug }) }
}

async function refused(context: Context, project: Project, request: ImportRequest): Promise<{ code: string; message: string }> {
  const before = stored(context)
  const error = await importSpec(context, project, request).then(() => null, (caught: { code: string; message: string }) => caught)
  expect(error, 'the import was refused').not.toBeNull()
  expect(stored(context)).toEqual(before)
  return { code: error!.code, message: error!.message }
}

let specServer: { url: string; close(): Promise<void> }
/** Requests the spec server answered, by path. */
const fetched = new Map<string, number>()

beforeAll(async () => {
  const documents: Record<string, string> = { '/petstore.yaml': text(PETSTORE), '/swapi/schema.graphql': text(SWAPI), '/calculator': text(CALCULATOR) }
  const server = createServer((req, res) => {
    fetched.set(req.url ?? '', (fetched.get(req.url ?? '') ?? 0) + 1)
    const body = documents[req.url ?? '']
    if (body === undefined) res.writeHead(404).end('no such spec')
    else res.writeHead(200, { 'content-type': 'text/plain' }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  specServer = {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
})
afterAll(async () => {
  await specServer.close()
  await cleanup()
})

describe('importSpec from a file', () => {
  it.each([
    [PETSTORE, 'openapi', 'Swagger Petstore', 3, '"Swagger Petstore" (OpenAPI 3.0)'],
    [SWAPI, 'graphql', 'swapi', 13, 'GraphQL schema "swapi"'],
    [HELLO, 'grpc', 'helloworld', 2, 'proto "helloworld"'],
    [CALCULATOR, 'soap', 'Calculator', 1, 'WSDL "Calculator"'],
  ])('%s: format %s, titled "%s", %i endpoints', async (source, format, title, count, description) => {
    const { context, project } = freshProject()
    const result = await importSpec(context, project, { source, cwd: ROOT })
    expect(result.spec).toMatchObject({ format, title, description })
    expect(result.created).toHaveLength(count)
    expect(result.created.every((endpoint) => endpoint.kind === format && endpoint.specId === result.spec.id)).toBe(true)
    expect(context.repos.specs.listByProject(project.id).map((s) => [s.format, s.title, s.source])).toEqual([[format, title, source]])
    expect(result.warnings).toEqual([])
  })

  it('importing again keeps (named operations) or updates (routes) what is there', async () => {
    const { context, project } = freshProject()
    await importSpec(context, project, { source: SWAPI, cwd: ROOT })
    const again = await importSpec(context, project, { source: SWAPI, cwd: ROOT })
    expect([again.naming, again.created.length, again.kept.length]).toEqual(['named', 0, 13])
    await importSpec(context, project, { source: PETSTORE, cwd: ROOT })
    const routes = await importSpec(context, project, { source: PETSTORE, cwd: ROOT })
    expect([routes.naming, routes.created.length, routes.updated.length]).toEqual(['routes', 0, 3])
  })

  it('in an empty database the CLI target makes the first project, named after the spec', async () => {
    const { context } = openStore(tempDb())
    const result = await importSpec(context, importTarget(context, undefined), { source: PETSTORE, cwd: ROOT })
    expect([result.project.slug, result.project.name]).toEqual(['swagger-petstore', 'Swagger Petstore'])
  })

  it('stateful OpenAPI routes become a seeded resource', async () => {
    const { context, project } = freshProject()
    const result = await importSpec(context, project, { source: PETSTORE, cwd: ROOT, stateful: true, seed: 2 })
    expect(result.resources.map((r) => r.path)).toEqual(['/pets'])
    expect(result.created.filter((e) => e.action !== null).map((e) => `${e.method} ${e.action}`).sort()).toEqual(['GET list', 'GET read', 'POST create'])
  })
})

describe('importSpec from text', () => {
  it.each([
    [PETSTORE, 'openapi', 'Swagger Petstore', 3],
    [SWAPI, 'graphql', 'graphql', 13],
    [HELLO, 'grpc', 'helloworld', 2],
    [CALCULATOR, 'soap', 'Calculator', 1],
  ])('%s as text is sniffed as %s and titled "%s" (the document\'s title or a proto\'s package, else the format)', async (path, format, title, count) => {
    const { context, project } = freshProject()
    const result = await importSpec(context, project, { text: text(path) })
    expect([result.spec.format, result.spec.title, result.created.length]).toEqual([format, title, count])
    expect(context.repos.specs.listByProject(project.id)[0]!.source).toBe('')
  })

  it('a .proto given as text may import the well-known types', async () => {
    const { context, project } = freshProject()
    const proto = 'syntax = "proto3";\npackage ping;\nimport "google/protobuf/empty.proto";\nservice Pinger { rpc Ping (google.protobuf.Empty) returns (google.protobuf.Empty); }\n'
    const result = await importSpec(context, project, { text: proto, title: 'ping' })
    expect(result.created.map((e) => e.path)).toEqual(['/ping.Pinger/Ping'])
  })

  it('takes a title and a format when given', async () => {
    const { context, project } = freshProject()
    const result = await importSpec(context, project, { text: 'type Query { hello: String }', format: 'graphql', title: 'Hello' })
    expect([result.spec.title, result.created.map((e) => e.path)]).toEqual(['Hello', ['/graphql#Query.hello']])
  })

  it('sniffs a file whose extension says nothing by its content', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'hello.txt'), 'type Query { hello: String }')
    const { context, project } = freshProject()
    const result = await importSpec(context, project, { source: 'hello.txt', cwd: dir })
    expect([result.spec.format, result.spec.title]).toEqual(['graphql', 'hello'])
  })
})

describe('importSpec from a URL', () => {
  it('fetches an OpenAPI spec, a GraphQL schema (titled after its folder) and a WSDL', async () => {
    const { context, project } = freshProject()
    const pets = await importSpec(context, project, { url: `${specServer.url}/petstore.yaml` })
    expect([pets.spec.format, pets.created.length]).toEqual(['openapi', 3])
    // Read once: its format told from the text, which is then parsed (the URL stays the base of its $refs).
    expect(fetched.get('/petstore.yaml')).toBe(1)
    const swapi = await importSpec(context, project, { url: `${specServer.url}/swapi/schema.graphql` })
    expect([swapi.spec.format, swapi.spec.title, swapi.created.length]).toEqual(['graphql', 'swapi', 13])
    const soap = await importSpec(context, project, { source: `${specServer.url}/calculator`, cwd: ROOT })
    expect([soap.spec.format, soap.spec.title]).toEqual(['soap', 'Calculator'])
    expect(context.repos.specs.listByProject(project.id).find((s) => s.format === 'graphql')!.source).toBe(`${specServer.url}/swapi/schema.graphql`)
  })
})

describe('refusals change nothing', () => {
  it('a URL that answers 404, or is not http(s)', async () => {
    const { context, project } = freshProject()
    expect(await refused(context, project, { url: `${specServer.url}/nothing.yaml` })).toEqual({ code: 'INVALID_INPUT', message: `cannot fetch ${specServer.url}/nothing.yaml: HTTP 404` })
    expect((await refused(context, project, { url: 'file:///etc/passwd' })).message).toBe('url "file:///etc/passwd" must be an http(s) URL')
  })

  it('an unknown format, a document in no format, one that does not parse', async () => {
    const { context, project } = freshProject()
    expect((await refused(context, project, { text: 'hello', format: 'raml' })).message).toBe('format "raml" must be one of openapi, graphql, grpc, soap, json-server, har, postman')
    expect((await refused(context, project, { text: 'just some words' })).message).toMatch(/^the pasted document is none of the formats mockapi imports; tried OpenAPI 3\.x/)
    expect(await refused(context, project, { text: 'type Query { hello: }' })).toMatchObject({ code: 'INVALID_SPEC', message: expect.stringMatching(/^the pasted document: Syntax Error/) })
    expect(await refused(context, project, { text: 'openapi: 3.0.0\ninfo: {title: x}\n' })).toMatchObject({ code: 'INVALID_SPEC' })
    expect((await refused(context, project, { text: '   ' })).message).toBe('the document is empty')
  })

  it('a .proto that imports other files, given as text; a .proto from a URL', async () => {
    const { context, project } = freshProject()
    const proto = readFileSync(join(FIXTURES, 'grpc/grpc-proto/grpc/testing/test.proto'), 'utf8')
    const fromText = await refused(context, project, { text: proto })
    expect(fromText.code).toBe('INVALID_INPUT')
    expect(fromText.message).toMatch(/imports "grpc\/testing\/empty\.proto": a \.proto that imports other files cannot be resolved from text/)
    expect((await refused(context, project, { url: `${specServer.url}/hello.proto` })).message).toMatch(/^a \.proto is imported from a file/)
  })

  it('operations that clash with what the project serves', async () => {
    const { context, project } = freshProject()
    addEndpoint(context, { project: 'shop', method: 'GET', path: '/pets', body: '[]', rules: false })
    expect((await refused(context, project, { source: PETSTORE, cwd: ROOT })).code).toBe('CONFLICT')
    await importSpec(context, project, { text: 'type Query { a: String }', title: 'one' })
    expect((await refused(context, project, { text: 'type Query { b: String }', title: 'two' })).message).toMatch(/already serves another GraphQL schema at \/graphql/)
    expect((await refused(context, project, { source: SWAPI, cwd: ROOT, title: 'one', format: 'soap' })).code).toBe('INVALID_SPEC')
  })

  it('a project deleted while its spec was read: 404, not a foreign-key failure', async () => {
    const { context, project } = freshProject()
    const loaded = await loadImport({ source: PETSTORE, cwd: ROOT })
    deleteProject(context, project.slug)
    expect(() => storeImport(context, project, loaded)).toThrow(expect.objectContaining({ code: 'PROJECT_NOT_FOUND' }))
    expect(stored(context)).toEqual([])
  })
})

describe('startMockApi({ imports })', () => {
  it('imports each spec before serving: the first makes the project, the next join it', async () => {
    const { startMockApi } = await import('../../src/index.ts')
    const api = await startMockApi({ imports: [join(ROOT, PETSTORE), { text: 'type Query { hello: String }', title: 'hello' }] })
    try {
      expect(api.project()).toMatchObject({ slug: 'swagger-petstore', name: 'Swagger Petstore' })
      expect((await fetch(`${api.url}/pets`)).status).toBe(200)
      const hello = await fetch(`${api.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ hello }' }) })
      expect(((await hello.json()) as { data: { hello: unknown } }).data).toEqual({ hello: expect.any(String) })
    } finally {
      await api.close()
    }
  })

  it('with a config, imports into its project; a refused import fails the start', async () => {
    const { startMockApi } = await import('../../src/index.ts')
    const api = await startMockApi({ config: { name: 'Shop', slug: 'shop' }, imports: [{ source: PETSTORE, stateful: true }] })
    try {
      expect((await fetch(`${api.project('shop').url}/pets`)).status).toBe(200)
    } finally {
      await api.close()
    }
    await expect(startMockApi({ imports: [{ text: 'not a spec' }] })).rejects.toThrow(/none of the formats mockapi imports/)
  })
})

describe('the registry of kinds', () => {
  it('has one module per kind name, each named as listed, formats sniffed in SPEC_FORMATS order', async () => {
    const [{ ENDPOINT_KINDS, SPEC_FORMATS }, { kindOf, SPEC_KINDS }] = await Promise.all([import('../../src/model.ts'), import('../../src/kinds/registry.ts')])
    expect(ENDPOINT_KINDS.map((name) => kindOf(name).name)).toEqual([...ENDPOINT_KINDS])
    expect(SPEC_KINDS.map((kind) => kind.name)).toEqual([...SPEC_FORMATS])
  })

  it('CONTRIBUTING.md walks through the soap kind as it is', () => {
    const guide = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8')
    const section = guide.slice(guide.indexOf('## How to add a kind'))
    const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1]
    expect(example).toBe(readFileSync(join(ROOT, 'src/kinds/soap/kind.ts'), 'utf8'))
  })
})
