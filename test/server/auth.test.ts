import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import grpc from '@grpc/grpc-js'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { checkAuth, type AuthRequirement } from '../../src/engine/auth-check.ts'
import { startServer } from '../../src/server/start.ts'
import { clientFor } from '../grpc/_helpers.ts'
import { cleanup, cliWorkspace, expectAliveAndIntact, openStore, send, serve, type CliWorkspace } from '../_helpers.ts'

afterAll(cleanup)

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

function verdict(requirements: AuthRequirement[][], headers: Record<string, string> = {}, query = '') {
  return checkAuth(requirements, { headers: new Headers(headers), query: new URLSearchParams(query) })
}

/** The rows a refused setting must leave as they were. */
function snapshot(db: string): string {
  const raw = new Database(db, { readonly: true })
  try {
    return JSON.stringify([raw.prepare('SELECT id, auth, openapi_security FROM projects ORDER BY id').all(), raw.prepare('SELECT id, auth FROM endpoints ORDER BY id').all()])
  } finally {
    raw.close()
  }
}

describe('checkAuth', () => {
  const bearer: AuthRequirement[][] = [[{ type: 'bearer' }]]
  const listed: AuthRequirement[][] = [[{ type: 'bearer', tokens: ['t-1', 't-2'] }]]

  it('takes any bearer token, the scheme in any case; refuses none, an empty one and another scheme with 401', () => {
    expect(verdict(bearer, { authorization: 'Bearer abc' })).toEqual({ ok: true })
    expect(verdict(bearer, { authorization: 'bearer abc' })).toEqual({ ok: true })
    for (const authorization of [undefined, 'Bearer', 'Bearer   ', 'Token abc', basic('a', 'b')]) {
      const refused = verdict(bearer, authorization === undefined ? {} : { authorization })
      expect(refused).toMatchObject({ ok: false, status: 401, challenges: ['Bearer realm="mockapi"'] })
    }
  })

  it('answers 403 for a token present but not listed', () => {
    expect(verdict(listed, { authorization: 'Bearer t-2' })).toEqual({ ok: true })
    expect(verdict(listed, { authorization: 'Bearer t-3' })).toMatchObject({ ok: false, status: 403 })
    expect(verdict(listed, { authorization: 'Bearer t-1x' })).toMatchObject({ ok: false, status: 403 })
  })

  it('reads an API key from a header, a query parameter or a cookie (decoded)', () => {
    expect(verdict([[{ type: 'apiKey', in: 'header', name: 'X-API-Key' }]], { 'x-api-key': 'k' })).toEqual({ ok: true })
    expect(verdict([[{ type: 'apiKey', in: 'query', name: 'api_key', keys: ['k 1'] }]], {}, 'api_key=k+1')).toEqual({ ok: true })
    expect(verdict([[{ type: 'apiKey', in: 'cookie', name: 'session', keys: ['a b'] }]], { cookie: 'x=1; session=a%20b' })).toEqual({ ok: true })
    expect(verdict([[{ type: 'apiKey', in: 'cookie', name: 'session' }]], { cookie: 'sessionx=1' })).toMatchObject({
      status: 401, challenges: ['ApiKey realm="mockapi", in="cookie", name="session"'],
    })
  })

  it('checks basic users; malformed base64 or no colon counts as missing, a wrong password or user as refused', () => {
    const users: AuthRequirement[][] = [[{ type: 'basic', users: { admin: 'secret' } }]]
    expect(verdict(users, { authorization: basic('admin', 'secret') })).toEqual({ ok: true })
    expect(verdict(users, { authorization: basic('admin', 'wrong') })).toMatchObject({ status: 403 })
    expect(verdict(users, { authorization: basic('nobody', 'secret') })).toMatchObject({ status: 403 })
    expect(verdict(users, { authorization: 'Basic !!!notbase64' })).toMatchObject({ status: 401 })
    expect(verdict(users, { authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` })).toMatchObject({ status: 401 })
    expect(verdict([[{ type: 'basic', users: { constructor: 'x' } }]], { authorization: basic('toString', 'x') })).toMatchObject({ status: 403 })
  })

  it('ORs alternatives and ANDs within one; a 401 lists a challenge per scheme', () => {
    const either: AuthRequirement[][] = [[{ type: 'bearer' }], [{ type: 'basic', users: { a: 'b' } }], [{ type: 'apiKey', in: 'header', name: 'X-Key' }]]
    expect(verdict(either, { 'x-key': 'k' })).toEqual({ ok: true })
    expect(verdict(either)).toMatchObject({
      status: 401,
      challenges: ['Bearer realm="mockapi"', 'Basic realm="mockapi", charset="UTF-8"', 'ApiKey realm="mockapi", in="header", name="X-Key"'],
    })
    const both: AuthRequirement[][] = [[{ type: 'present', in: 'query', name: 'key' }, { type: 'http', scheme: 'Bearer' }]]
    expect(verdict(both, { authorization: 'Bearer t' })).toMatchObject({ status: 401 })
    expect(verdict(both, { authorization: 'Bearer t' }, 'key=1')).toEqual({ ok: true })
    expect(verdict([])).toEqual({ ok: true })
  })
})

describe('auth on mock routes', () => {
  let ws: CliWorkspace
  let url: string

  beforeAll(async () => {
    ws = cliWorkspace()
    await ws.ok('init', '--name', 'Shop', '--slug', 'shop', '--yes')
    await ws.ok('add-resource', '/api/posts')
    await ws.ok('add-endpoint', 'GET', '/api/stats', '--body', '{"visits":1}')
    await ws.ok('add-endpoint', 'GET', '/api/status', '--body', '{"up":true}', '--auth', 'none')
    await ws.ok('add-endpoint', 'GET', '/api/admin-stats', '--body', '{"admin":true}', '--auth', 'basic:admin:secret,ops:pa:ss')
    await ws.ok('add-endpoint', 'GET', '/api/keys', '--body', '{"k":1}', '--auth', 'apiKey:cookie:session:s-1')
    await ws.ok('endpoint', 'set', 'GET', '/api/stats', '--error-rate', '100', '--error-status', '503')
    expect(await ws.ok('project', 'set', 'shop', '--auth', 'bearer:t-123', '--auth', 'apiKey:header:X-API-Key')).toMatch(/auth bearer, 1 listed token \| apiKey in header X-API-Key, any key/)
    url = (await serve(ws.db)).url
  })

  it('answers 401 with WWW-Authenticate without credentials, before the error rate is drawn or the body read', async () => {
    for (const path of ['/api/stats', '/api/posts', '/api/shop/posts']) {
      const refused = await send(`${url}${path}`)
      expect(refused.status).toBe(401)
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="mockapi", ApiKey realm="mockapi", in="header", name="X-API-Key"')
      // A front end on another origin can read the challenge.
      expect(refused.headers.get('access-control-expose-headers')).toMatch(/\bWWW-Authenticate\b/)
      expect(refused.json.error).toEqual({ code: 'UNAUTHORIZED', message: 'missing credentials: send Authorization: Bearer <token>, or header X-API-Key' })
    }
    // A malformed body is not read: auth answers first.
    expect((await send(`${url}/api/posts`, { method: 'POST', body: '{"broken', headers: { 'content-type': 'application/json' } })).status).toBe(401)
    expect((await send(`${url}/api/stats`, { headers: { authorization: 'Bearer t-123' } })).status).toBe(503)
  })

  it('passes a listed token or any key; 403 for a token not listed', async () => {
    expect((await send(`${url}/api/posts`, { headers: { authorization: 'Bearer t-123' } })).status).toBe(200)
    expect((await send(`${url}/api/posts`, { headers: { 'x-api-key': 'anything' } })).status).toBe(200)
    const forbidden = await send(`${url}/api/posts`, { headers: { authorization: 'Bearer t-999' } })
    expect(forbidden.status).toBe(403)
    expect(forbidden.json.error.code).toBe('FORBIDDEN')
    expect(forbidden.headers.get('www-authenticate')).toBeNull()
  })

  it('lets an endpoint opt out (none) or demand its own credentials', async () => {
    expect((await send(`${url}/api/status`)).json).toEqual({ up: true })
    expect((await send(`${url}/api/admin-stats`, { headers: { authorization: 'Bearer t-123' } })).headers.get('www-authenticate')).toBe('Basic realm="mockapi", charset="UTF-8"')
    expect((await send(`${url}/api/admin-stats`, { headers: { authorization: basic('ops', 'pa:ss') } })).json).toEqual({ admin: true })
    expect((await send(`${url}/api/admin-stats`, { headers: { authorization: basic('admin', 'nope') } })).status).toBe(403)
    expect((await send(`${url}/api/keys`, { headers: { cookie: 'session=s-1' } })).status).toBe(200)
    expect((await send(`${url}/api/keys`, { headers: { cookie: 'session=s-2' } })).status).toBe(403)
    // Quoted as RFC 6265 allows, read as rules read it.
    expect((await send(`${url}/api/keys`, { headers: { cookie: 'session="s-1"' } })).status).toBe(200)
    expect((await send(`${url}/api/keys`, { headers: { cookie: 'constructor=x' } })).status).toBe(401)
  })

  it('never touches the management API, the inbox, health, the dashboard or CORS preflights', async () => {
    const token = await mintToken(openStore(ws.db).context, { expiresInMs: 60_000 })
    expect((await send(`${url}/api/projects`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200)
    // A mock token opens mock routes only.
    expect((await send(`${url}/api/projects`, { headers: { authorization: 'Bearer t-123' } })).status).toBe(401)
    expect((await send(`${url}/api/health`)).status).toBe(200)
    expect((await send(`${url}/_mockapi/`)).status).toBe(200)
    expect((await send(`${url}/api/webhooks/inbox/shop`, { method: 'POST', body: { hello: 1 } })).status).toBeLessThan(300)
    const preflight = await send(`${url}/api/posts`, { method: 'OPTIONS', headers: { origin: 'http://app.test', 'access-control-request-method': 'GET' } })
    expect(preflight.status).toBe(204)
  })

  it('shows the effective auth in endpoint show, project show and the API', async () => {
    expect(await ws.ok('endpoint', 'show', 'GET', '/api/posts')).toMatch(/^auth {9}bearer, 1 listed token \| apiKey in header X-API-Key, any key \(project\)$/m)
    expect(await ws.ok('endpoint', 'show', 'GET', '/api/status')).toMatch(/^auth {9}none \(endpoint\)$/m)
    expect(await ws.ok('endpoint', 'show', 'GET', '/api/admin-stats')).toMatch(/^auth {9}basic, 2 users \(endpoint\)$/m)
    expect(await ws.ok('project', 'show', 'shop')).toMatch(/^auth {9}bearer, 1 listed token \| apiKey in header X-API-Key, any key$/m)
    const token = await mintToken(openStore(ws.db).context, { expiresInMs: 60_000 })
    const listed = await send(`${url}/api/projects/1/endpoints`, { headers: { authorization: `Bearer ${token}` } })
    expect(listed.json.find((e: { path: string }) => e.path === '/api/status')).toMatchObject({ auth: 'none', effectiveAuth: 'none (endpoint)' })
  })

  it('refuses bad settings from the CLI, the API and apply with a clear message, changing nothing', async () => {
    const before = snapshot(ws.db)
    const refusals: [string[], RegExp][] = [
      [['project', 'set', 'shop', '--auth', 'bearer:'], /auth\[0\]\.tokens\[0\] must be a non-empty string/],
      [['project', 'set', 'shop', '--auth', 'apiKey:header'], /write apiKey:header:X-API-Key/],
      [['project', 'set', 'shop', '--auth', 'apiKey:body:X'], /auth\[0\]\.in must be one of header, query, cookie/],
      [['project', 'set', 'shop', '--auth', 'apiKey:header:bad name'], /auth\[0\]\.name must be a header name/],
      [['project', 'set', 'shop', '--auth', 'basic:nouser'], /write basic:user:password/],
      [['project', 'set', 'shop', '--auth', '{"type":"bearer","tokns":["a"]}'], /auth\[0\]\.tokns is not a setting of bearer auth; it takes type, tokens/],
      [['project', 'set', 'shop', '--auth', 'digest'], /must be bearer\[:tokens\]/],
      [['project', 'set', 'shop', '--auth', 'bearer', '--auth', 'none'], /none and inherit stand alone/],
      [['project', 'set', 'shop', '--openapi-security', 'maybe'], /must be on or off/],
      [['endpoint', 'set', 'GET', '/api/stats', '--auth', `bearer:${'x'.repeat(4097)}`], /at most 4096 characters/],
      [['endpoint', 'set', 'GET', '/api/stats', '--auth', '{"type":"basic","users":{"a:b":"c"}}'], /must not contain ":"/],
      [['add-endpoint', 'GET', '/api/more', '--auth', 'bearer:a\u0001b'], /one line, without control characters/],
    ]
    for (const [args, message] of refusals) {
      const result = await ws.run(...args)
      expect(result.code, args.join(' ')).toBe(1)
      expect(result.stderr).toMatch(message)
    }
    const token = await mintToken(openStore(ws.db).context, { expiresInMs: 60_000 })
    const authorization = `Bearer ${token}`
    const badProject = await send(`${url}/api/projects/1`, { method: 'PATCH', headers: { authorization }, body: { auth: { type: 'bearer', tokens: [] } } })
    expect(badProject.status).toBe(400)
    expect(badProject.json.error.details).toEqual([{ field: 'auth.tokens', message: 'must be a non-empty list (leave it out to accept any value)' }])
    const badFlag = await send(`${url}/api/projects/1`, { method: 'PATCH', headers: { authorization }, body: { openapiSecurity: 'yes' } })
    expect(badFlag.json.error.details).toEqual([{ field: 'openapiSecurity', message: 'must be true or false' }])
    const stats = (await send(`${url}/api/projects/1/endpoints`, { headers: { authorization } })).json.find((e: { path: string }) => e.path === '/api/stats')
    const badEndpoint = await send(`${url}/api/projects/1/endpoints/${stats.id}`, { method: 'PATCH', headers: { authorization }, body: { auth: [{ type: 'apiKey', in: 'query' }] } })
    expect(badEndpoint.status).toBe(400)
    expect(badEndpoint.json.error.details).toEqual([{ field: 'auth[0].name', message: expect.stringMatching(/must be a query name/) }])
    writeFileSync(join(ws.cwd, 'bad.yaml'), 'name: Shop\nslug: shop\nauth:\n  type: apiKey\n  in: header\n  name: X-Key\n  keys: []\n')
    const applied = await ws.run('apply', 'bad.yaml')
    expect(applied.stderr).toMatch(/bad\.yaml, line 7: auth\.keys must be a non-empty list/)
    for (const [yaml, message] of [
      ['auth: 5', /line 3: auth must be an auth scheme \(\{type: bearer \| apiKey \| basic, …\}\) or a list of schemes/],
      ['endpoints:\n  - { method: GET, path: /api/stats, auth: nope }', /line 4: endpoints\[0\]\.auth must be none, an auth scheme/],
      ['endpoints:\n  - { method: GET, path: /api/stats, auth: { type: bearer, tokns: [a] } }', /line 4: endpoints\[0\]\.auth\.tokns is not a setting of bearer auth; it takes type, tokens/],
    ] as const) {
      writeFileSync(join(ws.cwd, 'bad.yaml'), `name: Shop\nslug: shop\n${yaml}\n`)
      expect((await ws.run('apply', 'bad.yaml')).stderr).toMatch(message)
    }
    expect(snapshot(ws.db)).toBe(before)
    await expectAliveAndIntact(url, ws.db)
  })

  it('changes from the API take effect at once; null clears', async () => {
    const token = await mintToken(openStore(ws.db).context, { expiresInMs: 60_000 })
    const authorization = `Bearer ${token}`
    const patched = await send(`${url}/api/projects/1`, { method: 'PATCH', headers: { authorization }, body: { auth: { type: 'apiKey', in: 'query', name: 'key', keys: ['q'] } } })
    expect(patched.json).toMatchObject({ auth: [{ type: 'apiKey', in: 'query', name: 'key', keys: ['q'] }] })
    expect((await send(`${url}/api/posts?key=q`)).status).toBe(200)
    expect((await send(`${url}/api/posts`, { headers: { authorization: 'Bearer t-123' } })).status).toBe(401)
    await send(`${url}/api/projects/1`, { method: 'PATCH', headers: { authorization }, body: { auth: null } })
    expect((await send(`${url}/api/posts`)).status).toBe(200)
    await ws.ok('project', 'set', 'shop', '--auth', 'bearer:t-123', '--auth', 'apiKey:header:X-API-Key')
  })

  it('round-trips through export and apply, and applying the file twice changes nothing', async () => {
    const exported = await ws.ok('export')
    expect(exported).toMatch(/^auth:\n {2}- type: bearer\n {4}tokens:\n {6}- t-123\n {2}- type: apiKey\n {4}in: header\n {4}name: X-API-Key\n/m)
    expect(exported).toMatch(/path: \/api\/status\n {4}auth: none/)
    writeFileSync(join(ws.cwd, 'shop.yaml'), exported)
    const other = cliWorkspace()
    writeFileSync(join(other.cwd, 'shop.yaml'), exported)
    await other.ok('apply', 'shop.yaml')
    expect(await other.ok('export')).toBe(exported)
    expect(await other.ok('apply', 'shop.yaml')).not.toMatch(/auth/)
    // apply without the keys puts the defaults back.
    writeFileSync(join(other.cwd, 'bare.yaml'), exported.replace(/^auth:\n(?: {2}.*\n)+/m, '').replace(/ {4}auth: none\n/, ''))
    await other.ok('apply', 'bare.yaml')
    const bare = await other.ok('export')
    expect(bare).not.toMatch(/^auth:/m)
    expect(bare).not.toMatch(/auth: none/)
    expect(bare).toMatch(/path: \/api\/admin-stats\n {4}auth:\n {6}- type: basic/)
  })
})

const SECURED = `openapi: 3.0.3
info: { title: Secured, version: '1' }
security:
  - key: []
components:
  securitySchemes:
    key: { type: apiKey, in: header, name: X-Key }
    token: { type: http, scheme: bearer }
    oauth: { type: oauth2, flows: { clientCredentials: { tokenUrl: 'https://example.com/token', scopes: {} } } }
    both_query: { type: apiKey, in: query, name: sig }
paths:
  /things:
    get:
      responses: { '200': { description: ok, content: { application/json: { example: [1] } } } }
  /public:
    get:
      security: []
      responses: { '200': { description: ok, content: { application/json: { example: { open: true } } } } }
  /signed:
    get:
      security:
        - token: []
          both_query: []
        - oauth: []
      responses: { '200': { description: ok, content: { application/json: { example: { signed: true } } } } }
`

const SWAGGER = `swagger: '2.0'
info: { title: Old, version: '1' }
securityDefinitions:
  basicAuth: { type: basic }
paths:
  /old:
    get:
      security: [ { basicAuth: [] } ]
      responses: { '200': { description: ok, schema: { type: object, example: { old: true } } } }
  /free:
    get:
      responses: { '200': { description: ok, schema: { type: object, example: { free: true } } } }
`

describe('OpenAPI security', () => {
  let ws: CliWorkspace
  let url: string

  beforeAll(async () => {
    ws = cliWorkspace()
    writeFileSync(join(ws.cwd, 'secured.yaml'), SECURED)
    writeFileSync(join(ws.cwd, 'old.yaml'), SWAGGER)
    await ws.ok('project', 'create', 'Secured', '--slug', 'sec')
    await ws.ok('import', 'secured.yaml', '--project', 'sec')
    await ws.ok('project', 'create', 'Old', '--slug', 'old')
    await ws.ok('import', 'old.yaml', '--project', 'old')
    url = (await serve(ws.db)).url
  })

  it('enforces the root security, an operation\'s own, [] as public, AND within an alternative, oauth2 as a bearer token', async () => {
    const missing = await send(`${url}/api/sec/things`)
    expect(missing.status).toBe(401)
    expect(missing.headers.get('www-authenticate')).toBe('ApiKey realm="mockapi", in="header", name="X-Key"')
    expect((await send(`${url}/api/sec/things`, { headers: { 'x-key': 'any' } })).status).toBe(200)
    expect((await send(`${url}/api/sec/public`)).json).toEqual({ open: true })
    expect((await send(`${url}/api/sec/signed`, { headers: { authorization: 'Bearer x' } })).status).toBe(200)
    expect((await send(`${url}/api/sec/signed`, { headers: { authorization: 'Basic eDp5' } })).status).toBe(401)
    expect((await send(`${url}/api/sec/signed?sig=1`, { headers: { authorization: 'Bearer x' } })).status).toBe(200)
  })

  it('reads Swagger 2.0 securityDefinitions; an operation without security follows the project', async () => {
    expect((await send(`${url}/api/old/old`)).headers.get('www-authenticate')).toBe('Basic realm="mockapi"')
    expect((await send(`${url}/api/old/old`, { headers: { authorization: basic('any', 'thing') } })).json).toEqual({ old: true })
    expect((await send(`${url}/api/old/free`)).status).toBe(200)
    await ws.ok('project', 'set', 'old', '--auth', 'bearer')
    expect((await send(`${url}/api/old/free`)).status).toBe(401)
    expect((await send(`${url}/api/old/old`, { headers: { authorization: basic('any', 'thing') } })).status).toBe(200)
    await ws.ok('project', 'set', 'old', '--auth', 'none')
  })

  it('is switched off per project, and an endpoint\'s own auth wins over the spec', async () => {
    expect(await ws.ok('endpoint', 'show', 'GET', '/things', '--project', 'sec')).toMatch(/^auth {9}X-Key in header \(openapi\)$/m)
    expect(await ws.ok('project', 'set', 'sec', '--openapi-security', 'off')).toMatch(/OpenAPI security off/)
    expect((await send(`${url}/api/sec/things`)).status).toBe(200)
    expect(await ws.ok('endpoint', 'show', 'GET', '/things', '--project', 'sec')).toMatch(/^auth {9}none$/m)
    expect(await ws.ok('export', '--project', 'sec')).toMatch(/^openapiSecurity: false$/m)
    await ws.ok('project', 'set', 'sec', '--openapi-security', 'on')
    await ws.ok('endpoint', 'set', 'GET', '/public', '--project', 'sec', '--auth', 'bearer:only')
    expect((await send(`${url}/api/sec/public`)).status).toBe(401)
    expect((await send(`${url}/api/sec/public`, { headers: { authorization: 'Bearer only' } })).status).toBe(200)
    await ws.ok('endpoint', 'set', 'GET', '/public', '--project', 'sec', '--auth', 'inherit')
    expect((await send(`${url}/api/sec/public`)).status).toBe(200)
    await expectAliveAndIntact(url, ws.db)
  })
})

const ODD = `openapi: 3.1.0
info: { title: Odd, version: '1' }
components:
  securitySchemes:
    key: { type: apiKey, in: header, name: X-Key }
    spaced: { type: apiKey, in: header, name: api key }
    tls: { type: mutualTLS }
paths:
  /spaced:
    get:
      security: [ { spaced: [] } ]
      responses: { '200': { description: ok, content: { application/json: { example: { spaced: true } } } } }
  /misspelt:
    get:
      security: [ { kee: [] } ]
      responses: { '200': { description: ok, content: { application/json: { example: { misspelt: true } } } } }
  /beside:
    get:
      security: [ { key: [] }, { kee: [] } ]
      responses: { '200': { description: ok, content: { application/json: { example: { beside: true } } } } }
  /tls:
    get:
      security: [ { tls: [] } ]
      responses: { '200': { description: ok, content: { application/json: { example: { tls: true } } } } }
`

describe('OpenAPI security a spec gets wrong', () => {
  it('an apiKey header name no request can carry is never present (401, not 500); an undefined scheme opens nothing', async () => {
    const ws = cliWorkspace()
    writeFileSync(join(ws.cwd, 'odd.yaml'), ODD)
    await ws.ok('project', 'create', 'Odd', '--slug', 'odd')
    const imported = await ws.run('import', 'odd.yaml', '--project', 'odd')
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stderr).toMatch(/security scheme "spaced": header name "api key" is not a valid header name/)
    // Said where each list naming it is written.
    expect(imported.stderr).toContain('#/paths/~1misspelt/get/security: names undefined scheme(s) "kee": alternatives naming them are ignored')
    expect(imported.stderr).toContain('#/paths/~1beside/get/security: names undefined scheme(s) "kee"')
    const { url } = await serve(ws.db)
    const spaced = await send(`${url}/api/odd/spaced`, { headers: { 'x-key': 'k' } })
    expect(spaced.status).toBe(401)
    expect(spaced.json.error.message).toMatch(/send header api key/)
    // The only alternative names no defined scheme: something is still asked for.
    const misspelt = await send(`${url}/api/odd/misspelt`)
    expect(misspelt.status).toBe(401)
    expect(misspelt.headers.get('www-authenticate')).toBe('Bearer realm="mockapi"')
    expect((await send(`${url}/api/odd/misspelt`, { headers: { authorization: 'Bearer t' } })).status).toBe(200)
    expect(await ws.ok('endpoint', 'show', 'GET', '/misspelt', '--project', 'odd')).toMatch(/^auth {9}Authorization: Bearer \(openapi\)$/m)
    // Beside a defined scheme, the undefined one is dropped: that scheme is required.
    expect((await send(`${url}/api/odd/beside`)).status).toBe(401)
    expect((await send(`${url}/api/odd/beside`, { headers: { 'x-key': 'k' } })).json).toEqual({ beside: true })
    expect(await ws.ok('endpoint', 'show', 'GET', '/beside', '--project', 'odd')).toMatch(/^auth {9}X-Key in header \(openapi\)$/m)
    // mutualTLS asks nothing a request can show.
    expect((await send(`${url}/api/odd/tls`)).json).toEqual({ tls: true })
    await expectAliveAndIntact(url, ws.db)
  })
})

describe('GraphQL mounts', () => {
  it('check the project\'s auth per HTTP request; an operation refuses an auth of its own', async () => {
    const ws = cliWorkspace()
    await ws.ok('init', '--name', 'Films', '--slug', 'films', '--yes')
    await ws.ok('import', join(process.cwd(), 'fixtures', 'graphql', 'swapi', 'schema.graphql'), '--project', 'films')
    await ws.ok('project', 'set', 'films', '--auth', 'bearer:g-1')
    const { url } = await serve(ws.db)
    const query = { query: '{ allFilms { films { title } } }' }
    expect((await send(`${url}/api/films/graphql`, { method: 'POST', body: query })).status).toBe(401)
    expect((await send(`${url}/api/films/graphql`, { method: 'POST', body: query, headers: { authorization: 'Bearer g-2' } })).status).toBe(403)
    const answered = await send(`${url}/api/films/graphql`, { method: 'POST', body: query, headers: { authorization: 'Bearer g-1' } })
    expect(answered.status).toBe(200)
    expect(answered.json.data.allFilms).toBeDefined()
    const refused = await ws.run('endpoint', 'set', 'POST', '/graphql#Query.allFilms', '--auth', 'none')
    expect(refused.stderr).toMatch(/auth applies to HTTP routes/)
    // A project file says where.
    const exported = await ws.ok('export')
    writeFileSync(join(ws.cwd, 'films.yaml'), exported.replace(/( {4}path: \/graphql#Query\.allFilms\n)/, '$1    auth: none\n'))
    expect((await ws.run('apply', 'films.yaml')).stderr).toMatch(/films\.yaml, line \d+: endpoints\[\d+\]\.auth applies to HTTP routes/)
  })
})

describe('gRPC calls', () => {
  it('check the project\'s auth from metadata: UNAUTHENTICATED without, PERMISSION_DENIED for a key not listed', async () => {
    const ws = cliWorkspace()
    await ws.ok('init', '--name', 'Rpc', '--slug', 'rpc', '--yes')
    await ws.ok('import', join(process.cwd(), 'fixtures', 'grpc', 'helloworld.proto'), '--project', 'rpc')
    await ws.ok('project', 'set', 'rpc', '--auth', 'bearer', '--auth', 'apiKey:header:x-api-key:k-1')
    const server = await serve(ws.db, { grpcPort: 0 })
    const greeter = clientFor('helloworld', 'helloworld.Greeter', server.grpcPort!)
    const call = (metadata: Record<string, string>) => new Promise<{ code: number; details?: string }>((resolve) => {
      const meta = new grpc.Metadata()
      for (const [name, value] of Object.entries(metadata)) meta.set(name, value)
      ;(greeter as unknown as { SayHello: (r: object, m: grpc.Metadata, cb: (e: grpc.ServiceError | null) => void) => void }).SayHello({ name: 'x' }, meta, (error) => resolve(error ? { code: error.code, details: error.details } : { code: 0 }))
    })
    expect(await call({})).toEqual({ code: grpc.status.UNAUTHENTICATED, details: 'mockapi: missing credentials: send Authorization: Bearer <token>, or header x-api-key' })
    expect((await call({ 'x-api-key': 'k-2' })).code).toBe(grpc.status.PERMISSION_DENIED)
    expect((await call({ 'x-api-key': 'k-1' })).code).toBe(0)
    expect((await call({ authorization: 'Bearer any' })).code).toBe(0)
    expect(await ws.ok('endpoint', 'show', 'POST', '/helloworld.Greeter/SayHello', '--project', 'rpc')).toMatch(/^auth {9}bearer, any token \| apiKey in header x-api-key, 1 listed key \(project\)$/m)
    greeter.close()
  })
})

describe('SOAP mounts and the delay floor', () => {
  it('a SOAP service checks the project\'s auth; the serve --delay floor holds a refusal, the endpoint\'s own delay does not', async () => {
    const ws = cliWorkspace()
    await ws.ok('init', '--name', 'Calc', '--slug', 'calc', '--yes')
    await ws.ok('import', join(process.cwd(), 'fixtures', 'soap', 'fastify-soap-client', 'calculator.wsdl'), '--project', 'calc')
    await ws.ok('add-endpoint', 'GET', '/api/slow-stats', '--body', '{"n":1}', '--delay', '5000')
    await ws.ok('project', 'set', 'calc', '--auth', 'basic:admin:secret')
    const server = await startServer({ dbPath: ws.db, port: 0, host: '127.0.0.1', demo: false, delay: { min: 300, max: 300 } })
    try {
      const envelope = '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><Add><intA>1</intA><intB>2</intB></Add></soap:Body></soap:Envelope>'
      const soap = (headers: Record<string, string>) => send(`${server.url}/api/calc/soap/Calculator`, { method: 'POST', body: envelope, headers: { 'content-type': 'text/xml', ...headers } })
      expect((await soap({})).headers.get('www-authenticate')).toBe('Basic realm="mockapi", charset="UTF-8"')
      expect((await soap({ authorization: basic('admin', 'secret') })).status).toBe(200)
      const started = performance.now()
      const refused = await fetch(`${server.url}/api/slow-stats`)
      const ms = performance.now() - started
      expect(refused.status).toBe(401)
      expect(ms).toBeGreaterThanOrEqual(290)
      // The endpoint's 5 s delay is for answers, not for refusals.
      expect(ms).toBeLessThan(4000)
    } finally {
      await server.close()
    }
  })
})
