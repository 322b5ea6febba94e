import { afterAll, describe, expect, it } from 'vitest'
import { loadFaker } from '../../src/engine/generators.ts'
import { mintToken } from '../../src/domain/auth.ts'
import { entryOf } from '../../src/domain/journal-view.ts'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { resetProject, seedResource } from '../../src/domain/seeding.ts'
import { LATEST_VERSION } from '../../src/store/migrations/index.ts'
import type { RunningServer } from '../../src/server/start.ts'
import { cleanup, databaseAt, openStore, send, serve, tempDb, waitFor } from '../_helpers.ts'

afterAll(cleanup)

const raw = { 'content-type': 'application/json' }

describe('record ids keep their JSON type', () => {
  let server: RunningServer
  let base: string
  // Resources answer PATCH through the management API's records.
  let records: string
  let auth: Record<string, string>

  it('answers generated ids as numbers, a given number as a number and a given string as a string', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    createProject(context, { name: 'Shop', slug: 'shop' })
    const { resource } = createResource(context, { path: '/api/items' })
    auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    server = await serve(dbPath)
    base = `${server.url}/api/shop/items`
    records = `${server.url}/api/projects/${resource.projectId}/resources/${resource.id}/records`

    const generated = await send(base, { method: 'POST', body: { title: 'a' } })
    expect(generated.text).toBe('{"id":1,"title":"a"}')
    expect((await send(base, { method: 'POST', body: { id: 5, title: 'b' } })).text).toBe('{"id":5,"title":"b"}')
    expect((await send(base, { method: 'POST', body: { id: '7', title: 'c' } })).text).toBe('{"id":"7","title":"c"}')
    // A string that spells an integer still moves the counter: the next generated id is 8, a number.
    expect((await send(base, { method: 'POST', body: { title: 'd' } })).json.id).toBe(8)
    expect((await send(`${base}/7`)).json).toEqual({ id: '7', title: 'c' })
    expect((await send(`${base}/5`)).json).toEqual({ id: 5, title: 'b' })
  })

  it('treats 5 and "5" as one id: the path names both, so the second is a conflict', async () => {
    const taken = await send(base, { method: 'POST', body: { id: '5', title: 'again' } })
    expect(taken.status).toBe(409)
    expect(taken.json.error.code).toBe('CONFLICT')
    expect((await send(base, { method: 'POST', body: { id: 7, title: 'again' } })).status).toBe(409)
  })

  it('keeps the stored id type on PUT and PATCH, whatever type the body gives', async () => {
    expect((await send(`${base}/1`, { method: 'PUT', body: { id: '1', title: 'whole' } })).text).toBe('{"id":1,"title":"whole"}')
    expect((await send(`${records}/1`, { method: 'PATCH', headers: auth, body: { id: 'other', views: 2 } })).text).toBe('{"id":1,"title":"whole","views":2}')
    expect((await send(`${base}/7`, { method: 'PUT', body: { id: 7, title: 'still a string' } })).text).toBe('{"id":"7","title":"still a string"}')
    expect((await send(`${records}/7`, { method: 'PATCH', headers: auth, body: { views: 1 } })).text).toBe('{"id":"7","title":"still a string","views":1}')
  })

  it('finds either form with ?id=', async () => {
    expect((await send(`${base}?id=5`)).json).toEqual([{ id: 5, title: 'b' }])
    expect((await send(`${base}?id=7`)).json).toEqual([{ id: '7', title: 'still a string', views: 1 }])
    expect((await send(`${base}?id=5&id=7`)).json.map((r: { id: unknown }) => r.id)).toEqual([5, '7'])
  })

  it('sorts number ids as numbers', async () => {
    await send(base, { method: 'POST', body: { id: 10, title: 'ten' } })
    expect((await send(`${base}?sort=id`)).json.map((r: { id: unknown }) => r.id).filter((id: unknown) => typeof id === 'number')).toEqual([1, 5, 8, 10])
  })

  it('keeps ids past 2^53 and decimals as the numbers sent, addressed by the digits', async () => {
    const big = await send(base, { method: 'POST', headers: raw, body: '{"id":12345678901234567890,"title":"big"}' })
    expect(big.status).toBe(201)
    expect(big.text).toBe('{"id":12345678901234567890,"title":"big"}')
    expect((await send(`${base}/12345678901234567890`)).text).toBe('{"id":12345678901234567890,"title":"big"}')
    expect((await send(`${base}?id=12345678901234567890`)).text).toBe('[{"id":12345678901234567890,"title":"big"}]')
    expect((await send(`${records}/12345678901234567890`, { method: 'PATCH', headers: auth, body: { views: 3 } })).text).toBe('{"id":12345678901234567890,"title":"big","views":3}')
    const decimal = await send(base, { method: 'POST', headers: raw, body: '{"id":1.5,"title":"half"}' })
    expect(decimal.text).toBe('{"id":1.5,"title":"half"}')
    expect((await send(`${base}/1.5`)).json).toEqual({ id: 1.5, title: 'half' })
    // Neither moves the counter: generated ids stay small integers.
    expect((await send(base, { method: 'POST', body: { title: 'next' } })).json.id).toBe(11)
  })

  it('keeps the type in the journal entry of the answer', async () => {
    await send(base, { method: 'POST', body: { title: 'journalled' } })
    const projectId = server.project('shop').id
    const entry = await waitFor(() => server.journal!.records(projectId).map((record) => entryOf(record, { mask: null })).find((e) => e.answer.body?.includes('journalled')))
    expect(JSON.parse(entry.answer.body!)).toEqual({ id: 12, title: 'journalled' })
  })
})

describe('seeded ids', () => {
  it('numbers generated and literal records without ids, keeps literal ids as given, and resets to the same', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    createProject(context, { name: 'Shop', slug: 'shop' })
    const { resource } = createResource(context, { path: '/api/posts' })
    const makeFaker = await loadFaker()
    seedResource(context, resource, { fields: { title: 'lorem.word' }, seedCount: 2, seedValue: 1, seedRecords: [{ id: 'intro', title: 'x' }, { id: 3, title: 'y' }, { title: 'z' }] }, makeFaker)
    const server = await serve(dbPath)
    const base = `${server.url}/api/shop/posts`
    const ids = async () => (await send(base)).json.map((r: { id: unknown }) => r.id)
    expect(await ids()).toEqual(['intro', 3, 4, 5, 6])
    await send(`${base}/3`, { method: 'DELETE' })
    resetProject(context, server.project('shop').id)
    expect(await ids()).toEqual(['intro', 3, 4, 5, 6])
    expect((await send(base, { method: 'POST', body: {} })).json.id).toBe(7)
  })
})

describe('migration 0190', () => {
  it('turns the stored string ids of all-integer collections into numbers, in records and the seed snapshot', async () => {
    const { path, old } = databaseAt(170)
    old.exec(`
      INSERT INTO projects (id, name, slug, share_token, is_default, created_at) VALUES (1, 'Shop', 'shop', 'share', 0, '2024-01-01');
      INSERT INTO collections (id, project_id, name, next_id) VALUES (1, 1, 'items', 11), (2, 1, 'tags', 3), (3, 1, 'codes', 1);
      INSERT INTO resources (id, project_id, collection_id, path, created_at) VALUES
        (1, 1, 1, '/api/items', '2024-01-01'), (2, 1, 2, '/api/tags', '2024-01-01'), (3, 1, 3, '/api/codes', '2024-01-01');
      INSERT INTO endpoints (project_id, resource_id, method, path, kind, action, status, created_at) VALUES
        (1, 1, 'GET', '/api/items', 'resource', 'list', 200, '2024-01-01'),
        (1, 1, 'POST', '/api/items', 'resource', 'create', 201, '2024-01-01'),
        (1, 2, 'GET', '/api/tags', 'resource', 'list', 200, '2024-01-01'),
        (1, 2, 'POST', '/api/tags', 'resource', 'create', 201, '2024-01-01'),
        (1, 3, 'GET', '/api/codes', 'resource', 'list', 200, '2024-01-01');
      INSERT INTO records (collection_id, id, data) VALUES
        (1, '1', '{"id":"1","title":"caf\\u00e9","big":12345678901234567890,"nested":{"id":"1"}}'),
        (1, '10', '{"id":"10","title":"ten"}'),
        (2, '1', '{"id":"1","name":"one"}'), (2, 'x', '{"id":"x","name":"ex"}'),
        (3, '2', '{"id":"2"}');
      INSERT INTO snapshot_records (collection_id, id, data) VALUES
        (1, '1', '{"id":"1","title":"seeded"}'), (2, '1', '{"id":"1","name":"one"}'),
        (3, '2', '{"id":"2"}'), (3, '007', '{"id":"007"}');
      INSERT INTO indexed_fields (collection_id, field, path) VALUES (1, 'id', '$."id"');
      INSERT INTO field_values (collection_id, field, seq, value, json) SELECT 1, 'id', seq, data ->> '$.id', data -> '$.id' FROM records WHERE collection_id = 1;
    `)
    old.close()

    const { context } = openStore(path)
    const db = context.db
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION)
    const data = (table: string, collectionId: number) => db.prepare(`SELECT data FROM ${table} WHERE collection_id = ? ORDER BY seq`).pluck().all(collectionId)
    // Only the id changes; every other byte stays as stored.
    expect(data('records', 1)).toEqual(['{"id":1,"title":"caf\\u00e9","big":12345678901234567890,"nested":{"id":"1"}}', '{"id":10,"title":"ten"}'])
    expect(data('snapshot_records', 1)).toEqual(['{"id":1,"title":"seeded"}'])
    // A collection with a string id ("x", or "007" in its snapshot) keeps every id a string, and generates strings.
    expect(db.prepare('SELECT id_type FROM collections ORDER BY id').pluck().all()).toEqual(['number', 'string', 'string'])
    expect(data('records', 2)).toEqual(['{"id":"1","name":"one"}', '{"id":"x","name":"ex"}'])
    expect(data('snapshot_records', 2)).toEqual(['{"id":"1","name":"one"}'])
    expect(data('records', 3)).toEqual(['{"id":"2"}'])
    expect(data('snapshot_records', 3)).toEqual(['{"id":"2"}', '{"id":"007"}'])
    // The field index follows the rewrite.
    expect(db.prepare("SELECT json FROM field_values WHERE collection_id = 1 AND field = 'id' ORDER BY seq").pluck().all()).toEqual(['1', '10'])

    const server = await serve(path)
    const items = `${server.url}/api/shop/items`
    expect((await send(`${items}?id=10`)).json).toEqual([{ id: 10, title: 'ten' }])
    expect((await send(items, { method: 'POST', body: { title: 'new' } })).json).toEqual({ id: 11, title: 'new' })
    expect((await send(`${server.url}/api/shop/tags`, { method: 'POST', body: { name: 'three' } })).json).toEqual({ id: '3', name: 'three' })
    resetProject(context, server.project('shop').id)
    expect((await send(items)).json).toEqual([{ id: 1, title: 'seeded' }])
  })
})
