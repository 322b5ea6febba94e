import Database from 'better-sqlite3'
import { writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { bodyText } from '../../src/domain/journal-view.ts'
import type { RunningServer } from '../../src/server/start.ts'
import { configureEndpoint, requireEndpoint } from '../../src/domain/endpoint-config.ts'
import { loadFaker } from '../../src/engine/generators.ts'
import { cleanup, cliWorkspace, expectAliveAndIntact, heldRequest, openStore, send, serve, spawnServe, tempDir, waitFor, type CliWorkspace } from '../_helpers.ts'

// A real 1×1 PNG: its first bytes are not UTF-8, so any text handling would corrupt it.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

let ws: CliWorkspace
let server: RunningServer
let url: string
let base: string
let auth: Record<string, string>

const fileRows = () => {
  const db = new Database(ws.db, { readonly: true })
  try {
    return db.prepare('SELECT name, size FROM response_files ORDER BY id').all() as { name: string; size: number }[]
  } finally {
    db.close()
  }
}

beforeAll(async () => {
  ws = cliWorkspace()
  await ws.ok('init', '--yes', '--slug', 'b', '--resource', '/api/items')
  writeFileSync(join(ws.cwd, 'avatar.png'), PNG)
  auth = { Authorization: `Bearer ${await mintToken(openStore(ws.db).context, { expiresInMs: 60_000 })}` }
  server = await serve(ws.db)
  url = server.url
  base = `${url}/api/b`
})
afterAll(cleanup)

describe('file bodies', () => {
  it('answers a file given with --file byte for byte, typed by its extension, HEAD with the same headers', async () => {
    await ws.ok('add-endpoint', 'GET', '/api/avatar', '--file', 'avatar.png')
    const answer = await fetch(`${base}/avatar`)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('image/png')
    expect(answer.headers.get('content-length')).toBe(String(PNG.byteLength))
    expect(Buffer.from(await answer.arrayBuffer()).equals(PNG)).toBe(true)
    const head = await fetch(`${base}/avatar`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toBe('image/png')
    expect(head.headers.get('content-length')).toBe(String(PNG.byteLength))
    expect((await head.arrayBuffer()).byteLength).toBe(0)
    const show = await ws.ok('endpoint', 'show', 'GET', '/api/avatar')
    expect(show).toContain(`body         file avatar.png (${PNG.byteLength} bytes, image/png)`)
    const view = JSON.parse(await ws.ok('endpoint', 'show', 'GET', '/api/avatar', '--json'))
    expect(view).toMatchObject({ bodyType: 'file', body: null, text: null, file: { name: 'avatar.png', size: PNG.byteLength }, contentType: null })
  })

  it('refuses --body @avatar.png as not JSON and points at --file, adding nothing', async () => {
    const refused = await ws.run('add-endpoint', 'GET', '/api/picture', '--body', '@avatar.png')
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toBe('✖ response body avatar.png is not valid JSON; to answer a file as it is, use --file avatar.png\n')
    expect((await ws.run('endpoint', 'show', 'GET', '/api/picture')).code).not.toBe(0)
  })

  it('refuses a file over 5 MiB, a missing one, and two bodies at once, changing nothing', async () => {
    writeFileSync(join(ws.cwd, 'big.bin'), Buffer.alloc(5 * 1024 * 1024 + 1))
    const before = await ws.ok('endpoint', 'show', 'GET', '/api/avatar', '--json')
    const big = await ws.run('endpoint', 'set', 'GET', '/api/avatar', '--file', 'big.bin')
    expect(big.stderr).toContain('is 5242881 bytes; a response file may be at most 5 MiB (5242880 bytes)')
    const missing = await ws.run('endpoint', 'set', 'GET', '/api/avatar', '--file', 'nope.png')
    expect(missing.stderr).toMatch(/cannot read .*nope\.png: ENOENT/)
    const both = await ws.run('endpoint', 'set', 'GET', '/api/avatar', '--text', 'hi', '--body', '{}')
    expect(both.stderr).toContain('give only one of body (JSON), text and file')
    const added = await ws.run('add-endpoint', 'GET', '/api/both', '--text', 'hi', '--file', 'avatar.png')
    expect(added.stderr).toContain('give only one of body (JSON), text and file')
    expect((await ws.run('endpoint', 'show', 'GET', '/api/both')).code).not.toBe(0)
    for (const bodies of [['--text', 'a', '--body', '{}'], ['--body', '{}', '--file', 'avatar.png']]) {
      const refused = await ws.run('add-endpoint', 'GET', '/api/both', ...bodies)
      expect(refused.stderr, bodies.join(' ')).toContain('give only one of body (JSON), text and file')
      expect((await ws.run('endpoint', 'show', 'GET', '/api/both')).code).not.toBe(0)
    }
    expect(await ws.ok('endpoint', 'show', 'GET', '/api/avatar', '--json')).toBe(before)
    expect(fileRows()).toEqual([{ name: 'avatar.png', size: PNG.byteLength }])
  })

  it('a content type overrides the extension; one with CR/LF or no subtype is refused', async () => {
    await ws.ok('endpoint', 'set', 'GET', '/api/avatar', '--content-type', 'image/x-png')
    expect((await fetch(`${base}/avatar`)).headers.get('content-type')).toBe('image/x-png')
    for (const bad of ['image/png\r\nX-Evil: 1', 'png', 'a/b c']) {
      const refused = await ws.run('endpoint', 'set', 'GET', '/api/avatar', '--content-type', bad)
      expect(refused.code).not.toBe(0)
      expect(refused.stderr).toMatch(/content type/)
    }
    await ws.ok('endpoint', 'set', 'GET', '/api/avatar', '--clear-content-type')
    expect((await fetch(`${base}/avatar`)).headers.get('content-type')).toBe('image/png')
  })

  it('an unknown extension is application/octet-stream; a file is stored once per name and bytes, and dropped with its last endpoint', async () => {
    writeFileSync(join(ws.cwd, 'blob.weird'), PNG)
    await ws.ok('add-endpoint', 'GET', '/api/blob', '--file', 'blob.weird')
    expect((await fetch(`${base}/blob`)).headers.get('content-type')).toBe('application/octet-stream')
    await ws.ok('add-endpoint', 'GET', '/api/avatar-copy', '--file', 'avatar.png')
    expect(fileRows().map((row) => row.name)).toEqual(['avatar.png', 'blob.weird'])
    await ws.ok('remove-endpoint', 'GET', '/api/avatar-copy')
    await ws.ok('remove-endpoint', 'GET', '/api/blob')
    expect(fileRows().map((row) => row.name)).toEqual(['avatar.png'])
  })
})

describe('text bodies', () => {
  it('answers text rendered as a template, text/plain by default, on a resource path too', async () => {
    await ws.ok('add-endpoint', 'GET', '/api/greeting', '--text', 'hello {{query.name}}\n')
    const answer = await send(`${base}/greeting?name=Ada`)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(answer.text).toBe('hello Ada\n')
    await ws.ok('endpoint', 'set', 'GET', '/api/items', '--text', 'id,name\n1,a\n', '--content-type', 'text/csv')
    const csv = await send(`${base}/items`)
    expect(csv.headers.get('content-type')).toBe('text/csv')
    expect(csv.text).toBe('id,name\n1,a\n')
    expect(await ws.ok('endpoint', 'show', 'GET', '/api/items')).toContain('body         text "id,name\\n1,a\\n" (12 bytes)')
    await ws.ok('endpoint', 'set', 'GET', '/api/items', '--clear-body')
    const records = await send(`${base}/items`)
    expect(Array.isArray(records.json)).toBe(true)
    expect(records.headers.get('content-type')).toBe('text/csv')
    await ws.ok('endpoint', 'set', 'GET', '/api/items', '--clear-content-type')
    expect((await send(`${base}/items`)).headers.get('content-type')).toBe('application/json; charset=utf-8')
  })

  it('refuses an unknown placeholder and text over 1 MiB when configured', async () => {
    const unknown = await ws.run('endpoint', 'set', 'GET', '/api/greeting', '--text', 'hi {{nope}}')
    expect(unknown.stderr).toContain('unknown name "nope"')
    writeFileSync(join(ws.cwd, 'long.txt'), 'x'.repeat(1024 * 1024 + 1))
    const long = await ws.run('endpoint', 'set', 'GET', '/api/greeting', '--text', '@long.txt')
    expect(long.stderr).toContain('text body is 1048577 bytes; at most 1 MiB')
    expect((await send(`${base}/greeting?name=Bo`)).text).toBe('hello Bo\n')
  })
})

describe('a configured Content-Type header', () => {
  it('is the one Content-Type sent, however it is spelled, on a fixed body and on records', async () => {
    await ws.ok('add-endpoint', 'GET', '/api/lower', '--body', '{"a":1}', '--header', 'content-type: text/x-lower')
    const lower = await fetch(`${base}/lower`)
    expect(lower.headers.get('content-type')).toBe('text/x-lower')
    expect(await lower.text()).toBe('{"a":1}')
    await ws.ok('endpoint', 'set', 'GET', '/api/items', '--header', 'CONTENT-TYPE: application/x-upper', '--header', 'access-control-allow-origin: https://app.example')
    const records = await fetch(`${base}/items`)
    expect(records.headers.get('content-type')).toBe('application/x-upper')
    expect(records.headers.get('access-control-allow-origin')).toBe('https://app.example')
    expect(Array.isArray(await records.json())).toBe(true)
    await ws.ok('endpoint', 'set', 'GET', '/api/items', '--clear-headers')
    expect((await fetch(`${base}/items`)).headers.get('content-type')).toBe('application/json; charset=utf-8')
  })
})

describe('templated headers', () => {
  it('renders header values per request: {{uuid}} differs, request values are read', async () => {
    await ws.ok('add-endpoint', 'POST', '/api/echo', '--body', '{"ok":true}', '--header', 'X-Req: {{uuid}}', '--header', 'X-Name: user {{body.name}}', '--header', 'X-Plain: {literal')
    const one = await send(`${base}/echo`, { method: 'POST', body: { name: 'Ada' } })
    const two = await send(`${base}/echo`, { method: 'POST', body: { name: 'Bo' } })
    expect(one.headers.get('x-req')).toMatch(/^[0-9a-f-]{36}$/)
    expect(two.headers.get('x-req')).toMatch(/^[0-9a-f-]{36}$/)
    expect(one.headers.get('x-req')).not.toBe(two.headers.get('x-req'))
    expect(one.headers.get('x-name')).toBe('user Ada')
    expect(two.headers.get('x-name')).toBe('user Bo')
    expect(one.headers.get('x-plain')).toBe('{literal')
    expect(one.json).toEqual({ ok: true })
  })

  it('reads cookies by name in headers, text and JSON bodies; a missing cookie is empty or null', async () => {
    await ws.ok('add-endpoint', 'GET', '/api/whoami', '--text', 'session {{cookies.sid}}', '--header', 'X-Theme: {{cookies.theme}}')
    await ws.ok('add-endpoint', 'GET', '/api/whoami-json', '--body', '{"sid":"{{cookies.sid}}","absent":"{{cookies.none}}"}')
    const text = await fetch(`${base}/whoami`, { headers: { cookie: 'sid="abc-1"; theme=dark' } })
    expect([await text.text(), text.headers.get('x-theme')]).toEqual(['session abc-1', 'dark'])
    const json = await send(`${base}/whoami-json`, { headers: { cookie: 'sid=s%2042' } })
    expect(json.json).toEqual({ sid: 's 42', absent: null })
  })

  it('a request value carrying CR, LF or NUL cannot add a header or split the response', async () => {
    const injected = await fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x\r\nX-Injected: yes\r\n\r\n<html>\u0000' }) })
    expect(injected.status).toBe(200)
    expect(injected.headers.get('x-injected')).toBeNull()
    expect(injected.headers.get('x-name')).toBe('user xX-Injected: yes<html>')
    expect(await injected.json()).toEqual({ ok: true })
    const unsendable = await fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: '😀' }) })
    expect(unsendable.status).toBe(200)
    expect(unsendable.headers.get('x-name')).toBeNull()
    expect(unsendable.headers.get('x-req')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('a rendered value longer than 8 KiB is left out, the answer still reaches the client', async () => {
    await ws.ok('add-endpoint', 'POST', '/api/echo-long', '--body', '{"ok":true}', '--header', 'X-Echo: {{body.v}}', '--header', 'X-Req: {{uuid}}')
    const echo = (v: string) => fetch(`${base}/echo-long`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ v }) })
    const huge = await echo('x'.repeat(200 * 1024))
    expect(huge.status).toBe(200)
    expect(huge.headers.get('x-echo')).toBeNull()
    expect(huge.headers.get('x-req')).toMatch(/^[0-9a-f-]{36}$/)
    expect(await huge.json()).toEqual({ ok: true })
    expect((await echo('y'.repeat(8192))).headers.get('x-echo')).toBe('y'.repeat(8192))
    expect((await echo('z'.repeat(8193))).headers.get('x-echo')).toBeNull()
  })

  it('refuses an unknown placeholder in a header when configured, naming the header', async () => {
    const refused = await ws.run('endpoint', 'set', 'POST', '/api/echo', '--header', 'X-Bad: {{nope.x}}')
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('header "X-Bad": template {{nope.x}}: unknown name "nope"')
    expect((await send(`${base}/echo`, { method: 'POST', body: {} })).headers.get('x-req')).toMatch(/^[0-9a-f-]{36}$/)
  })
})

describe('management API', () => {
  const endpointId = async (path: string) => ((await send(`${url}/api/projects/1/endpoints`, { headers: auth })).json as { id: number; path: string; method: string }[]).find((e) => e.path === path && e.method === 'GET')!.id

  it('PATCH sets text and contentType; two bodies at once are refused naming the field', async () => {
    const id = await endpointId('/api/greeting')
    const patched = await send(`${url}/api/projects/1/endpoints/${id}`, { method: 'PATCH', headers: auth, body: { text: '<p>{{query.name}}</p>', contentType: 'text/html; charset=utf-8' } })
    expect(patched.status).toBe(200)
    expect(patched.json).toMatchObject({ bodyType: 'text', text: '<p>{{query.name}}</p>', contentType: 'text/html; charset=utf-8', body: null, file: null })
    const page = await send(`${base}/greeting?name=Ada`)
    expect(page.text).toBe('<p>Ada</p>')
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const both = await send(`${url}/api/projects/1/endpoints/${id}`, { method: 'PATCH', headers: auth, body: { text: 'a', body: { a: 1 } } })
    expect(both.status).toBe(400)
    expect(both.json.error.details[0]).toMatchObject({ field: 'text' })
    const badType = await send(`${url}/api/projects/1/endpoints/${id}`, { method: 'PATCH', headers: auth, body: { contentType: 'text/html\r\nX: 1' } })
    expect(badType.status).toBe(400)
    expect(badType.json.error.details[0]).toMatchObject({ field: 'contentType' })
    expect((await send(`${base}/greeting?name=Bo`)).text).toBe('<p>Bo</p>')
  })

  it('PUT …/file uploads raw bytes, GET gives them back; PATCH takes {name, base64}; over 5 MiB is 413', async () => {
    const id = await endpointId('/api/greeting')
    const put = await fetch(`${url}/api/projects/1/endpoints/${id}/file?name=pixel.png`, { method: 'PUT', headers: auth, body: PNG })
    expect(put.status).toBe(200)
    expect(await put.json()).toMatchObject({ bodyType: 'file', file: { name: 'pixel.png', size: PNG.byteLength }, contentType: 'text/html; charset=utf-8' })
    const back = await fetch(`${url}/api/projects/1/endpoints/${id}/file`, { headers: auth })
    expect(Buffer.from(await back.arrayBuffer()).equals(PNG)).toBe(true)
    expect(back.headers.get('content-disposition')).toBe('attachment; filename="pixel.png"')
    await send(`${url}/api/projects/1/endpoints/${id}`, { method: 'PATCH', headers: auth, body: { contentType: null } })
    expect((await fetch(`${base}/greeting`)).headers.get('content-type')).toBe('image/png')
    const noName = await fetch(`${url}/api/projects/1/endpoints/${id}/file`, { method: 'PUT', headers: auth, body: PNG })
    expect(noName.status).toBe(400)
    const tooBig = await fetch(`${url}/api/projects/1/endpoints/${id}/file?name=big.bin`, { method: 'PUT', headers: auth, body: Buffer.alloc(5 * 1024 * 1024 + 1) })
    expect(tooBig.status).toBe(413)
    const patched = await send(`${url}/api/projects/1/endpoints/${id}`, { method: 'PATCH', headers: auth, body: { file: { name: 'hello.txt', base64: Buffer.from('hello').toString('base64') } } })
    expect(patched.json).toMatchObject({ bodyType: 'file', file: { name: 'hello.txt', size: 5 } })
    const hello = await send(`${base}/greeting`)
    expect([hello.text, hello.headers.get('content-type')]).toEqual(['hello', 'text/plain; charset=utf-8'])
    const badName = await fetch(`${url}/api/projects/1/endpoints/${id}/file?name=..`, { method: 'PUT', headers: auth, body: PNG })
    expect(badName.status).toBe(400)
    expect(((await badName.json()) as { error: { message: string } }).error.message).toContain('file name ".." must name a file')
    const notText = await send(`${url}/api/projects/1/endpoints/${id}`, { method: 'PATCH', headers: auth, body: { text: 5 } })
    expect(notText.json.error.details[0]).toMatchObject({ field: 'text', message: 'must be a string (the text answered)' })
    const notBase64 = await send(`${url}/api/projects/1/endpoints/${id}`, { method: 'PATCH', headers: auth, body: { file: { name: 'a.txt', base64: '***' } } })
    expect(notBase64.status).toBe(400)
    expect(notBase64.json.error.details[0]).toMatchObject({ field: 'file.base64' })
  })
})

describe('project files', () => {
  it('export writes the file as base64 so it stands alone; apply elsewhere answers the same bytes, twice changes nothing', async () => {
    await ws.ok('add-endpoint', 'GET', '/api/readme', '--text', 'line one\nline two {{now}}\n')
    const exported = await ws.ok('export', '--project', 'b')
    expect(exported).toContain('file:\n      name: avatar.png\n      base64: iVBORw0KGgo')
    expect(exported).toContain('    text: |\n      line one\n      line two {{now}}\n')
    const copy = cliWorkspace()
    writeFileSync(join(copy.cwd, 'b.yaml'), exported)
    await copy.ok('apply', 'b.yaml')
    expect((await copy.run('apply', 'b.yaml')).stdout).not.toMatch(/^[~+-] /m)
    expect(await copy.ok('export', '--project', 'b')).toBe(exported)
    const other = await serve(copy.db)
    const answer = await fetch(`${other.url}/api/b/avatar`)
    expect(Buffer.from(await answer.arrayBuffer()).equals(PNG)).toBe(true)
  })

  it('reads file: ./avatar.png relative to the project file, and names the line of a file it cannot read', async () => {
    const folder = tempDir()
    mkdirSync(join(folder, 'mocks', 'assets'), { recursive: true })
    writeFileSync(join(folder, 'mocks', 'assets', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
    writeFileSync(join(folder, 'mocks', 'api.yaml'), 'name: Files\nslug: files\nendpoints:\n  - method: GET\n    path: /api/logo\n    file: ./assets/logo.svg\n  - method: GET\n    path: /api/report\n    text: "a,b"\n    contentType: text/csv\n')
    const other = cliWorkspace()
    await other.ok('apply', join(folder, 'mocks', 'api.yaml'))
    const server = await serve(other.db)
    const logo = await send(`${server.url}/api/files/logo`)
    expect([logo.text, logo.headers.get('content-type')]).toEqual(['<svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml'])
    expect((await send(`${server.url}/api/files/report`)).headers.get('content-type')).toBe('text/csv')
    writeFileSync(join(folder, 'mocks', 'broken.yaml'), 'name: Broken\nendpoints:\n  - method: GET\n    path: /api/x\n    file: ./missing.png\n')
    const missing = await other.run('apply', join(folder, 'mocks', 'broken.yaml'))
    expect(missing.stderr).toMatch(/broken\.yaml, line 5: endpoints\[0\]\.file cannot read \.\/missing\.png .*ENOENT/)
    writeFileSync(join(folder, 'mocks', 'two.yaml'), 'name: Two\nendpoints:\n  - method: GET\n    path: /api/x\n    text: a\n    body: {a: 1}\n')
    expect((await other.run('apply', join(folder, 'mocks', 'two.yaml'))).stderr).toContain('line 3: endpoints[0] has more than one of body, text and file')
    writeFileSync(join(folder, 'mocks', 'typo.yaml'), 'name: Typo\nendpoints:\n  - method: GET\n    path: /api/x\n    file: {name: a.png, base46: AAAA}\n')
    expect((await other.run('apply', join(folder, 'mocks', 'typo.yaml'))).stderr).toContain('unknown key "base46" in endpoints[0].file; did you mean "base64"?')
    writeFileSync(join(folder, 'mocks', 'big.yaml'), `name: Big\nendpoints:\n  - method: GET\n    path: /api/x\n    file:\n      name: big.bin\n      base64: ${Buffer.alloc(5 * 1024 * 1024 + 3).toString('base64')}\n`)
    expect((await other.run('apply', join(folder, 'mocks', 'big.yaml'))).stderr).toContain('line 7: endpoints[0].file.base64 holds 5242883 bytes; a response file may be at most 5 MiB')
    writeFileSync(join(folder, 'mocks', 'bad64.yaml'), 'name: Bad\nendpoints:\n  - method: GET\n    path: /api/x\n    file: {name: a.png, base64: "not base64!"}\n')
    expect((await other.run('apply', join(folder, 'mocks', 'bad64.yaml'))).stderr).toContain('endpoints[0].file.base64 is not base64')
    writeFileSync(join(folder, 'mocks', 'type.yaml'), 'name: Type\nendpoints:\n  - method: GET\n    path: /api/x\n    contentType: nope\n')
    expect((await other.run('apply', join(folder, 'mocks', 'type.yaml'))).stderr).toMatch(/^✖ .*type\.yaml, line 5: endpoints\[0\]\.contentType is not valid: content type "nope" must look like type\/subtype/)
    writeFileSync(join(folder, 'mocks', 'header.yaml'), 'name: Header\nendpoints:\n  - method: GET\n    path: /api/x\n    headers:\n      X-Ok: plain\n      X-A: "{{nope}}"\n')
    expect((await other.run('apply', join(folder, 'mocks', 'header.yaml'))).stderr).toMatch(/^✖ .*header\.yaml, line 7: endpoints\[0\]\.headers\.X-A is not valid: template \{\{nope\}\}: unknown name "nope"/)
    writeFileSync(join(folder, 'mocks', 'templates.yaml'), 'name: Templates\nendpoints:\n  - method: GET\n    path: /api/x\n    text: "hi {{faker.nope.x}}"\n  - method: GET\n    path: /api/y\n    body: {a: "{{nope}}"}\n')
    expect((await other.run('apply', join(folder, 'mocks', 'templates.yaml'))).stderr).toMatch(/^✖ .*templates\.yaml, line 5: endpoints\[0\]\.text is not valid: .*unknown generator "nope\.x"/)
    writeFileSync(join(folder, 'mocks', 'templates.yaml'), 'name: Templates\nendpoints:\n  - method: GET\n    path: /api/y\n    body: {a: "{{nope}}"}\n')
    expect((await other.run('apply', join(folder, 'mocks', 'templates.yaml'))).stderr).toMatch(/^✖ .*templates\.yaml, line 5: endpoints\[0\]\.body is not valid: template \{\{nope\}\}: unknown name "nope"/)
    expect((JSON.parse(await other.ok('projects', '--json')) as { slug: string }[]).map((project) => project.slug)).toEqual(['files'])
    await expectAliveAndIntact(server.url, other.db)
  })
})

describe('journal', () => {
  it('shows a binary body by its size and type, text as text', () => {
    expect(bodyText(PNG, PNG.byteLength, 'image/png')).toBe(`(binary, ${PNG.byteLength} bytes, image/png)`)
    expect(bodyText(Buffer.from('a,b'), 3, 'text/csv; charset=utf-8')).toBe('a,b')
    expect(bodyText(Buffer.from('{"a":1}'), 7, 'application/json')).toBe('{"a":1}')
    expect(bodyText(Buffer.from('{"a":1}'), 7, null)).toBe('{"a":1}')
  })

  it('the management API\'s journal lists a file answer by its size and type, a text one as text', async () => {
    await fetch(`${base}/avatar`)
    await send(`${base}/readme`)
    const entries = await waitFor(async () => {
      const logged = (await send(`${url}/api/projects/1/requests`, { headers: auth })).json as { path: string; answer: { body: string | null } }[]
      return logged.length >= 2 ? logged : null
    })
    expect(entries.find((entry) => entry.path === '/api/b/avatar')!.answer.body).toBe(`(binary, ${PNG.byteLength} bytes, image/png)`)
    expect(entries.find((entry) => entry.path === '/api/b/readme')!.answer.body).toMatch(/^line one\nline two \d{4}-/)
  })

  it('leaves the database intact', async () => {
    await expectAliveAndIntact(url, ws.db)
  })
})

describe('imported and mounted endpoints', () => {
  it('an OpenAPI operation answers a text body, and its documented answer carries templated headers', async () => {
    const spec = join(ws.cwd, 'uptime.yaml')
    writeFileSync(spec, 'openapi: 3.0.3\ninfo: {title: Uptime, version: "1"}\npaths:\n  /uptime:\n    get:\n      responses:\n        "200": {description: up, content: {application/json: {example: {up: true}}}}\n  /status:\n    get:\n      responses:\n        "200": {description: up, content: {application/json: {example: {ok: true}}}}\n')
    await ws.ok('import', spec, '--project', 'b')
    await ws.ok('endpoint', 'set', 'GET', '/uptime', '--project', 'b', '--text', 'up since {{now}}')
    const text = await send(`${base}/uptime`)
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(text.text).toMatch(/^up since \d{4}-/)
    await ws.ok('endpoint', 'set', 'GET', '/status', '--project', 'b', '--header', 'X-Req: {{uuid}}')
    const documented = await send(`${base}/status`)
    expect(documented.json).toEqual({ ok: true })
    expect(documented.headers.get('x-req')).toMatch(/^[0-9a-f-]{36}$/)
    await ws.ok('endpoint', 'set', 'GET', '/status', '--project', 'b', '--content-type', 'application/vnd.status+json')
    const retyped = await send(`${base}/status`)
    expect([retyped.text, retyped.headers.get('content-type')]).toEqual(['{"ok":true}', 'application/vnd.status+json'])
  })

  it('refuses text, file and contentType on a GraphQL operation, changing nothing', async () => {
    const other = cliWorkspace()
    await other.ok('init', '--yes', '--slug', 'g')
    await other.ok('import', join(process.cwd(), 'fixtures/graphql/swapi/schema.graphql'), '--project', 'g')
    for (const flags of [['--text', 'hi'], ['--content-type', 'text/plain']]) {
      const refused = await other.run('endpoint', 'set', 'POST', '/graphql#Query.allFilms', '--project', 'g', ...flags)
      expect(refused.stderr).toContain('a graphql operation answers through its schema: text, file and contentType apply to HTTP routes')
    }
    expect(JSON.parse(await other.ok('endpoint', 'show', 'POST', '/graphql#Query.allFilms', '--project', 'g', '--json'))).toMatchObject({ bodyType: 'json', body: null, contentType: null })
  })
})

/**
 * A PUT or PATCH sent over a socket in two parts: the head and the first half of `body` now, the
 * rest when `finish` is called; `answer` is the status and the JSON body it got.
 */
/** An upload held before its body (see `heldRequest`); `finish` sends it and resolves with the status and JSON of the answer. */
async function slowUpload(target: string, method: 'PUT' | 'PATCH', headers: Record<string, string>, body: Buffer) {
  const { pathname, search } = new URL(target)
  const held = await heldRequest(server, method, `${pathname}${search}`, headers, body)
  return {
    async finish(): Promise<{ status: number; json: any }> {
      const response = await held.finish()
      const text = await response.text()
      return { status: response.status, json: text ? JSON.parse(text) : undefined }
    },
  }
}

describe('concurrency', () => {
  const endpointOf = async (path: string) => ((await send(`${url}/api/projects/1/endpoints`, { headers: auth })).json as { id: number; path: string; method: string }[]).find((e) => e.path === path && e.method === 'GET')!

  it('a PATCH made while a file is uploaded is kept: the upload changes only the file', async () => {
    await ws.ok('add-endpoint', 'GET', '/api/slow-file', '--text', 'before')
    const { id } = await endpointOf('/api/slow-file')
    const upload = await slowUpload(`${url}/api/projects/1/endpoints/${id}/file?name=slow.png`, 'PUT', auth, PNG)
    const patched = await send(`${url}/api/projects/1/endpoints/${id}`, { method: 'PATCH', headers: auth, body: { status: 418, headers: { 'X-During': 'upload' } } })
    expect(patched.status).toBe(200)
    const uploaded = await upload.finish()
    expect(uploaded.status).toBe(200)
    expect(uploaded.json).toMatchObject({ status: 418, headers: { 'X-During': 'upload' }, bodyType: 'file', file: { name: 'slow.png', size: PNG.byteLength } })
    const answer = await fetch(`${base}/slow-file`)
    expect([answer.status, answer.headers.get('x-during'), answer.headers.get('content-type')]).toEqual([418, 'upload', 'image/png'])
    expect(Buffer.from(await answer.arrayBuffer()).equals(PNG)).toBe(true)
  })

  it('a PATCH whose body is slow keeps a PATCH made meanwhile', async () => {
    const { id } = await endpointOf('/api/slow-file')
    const slow = await slowUpload(`${url}/api/projects/1/endpoints/${id}`, 'PATCH', { ...auth, 'Content-Type': 'application/json' }, Buffer.from(JSON.stringify({ contentType: 'image/x-png' })))
    expect((await send(`${url}/api/projects/1/endpoints/${id}`, { method: 'PATCH', headers: auth, body: { status: 203 } })).status).toBe(200)
    expect(await slow.finish()).toMatchObject({ status: 200, json: { status: 203, contentType: 'image/x-png', headers: { 'X-During': 'upload' } } })
  })

  it('an endpoint deleted while its file is uploaded: the upload answers 404 and stores nothing', async () => {
    await ws.ok('add-endpoint', 'GET', '/api/doomed', '--text', 'soon gone')
    const { id } = await endpointOf('/api/doomed')
    const filesBefore = fileRows()
    const upload = await slowUpload(`${url}/api/projects/1/endpoints/${id}/file?name=doomed.bin`, 'PUT', auth, Buffer.from('bytes nobody else has'))
    expect((await send(`${url}/api/projects/1/endpoints/${id}`, { method: 'DELETE', headers: auth })).status).toBe(204)
    const uploaded = await upload.finish()
    expect(uploaded.status).toBe(404)
    expect(uploaded.json.error.code).toBe('NOT_FOUND')
    expect(fileRows()).toEqual(filesBefore)
    expect((await fetch(`${base}/doomed`)).status).toBe(404)
    await expectAliveAndIntact(url, ws.db)
  })

  it('a request matched before its endpoint\'s file is replaced answers the bytes it matched, 200', async () => {
    const bytes = Buffer.from('bytes only this endpoint answers')
    writeFileSync(join(ws.cwd, 'inflight.bin'), bytes)
    await ws.ok('add-endpoint', 'POST', '/api/inflight', '--file', 'inflight.bin')
    // Held after it was matched, before its body is read (a POST's is): the file is replaced meanwhile, its bytes dropped.
    const held = await heldRequest(server, 'POST', '/api/b/inflight', { 'Content-Type': 'application/json' }, Buffer.from('{}'))
    await ws.ok('endpoint', 'set', 'POST', '/api/inflight', '--text', 'replaced')
    expect(fileRows().map((row) => row.name)).not.toContain('inflight.bin')
    const answer = await held.finish()
    expect([answer.status, answer.headers.get('content-type')]).toEqual([200, 'application/octet-stream'])
    expect(Buffer.from(await answer.arrayBuffer()).equals(bytes)).toBe(true)
    expect(await (await fetch(`${base}/inflight`, { method: 'POST' })).text()).toBe('replaced')
  })

  it('a request matched before a response with a file is removed answers that response\'s bytes, 200', async () => {
    writeFileSync(join(ws.cwd, 'inflight.txt'), 'UNIQUEFILE2')
    await ws.ok('add-endpoint', 'POST', '/api/inflight-response', '--body', '{"own":true}')
    await ws.ok('response', 'add', 'POST', '/api/inflight-response', '--file', 'inflight.txt')
    const held = await heldRequest(server, 'POST', '/api/b/inflight-response', { 'Content-Type': 'application/json' }, Buffer.from('{}'))
    await ws.ok('response', 'remove', 'POST', '/api/inflight-response', '1')
    expect(fileRows().map((row) => row.name)).not.toContain('inflight.txt')
    const answer = await held.finish()
    expect([answer.status, answer.headers.get('content-type'), await answer.text()]).toEqual([200, 'text/plain; charset=utf-8', 'UNIQUEFILE2'])
    expect((await send(`${base}/inflight-response`, { method: 'POST' })).json).toEqual({ own: true })
  })

  it('a serve that has not seen another process replace a file yet matches again and answers the endpoint as it is now', async () => {
    const other = cliWorkspace()
    await other.ok('init', '--yes', '--slug', 's')
    await other.ok('add-endpoint', 'GET', '/api/other', '--body', '{}')
    const rounds = [1, 2, 3]
    for (const round of rounds) {
      writeFileSync(join(other.cwd, `stale${round}.bin`), `STALE ${round}`)
      await other.ok('add-endpoint', 'GET', `/api/stale${round}`, '--file', `stale${round}.bin`)
    }
    const spawned = await spawnServe(['--db', other.db, 'serve', '--port', '0', '--quiet'], { cwd: other.cwd })
    const { context } = openStore(other.db)
    const makeFaker = await loadFaker()
    for (const round of rounds) {
      // Back to back, inside the 50 ms before serve looks for other processes' commits again: the route it
      // matches names a file it never read, which the change dropped.
      expect((await fetch(`${spawned.url}/api/s/other`)).status).toBe(200)
      configureEndpoint(context, requireEndpoint(context, { method: 'GET', path: `/api/stale${round}` }), { text: `now ${round}` }, makeFaker)
      const answer = await fetch(`${spawned.url}/api/s/stale${round}`)
      expect([answer.status, await answer.text()]).toEqual([200, `now ${round}`])
    }
  })

  it('requests answered while the file is replaced get the old or the new bytes whole, never an error', async () => {
    const id = ((await send(`${url}/api/projects/1/endpoints`, { headers: auth })).json as { id: number; path: string }[]).find((e) => e.path === '/api/avatar')!.id
    const other = Buffer.concat([PNG, Buffer.from('second version')])
    const answers: Promise<Response>[] = []
    const uploads: Promise<Response>[] = []
    for (let round = 0; round < 10; round += 1) {
      uploads.push(fetch(`${url}/api/projects/1/endpoints/${id}/file?name=avatar.png`, { method: 'PUT', headers: auth, body: round % 2 ? PNG : other }))
      for (let i = 0; i < 5; i += 1) answers.push(fetch(`${base}/avatar`))
    }
    expect((await Promise.all(uploads)).map((r) => r.status)).toEqual(Array(10).fill(200))
    for (const answer of await Promise.all(answers)) {
      expect(answer.status).toBe(200)
      const bytes = Buffer.from(await answer.arrayBuffer())
      expect(bytes.equals(PNG) || bytes.equals(other)).toBe(true)
    }
    // Settled on PNG again: the other version is dropped, PNG kept once.
    await fetch(`${url}/api/projects/1/endpoints/${id}/file?name=avatar.png`, { method: 'PUT', headers: auth, body: PNG })
    expect(fileRows().filter((row) => row.name === 'avatar.png')).toEqual([{ name: 'avatar.png', size: PNG.byteLength }])
    await expectAliveAndIntact(url, ws.db)
  })
})
