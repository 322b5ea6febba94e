import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { mintToken } from '../../src/domain/auth.ts'
import { startServer, type RunningServer } from '../../src/server/start.ts'
import { cleanup, cliWorkspace, expectAliveAndIntact, openStore, send } from '../_helpers.ts'

afterAll(cleanup)

const running: RunningServer[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()))
})

// A real 1×1 PNG: its first bytes are not UTF-8, so any text handling would corrupt it.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

async function serveWorkspace(setup: (ws: ReturnType<typeof cliWorkspace>) => Promise<void>) {
  const ws = cliWorkspace()
  await ws.ok('init', '--yes', '--slug', 'r')
  writeFileSync(join(ws.cwd, 'avatar.png'), PNG)
  await setup(ws)
  const server = await startServer({ dbPath: ws.db, port: 0, host: '127.0.0.1', demo: false })
  running.push(server)
  const { context } = openStore(ws.db)
  const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
  return { ...ws, url: server.url, context, auth }
}

/** The answer's bytes as they came, over a real socket. */
async function bytesOf(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init)
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) }
}

const fileCount = (context: { db: { prepare: (sql: string) => { get: () => unknown } } }) => (context.db.prepare('SELECT count(*) AS n FROM response_files').get() as { n: number }).n

const avatarRules = async (ws: ReturnType<typeof cliWorkspace>) => {
  await ws.ok('add-endpoint', 'GET', '/api/avatar', '--body', '{"note":"endpoint"}')
  await ws.ok('response', 'add', 'GET', '/api/avatar', '--name', 'hello', '--when', '{"query":{"as":"text"}}', '--text', 'Hello {{query.name}}!')
  await ws.ok('response', 'add', 'GET', '/api/avatar', '--name', 'png', '--when', '{"query":{"as":"png"}}', '--file', 'avatar.png', '--header', 'Cache-Control: max-age=60')
  await ws.ok('response', 'add', 'GET', '/api/avatar', '--name', 'csv', '--when', '{"query":{"as":"csv"}}', '--text', 'a,b\n1,2\n', '--content-type', 'text/csv; charset=utf-8')
}

describe('a response answers text or a file', () => {
  it('a rule answers a text template, another a file byte for byte (HEAD too), another its own content type', async () => {
    const { url, db } = await serveWorkspace(avatarRules)
    const text = await bytesOf(`${url}/api/avatar?as=text&name=Ada`)
    expect([text.status, text.headers.get('content-type'), text.bytes.toString()]).toEqual([200, 'text/plain; charset=utf-8', 'Hello Ada!'])
    const png = await bytesOf(`${url}/api/avatar?as=png`)
    expect(png.status).toBe(200)
    expect(png.bytes.equals(PNG)).toBe(true)
    expect(png.headers.get('content-type')).toBe('image/png')
    expect(png.headers.get('content-length')).toBe(String(PNG.byteLength))
    expect(png.headers.get('cache-control')).toBe('max-age=60')
    const head = await bytesOf(`${url}/api/avatar?as=png`, { method: 'HEAD' })
    expect([head.status, head.headers.get('content-type'), head.headers.get('content-length'), head.bytes.byteLength]).toEqual([200, 'image/png', String(PNG.byteLength), 0])
    const csv = await bytesOf(`${url}/api/avatar?as=csv`)
    expect([csv.headers.get('content-type'), csv.bytes.toString()]).toEqual(['text/csv; charset=utf-8', 'a,b\n1,2\n'])
    // No rule holds and there is no fallback: the endpoint's own JSON.
    const own = await bytesOf(`${url}/api/avatar`)
    expect([own.headers.get('content-type'), JSON.parse(own.bytes.toString())]).toEqual(['application/json; charset=utf-8', { note: 'endpoint' }])
    await expectAliveAndIntact(url, db)
  })

  it('endpoint show and response list describe them', async () => {
    const { ok } = await serveWorkspace(avatarRules)
    const shown = await ok('endpoint', 'show', 'GET', '/api/avatar')
    expect(shown).toContain('#1 hello  when query.as = text → endpoint status, text')
    expect(shown).toContain(`#2 png  when query.as = png → endpoint status, file avatar.png (${PNG.byteLength} bytes), headers Cache-Control`)
    expect(shown).toContain('#3 csv  when query.as = csv → endpoint status, text, content type text/csv; charset=utf-8')
    // Each response's header values and body, on indented lines under it.
    expect(shown).toContain(`#1 hello  when query.as = text → endpoint status, text\n${' '.repeat(16)}text   "Hello {{query.name}}!"\n`)
    expect(shown).toContain(`headers Cache-Control\n${' '.repeat(16)}header Cache-Control: max-age=60\n`)
    expect(shown).toContain(`${' '.repeat(16)}text   "a,b\\n1,2\\n"\n`)
    await ok('add-endpoint', 'POST', '/api/plains', '--body', '{"ok":1}')
    expect(await ok('endpoint', 'show', 'POST', '/api/plains')).not.toMatch(/^pick/m)
    await ok('endpoint', 'set', 'POST', '/api/plains', '--pick', 'random')
    expect(await ok('endpoint', 'show', 'POST', '/api/plains')).toMatch(/^pick {9}random$/m)
    const long = `{"a":"${'1234567890'.repeat(12)}"}`
    await ok('response', 'add', 'POST', '/api/plains', '--header', 'X-One: {{uuid}}', '--body', long)
    const plains = await ok('endpoint', 'show', 'POST', '/api/plains')
    expect(plains).toContain(`${' '.repeat(16)}header X-One: {{uuid}}\n`)
    expect(plains).toContain(`${' '.repeat(16)}${`body   ${long}`.slice(0, 99)}…\n`)
    expect(await ok('response', 'list', 'POST', '/api/plains')).toMatch(/HEADERS +BODY[^\n]*\n1 +\S* +\d+ +X-One: \{\{uuid\}\} +\{"a":"1234/)
    const listed = await ok('response', 'list', 'GET', '/api/avatar')
    expect(listed).toContain('Cache-Control: max-age=60')
    expect(listed).toContain('text "Hello {{query.name}}!"')
    expect(listed).toContain(`file avatar.png (${PNG.byteLength} bytes)`)
    expect(listed).toContain('(text/csv; charset=utf-8)')
    const json = JSON.parse(await ok('response', 'list', 'GET', '/api/avatar', '--json'))
    expect(json.responses[1]).toEqual({ name: 'png', when: { query: { as: 'png' } }, headers: { 'Cache-Control': 'max-age=60' }, file: { id: expect.any(Number), name: 'avatar.png', size: PNG.byteLength } })
  })
})

describe('project files', () => {
  it('apply reads `file: ./x.png` relative to the project file; export → apply → export is identical and the bytes exact', async () => {
    const ws = cliWorkspace()
    mkdirSync(join(ws.cwd, 'project', 'assets'), { recursive: true })
    writeFileSync(join(ws.cwd, 'project', 'assets', 'avatar.png'), PNG)
    writeFileSync(join(ws.cwd, 'project', 'mockapi.yaml'), `name: Files
slug: f
endpoints:
  - method: GET
    path: /api/avatar
    responses:
      - when: { query: { size: small } }
        file: ./assets/avatar.png
      - when: { query: { as: text } }
        text: 'hi {{query.name}}'
        contentType: text/markdown
      - status: 404
`)
    const applied = await ws.ok('apply', 'project/mockapi.yaml')
    expect(applied).toMatch(/endpoint/)
    const exported = await ws.ok('export', '--project', 'f')
    expect(exported).toContain(`base64: ${PNG.toString('base64')}`)
    expect(exported).toContain('contentType: text/markdown')
    writeFileSync(join(ws.cwd, 'again.yaml'), exported)
    expect(await ws.ok('apply', 'again.yaml')).not.toMatch(/~ endpoint/)
    const other = cliWorkspace()
    writeFileSync(join(other.cwd, 'mockapi.yaml'), exported)
    await other.ok('apply', 'mockapi.yaml')
    expect(await other.ok('export', '--project', 'f')).toBe(exported)
    const server = await startServer({ dbPath: other.db, port: 0, host: '127.0.0.1', demo: false })
    running.push(server)
    const png = await bytesOf(`${server.url}/api/avatar?size=small`)
    expect(png.bytes.equals(PNG)).toBe(true)
    expect(png.headers.get('content-type')).toBe('image/png')
    const text = await bytesOf(`${server.url}/api/avatar?as=text&name=Bo`)
    expect([text.headers.get('content-type'), text.bytes.toString()]).toEqual(['text/markdown', 'hi Bo'])
    expect((await bytesOf(`${server.url}/api/avatar`)).status).toBe(404)
  })

  it('refuses two bodies, a missing file and bad base64 with their line, applying nothing', async () => {
    const { cwd, run, ok } = cliWorkspace()
    const refused = async (response: string, message: RegExp) => {
      writeFileSync(join(cwd, 'bad.yaml'), `name: Bad\nslug: b\nendpoints:\n  - method: GET\n    path: /api/x\n    responses:\n      - ${response}\n`)
      const result = await run('apply', 'bad.yaml')
      expect(result.code).not.toBe(0)
      expect(result.stderr).toMatch(message)
    }
    await refused('{ text: a, body: { a: 1 } }', /endpoints\[0\]\.responses\[0\]\.text cannot be given with body/)
    await refused('{ file: ./nope.png }', /endpoints\[0\]\.responses\[0\]\.file .*cannot read/)
    await refused('{ file: { name: a.png, base64: "@@@" } }', /endpoints\[0\]\.responses\[0\]\.file\.base64 is not base64/)
    await refused('{ text: a, contentType: "not a type" }', /endpoints\[0\]\.responses\[0\]\.contentType .*type\/subtype/)
    expect(await ok('projects')).not.toMatch(/Bad/)
  })
})

describe('the management API', () => {
  it('takes text, file {name, base64} and contentType; keeps a listed file by its id; PUT and GET a response file as bytes', async () => {
    const { url, db, auth } = await serveWorkspace(async (ws) => {
      await ws.ok('add-endpoint', 'GET', '/api/things', '--body', '{}')
    })
    const id = (await send(`${url}/api/projects/1/endpoints`, { headers: auth })).json.find((e: { path: string }) => e.path === '/api/things').id
    const base = `${url}/api/projects/1/endpoints/${id}/responses`
    const added = await send(base, { method: 'POST', body: { when: { query: { f: '1' } }, file: { name: 'a.png', base64: PNG.toString('base64') } }, headers: auth })
    expect(added.status).toBe(201)
    expect(added.json.responses).toEqual([{ when: { query: { f: '1' } }, file: { id: expect.any(Number), name: 'a.png', size: PNG.byteLength } }])
    const patch = (body: unknown) => send(`${url}/api/projects/1/endpoints/${id}`, { method: 'PATCH', body, headers: auth })
    // The list as GET shows it, sent back with one more response: the file is kept by its id.
    const listed = (await send(base, { headers: auth })).json.responses
    const kept = await patch({ responses: [...listed, { text: 'plain {{query.n}}', contentType: 'text/x-plain' }] })
    expect(kept.status).toBe(200)
    expect(kept.json.responses[0].file).toEqual(listed[0].file)
    expect((await bytesOf(`${url}/api/things?f=1`)).bytes.equals(PNG)).toBe(true)
    const text = await bytesOf(`${url}/api/things?n=3`)
    expect([text.headers.get('content-type'), text.bytes.toString()]).toEqual(['text/x-plain', 'plain 3'])
    // Raw bytes past the JSON body limit's shape, and back.
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')
    const put = await fetch(`${base}/2/file?name=logo.svg`, { method: 'PUT', body: svg, headers: auth })
    expect(put.status).toBe(200)
    const afterPut = (await put.json()) as { responses: { file?: { name: string }; text?: string; contentType?: string }[] }
    expect(afterPut.responses[1]).toEqual({ file: { id: expect.any(Number), name: 'logo.svg', size: svg.byteLength }, contentType: 'text/x-plain' })
    const back = await bytesOf(`${base}/2/file`, { headers: auth })
    expect(back.bytes.equals(svg)).toBe(true)
    expect((await send(`${base}/1/file?name=x.png`, { method: 'PUT', headers: auth })).status).toBe(200)
    expect((await send(`${base}/9/file`, { headers: auth })).status).toBe(404)
    await expectAliveAndIntact(url, db)
  })

  it('refusals name the field and change nothing: two bodies, bad base64, oversize text or file, a file id of nothing', async () => {
    const { url, db, auth, context } = await serveWorkspace(async (ws) => {
      await ws.ok('add-endpoint', 'GET', '/api/things', '--body', '{}')
      await ws.ok('response', 'add', 'GET', '/api/things', '--file', 'avatar.png')
    })
    const id = (await send(`${url}/api/projects/1/endpoints`, { headers: auth })).json.find((e: { path: string }) => e.path === '/api/things').id
    const base = `${url}/api/projects/1/endpoints/${id}/responses`
    const before = (await send(base, { headers: auth })).json
    const files = fileCount(context)
    const patch = (body: unknown) => send(`${url}/api/projects/1/endpoints/${id}`, { method: 'PATCH', body, headers: auth })
    const fieldOf = async (body: unknown) => {
      const answer = await patch({ responses: [body] })
      expect(answer.status).toBe(400)
      return answer.json.error.details[0].field as string
    }
    const png64 = PNG.toString('base64')
    expect(await fieldOf({ body: { a: 1 }, text: 'x' })).toBe('responses[0].text')
    expect(await fieldOf({ text: 'x', file: { name: 'a.png', base64: png64 } })).toBe('responses[0].file')
    expect(await fieldOf({ file: { name: 'a.png', base64: '%%%' } })).toBe('responses[0].file.base64')
    expect(await fieldOf({ file: { name: 'a.png' } })).toBe('responses[0].file')
    expect(await fieldOf({ file: { id: 99999 } })).toBe('responses[0].file.id')
    // Over the API's JSON limit before any check: 413, as any body.
    expect((await patch({ responses: [{ text: 'x'.repeat(1024 * 1024 + 1) }] })).status).toBe(413)
    expect(await fieldOf({ text: 'x', contentType: 'text' })).toBe('responses[0].contentType')
    expect(await fieldOf({ text: 'bad {{nope.x}}' })).toBe('responses[0].text')
    const tooBig = await fetch(`${base}/1/file?name=big.bin`, { method: 'PUT', body: Buffer.alloc(5 * 1024 * 1024 + 1), headers: auth })
    expect(tooBig.status).toBe(413)
    expect((await send(base, { headers: auth })).json).toEqual(before)
    expect(fileCount(context)).toBe(files)
    // The response gone, its file goes; its old id then names nothing.
    expect((await patch({ responses: [{ body: {} }] })).status).toBe(200)
    expect(fileCount(context)).toBe(0)
    expect(await fieldOf(before.responses[0])).toBe('responses[0].file.id')
    await expectAliveAndIntact(url, db)
  })

  it('concurrent additions of the same file keep every response and store the bytes once', async () => {
    const { url, db, auth, context } = await serveWorkspace(async (ws) => {
      await ws.ok('add-endpoint', 'GET', '/api/things', '--body', '{}')
    })
    const id = (await send(`${url}/api/projects/1/endpoints`, { headers: auth })).json.find((e: { path: string }) => e.path === '/api/things').id
    const base = `${url}/api/projects/1/endpoints/${id}/responses`
    // Large enough that each body arrives in several chunks, so the requests interleave.
    const big = Buffer.concat([PNG, Buffer.alloc(600 * 1024, 7)])
    const file = { name: 'a.png', base64: big.toString('base64') }
    const answers = await Promise.all([1, 2, 3, 4].map((n) => send(base, { method: 'POST', body: { when: { query: { n: String(n) } }, file }, headers: auth, overSocket: true })))
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201])
    const { responses } = (await send(base, { headers: auth })).json as { responses: { when: { query: { n: string } }; file: { id: number } }[] }
    expect(responses.map((r) => r.when.query.n).sort()).toEqual(['1', '2', '3', '4'])
    expect(new Set(responses.map((r) => r.file.id)).size).toBe(1)
    expect(fileCount(context)).toBe(1)
    expect((await bytesOf(`${url}/api/things?n=3`)).bytes.equals(big)).toBe(true)
    await expectAliveAndIntact(url, db)
  })

  it('the CLI refuses two bodies and a text over 1 MiB, and stores nothing', async () => {
    const ws = cliWorkspace()
    await ws.ok('init', '--yes', '--slug', 'r')
    writeFileSync(join(ws.cwd, 'avatar.png'), PNG)
    await ws.ok('add-endpoint', 'GET', '/api/things', '--body', '{}')
    const refused = await ws.run('response', 'add', 'GET', '/api/things', '--text', 'a', '--file', 'avatar.png')
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(/responses\[0\]\.file: cannot be given with text/)
    writeFileSync(join(ws.cwd, 'big.txt'), 'x'.repeat(1024 * 1024 + 1))
    const big = await ws.run('response', 'add', 'GET', '/api/things', '--text', '@big.txt')
    expect(big.code).not.toBe(0)
    expect(big.stderr).toMatch(/responses\[0\]\.text: text body is 1048577 bytes; at most 1 MiB/)
    const { context } = openStore(ws.db)
    expect(fileCount(context)).toBe(0)
    expect(await ws.ok('response', 'list', 'GET', '/api/things')).toMatch(/no responses/)
  })
})

describe('files shared by an endpoint and a response', () => {
  it('survive removing either; the last user gone, the file goes', async () => {
    const { url, db, ok, context } = await serveWorkspace(async (ws) => {
      await ws.ok('add-endpoint', 'GET', '/api/avatar', '--file', 'avatar.png')
      await ws.ok('response', 'add', 'GET', '/api/avatar', '--when', '{"query":{"r":"1"}}', '--file', 'avatar.png')
    })
    // The same name and bytes are stored once.
    expect(fileCount(context)).toBe(1)
    await ok('endpoint', 'set', 'GET', '/api/avatar', '--body', '{"plain":true}')
    expect(fileCount(context)).toBe(1)
    expect((await bytesOf(`${url}/api/avatar?r=1`)).bytes.equals(PNG)).toBe(true)
    await ok('endpoint', 'set', 'GET', '/api/avatar', '--file', 'avatar.png')
    await ok('response', 'remove', 'GET', '/api/avatar', '1')
    expect(fileCount(context)).toBe(1)
    expect((await bytesOf(`${url}/api/avatar?r=1`)).bytes.equals(PNG)).toBe(true)
    // A response on another endpoint keeps it while this endpoint goes.
    await ok('add-endpoint', 'GET', '/api/other', '--body', '{}')
    await ok('response', 'add', 'GET', '/api/other', '--file', 'avatar.png')
    await ok('endpoint', 'set', 'GET', '/api/avatar', '--body', '{}')
    expect(fileCount(context)).toBe(1)
    expect((await bytesOf(`${url}/api/other`)).bytes.equals(PNG)).toBe(true)
    await ok('response', 'remove', 'GET', '/api/other', '1')
    expect(fileCount(context)).toBe(0)
    await expectAliveAndIntact(url, db)
  })
})
