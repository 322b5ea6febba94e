import { afterAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { mintToken } from '../../src/domain/auth.ts'
import { createProject } from '../../src/domain/projects.ts'
import { cleanup, cli, openStore, send, serve, tempDb, tempDir } from '../_helpers.ts'

afterAll(cleanup)

/** json-server 1.x writes every id as a string, its own generated ones too ("a1b2"). */
const STRING_IDS = JSON.stringify({
  posts: [{ id: '1', title: 'one' }, { id: '2', title: 'two' }, { id: 'a1b2', title: 'hex' }],
})

function workspace(files: Record<string, string>) {
  const cwd = tempDir()
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text)
  const db = join(cwd, 'm.db')
  return { cwd, db, run: (...args: string[]) => cli(['--db', db, ...args], { cwd }) }
}

describe('generated ids take the type of the ids a collection was seeded with', () => {
  it('a db.json with string ids generates strings, after a reset too; imported again with numbers, numbers', async () => {
    const { db, run } = workspace({ 'db.json': STRING_IDS, 'numbers.json': JSON.stringify({ posts: [{ id: 1, title: 'one' }] }) })
    expect((await run('import', 'db.json')).code).toBe(0)
    const server = await serve(db)
    const created = await send(`${server.url}/posts`, { method: 'POST', body: { title: 'new' } })
    console.log(created.text)
    expect(created.text).toBe('{"id":"3","title":"new"}')
    expect((await send(`${server.url}/posts?id=3`)).json).toEqual([{ id: '3', title: 'new' }])
    expect((await run('reset')).code).toBe(0)
    expect((await send(`${server.url}/posts`, { method: 'POST', body: {} })).json).toEqual({ id: '3' })

    expect((await run('import', 'numbers.json', '--project', 'db', '--format', 'json-server')).code).toBe(0)
    expect((await send(`${server.url}/posts`, { method: 'POST', body: {} })).json).toEqual({ id: 2 })
    await server.close()
  })

  it('a project file\'s records: with string ids generate strings, with a number among them numbers', async () => {
    const file = (ids: string) => `name: Shop\nslug: shop\nresources:\n  - path: /api/notes\n    records: [${ids}]\n    fields: { title: lorem.word }\n    count: 1\n`
    const { db, run } = workspace({ 'strings.yaml': file('{ id: "n-1", title: a }, { id: "7", title: b }'), 'mixed.yaml': file('{ id: "n-1", title: a }, { id: 7, title: b }') })
    expect((await run('apply', 'strings.yaml')).code).toBe(0)
    const server = await serve(db)
    const notes = `${server.url}/api/shop/notes`
    expect((await send(notes)).json.map((n: { id: unknown }) => n.id)).toEqual(['n-1', '7', '8'])
    expect((await send(notes, { method: 'POST', body: {} })).json).toEqual({ id: '9' })

    expect((await run('apply', 'mixed.yaml')).code).toBe(0)
    expect((await send(notes)).json.map((n: { id: unknown }) => n.id)).toEqual(['n-1', 7, 8])
    expect((await send(notes, { method: 'POST', body: {} })).json).toEqual({ id: 9 })
    await server.close()
  })

  it('a db.json imported through the management API generates strings the same way', async () => {
    const dbPath = tempDb()
    const { context } = openStore(dbPath)
    const project = createProject(context, { name: 'Shop', slug: 'shop' })
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const server = await serve(dbPath)
    const imported = await send(`${server.url}/api/projects/${project.id}/imports`, { method: 'POST', headers: auth, body: { text: STRING_IDS, filename: 'db.json', prefix: '/api' } })
    expect(imported.status, imported.text).toBe(201)
    expect((await send(`${server.url}/api/posts`, { method: 'POST', body: { title: 'new' } })).json).toEqual({ id: '3', title: 'new' })
    await server.close()
  })
})
