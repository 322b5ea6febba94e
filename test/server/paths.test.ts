import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { cleanup, cliWorkspace, expectAliveAndIntact, openStore, send, serve, type CliWorkspace } from '../_helpers.ts'

afterAll(cleanup)

/** Rows that a refusal must leave as they were. */
function snapshot(db: string): string {
  const raw = new Database(db, { readonly: true })
  try {
    return JSON.stringify([raw.prepare('SELECT id, slug, path_rules FROM projects ORDER BY id').all(), raw.prepare('SELECT method, path FROM endpoints ORDER BY id').all(), raw.prepare('SELECT path FROM resources ORDER BY id').all()])
  } finally {
    raw.close()
  }
}

describe('free paths (pathRules: off)', () => {
  let ws: CliWorkspace
  let url: string

  beforeAll(async () => {
    ws = cliWorkspace()
    expect(await ws.ok('init', '--name', 'Stripe', '--slug', 'stripe', '--path-rules', 'off', '--yes')).toMatch(/path rules off/)
    await ws.ok('add-endpoint', 'GET', '/v1/charges', '--body', '{"object":"list","data":[]}')
    await ws.ok('add-endpoint', 'GET', '/avatar.png', '--body', '"png"')
    await ws.ok('add-endpoint', 'GET', '/api/files/*', '--body', '{"file":"{{params.0}}"}')
    await ws.ok('add-endpoint', 'GET', '/static/**', '--body', '{"rest":"{{params.0}}"}')
    await ws.ok('add-endpoint', 'GET', '/media/:name.json', '--body', '{"name":"{{params.name}}"}')
    await ws.ok('add-endpoint', 'GET', '/media/:id', '--body', '{"id":"{{params.id}}"}')
    await ws.ok('add-endpoint', 'POST', '/v1/users/:id:activate', '--body', '{"activated":"{{params.id}}"}')
    await ws.ok('add-endpoint', 'POST', '/v1/things:batchGet', '--body', '{"batch":true}')
    await ws.ok('add-resource', '/api/user_profiles')
    url = (await serve(ws.db)).url
  })

  it('answers each path as written, at its own path and under /api/{slug}', async () => {
    expect((await send(`${url}/v1/charges`)).json).toEqual({ object: 'list', data: [] })
    expect((await send(`${url}/api/stripe/v1/charges`)).json).toEqual({ object: 'list', data: [] })
    expect((await send(`${url}/avatar.png`)).json).toBe('png')
    expect((await send(`${url}/api/files/report.pdf`)).json).toEqual({ file: 'report.pdf' })
    expect((await send(`${url}/static/css/site/main.css`)).json).toEqual({ rest: 'css/site/main.css' })
    expect((await send(`${url}/v1/things:batchGet`, { method: 'POST' })).json).toEqual({ batch: true })
    const created = await send(`${url}/api/user_profiles`, { method: 'POST', body: { name: 'Ada' } })
    expect(created.status).toBe(201)
    expect((await send(`${url}/api/user_profiles/${created.json.id}`)).json).toMatchObject({ name: 'Ada' })
  })

  it('matches parameters inside a segment, the most specific route first, and gives them to templates', async () => {
    expect((await send(`${url}/media/report.json`)).json).toEqual({ name: 'report' })
    expect((await send(`${url}/media/report.csv`)).json).toEqual({ id: 'report.csv' })
    expect((await send(`${url}/v1/users/u_42:activate`, { method: 'POST' })).json).toEqual({ activated: 'u_42' })
    expect((await send(`${url}/v1/users/u_42`, { method: 'POST' })).status).toBe(404)
    // A percent-encoded slash stays inside its segment.
    expect((await send(`${url}/api/files/a%2Fb`)).json).toEqual({ file: 'a/b' })
  })

  it('answers 405 with Allow on a wildcard route, and 404 past a single *', async () => {
    const refused = await send(`${url}/api/files/x`, { method: 'DELETE' })
    expect(refused.status).toBe(405)
    expect(refused.headers.get('allow')).toBe('GET, HEAD')
    expect((await send(`${url}/api/files/a/b`)).status).toBe(404)
  })

  it('refuses a route already served by the same shape (409), and a broken structure in any mode, changing nothing', async () => {
    const before = snapshot(ws.db)
    const taken = await ws.run('add-endpoint', 'GET', '/api/files/:name', '--body', '{}')
    expect(taken.code).not.toBe(0)
    expect(taken.stderr).toMatch(/GET \/api\/files\/\* already exists in project "stripe"/)
    for (const path of ['/a/**/b', '/a**b', '/a//b', '/a/:x*', `/${'a'.repeat(2049)}`]) {
      const refused = await ws.run('add-endpoint', 'GET', path, '--body', '{}')
      expect(refused.code, path).not.toBe(0)
      expect(refused.stderr, path).toMatch(/rule: (wildcards|no-empty-segments|param-names|path-length)/)
    }
    const resource = await ws.run('add-resource', '/files/*')
    expect(resource.stderr).toMatch(/rule: resource-segments/)
    expect(snapshot(ws.db)).toBe(before)
  })

  it('round-trips through export and apply: pathRules first, then the paths it allows', async () => {
    const file = join(ws.cwd, 'stripe.yaml')
    await ws.ok('export', '--project', 'stripe', '-o', file)
    const other = cliWorkspace()
    const applied = await other.ok('apply', file)
    expect(applied).toMatch(/\+ endpoint GET \/media\/:name\.json/)
    expect(await other.ok('project', 'show', 'stripe')).toMatch(/path rules {3}off/)
    expect(await other.ok('export', '--project', 'stripe')).toBe(await ws.ok('export', '--project', 'stripe'))
    expect(await other.ok('apply', file)).not.toMatch(/^[+~-] /m)
    const again = await serve(other.db)
    expect((await send(`${again.url}/media/x.json`)).json).toEqual({ name: 'x' })
  })

  it('finds, shows and removes a pattern endpoint by the path as written', async () => {
    expect(await ws.ok('endpoint', 'show', 'GET', '/media/:name.json')).toMatch(/GET \/media\/:name\.json/)
    expect(await ws.ok('endpoint', 'show', 'GET', '/static/**')).toMatch(/GET \/static\/\*\*/)
    await ws.ok('add-endpoint', 'DELETE', '/tmp/*', '--status', '204')
    await ws.ok('remove-endpoint', 'DELETE', '/tmp/:any')
    expect((await send(`${url}/tmp/x`, { method: 'DELETE' })).status).toBe(404)
  })

  it('a catch-all of the served project loses to the built-in routes and to other projects', async () => {
    const other = cliWorkspace()
    await other.ok('init', '--name', 'Catch', '--slug', 'catch', '--path-rules', 'off', '--yes')
    await other.ok('add-endpoint', 'GET', '/**', '--body', '{"caught":"{{params.0}}"}')
    await other.ok('project', 'create', 'Shop', '--slug', 'shop')
    await other.ok('add-resource', '/api/products', '--project', 'shop')
    const server = await serve(other.db)
    expect((await send(`${server.url}/anything/at/all`)).json).toEqual({ caught: 'anything/at/all' })
    expect((await send(`${server.url}/api/health`)).json).not.toHaveProperty('caught')
    expect((await send(`${server.url}/api/projects`)).status).toBe(401)
    expect((await send(`${server.url}/_mockapi/`)).text).toMatch(/<html/i)
    expect((await send(`${server.url}/api/shop/products`)).json).toEqual([])
  })

  it('stays alive and intact', async () => {
    await expectAliveAndIntact(url, ws.db)
  })
})

describe('choosing the path rules', () => {
  let ws: CliWorkspace

  beforeAll(async () => {
    ws = cliWorkspace()
    await ws.ok('init', '--name', 'Shop', '--slug', 'shop', '--yes', '--resource', '/api/products')
  })

  it('strict is the default: its refusals read as before, and nothing is stored', async () => {
    expect(await ws.ok('project', 'show', 'shop')).toMatch(/path rules {3}strict/)
    const before = snapshot(ws.db)
    const refused = await ws.run('add-endpoint', 'GET', '/v1/charges', '--body', '{}')
    expect(refused.stderr).toMatch(/path "\/v1\/charges" must start with \/api \(rule: starts-with-api\)/)
    expect((await ws.run('add-resource', '/api/user_profiles')).stderr).toMatch(/rule: lowercase-hyphens/)
    expect(snapshot(ws.db)).toBe(before)
    // Wildcards are routing, not naming: strict takes them under /api.
    await ws.ok('add-endpoint', 'GET', '/api/files/**', '--body', '{}')
  })

  it('warn takes the path and prints each broken rule as a warning', async () => {
    expect(await ws.ok('project', 'set', 'shop', '--path-rules', 'warn')).toMatch(/project shop: path rules warn/)
    const added = await ws.run('add-endpoint', 'GET', '/v1/charges', '--body', '{}')
    expect(added.code).toBe(0)
    expect(added.stderr).toBe('! path "/v1/charges" must start with /api (rule: starts-with-api)\n')
    const resource = await ws.run('add-resource', '/api/user_profiles')
    expect(resource.code).toBe(0)
    expect(resource.stderr).toMatch(/^! segment "user_profiles" must be lowercase .* \(rule: lowercase-hyphens\)$/m)
  })

  it('refuses a mode that is not one, changing nothing', async () => {
    const before = snapshot(ws.db)
    const refused = await ws.run('project', 'set', '--path-rules', 'loose')
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(/path rules "loose" must be one of strict, warn, off/)
    expect((await ws.run('project', 'set', 'shop')).stderr).toMatch(/nothing to change: give --path-rules/)
    const init = await ws.run('init', '--name', 'Other', '--path-rules', 'lax', '--yes')
    expect(init.stderr).toMatch(/path rules "lax" must be one of strict, warn, off/)
    expect(snapshot(ws.db)).toBe(before)
  })

  it('changing the mode leaves existing endpoints alone: rules apply when something is created', async () => {
    const before = snapshot(ws.db).replace('"path_rules":"warn"', '"path_rules":"strict"')
    await ws.ok('project', 'set', '--path-rules', 'strict')
    expect(snapshot(ws.db)).toBe(before)
    expect(JSON.parse(await ws.ok('project', 'show', 'shop', '--json'))).toMatchObject({ pathRules: 'strict' })
  })

  it('an exported strict project has no pathRules key; apply without one puts strict back', async () => {
    expect(await ws.ok('export', '--project', 'shop')).not.toMatch(/pathRules/)
    await ws.ok('project', 'set', '--path-rules', 'off')
    const file = join(ws.cwd, 'shop.yaml')
    writeFileSync(file, 'name: Shop\nslug: shop\nresources: [{ path: /api/products }]\n')
    expect(await ws.ok('apply', file)).toMatch(/~ project shop pathRules: strict/)
    writeFileSync(file, 'name: Shop\nslug: shop\npathRules: loose\n')
    expect((await ws.run('apply', file)).stderr).toMatch(/line 3.*pathRules must be one of strict, warn, off/)
  })
})

describe('PATCH /api/projects/{id}', () => {
  let api: string
  let auth: Record<string, string>
  let db: string

  beforeAll(async () => {
    const ws = cliWorkspace()
    db = ws.db
    await ws.ok('init', '--name', 'Api', '--slug', 'api-shop', '--yes')
    auth = { Authorization: `Bearer ${await mintToken(openStore(db).context, { expiresInMs: 60_000 })}` }
    api = `${(await serve(db)).url}/api/projects/1`
  })

  it('changes the path rules and shows them in the project view', async () => {
    const changed = await send(api, { method: 'PATCH', headers: auth, body: { pathRules: 'off' } })
    expect(changed.status).toBe(200)
    expect(changed.json).toMatchObject({ id: 1, slug: 'api-shop', pathRules: 'off' })
    expect((await send(api, { headers: auth })).json).toMatchObject({ pathRules: 'off' })
    const created = await send(`${api}/resources`, { method: 'POST', headers: auth, body: { path: '/v1/user_profiles' } })
    expect(created.status).toBe(201)
    expect(created.json.warnings).toEqual([])
  })

  it('answers warn-mode warnings in the resource answers', async () => {
    await send(api, { method: 'PATCH', headers: auth, body: { pathRules: 'warn' } })
    const checked = await send(`${api}/resources/check?path=/v2/user_profiles`, { headers: auth })
    expect(checked.json).toMatchObject({ ok: true, path: '/v2/user_profiles' })
    expect(checked.json.warnings).toContain('path "/v2/user_profiles" must start with /api (rule: starts-with-api)')
    const created = await send(`${api}/resources`, { method: 'POST', headers: auth, body: { path: '/v2/user_profiles' } })
    expect(created.status).toBe(201)
    expect(created.json.warnings).toHaveLength(2)
  })

  it('refuses bad input with the field named, changing nothing', async () => {
    const before = snapshot(db)
    for (const [body, field] of [[{ pathRules: 'loose' }, 'pathRules'], [{ pathRules: 3 }, 'pathRules'], [{ pathrules: 'off' }, 'pathrules']] as const) {
      const refused = await send(api, { method: 'PATCH', headers: auth, body })
      expect(refused.status).toBe(400)
      expect(refused.json.error).toMatchObject({ code: 'INVALID_INPUT', details: [{ field }] })
    }
    expect((await send(api, { method: 'PATCH', headers: auth, body: {} })).json.error.message).toMatch(/nothing to change/)
    expect((await send(api, { method: 'PATCH', headers: auth, body: [] })).status).toBe(400)
    expect((await send(api, { method: 'PATCH', body: { pathRules: 'off' } })).status).toBe(401)
    const other = await send(api, { method: 'PUT', headers: auth, body: {} })
    expect(other.status).toBe(405)
    expect(other.headers.get('allow')).toBe('GET, PATCH')
    expect(snapshot(db)).toBe(before)
  })
})

describe('imported OpenAPI paths with parameters inside a segment', () => {
  it('match only what they describe and give their parameters', async () => {
    const ws = cliWorkspace()
    await ws.ok('init', '--name', 'Google', '--slug', 'google', '--yes')
    const spec = {
      openapi: '3.0.3',
      info: { title: 'Custom methods', version: '1' },
      paths: {
        '/users/{id}:activate': { post: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'ok', content: { 'application/json': { example: { done: true } } } } } } },
        '/users/{id}': { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'ok', content: { 'application/json': { example: { user: true } } } } } } },
        '/files/{name}.json': { get: { parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'ok', content: { 'application/json': { example: { file: true } } } } } } },
      },
    }
    writeFileSync(join(ws.cwd, 'spec.json'), JSON.stringify(spec))
    await ws.ok('import', join(ws.cwd, 'spec.json'))
    const { url } = await serve(ws.db)
    expect((await send(`${url}/api/google/users/7:activate`, { method: 'POST' })).json).toEqual({ done: true })
    expect((await send(`${url}/api/google/users/7`)).json).toEqual({ user: true })
    expect((await send(`${url}/api/google/users/7`, { method: 'POST' })).status).toBe(405)
    expect((await send(`${url}/api/google/files/a.json`)).json).toEqual({ file: true })
    expect((await send(`${url}/api/google/files/a.txt`)).status).toBe(404)
    // A custom endpoint beside them follows the same specificity.
    await ws.ok('project', 'set', '--path-rules', 'off')
    await ws.ok('add-endpoint', 'GET', '/files/:name', '--body', '{"any":"{{params.name}}"}')
    expect((await send(`${url}/api/google/files/a.txt`)).json).toEqual({ any: 'a.txt' })
    expect((await send(`${url}/api/google/files/a.json`)).json).toEqual({ file: true })
  })
})

describe('paths a request can reach', () => {
  let ws: CliWorkspace
  let url: string

  beforeAll(async () => {
    ws = cliWorkspace()
    await ws.ok('init', '--name', 'Free', '--slug', 'free', '--path-rules', 'off', '--yes')
    await ws.ok('add-endpoint', 'GET', '/search/a%20b', '--body', '{"search":true}')
    await ws.ok('add-endpoint', 'GET', '/pct/100%25', '--body', '{"pct":true}')
    await ws.ok('add-endpoint', 'GET', '/t/%5C', '--body', '{"backslash":true}')
    await ws.ok('add-endpoint', 'GET', '/legacy/x', '--body', '{"legacy":true}')
    // A path stored before the rules refused a lone "%": it answers what it answered (a request's %25).
    const raw = new Database(ws.db)
    raw.prepare("UPDATE endpoints SET path = '/legacy/100%' WHERE path = '/legacy/x'").run()
    raw.close()
    expect(await ws.ok('add-endpoint', 'GET', '/files/{id}', '--body', '{"file":"{{params.id}}"}')).toMatch(/GET \/files\/:id/)
    await ws.ok('add-endpoint', 'DELETE', '/files/**', '--status', '204')
    await ws.ok('add-endpoint', 'GET', '/a/:x/c', '--body', '{"route":"GET /a/:x/c"}')
    await ws.ok('add-endpoint', 'POST', '/a/b/:y', '--body', '{"route":"POST /a/b/:y"}')
    url = (await serve(ws.db)).url
  })

  it('matches percent-encoded text as a client sends it', async () => {
    expect((await send(`${url}/search/a%20b`)).json).toEqual({ search: true })
    expect((await send(`${url}/api/free/search/a%20b`)).json).toEqual({ search: true })
    expect((await send(`${url}/search/a%2520b`)).status).toBe(404)
    expect((await send(`${url}/pct/100%25`)).json).toEqual({ pct: true })
    expect((await send(`${url}/t/%5C`)).json).toEqual({ backslash: true })
    expect((await send(`${url}/legacy/100%25`)).json).toEqual({ legacy: true })
  })

  it('reads {id} as a parameter, stored as :id', async () => {
    expect((await send(`${url}/files/7`)).json).toEqual({ file: '7' })
    expect(await ws.ok('endpoint', 'show', 'GET', '/files/{id}')).toMatch(/GET \/files\/:id/)
    const taken = await ws.run('add-endpoint', 'GET', '/files/:name', '--body', '{}')
    expect(taken.stderr).toMatch(/GET \/files\/:id already exists/)
  })

  it('refuses in every mode a path no request could reach, saying how to write it, changing nothing', async () => {
    const before = snapshot(ws.db)
    for (const mode of ['off', 'warn'] as const) {
      await ws.ok('project', 'set', '--path-rules', mode)
      for (const [path, hint] of [['/pct/100%', /write %25 for a percent sign \(rule: percent-encoding\)/], ['/d/..', /rule: dot-segments/], ['/d2/.', /rule: dot-segments/], ['/t/\\', /write %5C for one \(rule: plain-path\)/], ['/f/{', /rule: param-names/]] as const) {
        const refused = await ws.run('add-endpoint', 'GET', path, '--body', '{}')
        expect(refused.code, `${mode} ${path}`).not.toBe(0)
        expect(refused.stderr, `${mode} ${path}`).toMatch(hint)
      }
    }
    await ws.ok('project', 'set', '--path-rules', 'off')
    const file = join(ws.cwd, 'dots.yaml')
    writeFileSync(file, 'name: Free\nslug: free\npathRules: off\nendpoints:\n  - { method: GET, path: /d/.., body: {} }\n')
    expect((await ws.run('apply', file)).stderr).toMatch(/rule: dot-segments/)
    expect(snapshot(ws.db)).toBe(before)
  })

  it('answers a 405 with the methods of every route matching the path, HEAD wherever GET is', async () => {
    const files = await send(`${url}/files/x`, { method: 'POST' })
    expect(files.status).toBe(405)
    expect(files.headers.get('allow')).toBe('DELETE, GET, HEAD')
    expect((await send(`${url}/files/x`, { method: 'DELETE' })).status).toBe(204)
    expect((await send(`${url}/files/x`, { method: 'HEAD' })).status).toBe(200)
    const nested = await send(`${url}/a/b/c`, { method: 'PUT' })
    expect(nested.headers.get('allow')).toBe('GET, HEAD, POST')
    expect((await send(`${url}/a/b/c`)).json).toEqual({ route: 'GET /a/:x/c' })
    expect((await send(`${url}/a/b/c`, { method: 'POST' })).json).toEqual({ route: 'POST /a/b/:y' })
  })

  it('exports the paths as written, and apply gives them back byte for byte', async () => {
    const file = join(ws.cwd, 'free.yaml')
    await ws.ok('export', '--project', 'free', '-o', file)
    const exported = await ws.ok('export', '--project', 'free')
    expect(exported).toMatch(/\/search\/a%20b/)
    expect(exported).toMatch(/\/files\/:id/)
    const other = cliWorkspace()
    // The path stored before the rules is exported as it is; apply says how to write it.
    expect((await other.run('apply', file)).stderr).toMatch(/path "\/legacy\/100%": .* write %25 for a percent sign/)
    writeFileSync(file, exported.replace('/legacy/100%', '/legacy/100%25'))
    await other.ok('apply', file)
    expect(await other.ok('export', '--project', 'free')).toBe(exported.replace('/legacy/100%', '/legacy/100%25'))
    expect(await other.ok('apply', file)).not.toMatch(/^[+~-] /m)
    expect((await send(`${(await serve(other.db)).url}/legacy/100%25`)).json).toEqual({ legacy: true })
  })

  it('stays alive and intact', async () => {
    await expectAliveAndIntact(url, ws.db)
  })
})
