import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { mintToken } from '../../src/domain/auth.ts'
import { createProject } from '../../src/domain/projects.ts'
import type { RunningServer } from '../../src/server/start.ts'
import { cleanup, cli, openStore, send, serve, tempDb } from '../_helpers.ts'
import { connectBrowser, noBrowser, openDashboard } from './_browser.ts'

let server: RunningServer
let token: string
let projectId: number
let dbPath: string
let browser: Browser | undefined

beforeAll(async () => {
  dbPath = tempDb()
  const { context } = openStore(dbPath)
  projectId = createProject(context, { name: 'Shop', slug: 'shop' }).id
  token = await mintToken(context, { expiresInMs: 60 * 60 * 1000 })
  const env = { MOCKAPI_DB: dbPath }
  for (const args of [
    ['add-resource', '/api/pets', '--project', 'shop'],
    ['add-endpoint', 'GET', '/api/stats', '--body', '{"orders":42}', '--project', 'shop'],
    ['import', 'fixtures/graphql/swapi/schema.graphql', '--project', 'shop'],
    ['import', 'fixtures/soap/fastify-soap-client/calculator.wsdl', '--project', 'shop'],
    ['import', 'fixtures/grpc/helloworld.proto', '--project', 'shop'],
  ]) {
    const result = await cli(args, { env })
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
  }
  server = await serve(dbPath, { grpcPort: 0 })
})
afterAll(async () => {
  await browser?.close()
  await cleanup()
})

const callLine = (page: Page, method: string, path: string) =>
  page.locator(`[data-testid="endpoint-row"][data-method="${method}"][data-path="${path}"]`).getByTestId('endpoint-curl').textContent()

async function listed(base: string): Promise<Map<string, string | null>> {
  const response = await send(`${base}/api/projects/${projectId}/endpoints`, { headers: { Authorization: `Bearer ${token}` } })
  expect(response.status).toBe(200)
  return new Map(response.json.map((e: { method: string; path: string; url: string | null }) => [`${e.method} ${e.path}`, e.url]))
}

describe('the served URL of each endpoint in the management API', () => {
  it('is absolute, on the host the client used: /api/{slug} and the served path, a GraphQL or SOAP mount, gRPC host:port and method', async () => {
    const urls = await listed(server.url)
    expect(urls.get('GET /api/pets/:id')).toBe(`${server.url}/api/shop/pets/:id`)
    expect(urls.get('POST /api/pets')).toBe(`${server.url}/api/shop/pets`)
    expect(urls.get('GET /api/stats')).toBe(`${server.url}/api/shop/stats`)
    expect(urls.get('POST /graphql#Query.allFilms')).toBe(`${server.url}/api/shop/graphql`)
    expect(urls.get('POST /soap/Calculator#Add')).toBe(`${server.url}/api/shop/soap/Calculator`)
    expect(server.grpcPort).not.toBeNull()
    expect(urls.get('POST /helloworld.Greeter/SayHello')).toBe(`127.0.0.1:${server.grpcPort}/helloworld.Greeter/SayHello`)
    // The URL answers.
    expect((await send(`${server.url}/api/shop/pets`)).status).toBe(200)
  })

  it('comes with the line that calls it: curl with what its kind takes, grpcurl for a gRPC method', async () => {
    const response = await send(`${server.url}/api/projects/${projectId}/endpoints`, { headers: { Authorization: `Bearer ${token}` } })
    const calls = new Map(response.json.map((e: { method: string; path: string; call: string | null }) => [`${e.method} ${e.path}`, e.call]))
    expect(calls.get('GET /api/pets/:id')).toBe(`curl '${server.url}/api/shop/pets/:id'`)
    expect(calls.get('POST /api/pets')).toBe(`curl -X POST '${server.url}/api/shop/pets' -H 'content-type: application/json' -d '{}'`)
    expect(calls.get('POST /graphql#Query.allFilms')).toBe(`curl -X POST '${server.url}/api/shop/graphql' -H 'content-type: application/json' -d '{"query":"{ __typename }"}'`)
    expect(calls.get('POST /soap/Calculator#Add')).toBe(`curl -X POST '${server.url}/api/shop/soap/Calculator' -H 'content-type: text/xml' --data-binary @envelope.xml`)
    expect(calls.get('POST /helloworld.Greeter/SayHello')).toBe(`grpcurl -plaintext -d '{}' 127.0.0.1:${server.grpcPort} helloworld.Greeter/SayHello`)
    // The GraphQL line answers as written.
    const graphql = await send(`${server.url}/api/shop/graphql`, { method: 'POST', body: { query: '{ __typename }' } })
    expect(graphql.json).toEqual({ data: { __typename: 'Root' } }) // swapi names its query type Root
  })

  it('follows the host name the client used', async () => {
    const local = server.url.replace('127.0.0.1', 'localhost')
    const urls = await listed(local)
    expect(urls.get('GET /api/pets')).toBe(`${local}/api/shop/pets`)
    expect(urls.get('POST /helloworld.Greeter/SayHello')).toBe(`localhost:${server.grpcPort}/helloworld.Greeter/SayHello`)
  })

  it('is returned by PATCH too, and the CLI --json leaves it out (its output is unchanged)', async () => {
    const urls = await listed(server.url)
    expect(urls.has('GET /api/pets')).toBe(true)
    const list = await send(`${server.url}/api/projects/${projectId}/endpoints`, { headers: { Authorization: `Bearer ${token}` } })
    const pets = list.json.find((e: { method: string; path: string }) => e.method === 'GET' && e.path === '/api/pets')
    const patched = await send(`${server.url}/api/projects/${projectId}/endpoints/${pets.id}`, {
      method: 'PATCH', body: { delayMs: 0 }, headers: { Authorization: `Bearer ${token}` },
    })
    expect(patched.status).toBe(200)
    expect(patched.json.url).toBe(`${server.url}/api/shop/pets`)
    const printed = await cli(['endpoints', '--project', 'shop', '--json'], { env: { MOCKAPI_DB: dbPath } })
    expect(printed.code).toBe(0)
    const fromCli = JSON.parse(printed.stdout) as Record<string, unknown>[]
    expect(fromCli.length).toBe(list.json.length)
    for (const endpoint of fromCli) expect(endpoint).not.toHaveProperty('url')
  })
})

describe.skipIf(noBrowser)('the dashboard calls each endpoint at the URL the API gives', { timeout: 60_000 }, () => {
  it('curl for HTTP, GraphQL and SOAP, grpcurl for gRPC', async () => {
    browser ??= await connectBrowser()
    const { page, problems, context } = await openDashboard(browser, server, token)
    await page.getByTestId('endpoint-row').first().waitFor()
    expect(await callLine(page, 'GET', '/api/pets/:id')).toBe(`curl '${server.url}/api/shop/pets/:id'`)
    expect(await callLine(page, 'POST', '/graphql#Query.allFilms'))
      .toBe(`curl -X POST '${server.url}/api/shop/graphql' -H 'content-type: application/json' -d '{"query":"{ __typename }"}'`)
    expect(await callLine(page, 'POST', '/soap/Calculator#Add'))
      .toBe(`curl -X POST '${server.url}/api/shop/soap/Calculator' -H 'content-type: text/xml' --data-binary @envelope.xml`)
    expect(await callLine(page, 'POST', '/helloworld.Greeter/SayHello'))
      .toBe(`grpcurl -plaintext -d '{}' 127.0.0.1:${server.grpcPort} helloworld.Greeter/SayHello`)
    expect(problems).toEqual([])
    await context.close()
  })
})

describe('the served URL without gRPC listening', () => {
  it('is null for a gRPC method; the dashboard says gRPC is not listening', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    const id = createProject(context, { name: 'Rpc', slug: 'rpc' }).id
    const rpcToken = await mintToken(context, { expiresInMs: 60 * 60 * 1000 })
    expect((await cli(['import', 'fixtures/grpc/helloworld.proto', '--project', 'rpc'], { env: { MOCKAPI_DB: dbPath } })).code).toBe(0)
    const plain = await serve(dbPath)
    const response = await send(`${plain.url}/api/projects/${id}/endpoints`, { headers: { Authorization: `Bearer ${rpcToken}` } })
    const urls = response.json.map((e: { url: string | null }) => e.url)
    expect(urls.length).toBeGreaterThan(0)
    expect(urls.every((url: string | null) => url === null)).toBe(true)
    if (noBrowser) return
    browser ??= await connectBrowser()
    const opened = await openDashboard(browser, plain, rpcToken)
    const row = opened.page.locator('[data-testid="endpoint-row"][data-path="/helloworld.Greeter/SayHello"]')
    expect(await row.getByTestId('endpoint-not-served').textContent()).toBe('gRPC is not listening: serve with a gRPC port to call it')
    expect(await row.getByTestId('endpoint-curl').count()).toBe(0)
    expect(opened.problems).toEqual([])
    await opened.context.close()
  })
})
