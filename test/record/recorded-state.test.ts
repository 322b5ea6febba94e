import { afterAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { join } from 'node:path'
import { requireProjectBySlug } from '../../src/domain/projects.ts'
import { startServer } from '../../src/server/start.ts'
import { cleanup, cliWorkspace, listenLocally, openStore, send } from '../_helpers.ts'

afterAll(cleanup)

const read = (req: IncomingMessage) => new Promise<string>((resolve) => {
  let text = ''
  req.on('data', (chunk) => (text += chunk))
  req.on('end', () => resolve(text))
})

/**
 * A real API: users with a stable `x-api-version` and a `x-request-id` of each answer, a `Location`
 * on what it creates; a list whose ids repeat; an empty redirect and 204; one route that never
 * answers and one that breaks off its answer.
 */
async function startUpstream() {
  const users = [{ id: 1, name: 'Ada' }, { id: 2, name: 'Grace' }, { id: 4, name: 'Linus' }]
  let requests = 0
  const server = createServer(async (req, res: ServerResponse) => {
    requests += 1
    const common = { 'content-type': 'application/json', 'x-api-version': '2', 'x-request-id': `req-${requests}` }
    const item = /^\/users\/(\d+)$/.exec(req.url ?? '')
    if (req.url === '/users' && req.method === 'GET') return res.writeHead(200, common).end(JSON.stringify(users))
    if (req.url === '/users' && req.method === 'POST') {
      const user = { id: Math.max(...users.map((u) => u.id)) + 1, ...(JSON.parse(await read(req)) as object) }
      users.push(user as { id: number; name: string })
      return res.writeHead(201, { ...common, location: `/users/${user.id}` }).end(JSON.stringify(user))
    }
    if (item && req.method === 'GET') {
      const user = users.find((u) => u.id === Number(item[1]))
      return user ? res.writeHead(200, common).end(JSON.stringify(user)) : res.writeHead(404, common).end(`{"message":"no user ${item[1]}"}`)
    }
    if (req.url === '/dups') return res.writeHead(200, { 'content-type': 'application/json' }).end('[{"id":1,"v":"a"},{"id":1,"v":"b"}]')
    if (req.url === '/moved') return res.writeHead(302, { location: '/new' }).end()
    if (req.url === '/empty') return res.writeHead(204).end()
    if (req.url === '/slow') return
    if (req.url === '/broken') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' })
      res.write('only part')
      setTimeout(() => res.destroy(), 20)
      return
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"no such route"}')
  })
  return listenLocally(server)
}

describe('a recording and what is done offline', () => {
  it('answers what the real API last said: a list recorded again replaces local edits, a 404 hides no record made since, stable headers kept', async () => {
    const upstream = await startUpstream()
    const workspace = cliWorkspace()
    await workspace.ok('init', '--yes', '--slug', 'api', '--path-rules', 'off')
    await workspace.ok('project', 'set', 'api', '--proxy', upstream.url)
    const lines: string[] = []
    const record = () => startServer({ dbPath: workspace.db, port: 0, host: '127.0.0.1', demo: false, ownPathsProject: 'api', proxy: { timeoutMs: 300 }, record: true, log: (line) => lines.push(line) })
    const { context } = openStore(workspace.db)
    const project = requireProjectBySlug(context, 'api')
    const endpoints = () => context.repos.endpoints.listByProject(project.id)

    let server = await record()
    const at = (path: string) => `${server.url}${path}`
    // A guessed path first: the real API has no /api/users. Its 404 gives way to the real /users.
    expect((await send(at('/api/users'))).status).toBe(404)
    await expect.poll(() => endpoints().map((e) => `${e.method} ${e.path} ${e.status}`)).toContain('GET /api/users 404')
    expect((await send(at('/users'))).json).toEqual([{ id: 1, name: 'Ada' }, { id: 2, name: 'Grace' }, { id: 4, name: 'Linus' }])
    await expect.poll(() => context.repos.resources.listByProject(project.id).map((r) => r.path)).toEqual(['/users'])
    expect(endpoints().map((e) => e.path)).not.toContain('/api/users')
    expect(lines.join('\n')).not.toContain('was not recorded: it would be served at the same URL')
    const created = await send(at('/users'), { method: 'POST', body: { name: 'Edsger' } })
    expect([created.status, created.headers.get('location')]).toEqual([201, '/users/5'])
    expect((await send(at('/users/99'))).status).toBe(404)
    for (const path of ['/dups', '/moved', '/empty']) await fetch(at(path), { redirect: 'manual' }).then((r) => r.text())
    expect((await send(at('/slow'))).status).toBe(504)
    await fetch(at('/broken')).then((r) => r.text()).catch(() => null)
    await expect.poll(() => endpoints().map((e) => e.path)).toEqual(expect.arrayContaining(['/dups', '/moved', '/empty']))
    // Every exchange not kept is said, with why.
    await expect.poll(() => lines.join('\n')).toContain('! recording: GET /slow was not recorded: the proxy target')
    await expect.poll(() => lines.join('\n')).toContain('! recording: GET /broken was not recorded: the proxy target broke off its answer')
    expect(lines.join('\n')).toContain('GET /api/users (a recorded 404) removed: /users answers at the same URL')
    await workspace.ok('record', 'stop', '--project', 'api')
    await server.close()

    // Offline: the records are the real API's, edited locally.
    server = await startServer({ dbPath: workspace.db, port: 0, host: '127.0.0.1', demo: false, ownPathsProject: 'api' })
    const list = await send(at('/users'))
    expect(list.json).toEqual([{ id: 1, name: 'Ada' }, { id: 2, name: 'Grace' }, { id: 4, name: 'Linus' }, { id: 5, name: 'Edsger' }])
    // The headers every answer of the route had with one value; not the request's id.
    expect([list.headers.get('x-api-version'), list.headers.get('x-request-id'), list.headers.get('x-total-count')]).toEqual(['2', null, '4'])
    const local = await send(at('/users'), { method: 'POST', body: { name: 'local' } })
    // Created offline: the real API's version header, no Location naming the record it created.
    expect([local.status, local.headers.get('x-api-version'), local.headers.get('location')]).toEqual([201, '2', null])
    expect((await send(at('/users/1'), { method: 'DELETE' })).status).toBeLessThan(300)
    // The recorded 404 for user 99 does not hide a user 99 made since.
    expect((await send(at('/users/99'))).status).toBe(404)
    expect((await send(at('/users'), { method: 'POST', body: { id: 99, name: 'n' } })).status).toBe(201)
    expect((await send(at('/users/99'))).json).toEqual({ id: 99, name: 'n' })
    // A list whose ids repeat is answered as recorded, both rows.
    const dups = await send(at('/dups'))
    expect(dups.text).toBe('[{"id":1,"v":"a"},{"id":1,"v":"b"}]')
    expect(context.repos.resources.listByProject(project.id).map((r) => r.path)).toEqual(['/users'])
    // Empty answers recorded without a type are answered without one.
    const moved = await fetch(at('/moved'), { redirect: 'manual' })
    expect([moved.status, moved.headers.get('location'), moved.headers.get('content-type'), await moved.text()]).toEqual([302, '/new', null, ''])
    const empty = await send(at('/empty'))
    expect([empty.status, empty.headers.get('content-type')]).toEqual([204, null])
    await server.close()

    // Recorded again, the same list: the records are the API's again, the local edits gone.
    server = await record()
    expect((await send(at('/users'))).status).toBe(200)
    await workspace.ok('record', 'stop', '--project', 'api')
    await server.close()
    await upstream.close()
    server = await startServer({ dbPath: workspace.db, port: 0, host: '127.0.0.1', demo: false, ownPathsProject: 'api' })
    expect((await send(at('/users'))).json).toEqual([{ id: 1, name: 'Ada' }, { id: 2, name: 'Grace' }, { id: 4, name: 'Linus' }, { id: 5, name: 'Edsger' }])
    await server.close()
  })
})

/** One browser session as a HAR: a list of products with slug ids, one of them read, and an entry whose body the browser left out. */
function harOf(base: string): string {
  const entry = (method: string, path: string, status: number, text: string | null, headers: [string, string][] = []) => ({
    startedDateTime: '2026-01-01T00:00:00.000Z',
    time: 5,
    request: { method, url: `${base}${path}`, httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
    response: {
      status, statusText: '', httpVersion: 'HTTP/1.1', cookies: [], redirectURL: '', headersSize: -1, bodySize: -1,
      headers: [['content-type', 'application/json'], ...headers].map(([name, value]) => ({ name, value })),
      content: text === null ? { size: 20, mimeType: 'application/json' } : { size: text.length, mimeType: 'application/json', text },
    },
  })
  return JSON.stringify({
    log: {
      version: '1.2', creator: { name: 'test', version: '1' },
      entries: [
        entry('GET', '/v1/products', 200, PRODUCTS, [['x-trace', 'edge-7']]),
        entry('GET', '/v1/products/p1', 200, JSON.stringify({ id: 'p1', name: 'Mug' }), [['x-trace', 'edge-7']]),
        entry('GET', '/v1/stock', 200, null),
      ],
    },
  })
}

const PRODUCTS = JSON.stringify([{ id: 'p1', name: 'Mug' }, { id: 'p2', name: 'Tee' }])

describe('a HAR and a proxy recording of the same traffic', () => {
  it('give the same project: items with slug ids are the resource\'s, written offline as records', async () => {
    const upstream = createServer((req, res) => {
      const headers = { 'content-type': 'application/json', 'x-trace': 'edge-7' }
      if (req.url === '/v1/products') return res.writeHead(200, headers).end(PRODUCTS)
      if (req.url === '/v1/products/p1') return res.writeHead(200, headers).end(JSON.stringify({ id: 'p1', name: 'Mug' }))
      res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`

    // Through the proxy.
    const proxied = cliWorkspace()
    await proxied.ok('init', '--yes', '--slug', 'api', '--path-rules', 'off')
    const recording = await startServer({ dbPath: proxied.db, port: 0, host: '127.0.0.1', demo: false, ownPathsProject: 'api', proxy: { target: base }, record: true })
    const proxiedStore = openStore(proxied.db).context
    const proxiedProject = requireProjectBySlug(proxiedStore, 'api')
    await send(`${recording.url}/v1/products`)
    await expect.poll(() => proxiedStore.repos.resources.listByProject(proxiedProject.id).length).toBe(1)
    await send(`${recording.url}/v1/products/p1`)
    await expect.poll(() => proxiedStore.repos.endpoints.listByProject(proxiedProject.id).find((e) => e.action === 'read')?.headers ?? {}).toEqual({ 'x-trace': 'edge-7' })
    await recording.close()
    await new Promise<void>((resolve) => upstream.close(() => resolve()))

    // From a HAR of the same traffic.
    const har = cliWorkspace()
    await har.ok('init', '--yes', '--slug', 'api', '--path-rules', 'off')
    writeFileSync(join(har.cwd, 'session.har'), harOf('https://shop.example.com'))
    const imported = await har.run('import', 'session.har', '--project', 'api')
    expect(imported.code).toBe(0)
    // The body the browser left out is said, not recorded as an empty answer.
    expect(imported.stderr).toContain('log.entries[2]: GET /v1/stock has no body in the HAR (its content.size is 20, its content.text is missing): not recorded')
    const harStore = openStore(har.db).context
    const shape = (context: typeof harStore) => context.repos.endpoints.listByProject(requireProjectBySlug(context, 'api').id)
      .map((e) => `${e.method} ${e.path} ${e.kind} ${JSON.stringify(e.headers)}`).sort()
    expect(shape(harStore)).toEqual(shape(proxiedStore))
    expect(shape(harStore)).toContain('GET /v1/products/:id resource {"x-trace":"edge-7"}')

    // Offline, the item is the record: written, then gone.
    const offline = await startServer({ dbPath: har.db, port: 0, host: '127.0.0.1', demo: false, ownPathsProject: 'api' })
    const at = (path: string) => `${offline.url}${path}`
    const listed = await send(at('/v1/products'))
    expect([listed.json, listed.headers.get('x-trace')]).toEqual([[{ id: 'p1', name: 'Mug' }, { id: 'p2', name: 'Tee' }], 'edge-7'])
    expect((await send(at('/v1/products/p1'), { method: 'PATCH', body: { name: 'NEW' } })).json).toEqual({ id: 'p1', name: 'NEW' })
    expect((await send(at('/v1/products/p1'))).json).toEqual({ id: 'p1', name: 'NEW' })
    expect((await send(at('/v1/products/p1'), { method: 'DELETE' })).status).toBe(200)
    expect((await send(at('/v1/products/p1'))).status).toBe(404)
    await offline.close()
  })
})
