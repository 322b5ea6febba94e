import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { insertRecords } from '../../src/domain/records.ts'
import { deleteResource } from '../../src/domain/resource-admin.ts'
import { MAX_EMBEDDED, MAX_RELATIONS } from '../../src/domain/relations.ts'
import { writeTransaction } from '../../src/domain/transaction.ts'
import { cleanup, cliWorkspace, heldRequest, openStore, send, serve, type CliWorkspace } from '../_helpers.ts'
import type { RunningServer } from '../../src/server/start.ts'

afterAll(cleanup)

const post = (url: string, body: unknown) => send(url, { method: 'POST', body })

/** Every stored record of a collection, parsed, straight from the file. */
function stored(db: string, collection: string): Record<string, unknown>[] {
  const raw = new Database(db, { readonly: true })
  try {
    const rows = raw.prepare('SELECT r.data FROM records r JOIN collections c ON c.id = r.collection_id WHERE c.name = ? ORDER BY r.seq').pluck().all(collection) as string[]
    return rows.map((row) => JSON.parse(row) as Record<string, unknown>)
  } finally {
    raw.close()
  }
}

describe('_embed and _expand', () => {
  let ws: CliWorkspace
  let url: string

  beforeAll(async () => {
    ws = cliWorkspace()
    await ws.ok('init', '--yes', '--slug', 'blog')
    for (const path of ['/api/users', '/api/posts', '/api/comments', '/api/users/:userId/posts', '/api/categories']) await ws.ok('add-resource', path)
    url = (await serve(ws.db)).url
    await post(`${url}/api/users`, { id: 1, name: 'Ada' })
    await post(`${url}/api/users`, { id: 2, name: 'Grace' })
    await send(`${url}/api/posts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":1,"title":"one","userId":1,"views":12345678901234567890}' })
    await post(`${url}/api/posts`, { id: 2, title: 'two', userId: '2' })
    await post(`${url}/api/posts`, { id: 3, title: 'orphan', userId: 99 })
    await post(`${url}/api/comments`, { id: 10, body: 'a', postId: 1 })
    await post(`${url}/api/comments`, { id: 11, body: 'b', postId: '1' })
    await post(`${url}/api/comments`, { id: 12, body: 'c', postId: 2 })
    await post(`${url}/api/comments`, { id: 13, body: 'd' })
  })

  it('embeds the children naming each record (number or string id) on lists, one list per record', async () => {
    const listed = await send(`${url}/api/posts?_embed=comments&sort=title`)
    expect(listed.status).toBe(200)
    expect(listed.headers.get('x-total-count')).toBe('3')
    expect(listed.json.map((p: { title: string; comments: { body: string }[] }) => [p.title, p.comments.map((c) => c.body)])).toEqual([
      ['one', ['a', 'b']],
      ['orphan', []],
      ['two', ['c']],
    ])
    // The stored numbers are kept as written, past a double's precision too.
    expect(listed.text).toContain('"views":12345678901234567890')
  })

  it('embeds and expands on one record, repeated or comma-separated, and on nested paths', async () => {
    const one = await send(`${url}/api/posts/1?_embed=comments&_expand=user`)
    expect(one.status).toBe(200)
    expect(one.json).toMatchObject({ title: 'one', user: { name: 'Ada' }, comments: [{ body: 'a' }, { body: 'b' }] })
    const both = await send(`${url}/api/posts?_expand=user&_embed=comments,comments&_embed=comments`)
    expect(both.json.map((p: { user?: { name: string } }) => p.user?.name)).toEqual(['Ada', 'Grace', undefined])
    // A post naming no user that exists gets no key, as in json-server.
    expect(Object.keys(both.json[2])).not.toContain('user')
    const nested = await send(`${url}/api/users/1/posts?_embed=comments&_expand=user`)
    expect(nested.json).toHaveLength(1)
    expect(nested.json[0]).toMatchObject({ title: 'one', user: { id: expect.anything(), name: 'Ada' }, comments: [{ body: 'a' }, { body: 'b' }] })
    const users = await send(`${url}/api/users?_embed=posts`)
    expect(users.json.map((u: { posts: { title: string }[] }) => u.posts.map((p) => p.title))).toEqual([['one'], ['two']])
    // json-server 1.x: a singular name embeds the parent, as _expand does.
    const comments = await send(`${url}/api/comments?_embed=post&sort=body`)
    expect(comments.json.map((c: { body: string; post?: { title: string } }) => [c.body, c.post?.title])).toEqual([['a', 'one'], ['b', 'one'], ['c', 'two'], ['d', undefined]])
    expect((await send(`${url}/api/comments/12?_embed=post`)).json).toEqual((await send(`${url}/api/comments/12?_expand=post`)).json)
    // A post names no comment (no commentId): no key.
    expect(Object.keys((await send(`${url}/api/posts/1?_embed=comment`)).json)).not.toContain('comment')
    expect((await send(`${url}/api/posts/1?_embed=reply`)).json.error.message).toContain('"_embed" names "reply"')
  })

  it('answers the same through the records of the management API', async () => {
    const { context } = openStore(ws.db)
    const headers = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const posts = context.repos.resources.byPath(1, '/api/posts')!
    const mock = await send(`${url}/api/posts?_embed=comments&_expand=user`)
    expect((await send(`${url}/api/projects/1/resources/${posts.id}/records?_embed=comments&_expand=user`, { headers })).json).toEqual(mock.json)
    expect((await send(`${url}/api/projects/1/resources/${posts.id}/records/2?_embed=comments`, { headers })).json).toEqual((await send(`${url}/api/posts/2?_embed=comments`)).json)
  })

  it('answers the stored text untouched without them', async () => {
    const raw = new Database(ws.db, { readonly: true })
    const rows = raw.prepare("SELECT data FROM records WHERE collection_id = (SELECT id FROM collections WHERE name = 'posts') ORDER BY seq").pluck().all() as string[]
    raw.close()
    const listed = await send(`${url}/api/posts`)
    expect(listed.text).toBe(`[${rows.join(',')}]`)
    expect(listed.text).toContain('"views":12345678901234567890')
  })

  it('embeds a collection in itself: a tree by its own foreign key', async () => {
    await post(`${url}/api/categories`, { id: 1, name: 'root' })
    await post(`${url}/api/categories`, { id: 2, name: 'child', categoryId: 1 })
    const tree = await send(`${url}/api/categories?_embed=categories`)
    expect(tree.json.map((c: { name: string; categories: { name: string }[] }) => [c.name, c.categories.map((k) => k.name)])).toEqual([['root', ['child']], ['child', []]])
  })

  it('refuses an unknown collection, an empty name, a chain and too many names with 400 INVALID_QUERY naming them', async () => {
    const unknown = await send(`${url}/api/posts?_embed=replies`)
    expect(unknown.status).toBe(400)
    expect(unknown.json.error.code).toBe('INVALID_QUERY')
    expect(unknown.json.error.message).toBe('query parameter "_embed" names "replies", which is not a collection of this project (its collections: categories, comments, posts, users)')
    const expand = await send(`${url}/api/posts/1?_expand=author`)
    expect(expand.status).toBe(400)
    expect(expand.json.error.message).toContain('"_expand" names "author"')
    expect((await send(`${url}/api/posts?_embed=comments.user`)).json.error.message).toContain('names "comments.user"')
    expect((await send(`${url}/api/posts?_embed=`)).status).toBe(400)
    const many = Array.from({ length: MAX_RELATIONS + 1 }, (_, i) => `c${i}`).join(',')
    const tooMany = await send(`${url}/api/posts?_embed=${many}`)
    expect(tooMany.status).toBe(400)
    expect(tooMany.json.error.message).toContain(`at most ${MAX_RELATIONS}`)
    // Not a filter either: the list answers as without it.
    expect((await send(`${url}/api/posts?_expand=user`)).headers.get('x-total-count')).toBe('3')
  })

  it('refuses to embed more than MAX_EMBEDDED records into one answer', async () => {
    const { context } = openStore(ws.db)
    const notes = context.repos.relations.collectionByName(1, 'comments')!
    writeTransaction(context.db, () => insertRecords(context, notes, Array.from({ length: MAX_EMBEDDED }, (_, i) => ({ id: `bulk-${i}`, postId: 3 }))))
    const capped = await send(`${url}/api/posts?_embed=comments`)
    expect(capped.status).toBe(400)
    expect(capped.json.error.message).toContain(`more than ${MAX_EMBEDDED} comments records`)
    // A collection this large gets the foreign key indexed on first use, as a filter on it does; the answers match a filter's.
    const raw = new Database(ws.db, { readonly: true })
    expect(raw.prepare('SELECT field FROM indexed_fields WHERE collection_id = ?').pluck().all(notes)).toEqual(['postId'])
    raw.close()
    // One post's worth still fits.
    const one = await send(`${url}/api/posts/1?_embed=comments`)
    expect(one.json.comments).toHaveLength(2)
    expect((await send(`${url}/api/comments?postId=1`)).json).toEqual(one.json.comments)
    expect((await send(`${url}/api/posts?_embed=comments&limit=1`)).json[0].comments.map((c: { body: string }) => c.body)).toEqual(['a', 'b'])
    // One record cannot be paged: its refusal points at the children's own list.
    await post(`${url}/api/comments`, { id: 'one-more', postId: 3 })
    const item = await send(`${url}/api/posts/3?_embed=comments`)
    expect(item.status).toBe(400)
    expect(item.json.error.message).toBe(`query parameter "_embed" would embed more than ${MAX_EMBEDDED} comments records in one answer; this record has more; list them from their own collection instead, filtered by postId and paged (e.g. ?postId=3&_page=1)`)
    const cleared = await send(`${url}/api/posts/3?_dependent=comments`, { method: 'DELETE' })
    expect(cleared.headers.get('x-deleted-dependents')).toBe(String(MAX_EMBEDDED + 1))
  })

  it('refuses a collection deleted since, by name', async () => {
    const scratch = cliWorkspace()
    await scratch.ok('init', '--yes', '--slug', 's')
    await scratch.ok('add-resource', '/api/posts')
    await scratch.ok('add-resource', '/api/comments')
    const server = await serve(scratch.db)
    await post(`${server.url}/api/posts`, { id: 1 })
    expect((await send(`${server.url}/api/posts/1?_embed=comments`)).json).toMatchObject({ comments: [] })
    const { context } = openStore(scratch.db)
    const resource = context.repos.resources.byPath(1, '/api/comments')!
    deleteResource(context, resource)
    const gone = await send(`${server.url}/api/posts/1?_embed=comments`)
    expect(gone.status).toBe(400)
    expect(gone.json.error.message).toContain('names "comments", which is not a collection of this project (its collections: posts)')
  })
})

describe('nested POST', () => {
  let url: string
  let ws: CliWorkspace

  beforeAll(async () => {
    ws = cliWorkspace()
    await ws.ok('init', '--yes', '--slug', 'n')
    for (const path of ['/api/users', '/api/users/:userId/posts', '/api/teams/:teamId/members']) await ws.ok('add-resource', path)
    url = (await serve(ws.db)).url
  })

  it('refuses a parent that does not exist with 404, and stores nothing', async () => {
    const refused = await post(`${url}/api/users/9/posts`, { title: 'x' })
    expect(refused.status).toBe(404)
    expect(refused.json.error).toMatchObject({ code: 'NOT_FOUND', message: 'no users record with id "9"' })
    expect(stored(ws.db, 'posts')).toEqual([])
  })

  it('stores the parent field with the parent id as the parent stores it', async () => {
    const user = (await post(`${url}/api/users`, { name: 'Ada' })).json
    const created = await post(`${url}/api/users/${user.id}/posts`, { title: 'x', userId: 'ignored' })
    expect(created.status).toBe(201)
    expect(created.json.userId).toStrictEqual(user.id)
    const named = (await post(`${url}/api/users`, { id: 'ada', name: 'Ada' })).json
    expect((await post(`${url}/api/users/ada/posts`, { title: 'y' })).json.userId).toBe(named.id)
    expect(stored(ws.db, 'posts').map((p) => p.userId)).toEqual([user.id, 'ada'])
  })

  it('keeps storing under a parent collection the project does not have, as before', async () => {
    const created = await post(`${url}/api/teams/7/members`, { name: 'x' })
    expect(created.status).toBe(201)
    expect(created.json.teamId).toBe('7')
  })
})

describe('DELETE with _dependent and onDelete: cascade', () => {
  let ws: CliWorkspace
  let server: RunningServer
  let url: string

  beforeAll(async () => {
    ws = cliWorkspace()
    await ws.ok('init', '--yes', '--slug', 'd')
    expect(await ws.ok('add-resource', '/api/users', '--on-delete', 'cascade')).toContain('deleting its records cascades')
    await ws.ok('add-resource', '/api/posts', '--on-delete', 'cascade')
    await ws.ok('add-resource', '/api/comments')
    await ws.ok('add-resource', '/api/users/:owner/notes')
    await ws.ok('add-resource', '/api/tags')
    await ws.ok('add-resource', '/api/tags/:tagId/links')
    await ws.ok('add-resource', '/api/tags/:label/badges')
    server = await serve(ws.db)
    url = server.url
  })

  it('_dependent deletes the named children in the same transaction, and says how many', async () => {
    await post(`${url}/api/tags`, { id: 1 })
    await post(`${url}/api/tags`, { id: 2 })
    await post(`${url}/api/tags/1/links`, { id: 'l1' })
    await post(`${url}/api/tags/2/links`, { id: 'l2' })
    const kept = await send(`${url}/api/tags/2`, { method: 'DELETE' })
    expect(kept.status).toBe(200)
    expect(kept.headers.get('x-deleted-dependents')).toBeNull()
    expect(stored(ws.db, 'links').map((l) => l.id)).toEqual(['l1', 'l2'])

    const refused = await send(`${url}/api/tags/1?_dependent=labels`, { method: 'DELETE' })
    expect(refused.status).toBe(400)
    expect(refused.json.error.message).toContain('"_dependent" names "labels"')
    expect(stored(ws.db, 'tags').map((t) => String(t.id))).toEqual(['1'])

    const deleted = await send(`${url}/api/tags/1?_dependent=links`, { method: 'DELETE' })
    expect(deleted.status).toBe(200)
    expect(deleted.json).toMatchObject({ id: expect.anything() })
    expect(String(deleted.json.id)).toBe('1')
    expect(deleted.headers.get('x-deleted-dependents')).toBe('1')
    expect(deleted.headers.get('access-control-expose-headers')).toContain('X-Deleted-Dependents')
    expect(stored(ws.db, 'links').map((l) => l.id)).toEqual(['l2'])

    // A nested resource's own parameter names its records' parent too.
    await post(`${url}/api/tags`, { id: 3 })
    await post(`${url}/api/tags`, { id: 4 })
    await post(`${url}/api/tags/3/badges`, { id: 'b3' })
    await post(`${url}/api/tags/4/badges`, { id: 'b4' })
    const badges = await send(`${url}/api/tags/3?_dependent=badge`, { method: 'DELETE' })
    expect(badges.headers.get('x-deleted-dependents')).toBe('1')
    expect(stored(ws.db, 'badges').map((b) => [b.id, b.label])).toEqual([['b4', 4]])
  })

  it('refuses an underscored name a write does not take with 400 INVALID_QUERY, deleting and storing nothing', async () => {
    await post(`${url}/api/tags`, { id: 9 })
    await post(`${url}/api/tags/9/links`, { id: 'l9' })
    const refused = async (method: string, query: string, parameter: string, takes: string, body?: unknown) => {
      const response = await send(`${url}/api/tags${query}`, { method, body })
      expect(response.status, response.text).toBe(400)
      expect(response.json.error.code).toBe('INVALID_QUERY')
      expect(response.json.error.message).toBe(`query parameter "${parameter}" is not a parameter of this request (${takes})`)
    }
    await refused('DELETE', '/9?_dependant=links', '_dependant', 'a DELETE takes _dependent')
    await refused('DELETE', '/9?_sorts=1', '_sorts', 'a DELETE takes _dependent')
    await refused('DELETE', '/9?_embed=links', '_embed', 'a DELETE takes _dependent')
    await refused('POST', '?_dependent=links', '_dependent', 'a POST takes none', { id: 10 })
    await refused('PUT', '/9?_fields=id', '_fields', 'a PUT takes none', { name: 'put' })
    await refused('PATCH', '/9?_x=1', '_x', 'a PATCH takes none', { name: 'patched' })
    expect(stored(ws.db, 'tags').filter((t) => ['9', '10'].includes(String(t.id)))).toEqual([{ id: 9 }])
    expect(stored(ws.db, 'links').filter((l) => l.id === 'l9')).toHaveLength(1)
    // jQuery's cache buster and operator spellings are not underscored names of the request.
    expect((await send(`${url}/api/tags/9?_=1700000000000`, { method: 'PATCH', body: { name: 'ok' } })).status).toBe(200)
    const deleted = await send(`${url}/api/tags/9?_dependent=links&_=1`, { method: 'DELETE' })
    expect(deleted.status).toBe(200)
    expect(deleted.headers.get('x-deleted-dependents')).toBe('1')
  })

  it('onDelete: cascade takes the records naming it, those of nested resources, and theirs while they cascade', async () => {
    await post(`${url}/api/users`, { id: 1 })
    await post(`${url}/api/users`, { id: 2 })
    await post(`${url}/api/posts`, { id: 1, userId: 1 })
    await post(`${url}/api/posts`, { id: 2, userId: 2 })
    await post(`${url}/api/comments`, { id: 1, postId: 1 })
    await post(`${url}/api/comments`, { id: 2, postId: 2 })
    await post(`${url}/api/users/1/notes`, { id: 'n1' })
    await post(`${url}/api/users/2/notes`, { id: 'n2' })
    const deleted = await send(`${url}/api/users/1`, { method: 'DELETE' })
    expect(deleted.status).toBe(200)
    expect(String(deleted.json.id)).toBe('1')
    expect(deleted.headers.get('x-deleted-dependents')).toBe('3')
    expect(stored(ws.db, 'posts').map((p) => String(p.id))).toEqual(['2'])
    expect(stored(ws.db, 'comments').map((c) => String(c.id))).toEqual(['2'])
    expect(stored(ws.db, 'notes').map((n) => n.id)).toEqual(['n2'])
    // Comments keep theirs: their resource keeps.
    expect((await send(`${url}/api/posts?_embed=comments`)).json[0].comments).toHaveLength(1)
    expect((await send(`${url}/api/posts`)).headers.get('x-total-count')).toBe('1')
  })

  it('a nested POST held until after its parent was deleted with cascade is refused: no orphan', async () => {
    await post(`${url}/api/tags`, { id: 5 })
    const held = await heldRequest(server, 'POST', '/api/tags/5/links', { 'content-type': 'application/json' }, new TextEncoder().encode('{"id":"late"}'))
    expect((await send(`${url}/api/tags/5?_dependent=links`, { method: 'DELETE' })).status).toBe(200)
    const late = await held.finish()
    expect(late.status).toBe(404)
    expect(stored(ws.db, 'links').filter((l) => String(l.tagId) === '5')).toEqual([])
  })

  it('a burst of nested POSTs racing the cascade leaves no child of the deleted parent', async () => {
    await post(`${url}/api/tags`, { id: 6 })
    const statuses = await Promise.all(Array.from({ length: 60 }, (_, i) => (i === 30
      ? send(`${url}/api/tags/6?_dependent=links`, { method: 'DELETE' })
      : post(`${url}/api/tags/6/links`, { n: i }))).map(async (sent) => (await sent).status))
    expect(statuses.filter((s) => s === 201).length + statuses.filter((s) => s === 404).length).toBe(59)
    expect(stored(ws.db, 'links').filter((l) => String(l.tagId) === '6')).toEqual([])
  })
})

describe('mockapi add-resource --on-delete', () => {
  it('refuses a mode other than keep or cascade, exit 1, and creates nothing', async () => {
    const ws = cliWorkspace()
    await ws.ok('init', '--yes', '--slug', 'c')
    const refused = await ws.run('add-resource', '/api/users', '--on-delete', 'restrict')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('onDelete "restrict" must be one of keep, cascade')
    expect(await ws.ok('add-resource', '/api/users', '--on-delete', 'keep')).not.toContain('cascades')
    const { context } = openStore(ws.db)
    expect(context.repos.resources.listByProject(1).map((r) => [r.path, r.onDelete])).toEqual([['/api/users', 'keep']])
    await ws.ok('add-resource', '/api/teams', '--on-delete', 'cascade')
    expect(JSON.parse(await ws.ok('project', 'show', 'c', '--json')).resources).toEqual([
      { id: expect.any(Number), path: '/api/users', onDelete: 'keep' },
      { id: expect.any(Number), path: '/api/teams', onDelete: 'cascade' },
    ])
  })
})
