import { afterAll, describe, expect, it } from 'vitest'
import { createServer, type IncomingMessage } from 'node:http'
import { isRecording, startRecording } from '../../src/domain/recording.ts'
import { requireProjectBySlug } from '../../src/domain/projects.ts'
import { startServer } from '../../src/server/start.ts'
import { cleanup, cliWorkspace, listenLocally, openStore, send, serve } from '../_helpers.ts'

afterAll(cleanup)

/** A small real API: users kept in memory, a text status; it counts what reaches it. */
async function startUpstream() {
  const users = [{ id: 1, name: 'Ada' }, { id: 2, name: 'Grace' }]
  const seen: string[] = []
  const body = (req: IncomingMessage) => new Promise<string>((resolve) => {
    let text = ''
    req.on('data', (chunk) => (text += chunk))
    req.on('end', () => resolve(text))
  })
  const server = createServer(async (req, res) => {
    seen.push(`${req.method} ${req.url}`)
    const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value))
    const item = /^\/users\/(\d+)$/.exec(req.url ?? '')
    if (req.url === '/users' && req.method === 'GET') return json(200, users)
    if (req.url === '/users' && req.method === 'POST') {
      const user = { id: users.length + 1, ...JSON.parse(await body(req)) }
      users.push(user)
      return json(201, user)
    }
    if (item && req.method === 'GET') {
      const user = users.find((u) => u.id === Number(item[1]))
      return user ? json(200, user) : json(404, { error: 'no such user' })
    }
    if (req.url === '/big') return res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(6 * 1024 * 1024))
    if (req.url === '/status') return res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-upstream': 'yes' }).end('all systems go ✓\n')
    res.writeHead(404).end()
  })
  const { url, close } = await listenLocally(server)
  return {
    url,
    seen,
    close,
  }
}

describe('serve --record', () => {
  it('forwards every request while recording, keeps the answers, stops on mockapi record stop, and answers the same offline', async () => {
    const upstream = await startUpstream()
    const workspace = cliWorkspace()
    await workspace.ok('init', '--yes', '--slug', 'api', '--path-rules', 'off')
    const server = await startServer({ dbPath: workspace.db, port: 0, host: '127.0.0.1', demo: false, ownPathsProject: 'api', proxy: { target: upstream.url }, record: true })
    const { context } = openStore(workspace.db)
    const project = requireProjectBySlug(context, 'api')
    expect(isRecording(context, project.id)).toBe(true)
    const resources = () => context.repos.resources.listByProject(project.id).map((r) => r.path)
    const at = (path: string) => `${server.url}${path}`

    expect((await send(at('/users'))).json).toEqual([{ id: 1, name: 'Ada' }, { id: 2, name: 'Grace' }])
    // The recording makes /users a resource; the next requests still reach the real API.
    await expect.poll(resources).toContain('/users')
    const created = await send(at('/users'), { method: 'POST', body: { name: 'Linus' } })
    expect([created.status, created.json]).toEqual([201, { id: 3, name: 'Linus' }])
    expect((await send(at('/users/3'))).json).toEqual({ id: 3, name: 'Linus' })
    const status = await fetch(at('/status'))
    expect(await status.text()).toBe('all systems go ✓\n')
    expect(upstream.seen).toEqual(['GET /users', 'POST /users', 'GET /users/3', 'GET /status'])
    await expect.poll(() => context.repos.endpoints.listByProject(project.id).map((e) => `${e.method} ${e.path}`)).toContain('GET /status')

    // Another process ends the recording: matched routes answer from the mock again, and nothing more is kept.
    expect(await workspace.ok('record', 'stop', '--project', 'api')).toContain('stopped recording project api')
    expect((await send(at('/users/3'))).json).toEqual({ id: 3, name: 'Linus' })
    expect(upstream.seen).toHaveLength(4)
    await server.close()
    await upstream.close()

    // Offline, without --proxy: the same answers, the text byte for byte.
    const offline = await serve(workspace.db, { ownPathsProject: 'api' })
    const users = (await send(`${offline.url}/users`)).json as { id: number; name: string }[]
    expect(users).toEqual([{ id: 1, name: 'Ada' }, { id: 2, name: 'Grace' }, { id: 3, name: 'Linus' }])
    const replayed = await fetch(`${offline.url}/status`)
    expect([replayed.status, replayed.headers.get('x-upstream'), await replayed.text()]).toEqual([200, 'yes', 'all systems go ✓\n'])
  })

  it('on an empty database records into a project of its own (not the demo), and says what it did not keep', async () => {
    const upstream = await startUpstream()
    const workspace = cliWorkspace()
    const lines: string[] = []
    const server = await startServer({ dbPath: workspace.db, port: 0, host: '127.0.0.1', proxy: { target: upstream.url }, record: true, log: (line) => lines.push(line) })
    expect(server.createdDemo).toBe(false)
    expect((await send(`${server.url}/users`)).json).toHaveLength(2)
    const big = await fetch(`${server.url}/big`)
    expect([big.status, (await big.arrayBuffer()).byteLength]).toEqual([200, 6 * 1024 * 1024])
    await expect.poll(() => lines.join('\n')).toContain('GET /big was not recorded')
    const { context } = openStore(workspace.db)
    expect(context.repos.projects.list().map((p) => [p.slug, p.pathRules])).toEqual([['proxy', 'off']])
    await expect.poll(() => context.repos.resources.listByProject(context.repos.projects.list()[0]!.id).map((r) => r.path)).toEqual(['/users'])
    await server.close()
    await upstream.close()
  })

  it('ends the recording when serve closes, and refuses --record without a proxy target', async () => {
    const upstream = await startUpstream()
    const workspace = cliWorkspace()
    await workspace.ok('init', '--yes', '--slug', 'api', '--path-rules', 'off')
    await expect(startServer({ dbPath: workspace.db, port: 0, host: '127.0.0.1', demo: false, ownPathsProject: 'api', record: true }))
      .rejects.toThrow('--record needs a proxy target')
    const server = await startServer({ dbPath: workspace.db, port: 0, host: '127.0.0.1', demo: false, ownPathsProject: 'api', proxy: { target: upstream.url }, record: true })
    expect(await workspace.ok('record', 'status', '--project', 'api')).toContain('project api is recording')
    await server.close()
    await upstream.close()
    expect(await workspace.ok('record', 'status', '--project', 'api')).toContain('project api is not recording')

    // A serve killed while recording leaves the mark; the next serve (one per database) ends it and says so.
    const { context } = openStore(workspace.db)
    startRecording(context, requireProjectBySlug(context, 'api'), upstream.url)
    const lines: string[] = []
    const next = await startServer({ dbPath: workspace.db, port: 0, host: '127.0.0.1', demo: false, ownPathsProject: 'api', log: (line) => lines.push(line) })
    expect(lines).toContain('! recording: project api was left recording by a serve that did not close; ended')
    expect(isRecording(context, requireProjectBySlug(context, 'api').id)).toBe(false)
    await next.close()
  })
})
