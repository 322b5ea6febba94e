import { afterAll, describe, expect, it } from 'vitest'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { cleanup, cli, openStore, tempDir } from '../_helpers.ts'

afterAll(cleanup)

function setup() {
  const cwd = tempDir()
  const db = join(cwd, 'test.db')
  const run = (...args: string[]) => cli(['--db', db, ...args], { cwd })
  return { cwd, db, run }
}

function expectUserError(result: { code: number | null; stderr: string; stdout: string }, pattern: RegExp) {
  expect(result.code).toBe(1)
  const lines = result.stderr.trim().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^✖ /)
  expect(lines[0]).toMatch(pattern)
  expect(result.stderr).not.toMatch(/\n\s+at /)
}

describe('mockapi init', () => {
  it('creates the database and a project with resources, asking nothing without a TTY', async () => {
    const { run, db } = setup()
    const init = await run('init', '--name', 'Shop', '--slug', 'shop', '--resource', '/api/products', '--resource', '/api/orders', '--yes')
    expect(init.code, init.stderr).toBe(0)
    expect(init.stdout).toContain('created project Shop (slug shop)')
    expect(existsSync(db)).toBe(true)

    const projects = JSON.parse((await run('projects', '--json')).stdout)
    expect(projects).toHaveLength(1)
    expect(projects[0]).toMatchObject({ id: 1, name: 'Shop', slug: 'shop', isDefault: true })
    expect(projects[0].shareToken).toMatch(/^[A-Za-z0-9_-]{20,}$/)
    expect(Date.parse(projects[0].createdAt)).not.toBeNaN()

    const endpoints = JSON.parse((await run('endpoints', '--json')).stdout)
    expect(endpoints.map((e: { method: string; path: string }) => `${e.method} ${e.path}`).sort()).toEqual([
      'DELETE /api/orders/:id', 'DELETE /api/products/:id', 'GET /api/orders', 'GET /api/orders/:id',
      'GET /api/products', 'GET /api/products/:id', 'PATCH /api/orders/:id', 'PATCH /api/products/:id',
      'POST /api/orders', 'POST /api/products', 'PUT /api/orders/:id', 'PUT /api/products/:id',
    ])
    for (const endpoint of endpoints) {
      expect(endpoint.kind).toBe('resource')
      expect(endpoint.status).toBe(endpoint.method === 'POST' ? 201 : 200)
      expect(typeof endpoint.id).toBe('number')
    }
  })

  it('starts from a template', async () => {
    const { run } = setup()
    expect((await run('init', '--template', 'blog', '--yes', '--slug', 'myblog')).code).toBe(0)
    const paths = JSON.parse((await run('endpoints', '--json')).stdout).map((e: { path: string }) => e.path)
    expect(paths).toContain('/api/posts')
    expect(paths).toContain('/api/users/:userId/posts')
    const templates = JSON.parse((await run('templates', '--json')).stdout)
    expect(templates.map((t: { name: string }) => t.name)).toContain('blog')
  })

  it('refuses an unknown template and a bad resource path, creating nothing', async () => {
    const { run } = setup()
    expectUserError(await run('init', '--template', 'nope', '--yes'), /no template named "nope"/)
    expectUserError(await run('init', '--resource', '/api/post', '--yes', '--slug', 'x'), /plural-nouns/)
    expect(JSON.parse((await run('projects', '--json')).stdout)).toEqual([])
  })

  it('uses MOCKAPI_DB, and .mockapi/mockapi.db under the working directory by default', async () => {
    const cwd = tempDir()
    expect((await cli(['init', '--yes', '--name', 'Default'], { cwd })).code).toBe(0)
    expect(existsSync(join(cwd, '.mockapi', 'mockapi.db'))).toBe(true)
    expect((await cli(['init', '--yes', '--name', 'Env'], { cwd, env: { MOCKAPI_DB: 'other.db' } })).code).toBe(0)
    expect(existsSync(join(cwd, 'other.db'))).toBe(true)
    expect(JSON.parse((await cli(['projects', '--json'], { cwd })).stdout).map((p: { slug: string }) => p.slug)).toEqual(['default'])
  })
})

describe('path rules', () => {
  it.each([
    ['/api/BlogPosts', /lowercase-hyphens/],
    ['/api/getPosts', /no-verbs/],
    ['/api/post', /plural-nouns/],
    ['/blog-posts', /starts-with-api/],
    ['/api/posts/:id/comments', /param-names/],
    ['/api/posts/:postId', /ends-with-resource/],
    ['/api', /names-a-resource/],
    ['/api/create-users', /no-verbs/],
  ])('refuses %s naming the rule', async (path, rule) => {
    const { run } = setup()
    await run('project', 'create', 'P')
    expectUserError(await run('add-resource', path), rule)
    expect(JSON.parse((await run('endpoints', '--json')).stdout)).toEqual([])
  })

  it('gives each of the four classic mistakes its own message', async () => {
    const { run } = setup()
    await run('project', 'create', 'P')
    const messages: string[] = []
    for (const path of ['/api/BlogPosts', '/api/getPosts', '/api/post', '/blog-posts']) messages.push((await run('add-resource', path)).stderr)
    expect(new Set(messages).size).toBe(4)
  })

  it('accepts nested resources and warns past three levels', async () => {
    const { run } = setup()
    await run('project', 'create', 'P')
    expect((await run('add-resource', '/api/users/:userId/posts')).code).toBe(0)
    const deep = await run('add-resource', '/api/a-things/:aId/b-things/:bId/c-things/:cId/d-things')
    expect(deep.code).toBe(0)
    expect(deep.stderr).toMatch(/nests 4 resource levels/)
  })
})

describe('add-resource, add-endpoint, endpoints, remove-endpoint', () => {
  it('seeds generated records from faker field generators', async () => {
    const { run, db } = setup()
    await run('project', 'create', 'P')
    const added = await run('add-resource', '/api/posts', '--fields', 'title:lorem.sentence,views:number.int,author:person.fullName,email:internet.email,publishedAt:date.recent,flag:boolean,ref:uuid', '--seed', '25')
    expect(added.code, added.stderr).toBe(0)
    expect(added.stdout).toContain('with 25 generated records')
    const runtime = openStore(db)
    const records = runtime.context.repos.records.allJson(1).map((json) => JSON.parse(json))
    expect(records).toHaveLength(25)
    expect(records.map((r) => r.id)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1))
    for (const record of records) {
      expect(typeof record.title).toBe('string')
      expect(Number.isInteger(record.views)).toBe(true)
      expect(record.author).toMatch(/\S+ \S+/)
      expect(record.email).toMatch(/@/)
      expect(Date.parse(record.publishedAt)).not.toBeNaN()
      expect(typeof record.flag).toBe('boolean')
      expect(record.ref).toMatch(/^[0-9a-f-]{36}$/)
    }
    expect(new Set(records.map((r) => r.title)).size).toBeGreaterThan(20)
  })

  it('makes generation reproducible with --seed-value', async () => {
    const first = setup()
    const second = setup()
    for (const { run } of [first, second]) {
      await run('project', 'create', 'P')
      expect((await run('add-resource', '/api/people', '--fields', 'name:person.fullName,age:int', '--seed', '5', '--seed-value', '42')).code).toBe(0)
    }
    const a = openStore(first.db).context.repos.records.allJson(1)
    const b = openStore(second.db).context.repos.records.allJson(1)
    expect(a).toHaveLength(5)
    expect(a).toEqual(b)
  })

  it('refuses an unknown generator naming it, and a seed without fields, creating nothing', async () => {
    const { run } = setup()
    await run('project', 'create', 'P')
    expectUserError(await run('add-resource', '/api/posts', '--fields', 'title:person.nope', '--seed', '3'), /unknown generator "person\.nope"/)
    expectUserError(await run('add-resource', '/api/posts', '--fields', 'title:constructor', '--seed', '3'), /unknown generator "constructor"/)
    expectUserError(await run('add-resource', '/api/posts', '--fields', 'title', '--seed', '3'), /must look like name:generator/)
    expectUserError(await run('add-resource', '/api/posts', '--seed', '3'), /need field generators/)
    expectUserError(await run('add-resource', '/api/posts', '--fields', 'id:uuid', '--seed', '3'), /"id" is given by mockapi/)
    expect(JSON.parse((await run('endpoints', '--json')).stdout)).toEqual([])
  })

  it('refuses a resource twice, and an endpoint that exists', async () => {
    const { run } = setup()
    await run('project', 'create', 'P')
    expect((await run('add-resource', '/api/posts')).code).toBe(0)
    expectUserError(await run('add-resource', '/api/posts'), /already exists/)
    expectUserError(await run('add-endpoint', 'GET', '/api/posts/:postId'), /already exists/)
  })

  it('adds custom endpoints and validates method, status, delay and body', async () => {
    const { run, cwd } = setup()
    await run('project', 'create', 'P')
    const added = await run('add-endpoint', 'get', '/api/stats', '--status', '202', '--body', '{"ok":true}', '--delay', '5', '--header', 'X-Mock: 1', '--json')
    expect(added.code, added.stderr).toBe(0)
    expect(JSON.parse(added.stdout)).toMatchObject({ method: 'GET', path: '/api/stats', kind: 'custom', status: 202, delayMs: 5, body: { ok: true }, headers: { 'X-Mock': '1' } })
    expectUserError(await run('add-endpoint', 'TRACE', '/api/stats'), /method "TRACE"/)
    expectUserError(await run('add-endpoint', 'GET', '/api/things', '--status', '700'), /status 700/)
    expectUserError(await run('add-endpoint', 'GET', '/api/things', '--body', '{nope'), /not valid JSON/)
    expectUserError(await run('add-endpoint', 'GET', '/api/things', '--body', '@missing.json'), /cannot read .*missing\.json/)
    expectUserError(await run('add-endpoint', 'GET', '/api/things', '--delay', '-5'), /delay -5/)
    expect(cwd).toBeTruthy()
  })

  it('lists endpoints as a table and as JSON, and removes one while the rest of the resource stays', async () => {
    const { run } = setup()
    await run('project', 'create', 'P')
    await run('add-resource', '/api/posts')
    const table = await run('endpoints')
    expect(table.stdout).toMatch(/METHOD\s+PATH\s+KIND\s+STATUS/)
    expect(table.stdout).toMatch(/DELETE\s+\/api\/posts\/:id\s+resource\s+200/)
    const removed = await run('remove-endpoint', 'DELETE', '/api/posts/:id')
    expect(removed.code).toBe(0)
    expect(removed.stdout).toContain('removed DELETE /api/posts/:id')
    const left = JSON.parse((await run('endpoints', '--json')).stdout).map((e: { method: string; path: string }) => `${e.method} ${e.path}`)
    expect(left).toHaveLength(5)
    expect(left).not.toContain('DELETE /api/posts/:id')
    expectUserError(await run('remove-endpoint', 'DELETE', '/api/posts/:id'), /no endpoint DELETE/)
  })
})

describe('projects', () => {
  it('creates, shows and deletes projects; refuses duplicates and reserved slugs', async () => {
    const { run } = setup()
    expect((await run('project', 'create', 'My Shop')).stdout).toContain('slug my-shop')
    expect((await run('project', 'create', 'Other', '--slug', 'other')).code).toBe(0)
    expectUserError(await run('project', 'create', 'Again', '--slug', 'my-shop'), /already exists/)
    expectUserError(await run('project', 'create', 'X', '--slug', 'webhooks'), /reserved/)
    expectUserError(await run('project', 'create', 'X', '--slug', 'Bad_Slug'), /lowercase letters, digits or hyphens/)
    await run('add-resource', '/api/items', '--project', 'other')
    const shown = JSON.parse((await run('project', 'show', 'other', '--json')).stdout)
    expect(shown).toMatchObject({ slug: 'other', name: 'Other', isDefault: false })
    expect(shown.endpoints).toHaveLength(6)
    // Two projects: commands without --project use the default (first created).
    expect(JSON.parse((await run('endpoints', '--json')).stdout)).toEqual([])
    expect((await run('project', 'delete', 'my-shop')).code).toBe(0)
    expect(JSON.parse((await run('projects', '--json')).stdout)).toMatchObject([{ slug: 'other', isDefault: true }])
    expectUserError(await run('project', 'show', 'my-shop'), /no project with slug "my-shop"/)
  })

  it('says what to do when there is no project yet', async () => {
    const { run } = setup()
    expectUserError(await run('add-resource', '/api/posts'), /mockapi init/)
  })
})

describe('usage', () => {
  it('prints help with exit 0 and refuses unknown commands and options with exit 1', async () => {
    const help = await cli(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('add-resource')
    expect((await cli(['serve', '--help'])).stdout).toContain('--port')
    const unknown = await cli(['frobnicate'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/unknown command/)
    expect((await cli(['projects', '--bogus'])).code).toBe(1)
  })

  it('reports a database that is not SQLite as one line', async () => {
    const { cwd } = setup()
    const result = await cli(['--db', join(cwd), 'projects'], { cwd })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^✖ /)
  })
})
