import { afterAll, describe, expect, it } from 'vitest'
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockApi } from '../../src/index.ts'
import { cleanup, cli, ROOT, send, serve, tempDir } from '../_helpers.ts'

afterAll(cleanup)

const DB_JSON = join(ROOT, 'test', 'fixtures', 'json-server', 'db.json')

/** A folder holding the fixture as `db.json`, and a CLI on a database in it. */
function workspace() {
  const cwd = tempDir()
  copyFileSync(DB_JSON, join(cwd, 'db.json'))
  const db = join(cwd, 'm.db')
  return { cwd, db, run: (...args: string[]) => cli(['--db', db, ...args], { cwd }) }
}

const ids = (records: { id: unknown }[]) => records.map((record) => String(record.id))

describe('mockapi import db.json (a json-server database)', () => {
  it('makes every top-level array a resource with its records at /{name}, and an object a singular resource there', async () => {
    const { db, run } = workspace()
    const imported = await run('import', 'db.json')
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stdout).toContain('imported json-server database db.json (3 resources, 1 singular) into project db')
    expect(imported.stdout).toContain('7 records')
    expect(imported.stdout).toMatch(/\/profile\s+its object: GET, PUT, PATCH/)

    const server = await serve(db)
    const posts = await send(`${server.url}/posts`)
    expect(posts.status).toBe(200)
    expect(posts.headers.get('x-total-count')).toBe('2')
    expect(posts.json.map((p: { title: string }) => p.title)).toEqual(['json-server', 'mockapi'])
    expect(posts.json[0]).toMatchObject({ views: 100, userId: 1 })
    expect((await send(`${server.url}/posts/2`)).json).toMatchObject({ title: 'mockapi' })
    expect(ids((await send(`${server.url}/comments?postId=1`)).json)).toEqual(['1', '2'])
    expect((await send(`${server.url}/users`)).json.map((u: { name: string }) => u.name)).toEqual(['typicode', 'Ada'])
    expect((await send(`${server.url}/profile`)).json).toEqual({ name: 'typicode' })
    expect((await send(`${server.url}/profile`, { method: 'PUT', body: { name: 'Ada' } })).json).toEqual({ name: 'Ada' })
    // Under the project's slug too, as every project's endpoints are.
    expect((await send(`${server.url}/api/db/posts/1`)).json).toMatchObject({ title: 'json-server' })

    // What json-server answers to writes: POST numbers the next id, PATCH merges, DELETE removes.
    const created = await send(`${server.url}/posts`, { method: 'POST', body: { title: 'new' } })
    expect(created.status).toBe(201)
    expect(String(created.json.id)).toBe('3')
    expect((await send(`${server.url}/posts/1`, { method: 'PATCH', body: { views: 101 } })).json).toMatchObject({ title: 'json-server', views: 101 })
    expect((await send(`${server.url}/comments/3`, { method: 'DELETE' })).status).toBe(200)
    expect((await send(`${server.url}/comments`)).json).toHaveLength(2)

    // The file's records are the resources' seed: reset puts them back.
    expect((await run('reset')).code).toBe(0)
    expect((await send(`${server.url}/posts`)).json).toHaveLength(2)
    expect((await send(`${server.url}/comments`)).json).toHaveLength(3)
    await server.close()
  })

  it('makes the project for the file with path rules off, so its export applies again', async () => {
    const { cwd, run } = workspace()
    expect((await run('import', 'db.json')).code).toBe(0)
    expect(JSON.parse((await run('project', 'show', 'db', '--json')).stdout)).toMatchObject({ pathRules: 'off' })
    const exported = await run('export', '-o', 'db.yaml')
    expect(exported.code, exported.stderr).toBe(0)
    expect((await run('apply', 'db.yaml')).code).toBe(0)
    const elsewhere = join(cwd, 'other.db')
    const applied = await cli(['--db', elsewhere, 'apply', 'db.yaml'], { cwd })
    expect(applied.code, applied.stderr).toBe(0)
    const server = await serve(elsewhere)
    expect(ids((await send(`${server.url}/comments?postId=1`)).json)).toEqual(['1', '2'])
    expect((await send(`${server.url}/profile`)).json).toEqual({ name: 'typicode' })
    await server.close()
  })

  it('into a project of its own, the path rules judge the names as they judge any resource', async () => {
    const { cwd, run } = workspace()
    expect((await run('init', '--yes', '--slug', 'shop')).code).toBe(0)
    const strict = await run('import', 'db.json')
    expect(strict.code).toBe(1)
    expect(strict.stderr).toContain('db.json: "posts" cannot be a path: path "/posts" must start with /api (rule: starts-with-api); import under --prefix /api, or let project "shop" take the file\'s names as they are (mockapi project set shop --path-rules off)')
    expect(JSON.parse((await run('endpoints', '--json')).stdout)).toEqual([])
    const prefixed = await run('import', 'db.json', '--prefix', '/api')
    expect(prefixed.code, prefixed.stderr).toBe(0)
    expect(prefixed.stderr).toContain('segment "profile" is not a plural noun (rule: plural-nouns)')

    writeFileSync(join(cwd, 'camel.json'), JSON.stringify({ blogPosts: [{ id: 1 }] }))
    const camel = await run('import', 'camel.json', '--prefix', '/api')
    expect(camel.stderr).toContain('"blogPosts" cannot be a path: segment "blogPosts" must be lowercase letters and digits separated by hyphens, e.g. "blog-posts" (rule: lowercase-hyphens); let project "shop" take the file\'s names as they are (mockapi project set shop --path-rules off)')
    expect((await run('project', 'set', 'shop', '--path-rules', 'warn')).code).toBe(0)
    const warned = await run('import', 'camel.json', '--prefix', '/api')
    expect(warned.code, warned.stderr).toBe(0)
    expect(warned.stderr).toContain('(rule: lowercase-hyphens)')
  })

  it('--prefix /api serves them under it', async () => {
    const { db, run } = workspace()
    const imported = await run('import', 'db.json', '--prefix', '/api/', '--json')
    expect(imported.code, imported.stderr).toBe(0)
    const result = JSON.parse(imported.stdout)
    expect(result).toMatchObject({ project: 'db', import: { title: 'db', format: 'json-server' }, records: 7, resources: ['/api/posts', '/api/comments', '/api/users'] })
    expect(result.created.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).toContain('PATCH /api/posts/:id')
    const server = await serve(db)
    expect((await send(`${server.url}/api/posts`)).json).toHaveLength(2)
    expect((await send(`${server.url}/api/profile`)).json).toEqual({ name: 'typicode' })
    expect((await send(`${server.url}/posts`)).status).toBe(404)
    await server.close()
  })

  it('importing again fills the same resources in place; --replace also removes the ones the file no longer names', async () => {
    const { cwd, db, run } = workspace()
    expect((await run('import', 'db.json')).code).toBe(0)
    const server = await serve(db)
    await send(`${server.url}/posts`, { method: 'POST', body: { title: 'posted meanwhile' } })
    const next = JSON.parse(readFileSync(join(cwd, 'db.json'), 'utf8'))
    next.posts = [{ id: 1, title: 'edited' }]
    delete next.users
    next.profile = { name: 'Ada' }
    writeFileSync(join(cwd, 'db.json'), JSON.stringify(next))

    const again = await run('import', 'db.json')
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain('0 endpoints created')
    expect(again.stderr).toContain('1 resource(s) under / that db.json does not name are kept (--replace removes them): /users')
    expect((await send(`${server.url}/posts`)).json.map((p: { title: string }) => p.title)).toEqual(['edited'])
    expect((await send(`${server.url}/profile`)).json).toEqual({ name: 'Ada' })
    expect((await send(`${server.url}/users`)).status).toBe(200)

    const replaced = await run('import', 'db.json', '--replace')
    expect(replaced.code, replaced.stderr).toBe(0)
    expect(replaced.stdout).toContain('6 removed')
    expect((await send(`${server.url}/users`)).status).toBe(404)
    expect((await send(`${server.url}/comments`)).json).toHaveLength(3)
    await server.close()
  })

  it('detects a json-server database by its content, never an OpenAPI JSON; --format json-server names it', async () => {
    const { cwd, run } = workspace()
    writeFileSync(join(cwd, 'data.txt'), readFileSync(DB_JSON))
    expect((await run('import', 'data.txt')).stdout).toContain('imported json-server database data.txt')
    writeFileSync(join(cwd, 'openapi.json'), JSON.stringify({
      openapi: '3.0.3', info: { title: 'Tags', version: '1' }, tags: [{ name: 'things' }],
      paths: { '/api/things': { get: { responses: { 200: { description: 'ok', content: { 'application/json': { example: [{ id: 1 }] } } } } } } },
    }))
    expect((await run('import', 'openapi.json')).stdout).toContain('imported "Tags" (OpenAPI 3.0)')
    const named = await run('import', 'openapi.json', '--format', 'json-server')
    expect(named.code).toBe(1)
    expect(named.stderr).toContain('openapi.json: "openapi" is a string; each top-level value is an array of records (a resource) or an object (a singular resource)')
    // json-server 1.x's db.json names its schema for editors; string ids stay strings.
    writeFileSync(join(cwd, 'v1.json'), JSON.stringify({ $schema: './node_modules/json-server/schema.json', articles: [{ id: '1', title: 'a title' }] }))
    const v1 = await run('import', 'v1.json', '--prefix', '/v1', '--json')
    expect(v1.code, v1.stderr).toBe(0)
    expect(JSON.parse(v1.stdout).resources).toEqual(['/v1/articles'])
    const prefixed = await run('import', 'openapi.json', '--prefix', '/api')
    expect(prefixed.stderr).toContain('--prefix goes with a json-server database')
  })

  it.each([
    ['not JSON', '{"posts": [', /db\.json: is not JSON/],
    ['an array at the top', '[{"id": 1}]', /db\.json: is an array; a json-server database is a JSON object/],
    ['no resources', '{}', /db\.json: names no resources/],
    ['an array of non-objects', '{"posts": [{"id": 1}, "two"]}', /db\.json: posts\[1\] is a string, not a record \(an object\)/],
    ['a duplicate id', '{"posts": [{"id": 1}, {"id": 2}, {"id": "1"}]}', /db\.json: posts has id "1" twice \(posts\[0\] and posts\[2\]\); ids must be unique/],
    ['an id that is no string or number', '{"posts": [{"id": true}]}', /db\.json: posts\[0\]\.id must be a non-empty string or a number, got true/],
    ['an empty name', '{"": [{"id": 1}], "posts": []}', /db\.json: a resource name is empty/],
    ['a name with a slash', '{"blog/posts": [{"id": 1}]}', /db\.json: "blog\/posts" cannot be a path: a resource name is one path segment, without "\/"/],
    ['a name that is a route pattern', '{":id": [{"id": 1}]}', /db\.json: ":id" cannot be a path: ":", "\*", "\{" and "\}" make a route pattern/],
    ['a name no request can reach', '{"..": [{"id": 1}]}', /db\.json: "\.\." cannot be a path: .*dot-segment|db\.json: "\.\." cannot be a path: .*clients resolve/],
    ['a name with a space', '{"blog posts": [{"id": 1}]}', /db\.json: "blog posts" cannot be a path: .*spaces/],
    ['a scalar at the top level', '{"posts": [], "count": 2}', /db\.json: "count" is a number/],
  ])('refuses %s, naming the problem, and stores nothing', async (_what, text, message) => {
    const { cwd, run } = workspace()
    writeFileSync(join(cwd, 'db.json'), text)
    const refused = await run('import', 'db.json', '--format', 'json-server')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(message)
    expect(JSON.parse((await run('projects', '--json')).stdout)).toEqual([])
  })

  it.each([
    ['an array of strings beside the records', '{"posts": [{"id": 1}], "tags": ["x", "y"]}', 'db.json (read as a json-server database): tags[0] is a string, not a record (an object)'],
    ['only an array of strings', '{"tags": ["x", "y"]}', 'db.json (read as a json-server database): tags[0] is a string, not a record (an object)'],
    ['a number beside the records', '{"posts": [{"id": 1}], "count": 5}', 'db.json (read as a json-server database): "count" is a number; each top-level value is an array of records (a resource) or an object (a singular resource)'],
  ])('without --format, refuses a database with %s for the json-server reason', async (_what, text, message) => {
    const { cwd, run } = workspace()
    writeFileSync(join(cwd, 'db.json'), text)
    const refused = await run('import', 'db.json')
    console.log(refused.stderr.trim())
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(message)
    expect(JSON.parse((await run('projects', '--json')).stdout)).toEqual([])
  })

  it('never reads as a database a JSON object of mostly scalars, or one with a spec\'s key', async () => {
    const { cwd, run } = workspace()
    writeFileSync(join(cwd, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true, keywords: ['x'] }))
    const scalars = await run('import', 'package.json')
    expect(scalars.code).toBe(1)
    expect(scalars.stderr).toContain('package.json is none of the formats mockapi imports')
    writeFileSync(join(cwd, 'broken.json'), JSON.stringify({ openapi: 3, tags: ['x'], paths: {} }))
    // OpenAPI's loader takes it (the version as a number read as "3"), as before databases claimed anything.
    const spec = await run('import', 'broken.json')
    expect(spec.stdout + spec.stderr).toContain('OpenAPI')
    expect(spec.stdout + spec.stderr).not.toContain('json-server')
  })

  it('refuses a name whose records another resource of the project keeps, storing nothing', async () => {
    const { run } = workspace()
    expect((await run('init', '--yes', '--slug', 'blog', '--path-rules', 'off', '--resource', '/api/posts')).code).toBe(0)
    const refused = await run('import', 'db.json')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('project "blog" already keeps "posts" records for /api/posts; import into another project (--project) or under --prefix /api to fill that resource')
    expect(JSON.parse((await run('endpoints', '--json')).stdout)).toHaveLength(6)
    expect((await run('import', 'db.json', '--prefix', '/api')).code).toBe(0)
  })

  it('the management API imports a db.json from its text, with "prefix"; errors in the project\'s error shape', async () => {
    const { db, run } = workspace()
    expect((await run('init', '--yes', '--slug', 'blog')).code).toBe(0)
    const token = (await run('token')).stdout.trim()
    const server = await serve(db)
    const headers = { authorization: `Bearer ${token}` }
    const imported = await send(`${server.url}/api/projects/1/imports`, { method: 'POST', headers, body: { text: readFileSync(DB_JSON, 'utf8'), filename: 'db.json', prefix: '/api' } })
    expect(imported.status, imported.text).toBe(201)
    expect(imported.json.import).toEqual({ id: null, title: 'db', format: 'json-server', version: 'db.json' })
    expect(imported.json.created).toHaveLength(3 * 6 + 3)
    expect((await send(`${server.url}/api/blog/comments?postId=2`)).json).toMatchObject([{ text: 'a comment about mockapi' }])

    const refused = await send(`${server.url}/api/projects/1/imports`, { method: 'POST', headers, body: { text: '{"posts": [1]}', format: 'json-server' } })
    expect(refused.status).toBe(400)
    expect(refused.json).toEqual({ error: { code: 'INVALID_INPUT', message: 'the pasted document: posts[0] is a number, not a record (an object)', details: [{ field: 'posts[0]', message: 'posts[0] is a number, not a record (an object)' }] } })
    const unnamed = await send(`${server.url}/api/projects/1/imports`, { method: 'POST', headers, body: { text: '{"posts": [{"id": 1}], "count": 5}' } })
    expect(unnamed.status).toBe(400)
    expect(unnamed.json.error.message).toBe('the pasted document (read as a json-server database): "count" is a number; each top-level value is an array of records (a resource) or an object (a singular resource)')
    const formats = await send(`${server.url}/api/projects/1/imports/formats`, { headers })
    expect(formats.json.at(-1)).toMatchObject({ name: 'json-server', label: 'json-server database' })
    await server.close()
  })

  it('startMockApi({ imports }) takes a db.json', async () => {
    const api = await startMockApi({ imports: [{ source: DB_JSON, prefix: '/api' }] })
    try {
      expect((await fetch(`${api.url}/api/db/users/2`).then((r) => r.json()))).toMatchObject({ name: 'Ada' })
    } finally {
      await api.close()
    }
  })
})
