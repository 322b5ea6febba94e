import { copyFileSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../src/server/start.ts'
import { cleanup, cliWorkspace, expectAliveAndIntact, ROOT, send, serve, waitFor, type CliWorkspace } from '../_helpers.ts'

afterAll(cleanup)

const FIXTURES = join(ROOT, 'test', 'fixtures', 'openapi', 'ops')

/** A workspace with each spec imported into a project of its own (`slug: file`), served. */
async function served(specs: Record<string, string>): Promise<{ ws: CliWorkspace; server: RunningServer; imported: Record<string, string> }> {
  const ws = cliWorkspace()
  const imported: Record<string, string> = {}
  for (const [slug, file] of Object.entries(specs)) {
    copyFileSync(join(FIXTURES, file), join(ws.cwd, file))
    await ws.ok('project', 'create', slug, '--slug', slug)
    const result = await ws.run('import', file, '--project', slug)
    expect(result.code, result.stderr).toBe(0)
    imported[slug] = result.stdout + result.stderr
  }
  return { ws, server: await serve(ws.db), imported }
}

/** fetch refuses to send TRACE; node:http does not. */
function statusOverHttp(method: string, url: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { method }, (response) => {
      response.resume()
      resolve(response.statusCode)
    })
    sent.on('error', reject).end()
  })
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

describe('HEAD and OPTIONS operations', () => {
  let ws: CliWorkspace
  let server: RunningServer
  let imported: Record<string, string>
  beforeAll(async () => {
    ;({ ws, server, imported } = await served({ h: 'head-only.yaml', m: 'methods.yaml' }))
  })

  it('a spec with only a HEAD operation imports it, and it answers its documented status and headers with no body', async () => {
    expect(imported.h).toMatch(/1 created/)
    expect(imported.h).not.toMatch(/nothing to serve/)
    expect(await ws.ok('endpoint', 'show', 'HEAD', '/ping', '--project', 'h')).toMatch(/^endpoint +HEAD \/ping +\(openapi, id \d+\)$/m)
    const ping = await send(`${server.url}/api/h/ping`, { method: 'HEAD', overSocket: true })
    expect([ping.status, ping.headers.get('x-alive'), ping.text]).toEqual([204, 'yes', ''])
    // Only HEAD is documented: a GET is not answered by it.
    const get = await send(`${server.url}/api/h/ping`)
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'HEAD'])
  })

  it('a documented HEAD answers as documented (before the GET of its path); its parameters are validated', async () => {
    const head = await send(`${server.url}/api/m/items/1`, { method: 'HEAD', overSocket: true })
    expect([head.status, head.headers.get('etag'), head.headers.get('x-checked'), head.text]).toEqual([200, '"v1"', 'head', ''])
    // What a GET with that body would say its length is (RFC 9110 §9.3.2), though none is sent.
    expect(head.headers.get('content-length')).toBe(String(JSON.stringify({ id: 1, from: 'head' }).length))
    const invalid = await send(`${server.url}/api/m/items/abc`, { method: 'HEAD', overSocket: true })
    expect([invalid.status, invalid.text]).toEqual([422, ''])
    const get = await send(`${server.url}/api/m/items/1`)
    expect([get.json, get.headers.get('x-checked')]).toEqual([{ id: 1 }, null])
  })

  it('an undocumented HEAD on a GET operation answers the GET\'s status and headers, without the body', async () => {
    const get = await send(`${server.url}/api/m/items`, { overSocket: true })
    const head = await send(`${server.url}/api/m/items`, { method: 'HEAD', overSocket: true })
    expect(head.status).toBe(200)
    expect(head.text).toBe('')
    for (const name of ['content-type', 'content-length', 'x-total-count']) expect([name, head.headers.get(name)]).toEqual([name, get.headers.get(name)])
    expect(get.json).toEqual([{ id: 1 }, { id: 2 }])
  })

  it('a plain OPTIONS answers the documented operation; a CORS preflight is still answered by the server; the journal tells them apart', async () => {
    const options = await send(`${server.url}/api/m/items`, { method: 'OPTIONS', overSocket: true })
    expect([options.status, options.headers.get('allow'), options.headers.get('access-control-allow-methods'), options.text]).toEqual([204, 'GET, HEAD, OPTIONS', null, ''])
    const withBody = await send(`${server.url}/api/m/reports`, { method: 'OPTIONS', overSocket: true })
    expect([withBody.status, withBody.json]).toEqual([200, { formats: ['csv', 'json'] }])
    const preflightHeaders = { Origin: 'http://app.test', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key' }
    const preflight = await send(`${server.url}/api/m/items`, { method: 'OPTIONS', headers: preflightHeaders, overSocket: true })
    expect([preflight.status, preflight.headers.get('access-control-allow-headers'), preflight.headers.get('allow')]).toEqual([204, 'x-api-key', null])
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/\bGET\b/)
    // A path without an OPTIONS operation: any OPTIONS is the server's, as before.
    const plain = await send(`${server.url}/api/m/items/1`, { method: 'OPTIONS', overSocket: true })
    expect([plain.status, plain.headers.get('access-control-allow-methods')]).toEqual([204, 'GET, POST, PUT, PATCH, DELETE, OPTIONS'])

    const records = server.journal!.records(server.project('m').id).filter((r) => r.method === 'OPTIONS')
    const endpointId = Number(/\(openapi, id (\d+)\)/.exec(await ws.ok('endpoint', 'show', 'OPTIONS', '/items', '--project', 'm'))![1])
    expect(records.map((r) => [r.path, r.status, r.matched, r.endpointId, r.note])).toEqual([
      ['/api/m/items', 204, true, endpointId, null],
      ['/api/m/reports', 200, true, expect.any(Number), null],
      ['/api/m/items', 204, true, null, 'CORS preflight'],
      ['/api/m/items/1', 204, true, null, 'CORS preflight'],
    ])
    const answered = new Headers(records[0]!.answer!.headers)
    expect([answered.get('allow'), answered.get('access-control-allow-methods')]).toEqual(['GET, HEAD, OPTIONS', null])
    await expectAliveAndIntact(server.url, ws.db)
  })

  it('HEAD and OPTIONS endpoints are listed, configured, exported and applied like any other', async () => {
    expect(await ws.ok('endpoints', '--project', 'm')).toMatch(/^OPTIONS +\/items +openapi +204/m)
    await ws.ok('endpoint', 'set', 'HEAD', '/items/:id', '--project', 'm', '--header', 'X-Set: by hand')
    expect((await send(`${server.url}/api/m/items/1`, { method: 'HEAD', overSocket: true })).headers.get('x-set')).toBe('by hand')
    const exported = await ws.ok('export', '--project', 'm')
    expect(exported).toMatch(/- method: HEAD\n {4}path: \/items\/:id/)
    expect(exported).toMatch(/- method: OPTIONS\n {4}path: \/items\n/)
    const other = cliWorkspace()
    copyFileSync(join(FIXTURES, 'methods.yaml'), join(other.cwd, 'methods.yaml'))
    await other.ok('project', 'create', 'm', '--slug', 'm')
    await other.ok('import', 'methods.yaml', '--project', 'm')
    writeFileSync(join(other.cwd, 'm.yaml'), exported)
    await other.ok('apply', 'm.yaml')
    expect(await other.ok('endpoint', 'show', 'HEAD', '/items/:id', '--project', 'm')).toMatch(/X-Set: by hand/)
  })
})

describe('HEAD on a stateful import', () => {
  it('a documented HEAD on an item reads the records as its GET does: 404 once the record is gone', async () => {
    const ws = cliWorkspace()
    copyFileSync(join(FIXTURES, 'stateful-head.yaml'), join(ws.cwd, 'pets.yaml'))
    await ws.ok('project', 'create', 'Pets', '--slug', 'pets')
    expect(await ws.ok('import', 'pets.yaml', '--project', 'pets', '--stateful', '--seed', '2')).toMatch(/^HEAD +\/pets\/:id +200 +read$/m)
    const { url } = await serve(ws.db)
    const head = (path: string) => send(`${url}/api/pets${path}`, { method: 'HEAD', overSocket: true })
    const one = await head('/pets/1')
    expect([one.status, one.text, one.headers.get('content-length')]).toEqual([200, '', String((await send(`${url}/api/pets/pets/1`)).text.length)])
    expect((await head('/pets/99')).status).toBe(404)
    expect((await send(`${url}/api/pets/pets/1`, { method: 'DELETE' })).status).toBe(204)
    expect((await head('/pets/1')).status).toBe(404)
    await expectAliveAndIntact(url, ws.db)
  })
})

describe('HEAD and OPTIONS endpoints added by hand', () => {
  it('answer as the imported ones do: a HEAD before its path\'s GET, an OPTIONS to a plain OPTIONS only', async () => {
    const ws = cliWorkspace()
    await ws.ok('project', 'create', 'Hand', '--slug', 'hand')
    await ws.ok('add-endpoint', 'GET', '/api/things', '--body', '[1]', '--project', 'hand')
    await ws.ok('add-resource', '/api/posts', '--project', 'hand')
    await ws.ok('add-endpoint', 'HEAD', '/api/posts/:id', '--project', 'hand')
    await ws.ok('add-endpoint', 'head', '/api/things', '--status', '204', '--header', 'X-Count: 1', '--project', 'hand')
    await ws.ok('add-endpoint', 'OPTIONS', '/api/things', '--header', 'Allow: GET, HEAD, OPTIONS', '--body', '{"methods":3}', '--project', 'hand')
    const refused = await ws.run('add-endpoint', 'TRACE', '/api/things', '--project', 'hand')
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS')])
    const { url } = await serve(ws.db)
    const head = await send(`${url}/api/hand/things`, { method: 'HEAD', overSocket: true })
    expect([head.status, head.headers.get('x-count'), head.text]).toEqual([204, '1', ''])
    expect((await send(`${url}/api/hand/things`)).json).toEqual([1])
    // On a resource's item path it works on the records, as GET does.
    expect((await send(`${url}/api/hand/posts/99`, { method: 'HEAD', overSocket: true })).status).toBe(404)
    const options = await send(`${url}/api/hand/things`, { method: 'OPTIONS', overSocket: true })
    expect([options.status, options.headers.get('allow'), options.json]).toEqual([200, 'GET, HEAD, OPTIONS', { methods: 3 }])
    const preflight = await send(`${url}/api/hand/things`, { method: 'OPTIONS', headers: { Origin: 'http://app.test', 'Access-Control-Request-Method': 'GET' }, overSocket: true })
    expect([preflight.status, preflight.text]).toEqual([204, ''])
    await expectAliveAndIntact(url, ws.db)
  })
})

describe('security schemes, end to end', () => {
  let server: RunningServer
  let ws: CliWorkspace
  beforeAll(async () => {
    ;({ ws, server } = await served({ sec: 'security.yaml', old: 'security-2.0.yaml' }))
  })
  const get = (path: string, headers: Record<string, string> = {}) => send(`${server.url}/api/sec${path}`, { headers })
  const status = async (path: string, headers: Record<string, string> = {}) => (await get(path, headers)).status

  it('an apiKey in a header, a query parameter or a cookie: 401 naming it without, 200 with any value', async () => {
    const missing = await get('/root')
    expect([missing.status, missing.headers.get('www-authenticate')]).toEqual([401, 'ApiKey realm="mockapi", in="header", name="X-API-Key"'])
    expect(missing.json.error.message).toMatch(/X-API-Key/)
    expect(await status('/root', { 'x-api-key': 'anything' })).toBe(200)
    expect((await get('/query')).headers.get('www-authenticate')).toBe('ApiKey realm="mockapi", in="query", name="api_key"')
    expect(await status('/query?api_key=k')).toBe(200)
    expect(await status('/query?API_KEY=k')).toBe(401)
    expect((await get('/cookie')).headers.get('www-authenticate')).toBe('ApiKey realm="mockapi", in="cookie", name="session"')
    expect(await status('/cookie', { cookie: 'theme=dark; session=s-1' })).toBe(200)
    expect(await status('/cookie', { cookie: 'sessions=s-1' })).toBe(401)
  })

  it('http bearer and basic; oauth2 and openIdConnect asked for as a bearer token', async () => {
    for (const path of ['/bearer', '/oauth', '/oidc']) {
      const missing = await get(path)
      expect([path, missing.status, missing.headers.get('www-authenticate')]).toEqual([path, 401, 'Bearer realm="mockapi"'])
      expect([path, await status(path, { authorization: 'Bearer any.token' })]).toEqual([path, 200])
      expect([path, await status(path, { authorization: basic('a', 'b') })]).toEqual([path, 401])
    }
    expect((await get('/basic')).headers.get('www-authenticate')).toBe('Basic realm="mockapi"')
    expect(await status('/basic', { authorization: basic('any', 'password') })).toBe(200)
    expect(await status('/basic', { authorization: 'Bearer t' })).toBe(401)
  })

  it('an operation\'s security replaces the root\'s; `security: []` is public; `{}` among alternatives makes them optional', async () => {
    // /bearer asks for its own scheme only: the root's API key does not open it.
    expect(await status('/bearer', { 'x-api-key': 'k' })).toBe(401)
    expect(await status('/public')).toBe(200)
    expect(await status('/optional')).toBe(200)
  })

  it('alternatives OR (any one opens, a 401 offers each); schemes within one alternative AND', async () => {
    const neither = await get('/either')
    expect([neither.status, neither.headers.get('www-authenticate')]).toEqual([401, 'ApiKey realm="mockapi", in="header", name="X-API-Key", Bearer realm="mockapi"'])
    expect(await status('/either', { 'x-api-key': 'k' })).toBe(200)
    expect(await status('/either', { authorization: 'Bearer t' })).toBe(200)
    expect(await status('/both', { 'x-api-key': 'k' })).toBe(401)
    expect(await status('/both?api_key=k')).toBe(401)
    expect(await status('/both?api_key=k', { 'x-api-key': 'k' })).toBe(200)
  })

  it('an OPTIONS operation under the root\'s security asks for it; a CORS preflight never does', async () => {
    const plain = await send(`${server.url}/api/sec/root`, { method: 'OPTIONS', overSocket: true })
    expect([plain.status, plain.headers.get('www-authenticate')]).toEqual([401, 'ApiKey realm="mockapi", in="header", name="X-API-Key"'])
    const keyed = await send(`${server.url}/api/sec/root`, { method: 'OPTIONS', headers: { 'x-api-key': 'k' }, overSocket: true })
    expect([keyed.status, keyed.headers.get('allow')]).toEqual([204, 'GET, OPTIONS'])
    const preflight = await send(`${server.url}/api/sec/root`, { method: 'OPTIONS', headers: { Origin: 'http://app.test', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key' }, overSocket: true })
    expect([preflight.status, preflight.headers.get('access-control-allow-headers')]).toEqual([204, 'x-api-key'])
    // A HEAD answered by the GET asks for what the GET asks.
    expect((await send(`${server.url}/api/sec/bearer`, { method: 'HEAD', overSocket: true })).status).toBe(401)
  })

  it('Swagger 2.0: apiKey, basic and oauth2 definitions, root and operation security, [] public', async () => {
    const old = (path: string, headers: Record<string, string> = {}) => send(`${server.url}/api/old${path}`, { headers })
    expect((await old('/root')).status).toBe(401)
    expect((await old('/root', { 'x-api-key': 'k' })).json).toEqual({ ok: true })
    expect((await old('/query')).headers.get('www-authenticate')).toBe('ApiKey realm="mockapi", in="query", name="api_key"')
    expect((await old('/query?api_key=k')).status).toBe(200)
    expect((await old('/basic', { authorization: basic('u', 'p') })).status).toBe(200)
    expect((await old('/oauth')).headers.get('www-authenticate')).toBe('Bearer realm="mockapi"')
    expect((await old('/oauth', { authorization: 'Bearer t' })).status).toBe(200)
    expect((await old('/public')).status).toBe(200)
    await expectAliveAndIntact(server.url, ws.db)
  })
})

describe('a refused request answers the operation\'s documented 401', () => {
  let server: RunningServer
  beforeAll(async () => {
    ;({ ws, server } = await served({ dr: 'security-documented.yaml' }))
  })
  let ws: CliWorkspace

  it('its example and headers, with the challenge kept; its schema generated; its own WWW-Authenticate wins; without a documented 401, mockapi\'s own', async () => {
    const example = await send(`${server.url}/api/dr/example`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect([example.status, example.json, example.headers.get('x-reason'), example.headers.get('www-authenticate')])
      .toEqual([401, { err: 'custom401' }, 'key-missing', 'ApiKey realm="mockapi", in="header", name="X-Key"'])
    // With the key, the body is validated as before: the 401 was the refusal, not the answer.
    expect((await send(`${server.url}/api/dr/example`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-key': 'k' }, body: '{"a":1}' })).status).toBe(200)
    const generated = await send(`${server.url}/api/dr/generated`)
    expect([generated.status, generated.json, generated.headers.get('www-authenticate')]).toEqual([401, { code: 'E401' }, 'Bearer realm="docs"'])
    const undocumented = await send(`${server.url}/api/dr/undocumented`)
    expect([undocumented.status, undocumented.json.error.code, undocumented.headers.get('www-authenticate')])
      .toEqual([401, 'UNAUTHORIZED', 'ApiKey realm="mockapi", in="header", name="X-Key"'])
  })

  it('a listed credential not accepted answers the documented 403; a missing one, with no documented 401, mockapi\'s own 401', async () => {
    await ws.ok('endpoint', 'set', 'GET', '/forbidden', '--project', 'dr', '--auth', 'bearer:t-1')
    const at = (headers: Record<string, string>) => send(`${server.url}/api/dr/forbidden`, { headers })
    await waitFor(async () => (await at({ authorization: 'Bearer t-2' })).status === 403, 5000, 'the endpoint\'s auth served')
    const wrong = await at({ authorization: 'Bearer t-2' })
    expect([wrong.status, wrong.json]).toEqual([403, { err: 'custom403' }])
    const missing = await at({})
    expect([missing.status, missing.json.error.code]).toEqual([401, 'UNAUTHORIZED'])
    expect((await at({ authorization: 'Bearer t-1' })).status).toBe(200)
  })
})

describe('parameters inside a path segment', () => {
  it('`/test:{id}`, `/files/{name}.json` and `fixed.{format}` route, and their values are validated (422 naming the parameter)', async () => {
    const { server, ws } = await served({ seg: 'segments.yaml' })
    const at = (path: string) => send(`${server.url}/api/seg${path}`)
    const listed = await ws.ok('endpoints', '--project', 'seg')
    for (const path of ['/test::id', '/files/:name.json', '/reports/fixed.:format']) expect(listed).toContain(` ${path} `)
    expect((await at('/test:5')).json).toEqual({ test: true })
    expect((await at('/files/report.json')).json).toEqual({ file: true })
    expect((await at('/reports/fixed.csv')).json).toEqual({ report: true })
    for (const [path, parameter] of [['/test:five', 'path.id'], ['/files/Report.json', 'path.name'], ['/reports/fixed.doc', 'path.format']]) {
      const invalid = await at(path!)
      expect([path, invalid.status, invalid.json.error.details.map((d: { path: string }) => d.path)]).toEqual([path, 422, [parameter]])
    }
    // The literal text around the parameter must be there.
    for (const path of ['/test5', '/files/report.xml', '/reports/other.csv']) expect([path, (await at(path)).status]).toEqual([path, 404])
    await expectAliveAndIntact(server.url, ws.db)
  })
})

describe('what the features table in docs/imports.md says of the rest', () => {
  let server: RunningServer
  let ws: CliWorkspace
  let imported: Record<string, string>
  beforeAll(async () => {
    ;({ ws, server, imported } = await served({ f: 'features.yaml', w: 'webhooks-3.1.yaml', t: 'trace-only.yaml' }))
  })
  const post = (path: string, body: unknown) => send(`${server.url}/api/f${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } })

  it('servers are not read (paths are served as written); TRACE is not imported, with a warning (405 beside other methods, else 404); webhooks are not served', async () => {
    expect(imported.f).toMatch(/3 created/)
    expect((await send(`${server.url}/api/f/accounts/1`)).status).toBe(200)
    expect((await send(`${server.url}/api/f/v2/accounts/1`)).status).toBe(404)
    expect(await statusOverHttp('TRACE', `${server.url}/api/f/accounts/1`)).toBe(405)
    expect(imported.f).toContain('#/paths/~1accounts~1{id}/trace: TRACE is not served: a TRACE request answers 405 (the path has other methods)')
    expect(imported.t).toContain('#/paths/~1tr/trace: TRACE is not served: a TRACE request answers 404 (the path has no other method)')
    expect(await statusOverHttp('TRACE', `${server.url}/api/t/tr`)).toBe(404)
    expect(imported.w).toMatch(/1 created/)
    expect((await ws.ok('endpoints', '--project', 'w')).trim().split('\n')).toHaveLength(2)
    expect((await send(`${server.url}/api/w/orders`)).json).toEqual([1])
  })

  it('oneOf validates requests (the discriminator is a hint ajv does not need) and samples its first branch', async () => {
    expect((await post('/pets', { kind: 'dog', bark: true })).status).toBe(201)
    const neither = await post('/pets', { kind: 'cow' })
    expect([neither.status, neither.json.error.details.at(-1).message]).toEqual([422, 'must match exactly one schema in oneOf'])
    expect((await post('/pets', { kind: 'cat', lives: 9 })).json).toEqual({ kind: 'cat', lives: 0 })
  })

  it('readOnly is not asked of requests, writeOnly is left out of answers, nullable takes null; links and externalValue are not followed', async () => {
    expect((await post('/accounts', { name: 'ada', password: 'p', nickname: null })).json).toEqual({ id: 7, name: 'ada', nickname: null })
    expect((await post('/accounts', { password: 'p' })).json.error.details.map((d: { path: string }) => d.path)).toEqual(['body/name'])
    // The only example is external: the answer is generated from the schema instead.
    expect((await send(`${server.url}/api/f/accounts/1`)).json).toEqual({ id: 7, name: 'ada', nickname: null })
    await expectAliveAndIntact(server.url, ws.db)
  })
})
