import { afterEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { createProject, deleteProject } from '../../src/domain/projects.ts'
import { createSubscription } from '../../src/domain/subscriptions.ts'
import { LATEST_VERSION } from '../../src/store/migrations/index.ts'
import { cleanup, databaseAt, cli, cliWorkspace, expectAliveAndIntact, openStore, send, serve, serveCli, startReceiver, waitFor, type CliWorkspace, type ServeRun } from '../_helpers.ts'

afterEach(cleanup)

/** `mockapi serve` in this process; stopping it closes its database as a stopped process would. */
function startServe(w: CliWorkspace): Promise<ServeRun> {
  return serveCli(['--db', w.db, 'serve', '--port', '0', '--quiet'], { cwd: w.cwd })
}

async function stop(server: ServeRun): Promise<void> {
  expect(await server.stop()).toBe(0)
}

const idOf = (stdout: string): number => Number((JSON.parse(stdout) as { id: number | string }).id)

describe('ids are never reused', () => {
  it('projects, endpoints, subscriptions, attempts and inbox items get new ids after deletes, across restarts', async () => {
    const w = cliWorkspace()
    await w.ok('init', '--yes', '--name', 'A', '--slug', 'a', '--resource', '/api/items')
    const a = idOf(await w.ok('project', 'show', 'a', '--json'))
    const receiver = await startReceiver()

    const b = idOf(await w.ok('project', 'create', 'B', '--slug', 'b', '--json'))
    await w.ok('project', 'delete', 'b')
    const c = idOf(await w.ok('project', 'create', 'C', '--slug', 'c', '--json'))
    expect(c).toBeGreaterThan(b)

    const firstEndpoint = idOf(await w.ok('add-endpoint', 'GET', '/api/pings', '--body', '{"ok":1}', '--project', 'a', '--json'))
    await w.ok('remove-endpoint', 'GET', '/api/pings', '--project', 'a')
    const secondEndpoint = idOf(await w.ok('add-endpoint', 'GET', '/api/pings', '--body', '{"ok":2}', '--project', 'a', '--json'))
    expect(secondEndpoint).toBeGreaterThan(firstEndpoint)

    const firstSubscription = idOf(await w.ok('webhooks', 'add', receiver.url, '--events', 'mock.request', '--project', 'a', '--json'))
    const auth = { authorization: `Bearer ${(await w.ok('token')).trim()}` }
    let server = await startServe(w)
    expect((await send(`${server.url}/api/a/items`)).status).toBe(200)
    const attemptsOf = async (subscription: number) =>
      ((await send(`${server.url}/api/projects/${a}/webhooks/${subscription}/deliveries`, { headers: auth })).json as { id: number }[]).map((x) => Number(x.id))
    const firstAttempts = await waitFor(async () => { const ids = await attemptsOf(firstSubscription); return ids.length > 0 && ids })
    for (const n of [1, 2]) expect((await send(`${server.url}/api/webhooks/inbox/a`, { method: 'POST', body: { n } })).status).toBeLessThan(300)
    const inboxIds = async () => ((await send(`${server.url}/api/projects/${a}/webhook-inbox`, { headers: auth })).json as { id: string }[]).map((x) => Number(x.id))
    const firstInbox = await inboxIds()
    expect(firstInbox).toHaveLength(2)
    expect((await send(`${server.url}/api/projects/${a}/webhook-inbox`, { method: 'DELETE', headers: auth })).status).toBe(204)
    await stop(server)

    // The subscription goes with its attempts; the next ones must not take their ids, after a restart.
    await w.ok('webhooks', 'remove', String(firstSubscription))
    const secondSubscription = idOf(await w.ok('webhooks', 'add', receiver.url, '--events', 'mock.request', '--project', 'a', '--json'))
    expect(secondSubscription).toBeGreaterThan(firstSubscription)
    server = await startServe(w)
    expect((await send(`${server.url}/api/a/items`)).status).toBe(200)
    const secondAttempts = await waitFor(async () => { const ids = await attemptsOf(secondSubscription); return ids.length > 0 && ids })
    expect(Math.min(...secondAttempts)).toBeGreaterThan(Math.max(...firstAttempts))
    expect((await send(`${server.url}/api/webhooks/inbox/a`, { method: 'POST', body: { n: 3 } })).status).toBeLessThan(300)
    const secondInbox = await inboxIds()
    expect(secondInbox).toHaveLength(1)
    expect(secondInbox[0]).toBeGreaterThan(Math.max(...firstInbox))

    await expectAliveAndIntact(server.url, w.db)
    await stop(server)
  })
})

describe('a project-scoped token dies with its project', () => {
  // 401, not 403 or 404: the credential itself is no longer valid (like an expired one), whatever
  // URL it is sent to; a new token is the remedy, and nothing about the new project is revealed.
  it('answers 401 for a new project with the same slug, and even for one that got the same id', async () => {
    const w = cliWorkspace()
    await w.ok('init', '--yes', '--name', 'T', '--slug', 't')
    const oldId = idOf(await w.ok('project', 'show', 't', '--json'))
    const scoped = { authorization: `Bearer ${(await w.ok('token', '--project', 't')).trim()}` }
    const unscoped = { authorization: `Bearer ${(await w.ok('token')).trim()}` }
    const server = await startServe(w)
    await send(`${server.url}/api/webhooks/inbox/t`, { method: 'POST', body: { secret: 'old' } })
    expect((await send(`${server.url}/api/projects/${oldId}/webhook-inbox`, { headers: scoped })).status).toBe(200)

    await w.ok('project', 'delete', 't')
    const newId = idOf(await w.ok('project', 'create', 'T', '--slug', 't', '--json'))
    expect(newId).not.toBe(oldId)
    await send(`${server.url}/api/webhooks/inbox/t`, { method: 'POST', body: { secret: 'new' } })
    for (const path of [`/api/projects/${newId}/webhook-inbox`, `/api/projects/${oldId}/webhook-inbox`, `/api/projects/${newId}`, '/api/projects']) {
      const answer = await send(`${server.url}${path}`, { headers: scoped })
      expect(answer.status, path).toBe(401)
      expect(answer.text).not.toContain('secret')
      expect(answer.json.error.message).toMatch(/project has been deleted/)
    }
    expect((await send(`${server.url}/api/projects/${newId}/webhook-inbox`, { headers: unscoped })).status).toBe(200)
    const renewed = { authorization: `Bearer ${(await w.ok('token', '--project', 't')).trim()}` }
    const inbox = await send(`${server.url}/api/projects/${newId}/webhook-inbox`, { headers: renewed })
    expect(inbox.status).toBe(200)
    expect(inbox.text).toContain('new')

    // A database from before ids were kept unique could still hand the old id out again: the
    // token is bound to the project's key, not only to its id.
    await w.ok('project', 'delete', 't')
    const file = new Database(w.db)
    file.prepare("INSERT INTO projects (id, name, slug, share_token, created_at) VALUES (?, 'T', 't', 'reused', '2024-01-01T00:00:00.000Z')").run(oldId)
    file.close()
    const reused = await send(`${server.url}/api/projects/${oldId}/webhook-inbox`, { headers: scoped })
    expect(reused.status).toBe(401)
    expect((await send(`${server.url}/api/projects/${oldId}/webhook-inbox`, { headers: unscoped })).status).toBe(200)

    await expectAliveAndIntact(server.url, w.db)
    await stop(server)
  })
})

/** Rows of a table in id order, without the columns a migration may drop or add. */
function rowsOf(db: Database.Database, table: string, order = 'rowid'): Record<string, unknown>[] {
  return (db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).all() as Record<string, unknown>[])
    .map(({ snapshot: _snapshot, token_key: _key, path_rules: _pathRules, delay_max_ms: _delayMax, fault: _fault, auth: _auth, openapi_security: _openapiSecurity, negotiation: _negotiation, pick: _pick, responses: _responses, sequence_epoch: _epoch, ...rest }) => rest)
}

const TABLES = ['projects', 'collections', 'records', 'resources', 'api_specs', 'endpoints', 'inbox', 'subscriptions', 'events', 'deliveries', 'attempts', 'indexed_fields', 'field_values', 'meta']

describe('migrating a database made at version 70', () => {
  it('keeps every row, moves the seed snapshot, continues ids above the old maximum and keeps cascades', async () => {
    const { path, old } = databaseAt(70)
    const snapshot = JSON.stringify([JSON.stringify({ id: '1', title: 'one' }), JSON.stringify({ id: '2', title: 'two' }), JSON.stringify({ id: 'abc', title: 'x' })])
    old.exec(`
      INSERT INTO projects (id, name, slug, share_token, is_default, created_at, description, seed_value)
        VALUES (1, 'A', 'a', 'share-a', 1, '2024-01-01', 'first', 7), (4, 'B', 'b', 'share-b', 0, '2024-01-02', '', NULL);
      INSERT INTO collections (id, project_id, name, next_id, snapshot) VALUES (1, 1, 'items', 5, '${snapshot}'), (2, 4, 'things', 1, '[]');
      INSERT INTO records (collection_id, id, data) VALUES
        (1, '1', '{"id":"1","title":"one edited"}'), (1, '4', '{"id":"4","title":"four"}'), (2, 'z', '{"id":"z"}');
      INSERT INTO indexed_fields (collection_id, field, path) VALUES (1, 'title', '$."title"');
      INSERT INTO field_values (collection_id, field, seq, value, json) SELECT 1, 'title', seq, data ->> '$.title', data -> '$.title' FROM records WHERE collection_id = 1;
      INSERT INTO resources (id, project_id, collection_id, path, created_at, fields, seed_count, seed_records)
        VALUES (2, 1, 1, '/api/items', '2024-01-01', '{"title":"lorem.word"}', 0, '[]'), (3, 4, 2, '/api/things', '2024-01-02', '{}', 0, '[]');
      INSERT INTO api_specs (id, project_id, title, version, source, document, imported_at, format)
        VALUES (6, 1, 'Pets', '3.0', 'pets.yaml', '{"openapi":"3.0.0"}', '2024-01-01', 'openapi');
      INSERT INTO endpoints (id, project_id, resource_id, method, path, kind, action, status, created_at, spec_id, operation)
        VALUES (10, 1, 2, 'GET', '/api/items', 'resource', 'list', 200, '2024-01-01', NULL, NULL),
               (11, 1, NULL, 'GET', '/api/pets', 'openapi', NULL, 200, '2024-01-01', 6, '{"path":"/pets"}'),
               (12, 4, 3, 'GET', '/api/things', 'resource', 'list', 200, '2024-01-02', NULL, NULL),
               (13, 1, 2, 'POST', '/api/items', 'resource', 'create', 201, '2024-01-01', NULL, NULL);
      INSERT INTO inbox (id, project_id, received_at, method, headers, body, size_bytes, source_ip)
        VALUES (20, 1, '2024-01-01', 'POST', '{}', '{"n":1}', 7, '127.0.0.1'), (21, 4, '2024-01-01', 'POST', '{}', '{"n":2}', 7, NULL);
      INSERT INTO subscriptions (id, project_id, name, target_url, events, enabled, secret, created_at)
        VALUES (30, 1, 'hook', 'http://127.0.0.1:9/hook', '["mock.request"]', 0, 'whsec_x', '2024-01-01');
      INSERT INTO events (id, project_id, type, payload, created_at) VALUES ('msg_1', 1, 'mock.request', '{}', '2024-01-01');
      INSERT INTO deliveries (id, event_id, subscription_id, state, attempts, next_attempt_at, created_at)
        VALUES (40, 'msg_1', 30, 'succeeded', 1, 0, '2024-01-01');
      INSERT INTO attempts (id, delivery_id, subscription_id, event_id, event_type, attempt, status_code, succeeded, error, duration_ms, timestamp)
        VALUES (50, 40, 30, 'msg_1', 'mock.request', 1, 200, 1, NULL, 3, '2024-01-01');
    `)
    const before = Object.fromEntries(TABLES.map((table) => [table, rowsOf(old, table, table === 'field_values' || table === 'indexed_fields' || table === 'meta' ? '1, 2' : 'rowid')]))
    old.close()

    const runtime = openStore(path)
    const db = runtime.context.db
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION)
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1)
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    expect(db.pragma('foreign_key_check')).toEqual([])
    for (const table of TABLES) {
      // Columns added by later migrations are compared apart: every old row has their defaults.
      const columns = Object.keys(before[table]![0] ?? {})
      const after = rowsOf(db, table, table === 'field_values' || table === 'indexed_fields' || table === 'meta' ? '1, 2' : 'rowid')
      expect(after.map((row) => Object.fromEntries(columns.map((column) => [column, row[column]]))), table).toEqual(before[table])
    }
    expect(db.prepare('SELECT DISTINCT body_type, content_type, file_id FROM endpoints').all()).toEqual([{ body_type: 'json', content_type: null, file_id: null }])
    expect(db.prepare('SELECT data FROM snapshot_records WHERE collection_id = 1 ORDER BY seq').pluck().all()).toEqual(JSON.parse(snapshot))
    // Existing projects keep the path rules they had: strict.
    expect(db.prepare('SELECT path_rules FROM projects').pluck().all()).toEqual(['strict', 'strict'])
    // Existing endpoints keep a fixed delay and no fault.
    expect(db.prepare('SELECT count(*) FROM endpoints WHERE delay_max_ms IS NULL AND fault IS NULL').pluck().get()).toBe(db.prepare('SELECT count(*) FROM endpoints').pluck().get())
    // Existing projects and endpoints ask for no credentials; imported OpenAPI operations enforce their security (0140).
    expect(db.prepare('SELECT count(*) FROM projects WHERE auth IS NULL AND openapi_security = 1').pluck().get()).toBe(2)
    expect(db.prepare('SELECT count(*) FROM endpoints WHERE auth IS NOT NULL').pluck().get()).toBe(0)
    // Existing endpoints have no responses (they answer as before); sequences start at the first.
    expect(db.prepare("SELECT count(*) FROM endpoints WHERE pick = 'rules' AND responses = '[]'").pluck().get()).toBe(db.prepare('SELECT count(*) FROM endpoints').pluck().get())
    expect(db.prepare('SELECT sequence_epoch FROM projects').pluck().all()).toEqual([0, 0])
    const keys = db.prepare('SELECT token_key FROM projects').pluck().all() as string[]
    expect(new Set(keys).size).toBe(2)
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/)

    // New rows take ids above the old maximum even after the highest row is deleted.
    const { context } = runtime
    deleteProject(context, 'b')
    expect(db.prepare('SELECT count(*) FROM endpoints WHERE project_id = 4').pluck().get()).toBe(0)
    expect(db.prepare('SELECT count(*) FROM records WHERE collection_id = 2').pluck().get()).toBe(0)
    expect(db.prepare('SELECT count(*) FROM inbox WHERE project_id = 4').pluck().get()).toBe(0)
    expect(createProject(context, { name: 'C', slug: 'c' }).id).toBe(5)
    const project = context.repos.projects.bySlug('a')!
    expect(context.repos.inbox.insert({ projectId: 1, receivedAt: 'now', method: 'POST', headers: {}, body: '{}', sizeBytes: 2, sourceIp: null })).toBe(22)
    expect(createSubscription(context, project, { name: 's', targetUrl: 'http://127.0.0.1:9/', events: ['mock.request'] }).id).toBe(31)
    // The record-count and field-index triggers still act on the rebuilt collections table.
    expect(context.repos.records.count(1)).toBe(2)
    runtime.close()

    // Reset restores the snapshot kept in the old collections row; serve runs on the file.
    const reset = await cli(['--db', path, 'reset', '--project', 'a'])
    expect(reset.code, reset.stderr).toBe(0)
    expect(reset.stdout).toMatch(/3 records/)
    const server = await serve(path)
    const list = await send(`${server.url}/api/a/items`)
    expect(list.json).toEqual([{ id: '1', title: 'one' }, { id: '2', title: 'two' }, { id: 'abc', title: 'x' }])
    expect((await send(`${server.url}/api/a/items?title=two`)).json).toEqual([{ id: '2', title: 'two' }])
    const created = await send(`${server.url}/api/a/items`, { method: 'POST', body: { title: 'new' } })
    expect(created.json.id).toBe('3')
    await expectAliveAndIntact(server.url, path)
    await server.close()
  })
})
