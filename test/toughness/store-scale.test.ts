import { afterAll, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanup, cliWorkspace, expectAliveAndIntact, send, serve, type CliWorkspace } from '../_helpers.ts'

afterAll(cleanup)

/**
 * The records of a collection, in order, as one digest (100,000 of them do not fit an assertion
 * message): every id and record text, joined by SQLite in one string rather than a row at a time.
 */
function fingerprint(dbPath: string, resourcePath: string): { count: number; digest: string } {
  const file = new Database(dbPath, { readonly: true })
  try {
    const [count, joined] = file.prepare(
      `SELECT count(*), group_concat(r.id || char(10) || r.data || char(10), '' ORDER BY r.seq)
       FROM records r JOIN resources s ON s.collection_id = r.collection_id WHERE s.path = ?`,
    ).raw().get(resourcePath) as [number, string | null]
    return { count, digest: createHash('sha256').update(joined ?? '').digest('hex') }
  } finally {
    file.close()
  }
}

/**
 * The server runs in this process on its own connection, as `serve` would in another: the CLI's
 * reset commits through a second connection beside it, and SQLite sees no difference.
 */
async function startServe(w: CliWorkspace) {
  return serve(w.db)
}

// Before seed snapshots had rows of their own, a reset of 20,000 records took longer than 20 s and
// one of 100,000 ran for minutes. The whole test seeds, serves and resets 100,000 records twice.
describe('reset of a large seeded collection', { timeout: 90_000 }, () => {
  it('restores 100,000 seeded records exactly, beside a running serve, and keeps the field index right', async () => {
    const w = cliWorkspace()
    await w.ok('init', '--yes', '--name', 'T', '--slug', 't')
    await w.ok('add-resource', '/api/items', '--fields', 'title:lorem.word,n:number.int', '--seed', '100000', '--seed-value', '3')
    const seeded = fingerprint(w.db, '/api/items')
    expect(seeded.count).toBe(100_000)
    const server = await startServe(w)
    const items = `${server.url}/api/t/items`
    const seventh = (await send(`${items}/7`)).json as { title: string }
    // A filter on a collection this large builds the field index, which reset must keep in step.
    const sameTitle = Number((await send(`${items}?title=${encodeURIComponent(seventh.title)}&limit=1`)).headers.get('x-total-count'))
    expect(sameTitle).toBeGreaterThan(0)

    expect((await send(items, { method: 'POST', body: { title: 'added' } })).json.id).toBe(100001)
    expect((await send(`${items}/7`, { method: 'PUT', body: { title: 'changed' } })).status).toBe(200)
    expect((await send(`${items}/5`, { method: 'DELETE' })).status).toBe(200)
    expect(fingerprint(w.db, '/api/items')).not.toEqual(seeded)

    expect(await w.ok('reset')).toMatch(/100000 records/)
    expect(fingerprint(w.db, '/api/items')).toEqual(seeded)
    expect((await send(`${items}/7`)).json).toEqual(seventh)
    expect(Number((await send(`${items}?title=${encodeURIComponent(seventh.title)}&limit=1`)).headers.get('x-total-count'))).toBe(sameTitle)
    expect(Number((await send(`${items}?title=changed&limit=1`)).headers.get('x-total-count'))).toBe(0)
    expect(Number((await send(`${items}?limit=1`)).headers.get('x-total-count'))).toBe(100_000)
    expect((await send(items, { method: 'POST', body: { title: 'after reset' } })).json.id).toBe(100001)

    // The management API's reset does the same.
    const auth = { authorization: `Bearer ${(await w.ok('token')).trim()}` }
    const projectId = (JSON.parse(await w.ok('project', 'show', 't', '--json')) as { id: number }).id
    const reset = await send(`${server.url}/api/projects/${projectId}/reset`, { method: 'POST', headers: auth })
    expect(reset.status).toBe(200)
    expect(reset.json).toEqual({ collections: 1, records: 100_000 })
    expect(fingerprint(w.db, '/api/items')).toEqual(seeded)

    await expectAliveAndIntact(server.url, w.db)
    await server.close()
  })

  it('apply with count 100000 seeds, re-seeds when the seed changes, and reset restores the new seed', async () => {
    const w = cliWorkspace()
    const file = join(w.cwd, 'big.yaml')
    const write = (seed: number) => writeFileSync(file, `name: Big\nslug: big\nseed: ${seed}\nresources:\n  - path: /api/things\n    fields:\n      title: lorem.word\n    count: 100000\n`)
    write(1)
    await w.ok('apply', file)
    const first = fingerprint(w.db, '/api/things')
    expect(first.count).toBe(100_000)
    write(2)
    await w.ok('apply', file)
    const second = fingerprint(w.db, '/api/things')
    expect(second.count).toBe(100_000)
    expect(second.digest).not.toBe(first.digest)

    const server = await startServe(w)
    expect((await send(`${server.url}/api/big/things/1`, { method: 'DELETE' })).status).toBe(200)
    await w.ok('reset', '--project', 'big')
    expect(fingerprint(w.db, '/api/things')).toEqual(second)
    await expectAliveAndIntact(server.url, w.db)
    await server.close()
  })

  it('restores literal records with client ids beside generated ones; new ids continue after the highest integer id', async () => {
    const w = cliWorkspace()
    const file = join(w.cwd, 'mixed.yaml')
    writeFileSync(file, [
      'name: Mixed', 'slug: mixed', 'seed: 5', 'resources:', '  - path: /api/notes',
      '    records:', '      - { id: "10", text: ten }', '      - { id: abc, text: letters }', '      - { id: "0042", text: padded }',
      '    fields:', '      text: lorem.word', '    count: 3', '',
    ].join('\n'))
    await w.ok('apply', file)
    const seeded = fingerprint(w.db, '/api/notes')
    const server = await startServe(w)
    const notes = `${server.url}/api/mixed/notes`
    const ids = ((await send(notes)).json as { id: string | number }[]).map((note) => note.id)
    // Literal ids keep the type they were written with; all strings, so the generated ones are strings too.
    expect(ids).toEqual(['10', 'abc', '0042', '11', '12', '13'])
    expect((await send(notes, { method: 'POST', body: { id: '500', text: 'client id' } })).status).toBe(201)
    expect((await send(`${notes}/abc`, { method: 'DELETE' })).status).toBe(200)

    await w.ok('reset', '--project', 'mixed')
    expect(fingerprint(w.db, '/api/notes')).toEqual(seeded)
    expect((await send(notes, { method: 'POST', body: { text: 'next' } })).json.id).toBe('14')
    await expectAliveAndIntact(server.url, w.db)
    await server.close()
  })
})
