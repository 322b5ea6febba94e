import { createServer } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { startServer } from '../../src/server/start.ts'
import { cleanup, cliProcessAsync, cliWorkspace, exited, listenLocally, openStore, spawnServe, waitFor } from '../_helpers.ts'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
  await cleanup()
})

/** A real API on port 0: `/users` answers its users, each answer carrying the request's `n`, so a test knows which request the target itself answered. */
async function startUpstream(): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = []
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    const url = new URL(req.url!, 'http://x')
    if (url.pathname !== '/users') return res.writeHead(404, { 'content-type': 'text/plain' }).end('upstream: no such path')
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([{ id: 1, name: 'Ada', n: url.searchParams.get('n') }]))
  })
  const { url, close } = await listenLocally(server)
  closers.push(close)
  return { url, seen }
}

interface Answer {
  n: number
  status: number
  body: string
}

describe('serve --proxy --record while another process deletes the project', () => {
  it('answers every request sent after the delete from the target, none from the deleted project, and says the recording ended', async () => {
    const upstream = await startUpstream()
    const { cwd, db } = cliWorkspace()
    const serve = await spawnServe(['--db', db, 'serve', '--port', '0', '--proxy', upstream.url, '--record'], { cwd })
    expect((await fetch(`${serve.url}/users?n=first`)).status).toBe(200)
    // The recording has made /users a resource of the project `proxy`: the route a stale catalog would answer from.
    const { context } = openStore(db)
    await waitFor(() => context.repos.resources.listByProject(context.repos.projects.bySlug('proxy')!.id).length > 0, 8000, 'the recorded resource')

    // While the CLI deletes the project, a browser's preflights (answered by serve itself: nothing forwarded, nothing
    // recorded) keep serve looking at its routes; once the delete has committed, 20 requests, the first ones within the
    // moment a catalog not checked on every request would still hold the deleted project's routes.
    const answers: Answer[] = []
    const preflight = { method: 'OPTIONS', headers: { origin: 'http://app.test', 'access-control-request-method': 'GET' } }
    const hammer = (async () => {
      for (let n = 0; answers.length < 20; n++) {
        if (context.repos.projects.bySlug('proxy')) {
          expect((await fetch(`${serve.url}/users`, preflight)).status).toBe(204)
          continue
        }
        const response = await fetch(`${serve.url}/users?n=${n}`)
        answers.push({ n, status: response.status, body: await response.text() })
      }
    })()
    const deleted = await cliProcessAsync(['--db', db, 'project', 'delete', 'proxy'], { cwd })
    expect(deleted.code, deleted.stderr).toBe(0)
    await hammer

    expect(answers.map((answer) => [answer.status, answer.body])).toEqual(answers.map((answer) => [200, JSON.stringify([{ id: 1, name: 'Ada', n: String(answer.n) }])]))
    expect(upstream.seen).toEqual(expect.arrayContaining(answers.map((answer) => `GET /users?n=${answer.n}`)))
    await waitFor(() => serve.output().includes(`! recording: project proxy was deleted, which ended its recording; what no endpoint matches at the own paths still goes to ${upstream.url}/`), 5000, 'the log line')
    expect(serve.output()).toMatch(/GET +\/users ⇢ proxy 200/)
  })
})

describe('serve --proxy after its project is gone', () => {
  it('says when another process stops the recording, and still forwards the own paths once the project is deleted', async () => {
    const upstream = await startUpstream()
    const workspace = cliWorkspace()
    await workspace.ok('init', '--yes', '--slug', 'api', '--path-rules', 'off')
    const lines: string[] = []
    const server = await startServer({ dbPath: workspace.db, port: 0, host: '127.0.0.1', demo: false, ownPathsProject: 'api', proxy: { target: upstream.url }, record: true, log: (line) => lines.push(line) })
    closers.push(() => server.close())
    expect((await fetch(`${server.url}/users?n=1`)).status).toBe(200)
    expect(await workspace.ok('record', 'stop', '--project', 'api')).toContain('stopped recording project api')
    await waitFor(() => lines.includes('! recording: project api stopped recording (mockapi record stop)'), 5000, 'the stop line')

    const api = server.project('api').id
    await workspace.ok('project', 'delete', 'api')
    const forwarded = await fetch(`${server.url}/users?n=2`)
    expect([forwarded.status, await forwarded.json()]).toEqual([200, [{ id: 1, name: 'Ada', n: '2' }]])
    const missing = await fetch(`${server.url}/nothing`)
    expect([missing.status, await missing.text()]).toEqual([404, 'upstream: no such path'])
    expect(upstream.seen.slice(-2)).toEqual(['GET /users?n=2', 'GET /nothing'])
    // No project to keep them in: neither is journalled; the management paths still answer.
    expect(server.journal!.records(api).map((record) => record.search)).toEqual(['?n=1'])
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
    // Said once: the stop, not the delete after it.
    expect(lines.filter((line) => line.startsWith('! recording:'))).toHaveLength(1)
  })
})

describe('serve --proxy --record stopped right after an answer', () => {
  it('keeps the exchange when SIGTERM comes the moment the client has its answer', async () => {
    const upstream = await startUpstream()
    const { cwd, db } = cliWorkspace()
    const serve = await spawnServe(['--db', db, 'serve', '--port', '0', '--proxy', upstream.url, '--record'], { cwd })
    const answer = await fetch(`${serve.url}/users?n=last`)
    expect([answer.status, await answer.json()]).toEqual([200, [{ id: 1, name: 'Ada', n: 'last' }]])
    serve.child.kill('SIGTERM')
    expect((await exited(serve.child)).code).toBe(0)
    const { context } = openStore(db)
    const proxy = context.repos.projects.bySlug('proxy')!
    expect(context.repos.resources.listByProject(proxy.id).map((resource) => resource.path)).toEqual(['/users'])
    expect(context.repos.recordings.isOn(proxy.id)).toBe(false)
  })
})
