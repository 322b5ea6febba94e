import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse, stringify } from 'yaml'
import { cleanup, cli, openStore, ROOT, send, serve, startReceiver, waitFor, cliWorkspace } from '../_helpers.ts'

afterAll(cleanup)

const FIXTURES = join(ROOT, 'fixtures', 'openapi')
const PETSTORE = join(FIXTURES, 'oai-v3.0', 'petstore.yaml')

const workspace = cliWorkspace

async function endpointsOf(ok: (...args: string[]) => Promise<string>, project: string): Promise<{ method: string; path: string; kind: string; status: number }[]> {
  return JSON.parse(await ok('endpoints', '--project', project, '--json'))
}

describe('mockapi import (CLI)', () => {
  it('creates one openapi endpoint per path and method, {petId} as :petId, and prints what it did', async () => {
    const { ok } = workspace()
    await ok('project', 'create', 'Pets', '--slug', 'pets')
    const out = await ok('import', PETSTORE, '--project', 'pets')
    expect(out).toMatch(/imported "Swagger Petstore" \(OpenAPI 3\.0\) into project pets in \d+ ms: 3 created, 0 updated/)
    const endpoints = await endpointsOf(ok, 'pets')
    expect(endpoints.map((e) => `${e.method} ${e.path} ${e.kind} ${e.status}`).sort()).toEqual([
      'GET /pets openapi 200',
      'GET /pets/:petId openapi 200',
      'POST /pets openapi 201',
    ])
  })

  it('in an empty database makes the first project from the spec, served at its own paths', async () => {
    const { ok, db } = workspace()
    expect(await ok('import', PETSTORE)).toMatch(/into project swagger-petstore/)
    const projects = JSON.parse(await ok('projects', '--json'))
    expect(projects.map((p: { slug: string; name: string }) => [p.slug, p.name])).toEqual([['swagger-petstore', 'Swagger Petstore']])
    const server = await serve(db)
    const pet = await send(`${server.url}/pets/3`)
    expect(pet.status).toBe(200)
    expect(pet.json).toEqual({ id: expect.any(Number), name: expect.any(String), tag: expect.any(String) })
  })

  it('imports from an http URL (a back end serving its spec on localhost)', async () => {
    const { createServer } = await import('node:http')
    const text = readFileSync(PETSTORE, 'utf8')
    const server = createServer((req, res) => {
      if (req.url === '/openapi.yaml') res.writeHead(200, { 'content-type': 'application/yaml' }).end(text)
      else res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as { port: number }).port
    try {
      const { db, cwd } = workspace()
      const imported = await cli(['--db', db, 'import', `http://127.0.0.1:${port}/openapi.yaml`], { cwd })
      expect(imported.code, imported.stderr).toBe(0)
      expect(imported.stdout).toMatch(/3 created/)
      const missing = await cli(['--db', db, 'import', `http://127.0.0.1:${port}/nope.yaml`], { cwd })
      expect(missing.code).toBe(1)
      expect(missing.stderr).toMatch(/404|nope\.yaml/)
    } finally {
      server.close()
    }
  })

  it('updates instead of duplicating on a second import, keeps what the new version dropped unless --replace', async () => {
    const { ok, run, cwd } = workspace()
    await ok('project', 'create', 'Pets', '--slug', 'pets')
    await ok('import', PETSTORE, '--project', 'pets')
    const again = JSON.parse(await ok('import', PETSTORE, '--project', 'pets', '--json'))
    expect(again.created).toHaveLength(0)
    expect(again.updated).toHaveLength(3)
    expect(await endpointsOf(ok, 'pets')).toHaveLength(3)

    const smaller = parse(readFileSync(PETSTORE, 'utf8'))
    delete smaller.paths['/pets/{petId}']
    writeFileSync(join(cwd, 'smaller.yaml'), stringify(smaller))
    const replaced = JSON.parse(await ok('import', 'smaller.yaml', '--project', 'pets', '--replace', '--json'))
    expect(replaced.removed.map((e: { path: string }) => e.path)).toEqual(['/pets/:petId'])
    expect((await endpointsOf(ok, 'pets')).map((e) => e.path).sort()).toEqual(['/pets', '/pets'])
    await ok('import', PETSTORE, '--project', 'pets')
    const kept = await run('import', 'smaller.yaml', '--project', 'pets')
    expect(kept.stdout).toMatch(/0 created, 2 updated/)
    expect(kept.stderr).toMatch(/1 endpoint\(s\) from an earlier import are no longer in the spec: kept as custom endpoints/)
    expect((await endpointsOf(ok, 'pets')).map((e) => `${e.path} ${e.kind}`).sort()).toEqual(['/pets openapi', '/pets openapi', '/pets/:petId custom'])
  })

  it.each([
    ['a $ref to nothing', 'bad-ref.yaml', /Missing|resolv|\$ref/i],
    ['a 3.0 spec without paths', 'no-paths.yaml', /paths/i],
    ['a YAML syntax error', 'yaml-syntax.yaml', /yaml|line|indent|syntax/i],
  ])('refuses %s with the parser\'s message and creates nothing', async (_what, file, message) => {
    const { ok, run, db } = workspace()
    await ok('project', 'create', 'Pets', '--slug', 'pets')
    await ok('import', PETSTORE, '--project', 'pets')
    const before = await endpointsOf(ok, 'pets')
    const result = await run('import', join(FIXTURES, 'broken', file), '--project', 'pets')
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(message)
    expect(result.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(3)
    expect(await endpointsOf(ok, 'pets')).toEqual(before)
    const { context } = openStore(db)
    expect(context.repos.specs.listByProject(context.repos.projects.bySlug('pets')!.id)).toHaveLength(1)
  })

  it('refuses a file that does not exist, an unknown format, and routes that clash with other endpoints', async () => {
    const { ok, run } = workspace()
    await ok('project', 'create', 'Pets', '--slug', 'pets')
    expect((await run('import', 'nope.yaml', '--project', 'pets')).stderr).toMatch(/nope\.yaml/)
    expect((await run('import', PETSTORE, '--project', 'pets', '--format', 'raml')).stderr).toMatch(/format "raml" must be one of/)
    await ok('add-endpoint', 'GET', '/api/pets', '--project', 'pets')
    const clash = parse(readFileSync(PETSTORE, 'utf8'))
    clash.paths['/api/pets'] = clash.paths['/pets']
    const { cwd } = workspace()
    writeFileSync(join(cwd, 'clash.yaml'), stringify(clash))
    const refused = await run('import', join(cwd, 'clash.yaml'), '--project', 'pets')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/clash with endpoints of project "pets": GET \/api\/pets \(custom\)/)
    expect(await endpointsOf(ok, 'pets')).toHaveLength(1)
    // The other way round: a custom endpoint at the URL an imported route is served at.
    await ok('project', 'create', 'Zoo', '--slug', 'zoo')
    await ok('import', PETSTORE, '--project', 'zoo')
    const shadow = await run('add-endpoint', 'GET', '/api/pets/:id', '--project', 'zoo')
    expect(shadow.code).toBe(1)
    expect(shadow.stderr).toMatch(/GET \/api\/pets\/:id would be served at the same URL as GET \/pets\/:petId \(openapi\)/)
  })
})

/** What swagger-petstore-v3's `security` asks for (oauth2: a bearer token), any value. */
const STORE_AUTH = { authorization: 'Bearer test-token' }

describe('imported endpoints answer like the spec', () => {
  let base: string
  let db: string
  let hooks: Awaited<ReturnType<typeof startReceiver>>

  beforeAll(async () => {
    const w = workspace()
    db = w.db
    await w.ok('project', 'create', 'Pets', '--slug', 'pets')
    await w.ok('import', PETSTORE, '--project', 'pets')
    await w.ok('project', 'create', 'Store', '--slug', 'store')
    await w.ok('import', join(FIXTURES, 'swagger-petstore-v3', 'openapi.yaml'), '--project', 'store')
    await w.ok('project', 'create', 'Examples', '--slug', 'ex')
    await w.ok('import', join(FIXTURES, 'oai-v3.0', 'api-with-examples.yaml'), '--project', 'ex')
    await w.ok('project', 'create', 'Uspto', '--slug', 'uspto')
    await w.ok('import', join(FIXTURES, 'oai-v3.0', 'uspto.yaml'), '--project', 'uspto')
    hooks = await startReceiver()
    const token = (await w.ok('token')).trim()
    const server = await serve(db)
    base = `${server.url}/api`
    const projectId = JSON.parse(await w.ok('project', 'show', 'pets', '--json')).id
    const created = await send(`${server.url}/api/projects/${projectId}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: { name: 'errors', targetUrl: hooks.url, events: ['mock.error'] },
    })
    expect(created.status).toBe(201)
  })

  it('answers the first 2xx response generated from its schema, with the documented headers', async () => {
    const list = await send(`${base}/pets/pets`)
    expect(list.status).toBe(200)
    expect(list.headers.get('content-type')).toMatch(/^application\/json/)
    expect(Array.isArray(list.json)).toBe(true)
    for (const pet of list.json) {
      expect(typeof pet.id).toBe('number')
      expect(typeof pet.name).toBe('string')
    }
    expect(list.headers.get('x-next')).toEqual(expect.any(String))
    const one = await send(`${base}/pets/pets/42`)
    expect(one.status).toBe(200)
    expect(one.json).toEqual({ id: expect.any(Number), name: expect.any(String), tag: expect.any(String) })
    const created = await send(`${base}/pets/pets`, { method: 'POST', body: { id: 1, name: 'Rex' } })
    expect(created.status).toBe(201)
    expect(created.text).toBe('')
  })

  it('answers the documented example when there is one', async () => {
    const versions = await send(`${base}/ex/`)
    expect(versions.status).toBe(200)
    expect(versions.json.versions.map((v: { id: string }) => v.id)).toEqual(['v2.0', 'v3.0'])
  })

  it('validates query and path parameters and the body: 422 with each problem, and raises mock.error', async () => {
    const badQuery = await send(`${base}/pets/pets?limit=abc`)
    expect(badQuery.status).toBe(422)
    expect(badQuery.json.error.code).toBe('VALIDATION_FAILED')
    expect(badQuery.json.error.details).toEqual([expect.objectContaining({ path: 'query.limit', message: expect.any(String) })])
    const tooMany = await send(`${base}/pets/pets?limit=101`)
    expect(tooMany.status).toBe(422)
    const badBody = await send(`${base}/pets/pets`, { method: 'POST', body: { id: 'one' } })
    expect(badBody.status).toBe(422)
    const paths = badBody.json.error.details.map((d: { path: string }) => d.path)
    expect(paths).toEqual(expect.arrayContaining([expect.stringMatching(/^body.*id/), expect.stringMatching(/^body.*name/)]))
    const noBody = await send(`${base}/pets/pets`, { method: 'POST' })
    expect(noBody.status).toBe(422)
    const malformed = await send(`${base}/pets/pets`, { method: 'POST', body: '{"id":', headers: { 'content-type': 'application/json' } })
    expect(malformed.status).toBe(400)
    expect(malformed.json.error.code).toBe('INVALID_JSON')

    // The store's operations are secured (oauth2 or api_key): a valid request carries a credential.
    const badPath = await send(`${base}/store/pet/not-a-number`, { headers: STORE_AUTH })
    expect(badPath.status).toBe(422)
    expect(badPath.json.error.details[0].path).toBe('path.petId')
    const badEnum = await send(`${base}/store/pet/findByStatus?status=asleep`, { headers: STORE_AUTH })
    expect(badEnum.status).toBe(422)
    expect(badEnum.json.error.details[0].path).toMatch(/^query\.status/)
    const fine = await send(`${base}/store/pet/findByStatus?status=sold`, { headers: STORE_AUTH })
    expect(fine.status).toBe(200)

    const event = await waitFor(() => hooks.requests.map((r) => JSON.parse(r.body)).find((e) => e.data.status === 422))
    expect(event.type).toBe('mock.error')
  })

  it('validates a form-encoded body against its schema', async () => {
    const missing = await send(`${base}/uspto/oa_citations/v1/records`, { method: 'POST', body: 'start=0', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(missing.status).toBe(422)
    const ok = await send(`${base}/uspto/oa_citations/v1/records`, { method: 'POST', body: 'criteria=*:*&start=0&rows=10', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(ok.status).toBe(200)
  })

  it('Prefer: code picks another documented response; an undocumented code is a plain simulated error', async () => {
    const notFound = await send(`${base}/store/pet/1`, { headers: { ...STORE_AUTH, prefer: 'code=404' } })
    expect(notFound.status).toBe(404)
    const fallback = await send(`${base}/pets/pets`, { headers: { prefer: 'code=500' } })
    expect(fallback.status).toBe(500)
    expect(fallback.json).toEqual({ code: expect.any(Number), message: expect.any(String) })
    const byDefault = await send(`${base}/store/pet/1`, { headers: { ...STORE_AUTH, prefer: 'code=418' } })
    expect(byDefault.status).toBe(418)
    // Its `default` response documents no content.
    expect(byDefault.text).toBe('')
    const undocumented = await send(`${base}/ex/`, { headers: { prefer: 'code=418' } })
    expect(undocumented.status).toBe(418)
    expect(undocumented.json.error.code).toBe('SIMULATED_ERROR')
  })

  it('Prefer: example picks a named example; an unknown name is a 404 naming the ones there are', async () => {
    const named = await send(`${base}/ex/v2`, { headers: { prefer: 'code=203, example=foo' } })
    expect(named.status).toBe(203)
    expect(named.json.version.id).toBe('v2.0')
    const unknown = await send(`${base}/ex/`, { headers: { prefer: 'example=nope' } })
    expect(unknown.status).toBe(404)
    expect(unknown.json.error.code).toBe('EXAMPLE_NOT_FOUND')
  })
})

describe('--stateful', () => {
  it('turns /pets + /pets/{petId} into a resource: POST stores, GET returns it, DELETE removes it', async () => {
    const w = workspace()
    await w.ok('project', 'create', 'Pets', '--slug', 'pets')
    const result = JSON.parse(await w.ok('import', join(FIXTURES, 'oai-v3.0', 'petstore.yaml'), '--project', 'pets', '--stateful', '--seed', '3', '--json'))
    expect(result.resources).toEqual(['/pets'])
    const server = await serve(w.db)
    const base = `${server.url}/api/pets/pets`
    const seeded = await send(base)
    expect(seeded.status).toBe(200)
    expect(seeded.json).toHaveLength(3)
    expect(seeded.headers.get('x-total-count')).toBe('3')
    // The schema's ids are integers (int64): seeded ids are numbers.
    expect(seeded.json.map((pet: { id: unknown }) => pet.id)).toEqual([1, 2, 3])
    const refused = await send(base, { method: 'POST', body: { name: 42 } })
    expect(refused.status).toBe(422)
    const created = await send(base, { method: 'POST', body: { id: 77, name: 'Rex', tag: 'dog' } })
    expect(created.status).toBe(201)
    const read = await send(`${base}/77`)
    expect(read.status).toBe(200)
    expect(read.json).toEqual({ id: 77, name: 'Rex', tag: 'dog' })
    expect((await send(base)).json).toHaveLength(4)
    expect((await send(`${base}/999`)).status).toBe(404)
    expect((await send(`${base}/77`, { headers: { prefer: 'code=500' } })).status).toBe(500)
  })
})

describe('imported endpoints with per-endpoint settings, export and apply', () => {
  it('keeps delay/headers/error settings across a re-import and round-trips through export/apply', async () => {
    const w = workspace()
    await w.ok('project', 'create', 'Pets', '--slug', 'pets')
    await w.ok('import', PETSTORE, '--project', 'pets')
    await w.ok('endpoint', 'set', 'GET', '/pets/:petId', '--project', 'pets', '--header', 'X-Mock: yes')
    await w.ok('import', PETSTORE, '--project', 'pets')
    const exported = await w.ok('export', '--project', 'pets')
    expect(exported).toMatch(/imports:/)
    expect(exported).toMatch(/operation: \/paths\/~1pets~1\{petId\}\/get/)
    writeFileSync(join(w.cwd, 'pets.yaml'), exported)

    const other = workspace()
    const applied = await other.ok('apply', join(w.cwd, 'pets.yaml'))
    expect(applied).toMatch(/\+ import Swagger Petstore/)
    expect(await other.ok('apply', join(w.cwd, 'pets.yaml'))).not.toMatch(/^[+~-] /m)
    expect((await endpointsOf(other.ok, 'pets')).map((e) => `${e.method} ${e.path} ${e.kind}`).sort()).toEqual([
      'GET /pets openapi',
      'GET /pets/:petId openapi',
      'POST /pets openapi',
    ])
    const server = await serve(other.db)
    const one = await send(`${server.url}/api/pets/pets/1`)
    expect(one.status).toBe(200)
    expect(one.headers.get('x-mock')).toBe('yes')
    expect(one.json).toEqual({ id: expect.any(Number), name: expect.any(String), tag: expect.any(String) })
    expect((await send(`${server.url}/api/pets/pets?limit=x`)).status).toBe(422)
  })
})

describe('edge cases found in review', () => {
  /** A small spec written for the case at hand. */
  function specFile(cwd: string, name: string, spec: object): string {
    const path = join(cwd, name)
    writeFileSync(path, stringify(spec))
    return path
  }
  const thing = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer', readOnly: true }, name: { type: 'string' } } }
  const things = (extra: Record<string, unknown> = {}) => ({
    openapi: '3.0.3',
    info: { title: 'Things', version: '1' },
    paths: {
      '/things': {
        get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'array', maxItems: 500, items: thing }, example: [{ id: 1, name: 'one' }] } } } } },
        post: {
          requestBody: { required: true, content: { 'application/json': { schema: thing } } },
          responses: { 201: { description: 'made', content: { 'application/json': { schema: thing } } }, 404: { description: 'gone', content: { 'application/json': { example: { why: 'gone' } } } } },
        },
        delete: { requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['confirm'] } } } }, responses: { 204: { description: 'done' } } },
      },
      '/things/{id}': { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }], responses: { 200: { description: 'ok', content: { 'application/json': { schema: thing, example: { id: 5, name: 'five' } } } } } } },
      ...extra,
    },
  })

  it('a re-import that drops an operation keeps it as a custom endpoint answering its last example; export/apply still work', async () => {
    const w = workspace()
    await w.ok('project', 'create', 'T', '--slug', 't')
    await w.ok('import', specFile(w.cwd, 'v1.yaml', things()), '--project', 't')
    const v2 = things()
    delete (v2.paths as Record<string, unknown>)['/things/{id}']
    expect((await w.run('import', specFile(w.cwd, 'v2.yaml', v2), '--project', 't')).stderr).toMatch(/kept as custom endpoints answering their last example/)
    const kept = (await endpointsOf(w.ok, 't')).find((e) => e.path === '/things/:id')!
    expect(kept.kind).toBe('custom')
    const server = await serve(w.db)
    const answered = await send(`${server.url}/api/t/things/9`)
    expect(answered.status).toBe(200)
    expect(answered.json).toEqual({ id: 5, name: 'five' })
    writeFileSync(join(w.cwd, 'out.yaml'), await w.ok('export', '--project', 't'))
    const other = workspace()
    await other.ok('apply', join(w.cwd, 'out.yaml'))
    expect(await other.ok('apply', join(w.cwd, 'out.yaml'))).not.toMatch(/^[+~-] /m)
  })

  it('request validation: readOnly required fields are not demanded, problems are capped, a DELETE body is read', async () => {
    const w = workspace()
    await w.ok('project', 'create', 'T', '--slug', 't')
    await w.ok('import', specFile(w.cwd, 'things.yaml', things()), '--project', 't')
    const server = await serve(w.db)
    const base = `${server.url}/api/t/things`
    expect((await send(base, { method: 'POST', body: { name: 'no id needed' } })).status).toBe(201)
    const many = await send(base, { method: 'POST', body: JSON.stringify(Array.from({ length: 300_000 }, () => 1)), headers: { 'content-type': 'application/json' } })
    expect(many.status).toBe(422)
    expect(many.json.error.details.length).toBeLessThanOrEqual(50)
    expect((await send(base, { method: 'DELETE', body: { confirm: true } })).status).toBe(204)
    expect((await send(base, { method: 'DELETE', body: {} })).status).toBe(422)
  })

  it('settings on imported endpoints: a schema adds a check, a configured status picks its documented response or a simulated error, and survives a re-import', async () => {
    const w = workspace()
    await w.ok('project', 'create', 'T', '--slug', 't')
    const file = specFile(w.cwd, 'things.yaml', things())
    await w.ok('import', file, '--project', 't')
    await w.ok('endpoint', 'set', 'POST', '/things', '--project', 't', '--schema', '{"type":"object","required":["color"]}', '--status', '404')
    await w.ok('endpoint', 'set', 'GET', '/things', '--project', 't', '--status', '503')
    await w.ok('import', file, '--project', 't')
    const server = await serve(w.db)
    const base = `${server.url}/api/t/things`
    const noColor = await send(base, { method: 'POST', body: { name: 'x' } })
    expect(noColor.status).toBe(422)
    expect(noColor.json.error.details[0].path).toBe('/color')
    const documented = await send(base, { method: 'POST', body: { name: 'x', color: 'red' } })
    expect(documented.status).toBe(404)
    expect(documented.json).toEqual({ why: 'gone' })
    const simulated = await send(base)
    expect(simulated.status).toBe(503)
    expect(simulated.json.error.code).toBe('SIMULATED_ERROR')
  })

  it('stateful: a re-import keeps stored records; a body that is not JSON or a form is refused with 415', async () => {
    const w = workspace()
    await w.ok('project', 'create', 'Pets', '--slug', 'pets')
    await w.ok('import', PETSTORE, '--project', 'pets', '--stateful')
    const server = await serve(w.db)
    const base = `${server.url}/api/pets/pets`
    expect((await send(base, { method: 'POST', body: { id: 7, name: 'Rex' } })).status).toBe(201)
    await w.ok('import', PETSTORE, '--project', 'pets', '--stateful')
    expect((await send(`${base}/7`)).json).toMatchObject({ name: 'Rex' })
    const xml = await send(base, { method: 'POST', body: '<pet><id>8</id><name>Rex</name></pet>', headers: { 'content-type': 'application/xml' } })
    expect([415, 422]).toContain(xml.status)
    expect((await send(`${base}/8`)).status).toBe(404)
  })

  it('routes that would share a URL with another endpoint clash; removing every endpoint of a spec drops the spec; odd titles still make a slug', async () => {
    const w = workspace()
    await w.ok('project', 'create', 'T', '--slug', 't')
    await w.ok('add-resource', '/api/things', '--project', 't')
    const clash = await w.run('import', specFile(w.cwd, 'things.yaml', things()), '--project', 't')
    expect(clash.code).toBe(1)
    expect(clash.stderr).toMatch(/clash with endpoints of project "t": GET \/api\/things \(resource\)/)

    const other = workspace()
    const health = { ...things(), info: { title: 'Health', version: '1' } }
    expect(await other.ok('import', specFile(other.cwd, 'health.yaml', health))).toMatch(/into project health-api/)
    for (const [method, path] of [['GET', '/things'], ['POST', '/things'], ['DELETE', '/things'], ['GET', '/things/:id']]) await other.ok('remove-endpoint', method!, path!)
    expect(await other.ok('export')).not.toMatch(/imports:/)
  })
})
