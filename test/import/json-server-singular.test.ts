import { afterAll, describe, expect, it } from 'vitest'
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { mintToken } from '../../src/domain/auth.ts'
import { cleanup, cli, openStore, ROOT, send, serve, tempDir } from '../_helpers.ts'

afterAll(cleanup)

const DB_JSON = join(ROOT, 'test', 'fixtures', 'json-server', 'db.json')

/** A folder holding the fixture as `db.json` (or the given database), and a CLI on a database in it. */
function workspace(db?: Record<string, unknown>) {
  const cwd = tempDir()
  if (db) writeFileSync(join(cwd, 'db.json'), JSON.stringify(db))
  else copyFileSync(DB_JSON, join(cwd, 'db.json'))
  const path = join(cwd, 'm.db')
  const run = (...args: string[]) => cli(['--db', path, ...args], { cwd })
  const ok = async (...args: string[]) => {
    const result = await run(...args)
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
    return result.stdout
  }
  return { cwd, db: path, run, ok }
}

const json = { 'content-type': 'application/json' }

describe('a json-server singular resource ("profile": {…})', () => {
  it('answers GET, PUT (replaces, an id one more field) and PATCH (merges) at its path, under the slug too; other methods 405', async () => {
    const { db, ok } = workspace()
    await ok('import', 'db.json')
    const server = await serve(db)
    const profile = `${server.url}/profile`
    expect((await send(profile)).json).toEqual({ name: 'typicode' })
    const put = await send(profile, { method: 'PUT', body: { id: 7, name: 'Ada', links: { site: 'a.example' } } })
    expect([put.status, put.text]).toEqual([200, '{"id":7,"name":"Ada","links":{"site":"a.example"}}'])
    const patch = await send(`${server.url}/api/db/profile`, { method: 'PATCH', headers: json, body: '{"links":{"mastodon":"@ada"},"big":12345678901234567890}' })
    expect(patch.status).toBe(200)
    // json-server merges the top level only, as PATCH on a record does.
    expect(patch.text).toBe('{"id":7,"name":"Ada","links":{"mastodon":"@ada"},"big":12345678901234567890}')
    expect((await send(profile)).text).toBe(patch.text)
    const head = await send(profile, { method: 'HEAD' })
    expect([head.status, head.text]).toEqual([200, ''])
    for (const method of ['DELETE', 'POST']) {
      const refused = await send(profile, { method, body: {} })
      expect([refused.status, refused.headers.get('allow')], method).toEqual([405, 'GET, HEAD, PATCH, PUT'])
    }
    // It has no items: /profile/1 is no route.
    expect((await send(`${profile}/1`)).status).toBe(404)
    await server.close()
  })

  it('refuses a body that is not a JSON object, changing nothing', async () => {
    const { db, ok } = workspace()
    await ok('import', 'db.json')
    const server = await serve(db)
    const profile = `${server.url}/profile`
    for (const method of ['PUT', 'PATCH']) {
      for (const body of ['[{"name":"x"}]', '"x"', '1', 'null', '']) {
        const refused = await send(profile, { method, headers: json, body })
        expect([refused.status, refused.json.error.code], `${method} ${body}`).toEqual([400, 'INVALID_BODY'])
      }
      const malformed = await send(profile, { method, headers: json, body: '{"name":' })
      expect([malformed.status, malformed.json.error.code]).toEqual([400, 'INVALID_JSON'])
      expect((await send(profile, { method, headers: { 'content-type': 'text/plain' }, body: 'name=x' })).status).toBe(415)
    }
    expect((await send(profile)).json).toEqual({ name: 'typicode' })
    await server.close()
  })

  it('reset restores the imported object; importing again replaces it in place; export and apply keep it', async () => {
    const { cwd, db, ok } = workspace()
    await ok('import', 'db.json')
    const server = await serve(db)
    const profile = `${server.url}/profile`
    await send(profile, { method: 'PATCH', body: { bio: 'changed' } })
    await ok('reset')
    expect((await send(profile)).json).toEqual({ name: 'typicode' })

    const next = JSON.parse(readFileSync(join(cwd, 'db.json'), 'utf8'))
    next.profile = { name: 'Ada', since: 1815 }
    writeFileSync(join(cwd, 'db.json'), JSON.stringify(next))
    const again = await ok('import', 'db.json', '--json')
    const result = JSON.parse(again)
    expect(result.created).toEqual([])
    expect(result.updated.filter((e: { path: string }) => e.path === '/profile').map((e: { method: string }) => e.method).sort()).toEqual(['GET', 'PATCH', 'PUT'])
    expect((await send(profile)).json).toEqual({ name: 'Ada', since: 1815 })
    await send(profile, { method: 'PUT', body: { name: 'someone else' } })

    // The file keeps the object it starts with (what reset restores), as it keeps a resource's records.
    const exported = await ok('export')
    expect(exported).toContain('  - path: /profile\n    object:\n      name: Ada\n      since: 1815\n')
    writeFileSync(join(cwd, 'db.yaml'), exported)
    expect(await ok('apply', 'db.yaml')).toContain('already matches')
    const elsewhere = join(cwd, 'other.db')
    expect((await cli(['--db', elsewhere, 'apply', 'db.yaml'], { cwd })).code).toBe(0)
    expect((await cli(['--db', elsewhere, 'export'], { cwd })).stdout).toBe(exported)
    const other = await serve(elsewhere)
    expect((await send(`${other.url}/profile`)).json).toEqual({ name: 'Ada', since: 1815 })
    expect((await send(`${other.url}/profile`, { method: 'PATCH', body: { since: 1816 } })).json).toEqual({ name: 'Ada', since: 1816 })
    await other.close()
    await server.close()
  })

  it('a PATCH racing a reset from another connection: every answer is an object the store held, and the last write wins', async () => {
    const { db, ok } = workspace()
    await ok('import', 'db.json')
    const server = await serve(db)
    const profile = `${server.url}/profile`
    const patches = Array.from({ length: 30 }, (_, i) => send(profile, { method: 'PATCH', body: { [`f${i}`]: i } }))
    const resets = [ok('reset'), ok('reset')]
    const answers = await Promise.all(patches)
    await Promise.all(resets)
    for (const [i, answer] of answers.entries()) {
      expect(answer.status).toBe(200)
      // Each merged into whatever was stored when it ran: the imported object, maybe with earlier fields.
      expect(answer.json).toMatchObject({ name: 'typicode', [`f${i}`]: i })
    }
    // Whichever came last, the object is whole: the imported one, with or without fields patched after the reset.
    const final = (await send(profile)).json
    expect(final.name).toBe('typicode')
    expect(Object.keys(final).every((key) => key === 'name' || /^f\d+$/.test(key))).toBe(true)
    await ok('reset')
    expect((await send(profile)).json).toEqual({ name: 'typicode' })
    await server.close()
  })

  it('a project imported before singulars kept their writes (a fixed GET) gets the singular on its next import', async () => {
    const { db, ok } = workspace()
    await ok('project', 'create', 'db', '--slug', 'db')
    await ok('project', 'set', 'db', '--path-rules', 'off')
    await ok('add-endpoint', 'GET', '/profile', '--body', '{"name":"old"}')
    await ok('import', 'db.json')
    const server = await serve(db)
    expect((await send(`${server.url}/profile`)).json).toEqual({ name: 'typicode' })
    expect((await send(`${server.url}/profile`, { method: 'PATCH', body: { a: 1 } })).json).toEqual({ name: 'typicode', a: 1 })
    await server.close()
  })

  it('is no record: relations never name nor delete it, the management API says where its object is, and the file refuses records beside it', async () => {
    const { cwd, db, ok, run } = workspace({ users: [{ id: 1, name: 'Ada' }, { id: 2 }], posts: [{ id: 1, userId: 1 }], profile: { userId: 1, theme: 'dark' } })
    await ok('import', 'db.json')
    // Users cascade: deleting one takes its posts, never the profile that names it.
    writeFileSync(join(cwd, 'db.yaml'), (await ok('export')).replace('  - path: /users\n', '  - path: /users\n    onDelete: cascade\n'))
    expect(await ok('apply', 'db.yaml')).toContain('~ onDelete /users: cascade')
    const server = await serve(db)
    for (const query of ['/users/2?_dependent=profile', '/users?_embed=profile', '/posts?_expand=profile']) {
      const refused = await send(`${server.url}${query}`, { method: query.includes('_dependent') ? 'DELETE' : 'GET' })
      expect([refused.status, refused.json.error.code], query).toEqual([400, 'INVALID_QUERY'])
      expect(refused.json.error.message).toContain('which is not a collection of this project (its collections: posts, users)')
    }
    const deleted = await send(`${server.url}/users/1`, { method: 'DELETE' })
    expect([deleted.status, deleted.headers.get('x-deleted-dependents')]).toEqual([200, '1'])
    expect((await send(`${server.url}/posts`)).json).toEqual([])
    expect((await send(`${server.url}/profile`)).json).toEqual({ userId: 1, theme: 'dark' })

    const { context } = openStore(db)
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const resources = (await send(`${server.url}/api/projects/1/resources`, { headers: auth })).json
    const singular = resources.find((r: { path: string }) => r.path === '/profile')
    expect(singular).toMatchObject({ singular: true, recordCount: 1 })
    expect(resources.find((r: { path: string }) => r.path === '/users')).toMatchObject({ singular: false })
    for (const [method, path] of [['GET', ''], ['POST', ''], ['GET', '/x']]) {
      const refused = await send(`${server.url}/api/projects/1/resources/${singular.id}/records${path}`, { method, headers: auth, body: method === 'POST' ? {} : undefined })
      expect([refused.status, refused.json.error.message]).toEqual([409, 'resource /profile is singular: its one object is answered at /profile (GET, PUT, PATCH), it has no records'])
    }
    await server.close()

    writeFileSync(join(cwd, 'bad.yaml'), 'name: Bad\nresources:\n  - path: /api/profile\n    object: { name: a }\n    records: [{ id: 1 }]\n')
    const refused = await run('apply', 'bad.yaml')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/line 5: resources\[0\]\.records cannot be given with object: a singular resource is its one object/)
  })

  it('made read-only (PUT and PATCH removed) it exports as such; add-endpoint brings a write back, working on its object', async () => {
    const { cwd, db, ok } = workspace()
    await ok('import', 'db.json')
    await ok('remove-endpoint', 'PUT', '/profile')
    await ok('remove-endpoint', 'PATCH', '/profile')
    const exported = await ok('export')
    expect(exported).toContain('  - path: /profile\n    object:\n      name: typicode\n    without:\n      - PUT /profile\n      - PATCH /profile\n')
    const elsewhere = join(cwd, 'other.db')
    writeFileSync(join(cwd, 'db.yaml'), exported)
    expect((await cli(['--db', elsewhere, 'apply', 'db.yaml'], { cwd })).code).toBe(0)
    expect((await cli(['--db', elsewhere, 'export'], { cwd })).stdout).toBe(exported)
    const server = await serve(db)
    expect((await send(`${server.url}/profile`, { method: 'PUT', body: { name: 'x' } })).status).toBe(405)
    await ok('add-endpoint', 'PATCH', '/profile')
    expect((await send(`${server.url}/profile`, { method: 'PATCH', body: { a: 1 } })).json).toEqual({ name: 'typicode', a: 1 })
    expect(JSON.parse(await ok('endpoints', '--json')).find((e: { method: string; path: string }) => e.method === 'PATCH' && e.path === '/profile'))
      .toMatchObject({ kind: 'resource', action: 'patch' })
    await server.close()
  })

  it('a file that turns a collection into a singular (or back) makes it again as the file says', async () => {
    const { cwd, db, ok } = workspace()
    await ok('init', '--yes', '--slug', 'shop', '--resource', '/api/settings')
    writeFileSync(join(cwd, 'm.yaml'), 'name: shop\nslug: shop\nresources:\n  - path: /api/settings\n    object: { currency: EUR }\n')
    const applied = await ok('apply', 'm.yaml')
    expect(applied).toContain('- resource /api/settings')
    expect(applied).toContain('+ resource /api/settings')
    const server = await serve(db)
    expect((await send(`${server.url}/api/settings`)).json).toEqual({ currency: 'EUR' })
    expect((await send(`${server.url}/api/settings`, { method: 'PUT', body: { currency: 'USD' } })).json).toEqual({ currency: 'USD' })
    expect((await send(`${server.url}/api/settings/1`)).status).toBe(404)
    writeFileSync(join(cwd, 'm.yaml'), 'name: shop\nslug: shop\nresources:\n  - path: /api/settings\n')
    await ok('apply', 'm.yaml')
    expect((await send(`${server.url}/api/settings`)).json).toEqual([])
    await server.close()
  })
})
