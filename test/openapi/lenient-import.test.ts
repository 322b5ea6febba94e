import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { createProject } from '../../src/domain/projects.ts'
import { startMockApi } from '../../src/index.ts'
import { loadSpec, loadSpecText } from '../../src/kinds/openapi/load.ts'
import { cleanup, cliWorkspace, openStore, ROOT, send, serve, tempDb } from '../_helpers.ts'
import { fixture } from './_helpers.ts'

const LENIENT = join(ROOT, 'test', 'fixtures', 'openapi', 'lenient')
const lenient = (file: string) => join(LENIENT, file)

afterAll(cleanup)

type Check = (get: (path: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }) => ReturnType<typeof send>) => Promise<void>

/** Each spec imports with its warning (where: why) and serves what it describes. */
const WARNED: [string, string, string, Check][] = [
  ['no-info.yaml', 'no-info', '#: no "info" (required): titled after its file name or URL', async (get) => {
    expect((await get('/greeting')).json).toEqual({ text: 'hello' })
  }],
  ['no-description.yaml', 'no-description', '#/paths/~1things/get/responses/200: no "description" (required)', async (get) => {
    const things = await get('/things')
    expect([things.status, things.json]).toEqual([200, [{ id: 7 }]])
  }],
  ['parameter-without-schema.yaml', 'parameter-without-schema', '#/paths/~1search/get/parameters/0: has neither "schema" nor "content" (one is required): any value is accepted', async (get) => {
    expect((await get('/search?q=anything')).json).toEqual(['found'])
    const missing = await get('/search')
    expect([missing.status, missing.json.error.details]).toEqual([422, [{ path: 'query.q', message: 'is required' }]])
    expect((await get('/search?q=x&limit=11')).status).toBe(422) // the parameter beside it keeps its schema
  }],
  ['keywords-31-in-30.yaml', '3-1-keywords-in-3-0', '#/paths/~1orders/post/requestBody/content/application~1json/schema/properties/kind: "const" is an OpenAPI 3.1 keyword in a 3.0 document: read as 3.1 reads it', async (get) => {
    expect((await get('/orders', { method: 'POST', body: { kind: 'order', note: null } })).status).toBe(201)
    const wrong = await get('/orders', { method: 'POST', body: { kind: 'refund', note: 5 } })
    expect(wrong.status).toBe(422)
    expect(wrong.json.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['body/kind', 'body/note'])
  }],
  ['example-and-examples.yaml', 'example-and-examples', '#/paths/~1pets/get/responses/200/content/application~1json: has both "example" and "examples" (OpenAPI allows one): "example" is answered, "examples" are there for Prefer: example=name', async (get) => {
    expect((await get('/pets')).json).toEqual([{ name: 'Rex' }])
    expect((await get('/pets', { headers: { prefer: 'example=cats' } })).json).toEqual([{ name: 'Tom' }])
  }],
  ['version-numbers.yaml', 'numbers-for-versions', '#/swagger: the number 2, not a string: read as "2.0"', async (get) => {
    expect((await get('/ping')).json).toEqual({ pong: true })
  }],
  ['undeclared-path-parameter.yaml', 'missing-path-param', '#/paths/~1items~1{id}/get: is missing path parameter(s) for {id}', async (get) => {
    expect((await get('/items/5')).json).toEqual({ id: 'a1' })
  }],
]

/** What cannot be served is refused, saying where and why. */
const REFUSED: [string, RegExp][] = [
  ['unresolved-ref.yaml', /^unresolved-ref\.yaml: Missing \$ref pointer "#\/components\/schemas\/Thing"\..* \(at #\/paths\/~1things\/get\/responses\/200\/content\/application~1json\/schema\)$/],
  ['no-paths.yaml', /^no-paths\.yaml: #\/paths: missing: the document describes no operation to serve$/],
  ['bad-yaml.yaml', /^bad-yaml\.yaml: Flow map in block collection must be sufficiently indented and end with a } \(8:1\)$/],
]

describe('mockapi import: a spec that parses and dereferences is imported, each validation problem a warning', () => {
  it.each(WARNED)('%s imports into project %s, warns "%s", and serves', async (file, slug, warning, check) => {
    const { run, db } = cliWorkspace()
    const imported = await run('import', lenient(file))
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stdout).toMatch(new RegExp(`into project ${slug} in`))
    expect(imported.stderr.split('\n')).toContain(`! ${warning}`)
    const server = await serve(db)
    await check((path, init) => send(`${server.url}/api/${slug}${path}`, init))
  })

  it('--json carries the warnings', async () => {
    const { ok } = cliWorkspace()
    const result = JSON.parse(await ok('import', lenient('no-info.yaml'), '--json'))
    expect(result.spec.title).toBe('no-info')
    expect(result.warnings).toEqual(['#: no "info" (required): titled after its file name or URL'])
  })

  it.each(REFUSED)('refuses %s, saying where and why, and stores nothing', async (file, message) => {
    const { run, ok } = cliWorkspace()
    await ok('project', 'create', 'Kept', '--slug', 'kept')
    const refused = await run('import', lenient(file))
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim().split('\n')).toHaveLength(1)
    expect(refused.stderr.trim().replace(/^\S+ /, '')).toMatch(message)
    expect(JSON.parse(await ok('endpoints', '--json'))).toEqual([])
  })

  it('--strict refuses what validation finds, as before, and stores nothing', async () => {
    const { run, ok } = cliWorkspace()
    await ok('project', 'create', 'Kept', '--slug', 'kept')
    const refused = await run('import', lenient('no-description.yaml'), '--strict')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/no-description\.yaml: Swagger schema validation failed\. #\/paths\/~1things\/get\/responses\/200 must have required property 'description'/)
    expect(JSON.parse(await ok('endpoints', '--json'))).toEqual([])
    expect((await run('import', lenient('version-numbers.yaml'), '--strict')).stderr).toMatch(/version-numbers\.yaml: unsupported version 2 \(expected swagger "2\.0"/)
    expect((await run('import', lenient('no-info.yaml'), '--strict')).code).toBe(1)
  })

  it('says a problem once, where it is written (not at each place that $refs it), and counts what is past the first 20', async () => {
    const shared = { $ref: '#/components/schemas/Shared' }
    const paths = Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`/p${i}`, { get: { responses: { 200: { content: { 'application/json': { schema: shared } } } } } }]))
    const components = { schemas: { Shared: { type: 'object', properties: { a: { type: 'string', required: true } } } } }
    const spec = await loadSpecText(JSON.stringify({ openapi: '3.0.3', info: { title: 'Many', version: '1' }, paths, components }), 'many.json')
    expect(spec.warnings).toHaveLength(21)
    expect(spec.warnings[0]).toBe('#/paths/~1p0/get/responses/200: no "description" (required)')
    expect(spec.warnings.filter((w) => w.startsWith('#/components/schemas/Shared'))).toEqual(['#/components/schemas/Shared/properties/a/required: must be array'])
    expect(spec.warnings.at(-1)).toBe('and 5 more validation problems (--strict lists the first ones as a refusal)')
  })

  it('an enum failure says the allowed values and what mockapi does; an undefined scheme is said where it is named', async () => {
    const paths = {
      '/b': {
        get: {
          security: [{ nope: [] }],
          parameters: [{ name: 'x', in: 'body', schema: { type: 'string' } }, { name: 'y', in: 'query', schema: { type: 'strin' } }],
          responses: { 200: { description: 'ok' } },
        },
      },
    }
    const spec = await loadSpecText(JSON.stringify({ openapi: '3.0.3', info: { title: 'Enums', version: '1' }, paths }), 'enums.json')
    expect(spec.warnings).toContain('#/paths/~1b/get/parameters/0/in: "body" is not one of "path", "query", "header", "cookie": the parameter is ignored')
    expect(spec.warnings).toContain('#/paths/~1b/get/parameters/1/schema/type: "strin" is not one of "array", "boolean", "integer", "number", "object", "string": the type is not checked (any value is accepted there)')
    // A parameter whose `in` is unknown is not also told it lacks what a path parameter needs.
    expect(spec.warnings.filter((w) => w.startsWith('#/paths/~1b/get/parameters/0:'))).toEqual([])
    const { securityWarnings } = await import('../../src/kinds/openapi/security.ts')
    expect(securityWarnings(spec.document)).toEqual(['#/paths/~1b/get/security: names undefined scheme(s) "nope": alternatives naming them are ignored (an operation left with none asks for a bearer token)'])
  })

  it('an info.version written as a number is read as written (1.0 → "1.0", not "1"), in YAML and in JSON', async () => {
    const yaml = await loadSpecText(readFileSync(lenient('version-numbers.yaml'), 'utf8'), 'version-numbers.yaml')
    expect(yaml.warnings).toContain('#/info/version: the number 1.0, not a string: read as "1.0"')
    expect((yaml.document.info as { version: unknown }).version).toBe('1.0')
    const json = await loadSpecText('{"openapi": "3.0.3", "info": {"title": "j", "version": 2.10}, "paths": {}}', 'j.json')
    expect((json.document.info as { version: unknown }).version).toBe('2.10')
  })

  it('a valid spec imports without a warning', async () => {
    for (const file of ['oai-v3.0/petstore.yaml', 'oai-v3.1/tictactoe.yaml', 'oai-v2.0/uber.json']) {
      expect((await loadSpec(fixture(file))).warnings, file).toEqual([])
    }
  })
})

describe('POST /api/projects/{id}/imports: the warnings in its answer, "strict" to refuse', () => {
  it('imports with warnings, refuses with "strict" and what cannot be served', async () => {
    const db = tempDb()
    const { context } = openStore(db)
    const project = createProject(context, { name: 'Lenient', slug: 'lenient' })
    const headers = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const server = await serve(db)
    const post = (body: unknown) => send(`${server.url}/api/projects/${project.id}/imports`, { method: 'POST', body, headers })
    const text = (file: string) => readFileSync(lenient(file), 'utf8')

    const strict = await post({ text: text('no-description.yaml'), strict: true })
    expect([strict.status, strict.json.error.code]).toEqual([400, 'INVALID_SPEC'])
    expect(strict.json.error.message).toMatch(/^the pasted document: Swagger schema validation failed\. #\/paths\/~1things\/get\/responses\/200 must have required property 'description'/)

    const imported = await post({ text: text('no-info.yaml'), filename: 'no-info.yaml' })
    expect(imported.status).toBe(201)
    expect(imported.json.import).toMatchObject({ title: 'no-info', format: 'openapi' })
    expect(imported.json.warnings).toEqual(['#: no "info" (required): titled after its file name or URL'])
    expect((await send(`${server.url}/api/lenient/greeting`)).json).toEqual({ text: 'hello' })

    const refused = await post({ text: text('unresolved-ref.yaml') })
    expect([refused.status, refused.json.error.code]).toEqual([400, 'INVALID_SPEC'])
    expect(refused.json.error.message).toMatch(/Missing \$ref pointer "#\/components\/schemas\/Thing".*\(at #\/paths\/~1things\/get\/responses\/200\/content\/application~1json\/schema\)$/)
    expect((await post({ text: text('no-info.yaml'), strict: 'yes' })).json.error.message).toBe('"strict" must be true or false, got "yes"')
  })

  it('titles a spec without info fetched from a URL after the URL\'s last segment', async () => {
    const specs = createServer((_req, res) => res.writeHead(200).end(readFileSync(lenient('no-info.yaml'))))
    await new Promise<void>((done) => specs.listen(0, '127.0.0.1', done))
    try {
      const db = tempDb()
      const { context } = openStore(db)
      const project = createProject(context, { name: 'From a URL', slug: 'from-url' })
      const headers = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
      const server = await serve(db)
      const url = `http://127.0.0.1:${(specs.address() as { port: number }).port}/specs/greetings.yaml?v=2`
      const imported = await send(`${server.url}/api/projects/${project.id}/imports`, { method: 'POST', body: { url }, headers })
      expect(imported.status).toBe(201)
      expect(imported.json.import.title).toBe('greetings')
      expect(imported.json.warnings).toEqual(['#: no "info" (required): titled after its file name or URL'])
    } finally {
      specs.close()
    }
  })
})

describe('startMockApi({ imports })', () => {
  it('imports a spec with problems (its warnings are not reported); strict: true refuses it', async () => {
    const api = await startMockApi({ imports: [lenient('no-description.yaml')] })
    try {
      expect((await send(`${api.url}/api/no-description/things`)).json).toEqual([{ id: 7 }])
    } finally {
      await api.close()
    }
    await expect(startMockApi({ imports: [{ source: lenient('no-description.yaml'), strict: true }] })).rejects.toThrow(/must have required property 'description'/)
  })
})
