import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, request, type Server } from 'node:http'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { mintToken } from '../../src/domain/auth.ts'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { loadSpecText } from '../../src/kinds/openapi/load.ts'
import type { RunningServer } from '../../src/server/start.ts'
import { cleanup, cliWorkspace, expectAliveAndIntact, openStore, send, serve, tempDb } from '../_helpers.ts'

afterAll(cleanup)

const json = { 'content-type': 'application/json' }

function expectError(response: { status: number; json: any }, status: number, code: string): void {
  expect({ status: response.status, code: response.json?.error?.code }).toEqual({ status, code })
  expect(typeof response.json.error.message).toBe('string')
}

describe('hostile URLs and bodies answer 4xx in the error shape, never 500', () => {
  let server: RunningServer
  let dbPath: string
  let auth: Record<string, string>
  let api: string

  beforeAll(async () => {
    dbPath = tempDb()
    const { context } = openStore(dbPath)
    createProject(context, { name: 'Edge', slug: 'e' })
    createResource(context, { path: '/api/orders' })
    createResource(context, { path: '/api/users/:userId/posts' })
    createResource(context, { path: '/api/parcels' })
    addEndpoint(context, { method: 'GET', path: '/api/things', body: '{"q":"{{query.q}}"}' })
    auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 600_000 })}` }
    server = await serve(dbPath)
    api = `${server.url}/api/projects/1`
    expect((await send(`${server.url}/api/e/orders`, { method: 'POST', body: { id: 'seed', a: 1, b: { c: 2 } } })).status).toBe(201)
    expect((await send(`${server.url}/api/webhooks/inbox/e`, { method: 'POST', body: { hello: 1 } })).status).toBe(201)
  })

  it.each([
    ['a%5C=1', 'a\\'],
    ['a%00b=1', 'a\u0000b'],
    ['sort=a%5C', 'sort'],
    ['sort=a%00', 'sort'],
    ['x.a%5C=1', 'x.a\\'],
  ])('?%s (a field name no JSON path can hold) → 400 INVALID_QUERY', async (query, parameter) => {
    const response = await send(`${server.url}/api/e/orders?${query}`)
    expectError(response, 400, 'INVALID_QUERY')
    expect(response.json.error.details[0].parameter).toBe(parameter)
    const records = await send(`${api}/resources/1/records?${query}`, { headers: auth })
    expectError(records, 400, 'INVALID_QUERY')
  })

  it.each([
    'page=900719925474099&limit=100000',
    'page=9007199254740991&limit=2',
    'limit=9007199254740991&page=3',
  ])('?%s (an offset past 2^53) → 400 INVALID_QUERY on mock lists, management records and the inbox', async (query) => {
    expectError(await send(`${server.url}/api/e/orders?${query}`), 400, 'INVALID_QUERY')
    expectError(await send(`${server.url}/api/e/users/1/posts?${query}`), 400, 'INVALID_QUERY')
    expectError(await send(`${api}/resources/1/records?${query}`, { headers: auth }), 400, 'INVALID_QUERY')
    expectError(await send(`${api}/webhook-inbox?${query}`, { headers: auth }), 400, 'INVALID_QUERY')
  })

  it('the last page SQLite can address still answers (an empty page)', async () => {
    const response = await send(`${server.url}/api/e/orders?page=9007199254740991&limit=1`)
    expect(response.status).toBe(200)
    expect(response.json).toEqual([])
  })

  it.each(['constructor', '__proto__', 'hasOwnProperty', 'toString', 'valueOf'])('/_mockapi/%s → 404 ROUTE_NOT_MATCHED', async (name) => {
    expectError(await send(`${server.url}/_mockapi/${name}`), 404, 'ROUTE_NOT_MATCHED')
  })

  it('ids and numbers past 2^53 (and past a double) keep the digits sent', async () => {
    const body = '{"id":9223372036854775807,"big":12345678901234567890,"huge":1e400,"fine":0.30000000000000000001,"n":[9007199254740993]}'
    const created = await send(`${server.url}/api/e/orders`, { method: 'POST', body, headers: json })
    expect(created.status).toBe(201)
    expect(created.text).toBe('{"id":9223372036854775807,"big":12345678901234567890,"huge":1e400,"fine":0.30000000000000000001,"n":[9007199254740993]}')
    const read = await send(`${server.url}/api/e/orders/9223372036854775807`)
    expect(read.text).toBe(created.text)
    expect((await send(`${server.url}/api/e/orders?id=9223372036854775807`)).text).toBe(`[${created.text}]`)
    const replaced = await send(`${server.url}/api/e/orders/9223372036854775807`, { method: 'PUT', body: '{"k":-98765432109876543210}', headers: json })
    expect(replaced.text).toBe('{"id":9223372036854775807,"k":-98765432109876543210}')
    // Through the management API too, and a patch keeps the stored digits it does not change.
    const patched = await send(`${api}/resources/1/records/9223372036854775807`, { method: 'PATCH', body: '{"m":1}', headers: { ...json, ...auth } })
    expect(patched.text).toBe('{"id":9223372036854775807,"k":-98765432109876543210,"m":1}')
    // A string that looks like a number stays a string.
    const text = await send(`${server.url}/api/e/orders`, { method: 'POST', body: '{"s":"9223372036854775807"}', headers: json })
    expect(text.json.s).toBe('9223372036854775807')
  })

  it('a POST routed before its resource was deleted answers 404 NOT_FOUND, not 500', async () => {
    // Expect: 100-continue: Node sends "100 Continue" as it hands the request to the app, which
    // routes it at once; the body follows only after the resource is gone (a latch, not a sleep).
    const held = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const body = '{"name":"late"}'
      const post = request(`${server.url}/api/e/parcels`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
      }, (response) => {
        let text = ''
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: response.statusCode!, body: text }))
      })
      post.on('error', reject)
      post.on('continue', async () => {
        const resources = (await send(`${api}/resources`, { headers: auth })).json as { id: string; path: string }[]
        const doomed = resources.find((r) => r.path === '/api/parcels')!
        expect((await send(`${api}/resources/${doomed.id}`, { method: 'DELETE', headers: auth })).status).toBe(204)
        post.end(body)
      })
      post.flushHeaders()
    })
    const answered = await held
    expect(answered.status).toBe(404)
    expect(JSON.parse(answered.body).error.code).toBe('NOT_FOUND')
    expect((await send(`${server.url}/api/e/parcels`)).status).toBe(404)
  })

  // The class, not the list: every URL family against malformed encodings, NULs, huge and odd
  // numbers, prototype-ish names and odd methods. SOAP is left out: SOAP 1.1 sends faults as 500.
  it('a sweep of every URL family answers no 5xx, and every 4xx in the error shape', async () => {
    const families: [string, Record<string, string>][] = [
      ['/api/e/orders', {}], ['/api/e/orders/seed', {}], ['/api/orders', {}], ['/api/e/users/1/posts', {}], ['/api/e/things', {}],
      ['/api/webhooks/inbox/e', {}], ['/api/projects', auth], ['/api/projects/1', auth], ['/api/projects/1/webhook-inbox', auth],
      ['/api/projects/1/resources', auth], ['/api/projects/1/resources/1/records', auth], ['/api/projects/1/resources/1/records/seed', auth],
      ['/api/projects/1/endpoints', auth], ['/api/projects/1/webhooks', auth], ['/api/projects/1/requests', auth], ['/_mockapi/', {}],
    ]
    const segments = ['%', '%ZZ', '%00', '%5C', '%FF', '%C0%AF', '__proto__', 'constructor', 'hasOwnProperty', '99999999999999999999999', '-1', '1.5', '9223372036854775807', 'a'.repeat(3000)]
    const queries = ['__proto__=1', 'constructor=1', 'hasOwnProperty=1', 'a%5C=1', 'a%00b=1', '%ZZ=1', 'a=%ZZ', 'page=-1', 'page=0', 'page=1.5', 'page=1e3',
      'page=99999999999999999999', 'page=900719925474099&limit=100000', 'limit=NaN', 'limit=', 'sort=__proto__', 'sort=a%5C', 'sort=a..b', 'order=x', 'page=1&page=2', 'limit=0']
    const bodies = ['{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"y":1}}}', '{"id":"__proto__"}', '{"id":{"a":1}}', '{"id":1e400}', '{"id":""}', '[]', 'null', '{bad',
      '{"hasOwnProperty":1,"toString":2}', '{"status":1e400}', '{"headers":{"__proto__":"x"}}', '{"name":"__proto__","targetUrl":"http://127.0.0.1:9/","events":["__proto__"]}', '{"path":"/api/__proto__"}']
    const methods = ['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'PURGE', 'DELETE']
    const failures: string[] = []
    const check = async (method: string, path: string, headers: Record<string, string>, body?: string) => {
      const answer = await raw(server.url, method, path, headers, body)
      const shaped = method === 'HEAD' || answer.status < 400 || typeof parsed(answer.body)?.error?.code === 'string'
      if (answer.status >= 500 || !shaped) failures.push(`${answer.status} ${method} ${path.slice(0, 120)} ${body ?? ''}: ${answer.body.slice(0, 160)}`)
    }
    for (const [path, headers] of families) {
      for (const segment of segments) await check('GET', `${path.replace(/\/$/, '')}/${segment}`, headers)
      for (const query of queries) await check('GET', `${path}?${query}`, headers)
      for (const method of methods) await check(method, path, headers)
      for (const body of bodies) for (const method of ['POST', 'PUT', 'PATCH']) await check(method, path, { ...headers, 'content-type': 'application/json' }, body)
    }
    for (const segment of segments) {
      await check('GET', `/api/${segment}/orders`, {})
      await check('GET', `/api/projects/${segment}/resources`, auth)
      await check('POST', `/api/webhooks/inbox/${segment}`, { 'content-type': 'application/json' }, '{}')
    }
    expect(failures).toEqual([])
    expect(({} as Record<string, unknown>).x).toBeUndefined()
  }, 60_000)

  it('keeps serving, the file intact', async () => {
    await expectAliveAndIntact(server.url, dbPath)
  })
})

function parsed(text: string): any {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** node:http, so the path goes out exactly as written and any method can be sent (fetch refuses TRACE). */
function raw(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(base, { method, path, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (response) => {
      let text = ''
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: response.statusCode!, body: text }))
    })
    sent.on('error', reject)
    sent.end(body)
  })
}

describe('import: where a spec may $ref, and YAML that expands without end', () => {
  let specServer: Server
  let specUrl: string
  const passwd = readFileSync('/etc/passwd', 'utf8').split('\n')[0]!

  const spec = (example: string) => `openapi: 3.0.3
info: {title: Refs, version: "1"}
paths:
  /things:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: object}
              example: {$ref: '${example}'}
`

  beforeAll(async () => {
    const files: Record<string, string> = {
      '/passwd.yaml': spec('file:///etc/passwd'),
      '/relative.yaml': spec('../../../../../../etc/passwd'),
      '/fine.yaml': spec('./example.yaml'),
      '/example.yaml': 'name: from the same server\n',
    }
    specServer = createServer((req, res) => {
      const text = files[req.url ?? '']
      if (text === undefined) res.writeHead(404).end()
      else res.writeHead(200, { 'content-type': 'application/yaml' }).end(text)
    })
    await new Promise<void>((done) => specServer.listen(0, '127.0.0.1', done))
    specUrl = `http://127.0.0.1:${(specServer.address() as { port: number }).port}`
  })
  afterAll(() => new Promise<void>((done) => specServer.close(() => done())))

  it('a remote spec that $refs file:///etc/passwd is refused; nothing is stored or served', async () => {
    const cli = cliWorkspace()
    await cli.ok('init', '--yes', '--slug', 'r')
    const importUrl = (file: string) => cli.run('import', `${specUrl}/${file}`)
    const refused = await importUrl('passwd.yaml')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`$ref "file:///etc/passwd" is refused: a spec fetched from a URL may only $ref http(s) URLs`)
    // A relative path resolves against the URL: it is fetched from the same server (a 404 here), never read from disk.
    const relative = await importUrl('relative.yaml')
    expect(relative.code).toBe(1)
    expect(relative.stderr).toMatch(/Error downloading http:\/\/127\.0\.0\.1:\d+\/etc\/passwd: HTTP ERROR 404/)
    // The same server's http(s) refs still resolve.
    expect((await importUrl('fine.yaml')).code).toBe(0)
    const server = await serve(cli.db)
    const answer = await send(`${server.url}/api/r/things`)
    expect(answer.json).toEqual({ name: 'from the same server' })
    expect(answer.text).not.toContain(passwd)
    await expectAliveAndIntact(server.url, cli.db)
  })

  it('a local spec reads $refs under its own folder; outside it only with --allow-refs-outside', async () => {
    const cli = cliWorkspace()
    await cli.ok('init', '--yes', '--slug', 'l')
    mkdirSync(join(cli.cwd, 'api'))
    writeFileSync(join(cli.cwd, 'api', 'inside.yaml'), spec('./example.yaml'))
    writeFileSync(join(cli.cwd, 'api', 'example.yaml'), 'name: inside\n')
    writeFileSync(join(cli.cwd, 'api', 'outside.yaml'), spec('../secret.yaml'))
    writeFileSync(join(cli.cwd, 'api', 'absolute.yaml'), spec('file:///etc/passwd'))
    writeFileSync(join(cli.cwd, 'secret.yaml'), 'name: secret\n')
    await cli.ok('import', 'api/inside.yaml')
    for (const [file, ref] of [['outside.yaml', `${join(cli.cwd, 'secret.yaml')}`], ['absolute.yaml', 'file:///etc/passwd']] as const) {
      const refused = await cli.run('import', `api/${file}`, '--replace')
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(`${file}: $ref "${ref}" is outside the spec's folder`)
      expect(refused.stderr).toContain('--allow-refs-outside')
    }
    await cli.ok('import', 'api/outside.yaml', '--allow-refs-outside')
    const server = await serve(cli.db)
    expect((await send(`${server.url}/api/l/things`)).json).toEqual({ name: 'secret' })
    await expectAliveAndIntact(server.url, cli.db)
  })

  it('a billion-laughs spec made of $refs is refused at once instead of hanging import', async () => {
    const cli = cliWorkspace()
    // Ten schemas, each with ten properties that $ref the next: 10^10 values once followed.
    const schemas = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`L${i}`, {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`p${k}`, i < 9 ? { $ref: `#/components/schemas/L${i + 1}` } : { type: 'string' }])),
    }]))
    const spec = {
      openapi: '3.0.3',
      info: { title: 'Ref laughs', version: '1' },
      paths: { '/x': { get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/L0' } } } } } } } },
      components: { schemas },
    }
    writeFileSync(join(cli.cwd, 'ref-laughs.json'), JSON.stringify(spec))
    const result = await cli.run('import', 'ref-laughs.json')
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('ref-laughs.json: its $refs expand too far')
    // Nothing was created, not even the first project an import makes in an empty database.
    expect((await cli.run('endpoints')).stderr).toContain('no project yet')
  })

  it('a JSON spec naming a key twice in one object is refused, as YAML is, however the key is written', async () => {
    const spec = (info: string) => `{"openapi": "3.0.3", "info": {${info}}, "paths": {"/a": {"get": {"responses": {"200": {"description": "ok"}}}}}}`
    for (const info of ['"title": "A", "version": "1", "title": "B"', '"title": "A", "version": "1", "\\u0074itle"\n  : "B"']) {
      await expect(loadSpecText(spec(info), 'twice.json')).rejects.toThrow(/^twice\.json: Map keys must be unique/)
    }
    // The same key in different objects is no repetition.
    expect((await loadSpecText(spec('"title": "A", "version": "1", "x-more": {"title": "B"}'), 'once.json')).title).toBe('A')
  })

  it('a billion-laughs YAML spec is refused at once instead of hanging import', async () => {
    const cli = cliWorkspace()
    const levels = ['  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for (let i = 1; i < 10; i++) {
      const name = String.fromCharCode(97 + i)
      levels.push(`  ${name}: &${name} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`)
    }
    writeFileSync(join(cli.cwd, 'laughs.yaml'), `openapi: 3.0.3\ninfo: {title: Laughs, version: "1"}\npaths: {}\nx-laughs:\n${levels.join('\n')}\n`)
    // Few aliases, but of one large node: what they add is bounded too.
    const wide = `  big: &big [${Array.from({ length: 120_000 }, (_, i) => i).join(',')}]\n${Array.from({ length: 10 }, (_, i) => `  copy${i}: *big`).join('\n')}`
    writeFileSync(join(cli.cwd, 'wide.yaml'), `openapi: 3.0.3\ninfo: {title: Wide, version: "1"}\npaths: {}\nx-wide:\n${wide}\n`)
    for (const file of ['laughs.yaml', 'wide.yaml']) {
      const started = Date.now()
      const result = await cli.run('import', file)
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`${file}: its YAML aliases expand too far`)
      expect(Date.now() - started).toBeLessThan(15_000)
    }
    // Anchors used as specs use them still import.
    writeFileSync(join(cli.cwd, 'anchors.yaml'), `openapi: 3.0.3
info: {title: Anchors, version: "1"}
paths:
  /a:
    get:
      responses: &ok {'200': {description: ok, content: {application/json: {schema: {type: object}, example: {ok: true}}}}}
  /b:
    get:
      responses: *ok
`)
    await cli.ok('import', 'anchors.yaml')
    const server = await serve(cli.db)
    expect((await send(`${server.url}/b`)).json).toEqual({ ok: true })
    await expectAliveAndIntact(server.url, cli.db)
  })
})
