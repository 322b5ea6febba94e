import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import SwaggerParser from '@apidevtools/swagger-parser'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { cleanup, cliWorkspace, ROOT, send, serve, type CliWorkspace } from '../_helpers.ts'

afterAll(cleanup)

type Doc = Record<string, any>

/**
 * A project with every part the export writes: resources (one nested, one singular) with records,
 * custom endpoints with JSON, text and file bodies, responses chosen by rules, project and
 * endpoint auth.
 */
const SHOP = `
name: Shop
slug: shop
auth: { type: bearer }
resources:
  - path: /api/users
    records:
      - { id: 1, name: Ada, email: ada@example.com, joined: "2024-03-01T10:00:00Z", site: "https://ada.example.com", tags: [admin], address: { city: London } }
      - { id: 2, name: Bob, email: bob@example.com, joined: "2024-04-02T11:30:00Z", site: "https://bob.example.com", tags: [], score: 2.5 }
  - path: /api/users/:userId/orders
    records:
      - { id: 1, userId: 1, total: 30, placed: "2024-05-01" }
  - path: /api/profile
    object: { name: Ada, theme: dark }
endpoints:
  - method: GET
    path: /api/health
    body: { ok: true }
    headers: { X-Env: mock }
    auth: none
  - method: GET
    path: /api/motd
    text: hello there
  - method: GET
    path: /api/logo
    file: ./logo.png
  - method: GET
    path: /api/keyed
    body: { secret: false }
    auth: [{ type: apiKey, in: header, name: X-API-Key, keys: [k-1] }]
  - method: POST
    path: /api/signup
    status: 201
    body: { welcome: true }
    schema: { type: object, required: [email], properties: { email: { type: string } } }
  - method: POST
    path: /api/sessions
    status: 201
    responses:
      - name: locked
        when: { body: { username: locked } }
        status: 423
        body: { error: locked }
      - name: admin
        when: { body: { username: admin } }
        status: 201
        body: { token: admin-token }
      - name: welcome
        status: 201
        body: { token: t-1 }
`

async function buildShop(shop: CliWorkspace): Promise<void> {
  writeFileSync(join(shop.cwd, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]))
  writeFileSync(join(shop.cwd, 'shop.yaml'), SHOP)
  await shop.ok('apply', 'shop.yaml')
}

let shop: CliWorkspace
let exported: Doc
let stderr: string

beforeAll(async () => {
  shop = cliWorkspace()
  await buildShop(shop)
  const run = await shop.run('export', '--format', 'openapi')
  expect(run.code, run.stderr).toBe(0)
  exported = JSON.parse(run.stdout) as Doc
  stderr = run.stderr
})

describe('export --format openapi', () => {
  it('writes an OpenAPI 3.1 document that swagger-parser validates', async () => {
    expect(exported.openapi).toBe('3.1.0')
    expect(exported.info.title).toBe('Shop')
    await SwaggerParser.validate(structuredClone(exported) as never)
    expect(stderr).toBe('')
  })

  it('describes resources with schemas inferred from their records', () => {
    const user = exported.components.schemas.User
    expect(user.properties.id).toEqual({ type: 'integer' })
    expect(user.properties.email).toEqual({ type: 'string', format: 'email' })
    expect(user.properties.joined).toEqual({ type: 'string', format: 'date-time' })
    expect(user.properties.site).toEqual({ type: 'string', format: 'uri' })
    expect(user.properties.score).toEqual({ type: 'number' })
    expect(user.properties.tags).toEqual({ type: 'array', items: { type: 'string' } })
    expect(user.properties.address).toEqual({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] })
    // Only what every record has is required.
    expect(user.required).toEqual(['id', 'name', 'email', 'joined', 'site', 'tags'])
    expect(user.example.name).toBe('Ada')
    expect(exported.components.schemas.Order.properties.placed).toEqual({ type: 'string', format: 'date' })
    expect(Object.keys(exported.paths['/api/users'])).toEqual(['get', 'post'])
    expect(Object.keys(exported.paths['/api/users/{id}'])).toEqual(['get', 'put', 'patch', 'delete'])
    expect(exported.paths['/api/users/{userId}/orders/{id}'].get.parameters.map((p: Doc) => p.name)).toEqual(['userId', 'id'])
    expect(exported.paths['/api/users'].get.parameters.map((p: Doc) => p.name)).toEqual(['page', 'limit', 'sort', 'order', 'q'])
    expect(exported.paths['/api/users'].get.responses['200'].content['application/json'].schema).toEqual({ type: 'array', items: { $ref: '#/components/schemas/User' } })
    expect(exported.paths['/api/users'].post.responses['201']).toBeDefined()
    expect(Object.keys(exported.paths['/api/profile'])).toEqual(['get', 'put', 'patch'])
    // Paths in code-unit order, whatever order the endpoints were made in.
    expect(Object.keys(exported.paths)).toEqual([...Object.keys(exported.paths)].sort())
  })

  it('writes custom endpoints with their bodies, headers and rules as named examples', () => {
    const health = exported.paths['/api/health'].get
    expect(health.responses['200'].headers['X-Env']).toEqual({ schema: { type: 'string' }, example: 'mock' })
    expect(health.responses['200'].content['application/json'].example).toEqual({ ok: true })
    expect(exported.paths['/api/motd'].get.responses['200'].content['text/plain; charset=utf-8'].example).toBe('hello there')
    expect(exported.paths['/api/logo'].get.responses['200'].content['image/png'].schema).toEqual({ type: 'string', format: 'binary' })
    const sessions = exported.paths['/api/sessions'].post.responses
    expect(Object.keys(sessions).sort()).toEqual(['201', '423'])
    // The fallback first in its status: a tool reading the examples alone (Prism) answers the first; an import reads x-mockapi-endpoint.
    const examples = sessions['201'].content['application/json'].examples
    expect(Object.keys(examples)).toEqual(['welcome', 'admin'])
    expect(examples.admin).toEqual({ description: 'answered when body.username = admin', value: { token: 'admin-token' } })
    expect(sessions['423'].content['application/json'].examples.locked.value).toEqual({ error: 'locked' })
  })

  it('writes auth as security schemes, without their secrets', () => {
    expect(exported.security).toEqual([{ bearerAuth: [] }])
    expect(exported.components.securitySchemes).toEqual({ bearerAuth: { type: 'http', scheme: 'bearer' }, 'apiKey_header_X-API-Key': { type: 'apiKey', in: 'header', name: 'X-API-Key' } })
    expect(exported.paths['/api/health'].get.security).toEqual([])
    expect(exported.paths['/api/keyed'].get.security).toEqual([{ 'apiKey_header_X-API-Key': [] }])
    expect(JSON.stringify(exported)).not.toContain('k-1')
  })

  it('writes the JSON Schema an endpoint checks bodies against as its request body', () => {
    expect(exported.paths['/api/signup'].post.requestBody).toEqual({ required: true, content: { 'application/json': { schema: { type: 'object', required: ['email'], properties: { email: { type: 'string' } } } } } })
  })
})

/** What a request answered, as the round trip compares it. */
async function answer(base: string, method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) {
  const sent = await send(`${base}${path}`, { method, overSocket: true, headers: { authorization: 'Bearer any', ...init.headers }, ...(init.body === undefined ? {} : { body: init.body }) })
  // The media type without its parameters: JSON goes out with `; charset=utf-8` from a custom endpoint, without from an import.
  return { status: sent.status, body: sent.json ?? sent.text, type: sent.headers.get('content-type')?.split(';')[0] ?? null }
}

describe('export → import round trip', () => {
  it('the imported project answers the same routes with the same statuses and bodies', async () => {
    await shop.ok('export', '--format', 'openapi', '-o', 'shop.openapi.json')
    const copy = cliWorkspace()
    await copy.ok('init', '--yes', '--name', 'Shop', '--slug', 'shop')
    const imported = await copy.run('import', join(shop.cwd, 'shop.openapi.json'), '--project', 'shop', '--stateful')
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stdout).toMatch(/GET +\/api\/users\/:userId\/orders +200 +list/)
    expect(imported.stdout).toMatch(/DELETE +\/api\/users\/:id +200 +delete/)
    const original = await serve(shop.db)
    const again = await serve(copy.db)
    const both = async (method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) => {
      const [a, b] = [await answer(original.url, method, `/api/shop${path}`, init), await answer(again.url, method, `/api/shop${path}`, init)]
      return { original: a, imported: b }
    }
    const same = async (method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) => {
      const { original: a, imported: b } = await both(method, path, init)
      expect(b, `${method} ${path}`).toEqual(a)
      return a
    }
    // Custom endpoints: the same status, body and type; the fallback is what a plain request gets.
    expect((await same('GET', '/health')).body).toEqual({ ok: true })
    expect((await same('GET', '/motd')).body).toBe('hello there')
    expect((await same('POST', '/sessions', { body: { username: 'someone' } })).body).toEqual({ token: 't-1' })
    expect((await same('POST', '/signup', { body: { email: 'a@b.co' } })).body).toEqual({ welcome: true })
    const refusedSignup = await both('POST', '/signup', { body: {} })
    for (const { status, body } of [refusedSignup.original, refusedSignup.imported]) expect({ status, code: (body as Doc).error.code }).toEqual({ status: 422, code: 'VALIDATION_FAILED' })
    expect((await same('GET', '/keyed', { headers: { 'x-api-key': 'k-1' } })).status).toBe(200)
    // Auth: no credentials, no answer, in both; a public endpoint stays public.
    // (The message's wording differs: the imported operation's `security` is checked, not the project's auth.)
    const refused = await both('GET', '/users', { headers: { authorization: '' } })
    for (const { status, body } of [refused.original, refused.imported]) expect({ status, code: (body as Doc).error.code }).toEqual({ status: 401, code: 'UNAUTHORIZED' })
    expect((await answer(again.url, 'GET', '/api/shop/health', { headers: { authorization: '' } })).status).toBe(200)
    // Resources: each stateful collection is seeded with its records, as its list's example carries them.
    const users = await same('GET', '/users')
    expect((users.body as Doc[]).map((user) => user.id)).toEqual([1, 2])
    expect(users.body).toEqual([
      { id: 1, name: 'Ada', email: 'ada@example.com', joined: '2024-03-01T10:00:00Z', site: 'https://ada.example.com', tags: ['admin'], address: { city: 'London' } },
      { id: 2, name: 'Bob', email: 'bob@example.com', joined: '2024-04-02T11:30:00Z', site: 'https://bob.example.com', tags: [], score: 2.5 },
    ])
    expect((await same('GET', '/users/2')).body).toMatchObject({ id: 2, name: 'Bob', score: 2.5 })
    expect((await same('GET', '/users/1/orders')).body).toEqual([{ id: 1, userId: 1, total: 30, placed: '2024-05-01' }])
    expect((await same('GET', '/users/99')).status).toBe(404)
    const created = await same('POST', '/users', { body: { name: 'Cy', email: 'cy@example.com' } })
    expect(created.status).toBe(201)
    expect((await same('PATCH', '/users/3', { body: { name: 'Cyd' } })).body).toEqual({ id: 3, name: 'Cyd', email: 'cy@example.com' })
    expect((await same('GET', '/users/3')).body).toEqual({ id: 3, name: 'Cyd', email: 'cy@example.com' })
    expect((await same('DELETE', '/users/3')).status).toBe(200)
    expect((await same('GET', '/users/3')).status).toBe(404)
    expect((await same('GET', '/users?limit=1')).body).toHaveLength(1)
    expect((await same('GET', '/users/1/orders/1')).body).toEqual({ id: 1, userId: 1, total: 30, placed: '2024-05-01' })
    expect((await same('GET', '/profile')).body).toEqual({ name: 'Ada', theme: 'dark' })
    // Rules are carried with their conditions; Prefer picks a response by its name or status, whatever they say.
    expect((await same('POST', '/sessions', { body: { username: 'admin' } })).body).toEqual({ token: 'admin-token' })
    expect((await same('POST', '/sessions', { body: { username: 'locked' } })).status).toBe(423)
    expect((await same('POST', '/sessions', { body: {}, headers: { prefer: 'example=admin' } })).body).toEqual({ token: 'admin-token' })
    expect((await same('POST', '/sessions', { body: {}, headers: { prefer: 'code=423' } })).body).toEqual({ error: 'locked' })
    // The import checks what the spec says (inferred formats, list parameters); the resource took any object.
    const badEmail = await both('POST', '/users', { body: { email: 'not an email' } })
    expect([badEmail.original.status, badEmail.imported.status]).toEqual([201, 422])
    // The shop is exported again below: as it was.
    expect((await answer(original.url, 'DELETE', `/api/shop/users/${(badEmail.original.body as Doc).id}`)).status).toBe(200)
    const badPage = await both('GET', '/users?page=0')
    expect([badPage.original.status, badPage.imported.status]).toEqual([400, 422])
    expect((await same('GET', '/logo')).type).toBe('image/png')
  })
})

/** An OpenAPI operation that stands alone (no `$ref`), with a path item's parameter. */
const PLAIN_SPEC = {
  openapi: '3.1.0',
  info: { title: 'Plain', version: '1' },
  security: [{ key: [] }],
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } } },
  paths: {
    '/v1/things/{thingId}': {
      parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'string' } }],
      get: { operationId: 'getThing', responses: { '200': { description: 'a thing', content: { 'application/json': { schema: { type: 'object' }, example: { name: 'lamp' } } } } } },
    },
  },
}

describe('export --format openapi: what it leaves out, and how it writes', () => {
  it('keeps an imported operation that stands alone, leaves out $ref ones and GraphQL with a warning naming them', async () => {
    const mixed = cliWorkspace()
    await mixed.ok('init', '--yes', '--name', 'Mixed', '--slug', 'mixed')
    writeFileSync(join(mixed.cwd, 'plain.json'), JSON.stringify(PLAIN_SPEC))
    await mixed.ok('import', 'plain.json')
    // Another spec with the same operationId: a document's operationIds are unique, so it gets a number.
    writeFileSync(join(mixed.cwd, 'plain2.json'), JSON.stringify({ ...PLAIN_SPEC, info: { title: 'Plain 2', version: '1' }, components: { securitySchemes: { key: { type: 'http', scheme: 'basic' } } }, paths: { '/v2/things/{thingId}': PLAIN_SPEC.paths['/v1/things/{thingId}'] } }))
    await mixed.ok('import', 'plain2.json')
    await mixed.ok('add-endpoint', 'GET', '/api/assets/**', '--body', '{}')
    await mixed.ok('import', join(ROOT, 'fixtures/openapi/oai-v3.0/petstore.yaml'))
    await mixed.ok('import', join(ROOT, 'fixtures/graphql/swapi/schema.graphql'))
    const run = await mixed.run('export', '--format', 'openapi')
    expect(run.code, run.stderr).toBe(0)
    const document = JSON.parse(run.stdout) as Doc
    await SwaggerParser.validate(structuredClone(document) as never)
    // As imported, with the path item's parameters and the spec's security carried into the operation.
    expect(document.paths['/v1/things/{thingId}'].get).toEqual({ ...PLAIN_SPEC.paths['/v1/things/{thingId}'].get, parameters: PLAIN_SPEC.paths['/v1/things/{thingId}'].parameters, security: [{ key: [] }] })
    expect(document.paths['/v2/things/{thingId}'].get.operationId).toBe('getThing2')
    // Two specs' schemes of one name: the second is renamed.
    expect(document.paths['/v2/things/{thingId}'].get.security).toEqual([{ key2: [] }])
    expect(document.components.securitySchemes).toEqual({ key: { type: 'apiKey', in: 'header', name: 'X-Key' }, key2: { type: 'http', scheme: 'basic' } })
    expect(document.paths['/pets']).toBeUndefined()
    expect(run.stderr).toContain('GET /api/assets/** left out: an OpenAPI path has no wildcards (nor braces in its text)')
    expect(run.stderr).toMatch(/left out 3 OpenAPI operations of "Swagger Petstore" that use \$ref or come from Swagger 2\.0: GET \/pets, POST \/pets, GET \/pets\/:petId/)
    expect(run.stderr).toMatch(/left out \d+ GraphQL operations of "[^"]+": \/graphql#/)
  })

  it('exports a project imported from its own export: stateful collections as resources again', async () => {
    const copy = cliWorkspace()
    await copy.ok('init', '--yes', '--name', 'Shop', '--slug', 'shop')
    writeFileSync(join(copy.cwd, 'shop.json'), JSON.stringify(exported))
    await copy.ok('import', 'shop.json', '--stateful')
    const run = await copy.run('export', '--format', 'openapi')
    expect(run.code, run.stderr).toBe(0)
    const again = JSON.parse(run.stdout) as Doc
    await SwaggerParser.validate(structuredClone(again) as never)
    // The stateful operations name the spec's schemas ($ref): they are described from the records instead.
    expect(Object.keys(again.paths['/api/users/{id}'])).toEqual(['get', 'put', 'patch', 'delete'])
    // The records came back: the schema inferred from them, and the list's example, are the original's.
    expect(again.components.schemas.User).toEqual(exported.components.schemas.User)
    expect(again.paths['/api/users'].get.responses['200'].content['application/json'].example).toEqual(exported.paths['/api/users'].get.responses['200'].content['application/json'].example)
    // The others as imported, or left out with a warning when they name a schema.
    // The spec's top-level security is carried into its operations: the project has no auth of its own.
    expect(again.paths['/api/sessions'].post).toEqual({ ...exported.paths['/api/sessions'].post, security: [{ bearerAuth: [] }] })
    expect(again.paths['/api/users/{id}'].get.security).toEqual([{ bearerAuth: [] }])
    expect(again.paths['/api/health'].get.security).toEqual([])
    expect(again.security).toBeUndefined()
    expect(again.paths['/api/profile']).toBeUndefined()
    expect(run.stderr).toContain('left out 3 OpenAPI operations of "Shop" that use $ref or come from Swagger 2.0: GET /api/profile, PUT /api/profile, PATCH /api/profile')
  })

  it('writes YAML to a file named .yaml, JSON otherwise', async () => {
    const written = await shop.run('export', '--format', 'openapi', '-o', 'shop.openapi.yaml')
    expect(written.code, written.stderr).toBe(0)
    expect(written.stderr).toContain('wrote shop.openapi.yaml')
    const text = readFileSync(join(shop.cwd, 'shop.openapi.yaml'), 'utf8')
    expect(text.startsWith('openapi: 3.1.0\n')).toBe(true)
    expect(parse(text)).toEqual(exported)
    await shop.ok('export', '--format', 'openapi', '-o', 'shop.json')
    expect(JSON.parse(readFileSync(join(shop.cwd, 'shop.json'), 'utf8'))).toEqual(exported)
  })

  it('writes a text body sent as JSON (as a recording keeps it) as JSON, so the import answers it unquoted', async () => {
    const w = cliWorkspace()
    await w.ok('init', '--yes', '--slug', 'rec', '--path-rules', 'off')
    await w.ok('add-endpoint', 'GET', '/cookie', '--text', '{"ok":true}', '--content-type', 'application/json')
    await w.ok('export', '--format', 'openapi', '-o', 'rec.json')
    const doc = JSON.parse(readFileSync(join(w.cwd, 'rec.json'), 'utf8')) as Doc
    expect(doc.paths['/cookie'].get.responses['200'].content['application/json']).toMatchObject({ schema: { type: 'object' }, example: { ok: true } })
    const back = cliWorkspace()
    await back.ok('import', join(w.cwd, 'rec.json'), '--stateful')
    const server = await serve(back.db)
    const answered = await send(`${server.url}/cookie`)
    expect([answered.status, answered.text]).toEqual([200, '{"ok":true}'])
  })

  it('refuses an unknown format, listing the formats', async () => {
    const run = await shop.run('export', '--format', 'postman')
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain('unknown export format "postman": use project or openapi')
    expect(run.stdout).toBe('')
  })

  it('writes a valid empty document, with a warning, for a project with nothing to describe', async () => {
    const empty = cliWorkspace()
    await empty.ok('init', '--yes', '--name', 'Empty', '--slug', 'empty')
    const run = await empty.run('export', '--format', 'openapi')
    expect(run.code, run.stderr).toBe(0)
    const document = JSON.parse(run.stdout) as Doc
    expect(document).toEqual({ openapi: '3.1.0', info: { title: 'Empty', version: '1.0.0' }, paths: {} })
    await SwaggerParser.validate(structuredClone(document) as never)
    expect(run.stderr).toContain('project "empty" has nothing OpenAPI can describe: the document has no paths')
  })

  it('still writes the project file without --format, or with --format project', async () => {
    expect(await shop.ok('export', '--format', 'project')).toBe(await shop.ok('export'))
    expect(await shop.ok('export')).toContain('# mockapi project file')
  })
})

/** Notes with string ids, listed in the collection GET's example, as an export writes them. */
function notesSpec(idType: 'string' | 'integer'): Doc {
  const note = { type: 'object', properties: { id: { type: idType }, text: { type: 'string' } } }
  return {
    openapi: '3.1.0',
    info: { title: 'Notes', version: '1' },
    paths: {
      '/notes': {
        get: { responses: { '200': { description: 'the notes', content: { 'application/json': { schema: { type: 'array', items: note }, example: [{ id: 'b', text: 'two' }, { id: 'a', text: 'one' }] } } } } },
        post: { responses: { '201': { description: 'made', content: { 'application/json': { schema: note } } } } },
      },
      '/notes/{id}': {
        get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { '200': { description: 'a note', content: { 'application/json': { schema: note, example: { id: 'b', text: 'two' } } } } } },
      },
    },
  }
}

describe('import --stateful seeds a collection from its list example', () => {
  it('seeds the listed records in order; --seed N adds N generated items after them', async () => {
    const w = cliWorkspace()
    await w.ok('init', '--yes', '--name', 'Notes', '--slug', 'notes')
    writeFileSync(join(w.cwd, 'notes.json'), JSON.stringify(notesSpec('string')))
    await w.ok('import', 'notes.json', '--stateful')
    const plain = await serve(w.db)
    expect((await answer(plain.url, 'GET', '/api/notes/notes')).body).toEqual([{ id: 'b', text: 'two' }, { id: 'a', text: 'one' }])
    expect((await answer(plain.url, 'GET', '/api/notes/notes/a')).body).toEqual({ id: 'a', text: 'one' })

    const seeded = cliWorkspace()
    await seeded.ok('init', '--yes', '--name', 'Notes', '--slug', 'notes')
    writeFileSync(join(seeded.cwd, 'notes.json'), JSON.stringify(notesSpec('string')))
    await seeded.ok('import', 'notes.json', '--stateful', '--seed', '2')
    const more = await serve(seeded.db)
    expect((await answer(more.url, 'GET', '/api/notes/notes')).body).toEqual([{ id: 'b', text: 'two' }, { id: 'a', text: 'one' }, { id: '1', text: 'two' }, { id: '2', text: 'two' }])

    // An empty list example is an empty collection (an export of a resource without records).
    const empty = cliWorkspace()
    await empty.ok('init', '--yes', '--name', 'Notes', '--slug', 'notes')
    const spec = notesSpec('string')
    spec.paths['/notes'].get.responses['200'].content['application/json'].example = []
    writeFileSync(join(empty.cwd, 'notes.json'), JSON.stringify(spec))
    await empty.ok('import', 'notes.json', '--stateful')
    expect((await answer((await serve(empty.db)).url, 'GET', '/api/notes/notes')).body).toEqual([])
  })

  it('a re-import leaves a collection already there as it is: its records and its seed (what reset brings back)', async () => {
    const w = cliWorkspace()
    await w.ok('init', '--yes', '--name', 'Notes', '--slug', 'notes')
    writeFileSync(join(w.cwd, 'notes.json'), JSON.stringify(notesSpec('string')))
    await w.ok('import', 'notes.json', '--stateful')
    const served = await serve(w.db)
    expect((await answer(served.url, 'POST', '/api/notes/notes', { body: { id: 'c', text: 'three' } })).status).toBe(201)
    const changed = notesSpec('string')
    changed.paths['/notes'].get.responses['200'].content['application/json'].example = [{ id: 'z', text: 'new' }]
    writeFileSync(join(w.cwd, 'notes.json'), JSON.stringify(changed))
    await w.ok('import', 'notes.json', '--stateful')
    expect((await answer(served.url, 'GET', '/api/notes/notes')).body).toEqual([{ id: 'b', text: 'two' }, { id: 'a', text: 'one' }, { id: 'c', text: 'three' }])
    await w.ok('reset')
    expect((await answer(served.url, 'GET', '/api/notes/notes')).body).toEqual([{ id: 'b', text: 'two' }, { id: 'a', text: 'one' }])
  })

  it('a list example whose ids are not of the item schema\'s type is not records: 5 generated items, as without one, with a warning', async () => {
    const w = cliWorkspace()
    await w.ok('init', '--yes', '--name', 'Notes', '--slug', 'notes')
    writeFileSync(join(w.cwd, 'notes.json'), JSON.stringify(notesSpec('integer')))
    const run = await w.run('import', 'notes.json', '--stateful')
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toContain('/notes: its list GET\'s example is not records: its element 1 has a string id ("b") where the item schema\'s id is a number; seeded with 5 generated item(s) (--seed N sets how many)')
    const served = await serve(w.db)
    const listed = (await answer(served.url, 'GET', '/api/notes/notes')).body as Doc[]
    expect(listed.map((note) => note.id)).toEqual([1, 2, 3, 4, 5])
  })

  it('warns, naming the collection and why, whenever generated items stand in for the records a list example gives', async () => {
    const w = cliWorkspace()
    await w.ok('init', '--yes', '--name', 'Notes', '--slug', 'notes')
    const spec = notesSpec('string')
    const at = (path: string, example: unknown): Doc => {
      const copy = structuredClone(spec.paths['/notes']) as Doc
      const item = structuredClone(spec.paths['/notes/{id}']) as Doc
      if (example === undefined) delete copy.get.responses['200'].content['application/json'].example
      else copy.get.responses['200'].content['application/json'].example = example
      return { [path]: copy, [`${path}/{id}`]: item }
    }
    spec.paths = {
      ...at('/notes', [{ id: 'a', text: 'one' }, { text: 'two' }]),
      ...at('/pins', [{ id: 'a', text: 'one' }, { id: 'a', text: 'two' }]),
      ...at('/tags', [{ id: 'a', text: 'one' }, 'two']),
      ...at('/logs', undefined),
      ...at('/marks', [{ id: '', text: 'one' }]),
    }
    writeFileSync(join(w.cwd, 'notes.json'), JSON.stringify(spec))
    const run = await w.run('import', 'notes.json', '--stateful', '--json')
    expect(run.code, run.stderr).toBe(0)
    expect((JSON.parse(run.stdout) as Doc).warnings).toEqual([
      '/notes: its list GET\'s example is not records: its element 2 has no id; seeded with 5 generated item(s) (--seed N sets how many)',
      '/pins: its list GET\'s example is not records: its element 2 repeats the id "a"; seeded with 5 generated item(s) (--seed N sets how many)',
      '/tags: its list GET\'s example is not records: its element 2 is not an object; seeded with 5 generated item(s) (--seed N sets how many)',
      '/logs: its list GET has no JSON example of its success response; seeded with 5 generated item(s) (--seed N sets how many)',
      '/marks: its list GET\'s example is not records: its element 1: id must be a non-empty string or a number; seeded with 5 generated item(s) (--seed N sets how many)',
    ])
    // With --seed N, generated items are asked for: only the records left out are warned about.
    const seeded = cliWorkspace()
    await seeded.ok('init', '--yes', '--name', 'Notes', '--slug', 'notes')
    writeFileSync(join(seeded.cwd, 'notes.json'), JSON.stringify(spec))
    const asked = JSON.parse(await seeded.ok('import', 'notes.json', '--stateful', '--seed', '0', '--json')) as Doc
    expect(asked.warnings).toHaveLength(4)
    expect(asked.warnings.join('\n')).not.toContain('/logs')
    expect(asked.warnings[0]).toBe('/notes: its list GET\'s example is not records: its element 2 has no id; starts empty')
  })

  it('exports at most 1,000 records a collection, with a warning; two resources of one collection round-trip it once', async () => {
    const w = cliWorkspace()
    const many = Array.from({ length: 1001 }, (_, i) => `      - { id: ${i + 1}, n: ${i + 1} }`).join('\n')
    writeFileSync(join(w.cwd, 'big.yaml'), `name: Big\nslug: big\nresources:\n  - path: /api/items\n    records:\n${many}\n  - path: /api/comments\n    records:\n      - { id: 1, postId: 1, body: hi }\n      - { id: 2, postId: 2, body: yo }\n  - path: /api/posts/:postId/comments\n`)
    await w.ok('apply', 'big.yaml')
    const run = await w.run('export', '--format', 'openapi', '-o', 'big.json')
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toContain('/api/items: its first 1000 of 1001 records are written, the rest left out')
    const document = JSON.parse(readFileSync(join(w.cwd, 'big.json'), 'utf8')) as Doc
    expect(document.paths['/api/items'].get.responses['200'].content['application/json'].example).toHaveLength(1000)

    const copy = cliWorkspace()
    await copy.ok('init', '--yes', '--name', 'Big', '--slug', 'big')
    await copy.ok('import', join(w.cwd, 'big.json'), '--stateful')
    const served = await serve(copy.db)
    const items = (await answer(served.url, 'GET', '/api/big/items?limit=2000')).body as Doc[]
    expect(items.map((item) => item.id)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))
    expect((await answer(served.url, 'GET', '/api/big/comments')).body).toEqual([{ id: 1, postId: 1, body: 'hi' }, { id: 2, postId: 2, body: 'yo' }])
    expect((await answer(served.url, 'GET', '/api/big/posts/2/comments')).body).toEqual([{ id: 2, postId: 2, body: 'yo' }])
  })
})

/**
 * A project whose answers the examples alone cannot say: a fallback that is an error, templates,
 * unnamed responses picked in turn, files (text holding `{{`, and binary), empty redirects, a rule
 * answering no body, and a resource's records.
 */
const ROUND = `
name: Round
slug: round
resources:
  - path: /api/notes
    records:
      - { id: 1, title: first, body: x }
endpoints:
  - method: POST
    path: /api/notes
    responses:
      - when: { body: { title: first } }
        status: 409
        body: { error: "{{body.title}} is taken" }
  - method: POST
    path: /api/login
    responses:
      - name: admin
        when: { body: { username: admin } }
        status: 200
        body: { token: "t-{{body.username}}", at: "{{query.at}}" }
      - status: 401
        headers: { X-Reason: "wrong password for {{body.username}}" }
        body: { error: { code: UNAUTHORIZED, message: "who is {{body.username}}?" } }
  - method: GET
    path: /api/greet/:name
    text: "Hello {{params.name}}, {{query.greeting}}!"
  - method: GET
    path: /api/weather
    pick: sequence
    responses:
      - body: { sky: sun }
      - status: 503
        body: { error: busy }
      - body: { sky: rain }
  - method: GET
    path: /api/readme
    file: ./readme.txt
  - method: GET
    path: /api/logo
    file: ./logo.png
  - method: GET
    path: /api/old
    status: 302
    headers: { Location: /api/round/readme }
    text: ""
  - method: GET
    path: /api/moved
    status: 302
    headers: { Location: /api/round/readme }
  - method: DELETE
    path: /api/login
    status: 204
  - method: GET
    path: /api/maybe
    responses:
      - when: { query: { go: "1" } }
        status: 302
        headers: { Location: /api/round/readme }
      - body: { stay: true }
`

/** Everything a request answered but the date: status, headers and the body's bytes. */
async function exactly(base: string, method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${base}${path}`, { method, headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers }, ...(init.body === undefined ? {} : { body: init.body }), redirect: 'manual' })
  const headers = [...response.headers].filter(([name]) => name !== 'date')
  return { status: response.status, headers, body: Buffer.from(await response.arrayBuffer()).toString('base64') }
}

describe('export → import round trip, byte for byte', () => {
  it('answers every request as the original did: the fallback error, templates, Prefer: example, files, empty redirects', async () => {
    const round = cliWorkspace()
    writeFileSync(join(round.cwd, 'readme.txt'), 'Use {{ name }} here, not "string".\n')
    const logo = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0x7b, 0x7b])
    writeFileSync(join(round.cwd, 'logo.png'), logo)
    writeFileSync(join(round.cwd, 'round.yaml'), ROUND)
    await round.ok('apply', 'round.yaml')
    await round.ok('export', '--format', 'openapi', '-o', 'round.openapi.json')
    const document = JSON.parse(readFileSync(join(round.cwd, 'round.openapi.json'), 'utf8')) as Doc
    await SwaggerParser.validate(structuredClone(document) as never)
    // What the examples say, for Prism and the like; the extension, for an import.
    const login = document.paths['/api/login'].post
    expect(Object.keys(login.responses)).toEqual(['200', '401'])
    expect(login['x-mockapi-endpoint'].responses.map((r: Doc) => r.name ?? null)).toEqual(['admin', null])
    expect(Object.keys(document.paths['/api/weather'].get.responses['200'].content['application/json'].examples)).toEqual(['response1', 'response3'])
    // A text file is its text; a binary one, bytes the examples cannot hold (the extension has them).
    expect(document.paths['/api/readme'].get.responses['200'].content).toEqual({ 'text/plain; charset=utf-8': { schema: { type: 'string' }, example: 'Use {{ name }} here, not "string".\n' } })
    expect(document.paths['/api/logo'].get.responses['200'].content).toEqual({ 'image/png': { schema: { type: 'string', format: 'binary' } } })
    expect(document.paths['/api/logo'].get['x-mockapi-endpoint'].file).toEqual({ name: 'logo.png', base64: logo.toString('base64') })

    const copy = cliWorkspace()
    await copy.ok('init', '--yes', '--name', 'Round', '--slug', 'round')
    const imported = await copy.run('import', join(round.cwd, 'round.openapi.json'), '--project', 'round', '--stateful')
    expect(imported.code, imported.stderr).toBe(0)
    const original = await serve(round.db)
    const again = await serve(copy.db)
    const same = async (method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) => {
      const a = await exactly(original.url, method, `/api/round${path}`, init)
      const b = await exactly(again.url, method, `/api/round${path}`, init)
      expect(b, `${method} ${path} ${JSON.stringify(init)}`).toEqual(a)
      return { ...a, text: Buffer.from(a.body, 'base64').toString('utf8') }
    }
    // The fallback is an error: a plain request gets it, rendered; the rule's 200 only for the admin.
    const refused = await same('POST', '/login', { body: '{"username":"eve"}' })
    expect([refused.status, refused.text]).toEqual([401, '{"error":{"code":"UNAUTHORIZED","message":"who is eve?"}}'])
    expect(refused.headers).toContainEqual(['x-reason', 'wrong password for eve'])
    expect((await same('POST', '/login?at=9', { body: '{"username":"admin"}' })).text).toBe('{"token":"t-admin","at":"9"}')
    // Prefer: example= names a response (by its name, else responseN), Prefer: code= its status, whatever the rules say.
    expect((await same('POST', '/login', { body: '{"username":"eve"}', headers: { prefer: 'example=admin' } })).text).toBe('{"token":"t-eve","at":null}')
    expect((await same('POST', '/login', { body: '{"username":"admin"}', headers: { prefer: 'example=response2' } })).status).toBe(401)
    expect((await same('POST', '/login', { body: '{"username":"admin"}', headers: { prefer: 'code=401' } })).status).toBe(401)
    expect((await same('GET', '/greet/Ada?greeting=hi')).text).toBe('Hello Ada, hi!')
    // A sequence goes on in turn, and Prefer: example= takes one out of turn.
    expect((await same('GET', '/weather')).text).toBe('{"sky":"sun"}')
    expect((await same('GET', '/weather', { headers: { prefer: 'example=response3' } })).text).toBe('{"sky":"rain"}')
    expect((await same('GET', '/weather')).status).toBe(503)
    expect((await same('GET', '/weather')).text).toBe('{"sky":"rain"}')
    // Files, byte for byte.
    expect((await same('GET', '/readme')).text).toBe('Use {{ name }} here, not "string".\n')
    expect(Buffer.from((await same('GET', '/logo')).body, 'base64')).toEqual(logo)
    // Redirects: with an empty text body (as a recording keeps one), without a body, and chosen by a rule.
    expect((await same('GET', '/old')).status).toBe(302)
    expect((await same('GET', '/moved')).status).toBe(302)
    expect((await same('GET', '/maybe?go=1')).status).toBe(302)
    expect((await same('GET', '/maybe')).text).toBe('{"stay":true}')
    expect((await same('DELETE', '/login')).status).toBe(204)
    expect((await same('HEAD', '/readme')).body).toBe('')
    // Records: written, then read, as the resource did; its rule still answers before it stores.
    expect((await same('POST', '/notes', { body: '{"title":"first"}' })).text).toBe('{"error":"first is taken"}')
    expect((await same('POST', '/notes', { body: '{"title":"second","body":"z"}' })).text).toBe('{"id":2,"title":"second","body":"z"}')
    expect((await same('PUT', '/notes/1', { body: '{"body":"y","title":"second"}' })).status).toBe(200)
    expect((await same('GET', '/notes/1')).text).toBe('{"id":1,"body":"y","title":"second"}')
    expect((await same('GET', '/notes')).status).toBe(200)
  })

  it('carries no token: a bearer token the original refused passes after the round trip (documented)', async () => {
    const locked = cliWorkspace()
    writeFileSync(join(locked.cwd, 'locked.yaml'), 'name: Locked\nslug: locked\nauth: { type: bearer, tokens: [t-right] }\nendpoints:\n  - method: GET\n    path: /api/secret\n    body: { ok: true }\n')
    await locked.ok('apply', 'locked.yaml')
    await locked.ok('export', '--format', 'openapi', '-o', 'locked.json')
    expect(readFileSync(join(locked.cwd, 'locked.json'), 'utf8')).not.toContain('t-right')
    const copy = cliWorkspace()
    await copy.ok('init', '--yes', '--name', 'Locked', '--slug', 'locked')
    await copy.ok('import', join(locked.cwd, 'locked.json'), '--project', 'locked')
    const [original, again] = [await serve(locked.db), await serve(copy.db)]
    const statuses = async (token: string) => Promise.all([original, again].map(async (server) => (await exactly(server.url, 'GET', '/api/locked/secret', { headers: { authorization: `Bearer ${token}` } })).status))
    expect(await statuses('t-right')).toEqual([200, 200])
    expect(await statuses('t-wrong')).toEqual([403, 200])
  })

  it('reads x-mockapi-endpoint in any spec, and refuses one that does not check, naming the operation, with nothing stored', async () => {
    const w = cliWorkspace()
    await w.ok('init', '--yes', '--name', 'Hand', '--slug', 'hand')
    const spec = (settings: unknown) => JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'Hand', version: '1' },
      paths: { '/hello/{name}': { get: { parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }], responses: { '200': { description: 'hi', content: { 'text/plain': { example: 'hi you' } } } }, 'x-mockapi-endpoint': settings } } },
    })
    writeFileSync(join(w.cwd, 'bad.json'), spec({ responses: [{ when: { nope: 1 }, text: 'x' }] }))
    const bad = await w.run('import', 'bad.json')
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain('GET /hello/:name: x-mockapi-endpoint:')
    expect(await w.ok('endpoints')).not.toContain('/hello')
    writeFileSync(join(w.cwd, 'good.json'), spec({ text: 'hello {{params.name}}' }))
    await w.ok('import', 'good.json')
    const served = await serve(w.db)
    const answered = await send(`${served.url}/api/hand/hello/ada`)
    expect([answered.status, answered.text]).toEqual([200, 'hello ada'])
  })
})

/**
 * Records of every shape a project keeps: ids mixing integers and strings (either first), uuids,
 * uuids among integers, integer-like strings, ids only some records were given, nulls at any
 * depth, keys that differ from record to record (integer-like ones too), no records at all, and a
 * list answering 206 (its example is written under that status).
 */
const SHAPES = `
name: Shapes
slug: shapes
pathRules: off
resources:
  - path: /api/mixed
    records:
      - { id: 1, name: A }
      - { id: s2, name: B }
  - path: /api/stringfirst
    records:
      - { id: a, name: A }
      - { id: 2, name: B }
  - path: /api/uuids
    records:
      - { id: 0b5f3a52-6f8e-4c1a-9d2b-3e4f5a6b7c8d, name: A }
      - { id: 9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d, name: B }
  - path: /api/uuidmix
    records:
      - { id: 7, name: A }
      - { id: 0b5f3a52-6f8e-4c1a-9d2b-3e4f5a6b7c8d, name: B }
  - path: /api/digits
    records:
      - { id: "1", name: A }
      - { id: "02", name: B }
  - path: /api/partial
    records:
      - { name: A }
      - { id: 5, name: B }
      - { name: C }
  - path: /api/nulls
    records:
      - { id: 1, name: A, meta: { a: null, b: [null, 1] } }
      - { id: 2, name: B, meta: null }
      - { id: 3, name: C, meta: { a: 1 }, extra: null }
  - path: /api/keys
    records:
      - { id: 1, name: A, a: 1 }
      - { id: 2, name: B, b: x, "2": true, "10": [] }
      - { id: 3, c: { d: [], "1": 0 } }
  - path: /api/empty
  - path: /api/big
    records:
      - { id: 1, name: A }
endpoints:
  - method: GET
    path: /api/partial
    status: 206
`

describe('export → import round trip: records of every shape', () => {
  it('come back byte for byte: the list, each record by its id, a filter, and the id a POST gets', async () => {
    const w = cliWorkspace()
    writeFileSync(join(w.cwd, 'shapes.yaml'), SHAPES)
    await w.ok('apply', 'shapes.yaml')
    const original = await serve(w.db)
    // A number no double holds is kept as sent by the store, but not by a JSON or YAML document read as doubles: the export says so.
    const big = await exactly(original.url, 'POST', '/api/shapes/big', { body: '{"id":12345678901234567890,"name":"B"}' })
    expect(big.status).toBe(201)
    const run = await w.run('export', '--format', 'openapi', '-o', 'shapes.json')
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toContain('/api/big: its records hold numbers a double cannot hold as written (12345678901234567890): the document writes them rounded, and an import seeds them so')
    const document = JSON.parse(readFileSync(join(w.cwd, 'shapes.json'), 'utf8')) as Doc
    await SwaggerParser.validate(structuredClone(document) as never)
    expect(document.components.schemas.Mixed.properties.id).toEqual({ type: ['integer', 'string'] })
    expect(document.components.schemas.Uuidmix.properties.id).toEqual({ anyOf: [{ type: 'integer' }, { type: 'string', format: 'uuid' }] })

    const copy = cliWorkspace()
    await copy.ok('init', '--yes', '--name', 'Shapes', '--slug', 'shapes', '--path-rules', 'off')
    const imported = await copy.run('import', join(w.cwd, 'shapes.json'), '--project', 'shapes', '--stateful', '--json')
    expect(imported.code, imported.stderr).toBe(0)
    expect((JSON.parse(imported.stdout) as Doc).warnings).toEqual([])
    const again = await serve(copy.db)
    const same = async (method: string, path: string, body?: string) => {
      const init = body === undefined ? {} : { body }
      const [a, b] = [await exactly(original.url, method, `/api/shapes${path}`, init), await exactly(again.url, method, `/api/shapes${path}`, init)]
      expect(b, `${method} ${path}`).toEqual(a)
      return JSON.parse(Buffer.from(a.body, 'base64').toString('utf8')) as unknown
    }
    for (const resource of ['mixed', 'stringfirst', 'uuids', 'uuidmix', 'digits', 'partial', 'nulls', 'keys', 'empty']) {
      const listed = (await same('GET', `/${resource}`)) as Doc[]
      for (const record of listed) expect(await same('GET', `/${resource}/${encodeURIComponent(String(record.id))}`)).toEqual(record)
    }
    expect(((await same('GET', '/mixed')) as Doc[]).map((record) => record.id)).toEqual([1, 's2'])
    expect(((await same('GET', '/partial')) as Doc[]).map((record) => record.id)).toEqual([1, 5, 6])
    expect(await same('GET', '/mixed?name=B')).toEqual([{ id: 's2', name: 'B' }])
    expect(await same('GET', '/empty')).toEqual([])
    // Generated ids take the type the records gave (numbers where any is one), after the highest integer id ("02" is not one).
    expect(await same('POST', '/mixed', '{"name":"C"}')).toEqual({ id: 2, name: 'C' })
    expect(await same('POST', '/digits', '{"name":"C"}')).toEqual({ id: '2', name: 'C' })
    expect(await same('POST', '/uuids', '{"name":"C"}')).toEqual({ id: '1', name: 'C' })
    // The number no double holds comes back rounded, as the export warned.
    const rounded = await exactly(again.url, 'GET', '/api/shapes/big')
    expect(Buffer.from(rounded.body, 'base64').toString('utf8')).toBe('[{"id":1,"name":"A"},{"id":12345678901234567000,"name":"B"}]')

    // Written as YAML, the same records come back: strings that YAML could read as other types (`"02"`, dates) stay strings.
    await w.ok('export', '--format', 'openapi', '-o', 'shapes.yaml')
    const fromYaml = cliWorkspace()
    await fromYaml.ok('init', '--yes', '--name', 'Shapes', '--slug', 'shapes', '--path-rules', 'off')
    expect((JSON.parse(await fromYaml.ok('import', join(w.cwd, 'shapes.yaml'), '--project', 'shapes', '--stateful', '--json')) as Doc).warnings).toEqual([])
    const yamlServed = await serve(fromYaml.db)
    for (const resource of ['mixed', 'stringfirst', 'uuids', 'uuidmix', 'digits', 'partial', 'nulls', 'keys', 'empty']) {
      expect(await exactly(yamlServed.url, 'GET', `/api/shapes/${resource}`), resource).toEqual(await exactly(original.url, 'GET', `/api/shapes/${resource}`))
    }
  })
})
