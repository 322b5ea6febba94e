import { afterAll, describe, expect, it } from 'vitest'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { requireProjectBySlug } from '../../src/domain/projects.ts'
import { startServer } from '../../src/server/start.ts'
import { cleanup, cliWorkspace, listenLocally, openStore, serve } from '../_helpers.ts'

afterAll(cleanup)

interface User {
  id: number
  name: string
}

/**
 * A real API with its own ways: its list ignores `page` (it always answers every user), its order is
 * its own (newest name first), `/search` answers an object per query, and each user has posts.
 */
async function startUpstream() {
  let users: User[] = [{ id: 1, name: 'Ada' }, { id: 2, name: 'Grace' }, { id: 3, name: 'Linus' }]
  const posts: Record<string, { id: number; title: string }[]> = {
    1: [{ id: 10, title: 'Notes on the Engine' }],
    3: [{ id: 30, title: 'Just for fun' }, { id: 31, title: 'Re: tabs' }],
  }
  const searches: Record<string, number> = {}
  const read = (req: IncomingMessage) => new Promise<string>((resolve) => {
    let text = ''
    req.on('data', (chunk) => (text += chunk))
    req.on('end', () => resolve(text))
  })
  const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value))
  const server = createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://upstream')
    const nested = /^\/users\/(\d+)\/posts$/.exec(url.pathname)
    const item = /^\/users\/(\d+)$/.exec(url.pathname)
    if (url.pathname === '/users' && req.method === 'GET') return json(res, 200, users)
    if (url.pathname === '/users' && req.method === 'POST') {
      const user = { id: Math.max(...users.map((u) => u.id)) + 1, ...(JSON.parse(await read(req)) as { name: string }) }
      users = [...users, user]
      return json(res, 201, user)
    }
    if (item && req.method === 'GET') {
      const user = users.find((u) => u.id === Number(item[1]))
      return user ? json(res, 200, user) : json(res, 404, { message: `user ${item[1]} is gone` })
    }
    if (nested) return json(res, 200, posts[nested[1]!] ?? [], { 'x-writer': nested[1]! })
    if (url.pathname === '/search') {
      const q = url.searchParams.get('q') ?? ''
      searches[q] = (searches[q] ?? 0) + 1
      // Only some answers carry a header: offline, none may show on another URL's answer.
      const extra: Record<string, string> = q === 'ada' ? { 'x-hint': 'did you mean Ada Lovelace?' } : {}
      return json(res, 200, { q, hits: users.filter((u) => u.name.toLowerCase().includes(q)).map((u) => u.id), asked: searches[q] }, extra)
    }
    res.writeHead(404).end()
  })
  const { url, close } = await listenLocally(server)
  return {
    url,
    /** Users change behind the client's back, as another client of a real API changes them. */
    setUsers: (next: User[]) => void (users = next),
    close,
  }
}

/** An answer as it came off the wire: status, the headers a test looks at, the body's bytes as text. */
async function answer(url: string, init?: RequestInit) {
  const response = await fetch(url, init)
  return { status: response.status, type: response.headers.get('content-type'), hint: response.headers.get('x-hint'), writer: response.headers.get('x-writer'), body: await response.text() }
}

describe('a recording replayed offline', () => {
  it('answers every recorded request as the real API last answered it: lists replaced, each query and nested path its own answer', async () => {
    const upstream = await startUpstream()
    const workspace = cliWorkspace()
    await workspace.ok('init', '--yes', '--slug', 'api', '--path-rules', 'off')
    const recording = await startServer({ dbPath: workspace.db, port: 0, host: '127.0.0.1', demo: false, ownPathsProject: 'api', proxy: { target: upstream.url }, record: true })
    const { context } = openStore(workspace.db)
    const project = requireProjectBySlug(context, 'api')
    const endpoints = () => context.repos.endpoints.listByProject(project.id)
    const online = (path: string, init?: RequestInit) => answer(`${recording.url}${path}`, init)

    // What the client saw while recording, by URL: the last answer of each is what offline must give.
    const seen = new Map<string, Awaited<ReturnType<typeof answer>>>()
    const ask = async (path: string) => {
      const got = await online(path)
      seen.set(path, got)
      return got
    }
    await ask('/users')
    await expect.poll(() => context.repos.resources.listByProject(project.id).map((r) => r.path)).toEqual(['/users'])
    // The real API changes: Grace is gone, the order is its own. The last list is the collection.
    upstream.setUsers([{ id: 3, name: 'Linus' }, { id: 1, name: 'Ada' }])
    await ask('/users')
    // It ignores page: page 2 is every user again (mockapi's own paging would answer []).
    await ask('/users?page=2')
    await ask('/users/2')
    await ask('/search?q=ada')
    await ask('/search?q=linus')
    await ask('/search?q=ada')
    await ask('/search')
    await ask('/users/1/posts')
    await ask('/users/3/posts')
    const created = await online('/users', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Edsger"}' })
    expect([created.status, created.body]).toEqual([201, '{"id":4,"name":"Edsger"}'])
    // The recorder writes after each answer: wait for the last one.
    await expect.poll(() => context.repos.resources.listByProject(project.id)[0]!.seedRecords.map((r) => r.id)).toEqual([3, 1, 4])
    await expect.poll(() => endpoints().find((e) => e.path === '/users/:userId/posts')?.responses.length ?? 0).toBe(3)

    expect(await workspace.ok('record', 'stop', '--project', 'api')).toContain('stopped recording project api')
    await recording.close()
    // What the real API answers now, for the list: the last list, then what the POST added.
    const now = await answer(`${upstream.url}/users`)
    await upstream.close()

    const offline = await serve(workspace.db, { ownPathsProject: 'api' })
    const replay = (path: string) => answer(`${offline.url}${path}`)
    expect((await replay('/users')).body).toBe(now.body)
    expect(now.body).toBe('[{"id":3,"name":"Linus"},{"id":1,"name":"Ada"},{"id":4,"name":"Edsger"}]')
    for (const [path, got] of seen) {
      // A missing user is missing as the resource says it (a record made there offline would answer): status only.
      if (path === '/users/2') expect((await replay(path)).status).toBe(404)
      if (path === '/users' || path === '/users/2') continue
      expect([path, await replay(path)]).toEqual([path, got])
    }
    // The seen answers differ where they must (so the loop above proves something).
    expect(seen.get('/users?page=2')!.body).toBe('[{"id":3,"name":"Linus"},{"id":1,"name":"Ada"}]')
    expect(seen.get('/users/2')).toMatchObject({ status: 404, body: '{"message":"user 2 is gone"}' })
    expect(seen.get('/search?q=ada')).toMatchObject({ hint: 'did you mean Ada Lovelace?', body: '{"q":"ada","hits":[1],"asked":2}' })
    expect(seen.get('/search?q=linus')).toMatchObject({ hint: null, body: '{"q":"linus","hits":[3],"asked":1}' })
    expect(seen.get('/users/1/posts')).toMatchObject({ writer: '1', body: '[{"id":10,"title":"Notes on the Engine"}]' })

    // Not recorded: a page past the records is mockapi's own ([]); another query or user, the route's last answer.
    expect((await replay('/users?page=3')).body).toBe('[]')
    expect((await replay('/users/1')).body).toBe('{"id":1,"name":"Ada"}')
    expect(await replay('/search?q=grace')).toEqual(seen.get('/search'))
    expect(await replay('/users/9/posts')).toEqual(seen.get('/users/3/posts'))

    // One endpoint per method and path shape, one rule per URL: recorded twice, updated, not duplicated.
    const search = endpoints().find((e) => e.path === '/search')!
    expect(search.responses.map((r) => [r.name, r.when])).toEqual([
      ['/search?q=linus', { query: { q: 'linus' } }],
      ['/search?q=ada', { query: { q: 'ada' } }],
      ['/search', { query: { q: { absent: true } } }],
      ['last recorded', null],
    ])
    expect(endpoints().filter((e) => e.kind === 'custom').map((e) => `${e.method} ${e.path}`).sort()).toEqual(['GET /search', 'GET /users/:userId/posts'])
    // Only what the upstream sent is kept: mockapi's own CORS header on the proxied answers is not.
    expect(JSON.stringify(endpoints())).not.toMatch(/access-control-allow-origin/i)
    const list = endpoints().find((e) => e.resourceId !== null && e.method === 'GET' && e.action === 'list')!
    expect(list.responses.map((r) => r.name)).toEqual(['/users?page=2'])
    await offline.close()
  })
})
