import { afterAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanup, databaseAt, cliWorkspace, openStore, send, serve } from '../_helpers.ts'

afterAll(cleanup)

const routes = (endpoints: { method: string; path: string }[]) => endpoints.map((e) => `${e.method} ${e.path}`).sort()

describe('every resource answers PATCH on its item path', () => {
  it('add-resource makes six endpoints; PATCH merges the fields sent and keeps the id', async () => {
    const { db, ok } = cliWorkspace()
    await ok('init', '--yes', '--slug', 'blog')
    expect(await ok('add-resource', '/api/posts')).toContain('PATCH')
    expect(routes(JSON.parse(await ok('endpoints', '--json')))).toEqual([
      'DELETE /api/posts/:id', 'GET /api/posts', 'GET /api/posts/:id', 'PATCH /api/posts/:id', 'POST /api/posts', 'PUT /api/posts/:id',
    ])
    const server = await serve(db)
    const posts = `${server.url}/api/blog/posts`
    await send(posts, { method: 'POST', body: { title: 'a', views: 1, tags: ['x'] } })
    const patched = await send(`${posts}/1`, { method: 'PATCH', body: { views: 2, id: 99, draft: false } })
    expect(patched.status).toBe(200)
    expect(patched.text).toBe('{"id":1,"title":"a","views":2,"tags":["x"],"draft":false}')
    expect((await send(`${posts}/1`)).json).toEqual({ id: 1, title: 'a', views: 2, tags: ['x'], draft: false })
    expect((await send(`${posts}/7`, { method: 'PATCH', body: { views: 3 } })).status).toBe(404)
    await server.close()
  })

  it('refuses a body that is not a JSON object, changing nothing', async () => {
    const { db, ok } = cliWorkspace()
    await ok('init', '--yes', '--slug', 'blog', '--resource', '/api/posts')
    const server = await serve(db)
    const post = `${server.url}/api/blog/posts/1`
    await send(`${server.url}/api/blog/posts`, { method: 'POST', body: { title: 'a' } })
    for (const body of ['[1,2]', '"text"', '5', 'null']) {
      const refused = await send(post, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body })
      expect(refused.status, body).toBe(400)
      expect(refused.json.error.code).toBe('INVALID_BODY')
    }
    const malformed = await send(post, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"title":' })
    expect([malformed.status, malformed.json.error.code]).toEqual([400, 'INVALID_JSON'])
    expect((await send(post, { method: 'PATCH', headers: { 'content-type': 'text/plain' }, body: 'title=b' })).status).toBe(415)
    expect((await send(post)).json).toEqual({ id: 1, title: 'a' })
    await server.close()
  })

  it('concurrent PATCHes of different fields of one record all land (each merges what is stored when it runs)', async () => {
    const { db, ok } = cliWorkspace()
    await ok('init', '--yes', '--slug', 'blog', '--resource', '/api/posts')
    const server = await serve(db)
    const post = `${server.url}/api/blog/posts/1`
    await send(`${server.url}/api/blog/posts`, { method: 'POST', body: { title: 'a' } })
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => send(post, { method: 'PATCH', body: { [`f${i}`]: i } })))
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200))
    const stored = (await send(post)).json
    for (let i = 0; i < 20; i += 1) expect(stored[`f${i}`]).toBe(i)
    expect(stored).toMatchObject({ id: 1, title: 'a' })
    await server.close()
  })
})

describe('project files', () => {
  it('a file written when resources had five endpoints applies with six; one that listed PATCH itself gives the same project; export lists neither', async () => {
    const old = cliWorkspace()
    writeFileSync(join(old.cwd, 'old.yaml'), 'name: Old\nslug: old\nresources:\n  - path: /api/todos\n  - path: /api/lists\nendpoints:\n  - method: PATCH\n    path: /api/todos/:id\n')
    await old.ok('apply', 'old.yaml')
    expect(routes(JSON.parse(await old.ok('endpoints', '--json'))).filter((r) => r.startsWith('PATCH'))).toEqual(['PATCH /api/lists/:id', 'PATCH /api/todos/:id'])
    expect(await old.ok('apply', 'old.yaml')).toContain('already matches')
    const exported = await old.ok('export')
    expect(exported).not.toContain('PATCH')
    expect(exported).not.toContain('endpoints:\n  -')

    const again = cliWorkspace()
    writeFileSync(join(again.cwd, 'm.yaml'), exported)
    await again.ok('apply', 'm.yaml')
    expect(await again.ok('export')).toBe(exported)
    expect(JSON.parse(await again.ok('endpoints', '--json'))).toHaveLength(12)
  })

  it('a removed PATCH is exported as `without` and stays out when applied again', async () => {
    const { ok } = cliWorkspace()
    await ok('init', '--yes', '--slug', 'shop', '--resource', '/api/products')
    await ok('remove-endpoint', 'PATCH', '/api/products/:id')
    const exported = await ok('export')
    expect(exported).toContain('without:\n      - PATCH /api/products/:id\n')
    const other = cliWorkspace()
    writeFileSync(join(other.cwd, 'm.yaml'), exported)
    await other.ok('apply', 'm.yaml')
    expect(routes(JSON.parse(await other.ok('endpoints', '--json')))).not.toContain('PATCH /api/products/:id')
    expect(await other.ok('export')).toBe(exported)
  })
})

describe('migration 0210', () => {
  it('adds PATCH to each resource that has its own PUT and no PATCH on its item path; keeps one added by hand; leaves read-only and imported ones alone', async () => {
    const { path, old } = databaseAt(190)
    const standard = (resource: number, base: string, skip: string[] = []) => [
      ['GET', base, 'list', 200], ['POST', base, 'create', 201], ['GET', `${base}/:id`, 'read', 200],
      ['PUT', `${base}/:id`, 'replace', 200], ['DELETE', `${base}/:id`, 'delete', 200],
    ].filter(([method]) => !skip.includes(method as string))
      .map(([method, p, action, status]) => `(1, ${resource}, '${method}', '${p}', 'resource', '${action}', ${status}, '2024-01-01')`)
    old.exec(`
      INSERT INTO projects (id, name, slug, share_token, is_default, created_at) VALUES (1, 'Shop', 'shop', 'share', 1, '2024-01-01');
      INSERT INTO collections (id, project_id, name, next_id) VALUES (1, 1, 'posts', 2), (2, 1, 'notes', 1), (3, 1, 'tags', 1), (4, 1, 'pets', 1), (5, 1, 'drafts', 1);
      INSERT INTO resources (id, project_id, collection_id, path, created_at) VALUES
        (1, 1, 1, '/api/posts', '2024-01-01'), (2, 1, 2, '/api/notes', '2024-01-01'), (3, 1, 3, '/api/tags', '2024-01-01'),
        (4, 1, 4, '/pets', '2024-01-01'), (5, 1, 5, '/api/drafts', '2024-01-01');
      INSERT INTO endpoints (project_id, resource_id, method, path, kind, action, status, created_at) VALUES
        ${[...standard(1, '/api/posts'), ...standard(2, '/api/notes', ['PUT', 'POST', 'DELETE']), ...standard(3, '/api/tags'), ...standard(5, '/api/drafts')].join(',\n')},
        (1, 3, 'PATCH', '/api/tags/:id', 'resource', 'patch', 202, '2024-01-01'),
        (1, NULL, 'PATCH', '/api/drafts/:draftId', 'custom', NULL, 200, '2024-01-01'),
        (1, 4, 'GET', '/pets/:petId', 'openapi', 'read', 200, '2024-01-01'),
        (1, 4, 'PUT', '/pets/:petId', 'openapi', 'replace', 200, '2024-01-01');
      INSERT INTO records (collection_id, id, data) VALUES (1, '1', '{"id":1,"title":"a","views":1}');
    `)
    old.close()

    const { context } = openStore(path)
    const patches = context.repos.endpoints.listByProject(1).filter((e) => e.method === 'PATCH').map((e) => `${e.path} ${e.kind} ${e.action} ${e.status} ${e.resourceId}`).sort()
    expect(patches).toEqual([
      '/api/drafts/:draftId custom null 200 null',
      '/api/posts/:id resource patch 200 1',
      '/api/tags/:id resource patch 202 3',
    ])
    // Migration 0220 after it: every resource made before is a collection, not a singular.
    expect(context.repos.resources.listByProject(1).map((r) => r.singular)).toEqual([false, false, false, false, false])
    const server = await serve(path)
    const patched = await send(`${server.url}/api/shop/posts/1`, { method: 'PATCH', body: { views: 2 } })
    expect(patched.json).toEqual({ id: 1, title: 'a', views: 2 })
    expect((await send(`${server.url}/api/shop/notes/1`, { method: 'PATCH', body: {} })).status).toBe(405)
    expect((await send(`${server.url}/api/shop/pets/1`, { method: 'PATCH', body: {} })).status).toBe(405)
    await server.close()
  })
})
