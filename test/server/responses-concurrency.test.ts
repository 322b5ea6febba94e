import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { startServer, type RunningServer } from '../../src/server/start.ts'
import { cleanup, cliWorkspace, expectAliveAndIntact, heldRequest, openStore, send } from '../_helpers.ts'

afterAll(cleanup)

const running: RunningServer[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()))
})

/** A JSON request held before its body (see `heldRequest`); `finish` resolves with the status and JSON of the answer. */
async function heldJson(server: RunningServer, method: string, path: string, headers: Record<string, string>, body: unknown) {
  const held = await heldRequest(server, method, path, { ...headers, 'Content-Type': 'application/json' }, new TextEncoder().encode(JSON.stringify(body)))
  return {
    async finish(): Promise<{ status: number; json: any }> {
      const response = await held.finish()
      const text = await response.text()
      return { status: response.status, json: text ? JSON.parse(text) : undefined }
    },
  }
}

async function setup() {
  const workspace = cliWorkspace()
  await workspace.ok('init', '--yes', '--slug', 'r')
  await workspace.ok('add-endpoint', 'POST', '/api/sessions', '--body', '{"note":"endpoint"}')
  await workspace.ok('response', 'add', 'POST', '/api/sessions', '--name', 'first', '--when', '{"query":{"a":"1"}}', '--body', '{"r":"first"}')
  await workspace.ok('response', 'add', 'POST', '/api/sessions', '--name', 'second', '--when', '{"query":{"a":"2"}}', '--body', '{"r":"second"}')
  const server = await startServer({ dbPath: workspace.db, port: 0, host: '127.0.0.1', demo: false })
  running.push(server)
  const { context } = openStore(workspace.db)
  const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
  const endpoints = (await send(`${server.url}/api/projects/1/endpoints`, { headers: auth })).json as { id: number; path: string }[]
  const id = endpoints.find((e) => e.path === '/api/sessions')!.id
  const names = async () => ((await send(`${server.url}/api/projects/1/endpoints/${id}/responses`, { headers: auth })).json.responses as { name?: string }[]).map((r) => r.name ?? null)
  return { ...workspace, server, url: server.url, auth, base: `/api/projects/1/endpoints/${id}/responses`, names }
}

describe('one response edited while another writer changes the list', () => {
  it('an add through the API keeps a response the CLI added meanwhile', async () => {
    const { server, url, ok, auth, base, names, db } = await setup()
    const held = await heldJson(server, 'POST', base, auth, { name: 'api-added', when: { query: { a: '3' } }, body: { r: 'api' } })
    await ok('response', 'add', 'POST', '/api/sessions', '--name', 'cli-added', '--body', '{"r":"cli"}')
    const answer = await held.finish()
    expect(answer.status).toBe(201)
    expect(await names()).toEqual(['first', 'second', 'cli-added', 'api-added'])
    await expectAliveAndIntact(url, db)
  })

  it('a replace by name edits the response where it is now, and keeps the CLI removal', async () => {
    const { server, url, ok, auth, base, names, db } = await setup()
    const held = await heldJson(server, 'PUT', `${base}/second`, auth, { name: 'second', when: { query: { a: '22' } }, body: { r: 'replaced' } })
    await ok('response', 'remove', 'POST', '/api/sessions', 'first')
    const answer = await held.finish()
    expect(answer.status).toBe(200)
    expect(await names()).toEqual(['second'])
    expect((await send(`${url}/api/sessions?a=22`, { method: 'POST', body: {} })).json).toEqual({ r: 'replaced' })
    await expectAliveAndIntact(url, db)
  })

  it('a replace of a response removed meanwhile is 404 and changes nothing', async () => {
    const { server, ok, auth, base, names } = await setup()
    const held = await heldJson(server, 'PUT', `${base}/2`, auth, { body: { r: 'late' } })
    await ok('response', 'remove', 'POST', '/api/sessions', '2')
    const answer = await held.finish()
    expect(answer.status).toBe(404)
    expect(answer.json.error.message).toMatch(/has no response #2 \(it has #1\)/)
    expect(await names()).toEqual(['first'])
  })

  it('an add to an endpoint deleted meanwhile is 404', async () => {
    const { server, ok, auth, base } = await setup()
    const held = await heldJson(server, 'POST', base, auth, { body: { r: 'late' } })
    await ok('remove-endpoint', 'POST', '/api/sessions')
    const answer = await held.finish()
    expect(answer.status).toBe(404)
    expect(answer.json.error.message).toMatch(/deleted meanwhile/)
  })
})
