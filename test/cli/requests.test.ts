import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import type { JournalEntry } from '../../src/events.ts'
import { cleanup, cli, cliProcess, cliWorkspace, expectFreshBuild, send, serveCli, spawnServe, tempDir, type CliWorkspace, type ServeRun } from '../_helpers.ts'

/*
 * `mockapi requests`: a running serve's journal read through the management API, the serve found
 * from the database's lease or given with --url. Real serves (in this process, one spawned), real
 * sockets, the CLI as a user runs it.
 */

afterAll(cleanup)

/** A shop with orders, a pay endpoint whose first response has a rule, and a second project. */
async function shopWorkspace(): Promise<CliWorkspace> {
  const shop = cliWorkspace()
  await shop.ok('init', '--yes', '--slug', 'shop', '--resource', '/api/orders')
  await shop.ok('add-endpoint', 'POST', '/api/orders/:id/payment', '--body', '{"paid":true}')
  await shop.ok('response', 'add', 'POST', '/api/orders/:id/payment', '--when', '{"body":{"sku":"A-1"}}', '--status', '201', '--name', 'a1', '--body', '{"paid":"A-1"}')
  await shop.ok('project', 'create', 'Other', '--slug', 'other')
  return shop
}

const post = (url: string, body: unknown) => send(url, { method: 'POST', body, overSocket: true })

/** A port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

function lines(stdout: string): string[] {
  return stdout.trimEnd().split('\n')
}

describe('mockapi requests against a running serve', () => {
  let shop: CliWorkspace
  let run: ServeRun
  let since: string

  beforeAll(async () => {
    shop = await shopWorkspace()
    run = await serveCli(['--db', shop.db, 'serve', '--port', '0', '--quiet'], { cwd: shop.cwd })
    const at = (path: string) => `${run.url}/api/shop${path}`
    expect((await send(at('/orders?state=open'), { overSocket: true })).status).toBe(200)
    expect((await send(at('/order/1'), { overSocket: true })).status).toBe(404)
    // Whatever came before this instant is not "since" it: the journal's times are in ms.
    await new Promise((resolve) => setTimeout(resolve, 5))
    since = new Date().toISOString()
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect((await post(at('/orders/1/payment'), { sku: 'A-1' })).status).toBe(201)
    expect((await post(at('/orders/2/payment'), { sku: 'B-2' })).status).toBe(200)
    expect((await send(at('/orders'), { method: 'DELETE', overSocket: true })).status).toBe(405)
  })

  it('lists them newest first, near misses and rules not held under their request', async () => {
    const out = lines(await shop.ok('requests'))
    expect(out[0]).toMatch(/^ID\s+TIME\s+METHOD\s+PATH\s+STATUS\s+MS\s+ANSWERED$/)
    const heads = out.filter((line) => /^\d/.test(line)).map((line) => line.split(/\s+/).slice(0, 5))
    expect(heads.map(([id, , method, path, status]) => [id, method, path, status])).toEqual([
      ['5', 'DELETE', '/api/shop/orders', '405'],
      ['4', 'POST', '/api/shop/orders/2/payment', '200'],
      ['3', 'POST', '/api/shop/orders/1/payment', '201'],
      ['2', 'GET', '/api/shop/order/1', '404'],
      ['1', 'GET', '/api/shop/orders?state=open', '200'],
    ])
    const text = out.join('\n')
    expect(text).toMatch(/^3 .*endpoint \d+ · response 1 \(a1\)$/m)
    expect(text).toMatch(/^5 .*unmatched$/m)
    // Details sit indented under their request, outside the columns.
    const afterFour = out.slice(out.findIndex((line) => line.startsWith('4 ')) + 1)
    expect(afterFour[0]).toBe('    rule not held, response 1 (a1): body.sku = A-1 (received "B-2")')
    const afterTwo = out.slice(out.findIndex((line) => line.startsWith('2 ')) + 1)
    expect(afterTwo[0]).toBe('    near miss GET /api/shop/orders/:id: segment 2 is "order", expected "orders"')
    expect(text).toContain('near miss GET /api/shop/orders: method DELETE, expected GET')
  })

  it('--json prints the entries, newest first, as the management API gives them', async () => {
    const entries = JSON.parse(await shop.ok('requests', '--json')) as JournalEntry[]
    expect(entries.map((entry) => [entry.id, entry.matched])).toEqual([[5, false], [4, true], [3, true], [2, false], [1, true]])
    expect(entries[2]).toMatchObject({ method: 'POST', path: '/api/shop/orders/1/payment', body: '{"sku":"A-1"}', status: 201, response: { position: 1, name: 'a1' } })
    expect(entries[4]!.query).toEqual({ state: 'open' })
    expect(entries[3]!.nearMisses![0]).toMatchObject({ method: 'GET', path: '/api/shop/orders/:id', differences: [{ what: 'segment', expected: 'orders', received: 'order' }] })
    expect(entries[1]!.ruleMisses).toEqual([{ response: { position: 1, name: 'a1' }, failed: ['body.sku = A-1 (received "B-2")'] }])
  })

  it('--unmatched shows only what no endpoint matched, with its near misses', async () => {
    const out = await shop.ok('requests', '--unmatched')
    expect(lines(out).filter((line) => /^\d/.test(line)).map((line) => line.split(/\s+/)[0])).toEqual(['5', '2'])
    expect(out).toContain('near miss GET /api/shop/orders/:id')
    expect(out).toContain('near miss DELETE /api/shop/orders/:id: missing segment ":id"')
    const entries = JSON.parse(await shop.ok('requests', '--unmatched', '--json')) as JournalEntry[]
    expect(entries.every((entry) => !entry.matched && entry.nearMisses!.length > 0)).toBe(true)
  })

  it('--method, --path, --status, --since and --limit narrow as the API does', async () => {
    const ids = async (...args: string[]) => (JSON.parse(await shop.ok('requests', '--json', ...args)) as JournalEntry[]).map((entry) => entry.id)
    expect(await ids('--method', 'post')).toEqual([4, 3])
    expect(await ids('--method', 'GET,DELETE')).toEqual([5, 2, 1])
    expect(await ids('--path', '/api/shop/orders/*/payment')).toEqual([4, 3])
    expect(await ids('--path', '/api/shop/**')).toEqual([5, 4, 3, 2, 1])
    expect(await ids('--status', '4xx')).toEqual([5, 2])
    expect(await ids('--status', '201,405')).toEqual([5, 3])
    expect(await ids('--since', since)).toEqual([5, 4, 3])
    expect(await ids('--since', '1h')).toEqual([5, 4, 3, 2, 1])
    expect(await ids('--limit', '2')).toEqual([5, 4])
    expect(await ids('--method', 'GET', '--status', '2xx', '--unmatched')).toEqual([])
    // The table says when there are more than it shows.
    const out = await shop.ok('requests', '--limit', '2')
    expect(lines(out).at(-1)).toBe('2 of 5 shown (--limit for more)')
    expect(await shop.ok('requests', '--method', 'PATCH')).toBe('no requests match\n')
  })

  it('--when asks POST …/requests/find, inline or @file; when none holds, it shows the closest', async () => {
    const found = JSON.parse(await shop.ok('requests', '--json', '--when', '{"body":{"sku":"A-1"}}')) as JournalEntry[]
    expect(found.map((entry) => entry.id)).toEqual([3])
    writeFileSync(join(shop.cwd, 'when.json'), '{"body":{"sku":"B-2"}}')
    expect((JSON.parse(await shop.ok('requests', '--json', '--method', 'POST', '--when', '@when.json')) as JournalEntry[]).map((entry) => entry.id)).toEqual([4])
    const none = lines(await shop.ok('requests', '--method', 'POST', '--when', '{"body":{"sku":"C-3"}}'))
    expect(none[0]).toBe('no requests match; the closest, with what differed:')
    // Each closest request with what kept it out, and nothing else under it.
    expect(none.slice(2).map((line) => line.replace(/^(\d+) .*?(\S+)$/, '$1')).slice(0, 4)).toEqual([
      '4', '    differs: body.sku = C-3 (received "B-2")',
      '3', '    differs: body.sku = C-3 (received "A-1")',
    ])
    expect(none[6]).toMatch(/^5 .* DELETE /)
    expect(none[7]).toBe('    differs: method DELETE, expected POST; body.sku = C-3 (received nothing)')
    expect(JSON.parse(await shop.ok('requests', '--json', '--when', '{"body":{"sku":"C-3"}}'))).toEqual([])
  })

  it('a bad filter is refused with the API\'s message, exit 1', async () => {
    const refused = async (...args: string[]) => {
      const result = await shop.run('requests', ...args)
      expect(result.code, result.stdout).toBe(1)
      expect(result.stdout).toBe('')
      return result.stderr.trim()
    }
    expect(await refused('--status', 'abc')).toBe('✖ query parameter "status" "abc" is not a status (100 to 599, or 0 for a fault); use 201, 4xx, 400-499 or a comma list')
    expect(await refused('--path', 'orders')).toBe('✖ query parameter "path" must start with /, got "orders"')
    expect(await refused('--since', 'yesterday')).toMatch(/^✖ query parameter "since" must be an ISO time/)
    expect(await refused('--limit', '0')).toBe('✖ query parameter "limit" must be an integer from 1 to 10000, got "0"')
    expect(await refused('--when', '{"body":')).toMatch(/^✖ --when is not valid JSON: /)
    expect(await refused('--when', '{"body":{"sku":"A-1"}}', '--status', '7')).toMatch(/^✖ "status" "7" is not a status/)
    expect(await refused('--when', '{"nope":1}')).toBe('✖ "when.nope" is not something a request has: use params, query, headers, cookies, body or any')
  })

  it('--project picks another project\'s journal; an unknown one is refused as every command refuses it', async () => {
    expect(await shop.ok('requests', '--project', 'other')).toBe('no requests match\n')
    const unknown = await shop.run('requests', '--project', 'nope')
    const elsewhere = await shop.run('endpoints', '--project', 'nope')
    expect([unknown.code, unknown.stderr]).toEqual([1, elsewhere.stderr])
    expect(unknown.stderr).toMatch(/no project with slug "nope"/)
  })

  it('--url gives the address; with --token it needs no database here', async () => {
    const entries = JSON.parse(await shop.ok('requests', '--json', '--url', `${run.url}/`)) as JournalEntry[]
    expect(entries).toHaveLength(5)
    const token = (await shop.ok('token', '--project', 'shop')).trim()
    const elsewhere = tempDir()
    const remote = await cli(['requests', '--url', run.url, '--token', token, '--json'], { cwd: elsewhere })
    expect(remote.code, remote.stderr).toBe(0)
    expect((JSON.parse(remote.stdout) as JournalEntry[]).map((entry) => entry.id)).toEqual([5, 4, 3, 2, 1])
    // Without --project, the token's only project; a token of every project takes the default one.
    const everyProject = (await shop.ok('token')).trim()
    const byDefault = await cli(['requests', '--url', run.url, '--token', everyProject, '--status', '201'], { cwd: elsewhere })
    expect(byDefault.stdout).toMatch(/^3 /m)
    const other = await cli(['requests', '--url', run.url, '--token', everyProject, '--project', 'other'], { cwd: elsewhere })
    expect(other.stdout).toBe('no requests match\n')
    const notSeen = await cli(['requests', '--url', run.url, '--token', token, '--project', 'other'], { cwd: elsewhere })
    expect([notSeen.code, notSeen.stderr.trim()]).toEqual([1, `✖ ${run.url} serves no project "other" this token may see (it sees: shop)`])
    const notUrl = await shop.run('requests', '--url', 'localhost 3000')
    expect([notUrl.code, notUrl.stderr.trim()]).toEqual([1, '✖ --url localhost 3000 is not a URL: give the serve\'s address, such as http://localhost:3000'])
  })

  it('a token the serve does not take gets its 401 or 403 message', async () => {
    const stranger = cliWorkspace()
    await stranger.ok('init', '--yes', '--slug', 'shop')
    const foreign = (await stranger.ok('token')).trim()
    const unsigned = await shop.run('requests', '--token', foreign)
    expect([unsigned.code, unsigned.stderr.trim()]).toEqual([1, '✖ the token signature does not match this database'])
    const otherOnly = (await shop.ok('token', '--project', 'other')).trim()
    const forbidden = await shop.run('requests', '--project', 'shop', '--token', otherOnly)
    expect([forbidden.code, forbidden.stderr.trim()]).toEqual([1, '✖ this token is limited to project 2'])
    // A token minted here, sent with --url to a serve of another database: the hint says what to do.
    const theirs = await serveCli(['--db', stranger.db, 'serve', '--port', '0', '--quiet'], { cwd: stranger.cwd })
    const minted = await shop.run('requests', '--url', theirs.url)
    expect(minted.code).toBe(1)
    expect(minted.stderr.trim()).toBe(`✖ the token signature does not match this database (a token of this database: if ${theirs.url} serves another one, pass --token with a token of its own)`)
    await theirs.stop()
  })
})

describe('mockapi requests --clear', () => {
  it('empties the project\'s journal (another project\'s stays); ids go on; it takes no filter', async () => {
    const shop = await shopWorkspace()
    const run = await serveCli(['--db', shop.db, 'serve', '--port', '0', '--quiet'], { cwd: shop.cwd })
    await send(`${run.url}/api/shop/orders`, { overSocket: true })
    await send(`${run.url}/api/other/nothing`, { overSocket: true })
    expect(await shop.ok('requests', '--clear')).toBe('✔ the journal of shop is empty\n')
    expect(await shop.ok('requests')).toBe('no requests match\n')
    expect((JSON.parse(await shop.ok('requests', '--project', 'other', '--json')) as JournalEntry[]).map((entry) => entry.path)).toEqual(['/api/other/nothing'])
    await send(`${run.url}/api/shop/orders`, { overSocket: true })
    expect((JSON.parse(await shop.ok('requests', '--json')) as JournalEntry[]).map((entry) => entry.id)).toEqual([3])
    const narrowed = await shop.run('requests', '--clear', '--method', 'GET', '--unmatched')
    expect([narrowed.code, narrowed.stderr.trim()]).toEqual([1, '✖ --clear empties the whole journal of the project: it takes no --method, --unmatched'])
    expect(JSON.parse(await shop.ok('requests', '--json'))).toHaveLength(1)
  })
})

describe('mockapi requests without a serve to ask', () => {
  it('no serve of this database: says so and how to start one; once a serve stops, the same', async () => {
    const shop = await shopWorkspace()
    const none = await shop.run('requests')
    expect([none.code, none.stdout, none.stderr.trim()]).toEqual([1, '', '✖ no serve of this database is running (the journal lives in the serve): start `mockapi serve`, or pass --url'])
    const run = await serveCli(['--db', shop.db, 'serve', '--port', '0', '--quiet'], { cwd: shop.cwd })
    expect(await shop.ok('requests')).toBe('no requests match\n')
    await run.stop()
    expect((await shop.run('requests')).stderr).toMatch(/no serve of this database is running/)
  })

  it('--url to a closed port: does not answer, exit 1', async () => {
    const shop = await shopWorkspace()
    const port = await closedPort()
    const refused = await shop.run('requests', '--url', `http://127.0.0.1:${port}`)
    expect([refused.code, refused.stderr.trim()]).toEqual([1, `✖ the serve at http://127.0.0.1:${port} does not answer (ECONNREFUSED): is it running?`])
  })

  it('--url to something that takes the connection and never answers: gives up after 5 s', async () => {
    const shop = await shopWorkspace()
    const sockets: Socket[] = []
    const silent: Server = createServer((socket) => void sockets.push(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`
    try {
      const started = Date.now()
      const stuck = await shop.run('requests', '--url', url)
      expect([stuck.code, stuck.stderr.trim()]).toEqual([1, `✖ the serve at ${url} did not answer within 5 s`])
      expect(Date.now() - started).toBeLessThan(9_000)
    } finally {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
    }
  }, 20_000)

  it('a serve run with --journal 0 answers 409, and the command says why', async () => {
    const shop = await shopWorkspace()
    await serveCli(['--db', shop.db, 'serve', '--port', '0', '--journal', '0', '--quiet'], { cwd: shop.cwd })
    const off = await shop.run('requests')
    expect([off.code, off.stderr.trim()]).toEqual([1, '✖ this serve keeps no journal of requests (--journal 0)'])
  })
})

describe('mockapi requests, the binary beside a spawned serve', () => {
  it('finds the serve from the database and prints what it kept', async () => {
    expectFreshBuild()
    const cwd = tempDir()
    const db = join(cwd, 'e2e.db')
    expect(cliProcess(['--db', db, 'init', '--yes', '--slug', 'shop', '--resource', '/api/orders'], { cwd }).code).toBe(0)
    const served = await spawnServe(['--db', db, 'serve', '--port', '0', '--quiet'], { cwd })
    await fetch(`${served.url}/api/shop/orders`)
    await fetch(`${served.url}/api/shop/ordres`)
    const listed = cliProcess(['--db', db, 'requests'], { cwd })
    expect(listed.code, listed.stderr).toBe(0)
    const out = lines(listed.stdout)
    expect(out[1]).toMatch(/^2 +\S+ +GET +\/api\/shop\/ordres +404 +\S+ +unmatched$/)
    expect(out[2]).toBe('    near miss GET /api/shop/orders: segment 2 is "ordres", expected "orders"')
    expect(out.at(-1)).toMatch(/^1 +\S+ +GET +\/api\/shop\/orders +200 +\S+ +endpoint \d+$/)
  }, 30_000)
})
