import { afterAll, describe, expect, it } from 'vitest'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { mintToken } from '../../src/domain/auth.ts'
import { cleanup, cli, openStore, ROOT, send, serve, tempDir } from '../_helpers.ts'

afterAll(cleanup)

/**
 * docs/json-server.md sends json-server users to `add-resource /posts/:postId/comments` for nested
 * routes: over a `comments` collection clients have already written to, that must keep their records.
 */
async function importedAndWritten() {
  const cwd = tempDir()
  copyFileSync(join(ROOT, 'test', 'fixtures', 'json-server', 'db.json'), join(cwd, 'db.json'))
  const db = join(cwd, 'm.db')
  const run = (...args: string[]) => cli(['--db', db, ...args], { cwd })
  expect((await run('import', 'db.json')).code).toBe(0)
  const server = await serve(db)
  expect((await send(`${server.url}/comments/1`, { method: 'DELETE' })).status).toBe(200)
  const posted = await send(`${server.url}/comments`, { method: 'POST', body: { text: 'written by a client', postId: 1 } })
  expect(posted.json).toMatchObject({ id: 4 })
  const ids = async (path: string) => (await send(`${server.url}${path}`)).json.map((record: { id: unknown }) => record.id)
  return { db, run, server, ids }
}

describe('a resource added over a collection that already keeps records', () => {
  it('keeps what clients wrote there, without --seed', async () => {
    const { run, server, ids } = await importedAndWritten()
    const added = await run('add-resource', '/posts/:postId/comments')
    expect(added.code, added.stderr).toBe(0)
    console.log(added.stdout.split('\n')[0])
    expect(added.stdout).toContain('added resource /posts/:postId/comments to project db, sharing the 3 records of /comments (kept)')
    expect(await ids('/comments')).toEqual([2, 3, 4])
    expect(await ids('/posts/1/comments')).toEqual([2, 4])
    // The reset snapshot is still the file's records.
    expect((await run('reset')).code).toBe(0)
    expect(await ids('/comments')).toEqual([1, 2, 3])
    await server.close()
  })

  it('adds --seed N generated records after them, and to what reset gives back', async () => {
    const { run, server, ids } = await importedAndWritten()
    const added = await run('add-resource', '/posts/:postId/comments', '--fields', 'text:lorem.sentence', '--seed', '2')
    expect(added.code, added.stderr).toBe(0)
    console.log(added.stdout.split('\n')[0])
    expect(added.stdout).toContain('with 2 generated records, sharing the 3 records of /comments (kept; the generated ones are added after them)')
    expect(await ids('/comments')).toEqual([2, 3, 4, 5, 6])
    expect((await send(`${server.url}/comments/5`)).json).toEqual({ id: 5, text: expect.any(String) })
    expect((await run('reset')).code).toBe(0)
    expect(await ids('/comments')).toEqual([1, 2, 3, 5, 6])
    const posted = await send(`${server.url}/comments`, { method: 'POST', body: { text: 'after reset' } })
    expect(posted.json).toMatchObject({ id: 7 })
    await server.close()
  })

  it('the management API (the dashboard\'s Add resource) keeps them the same way', async () => {
    const { db, server, ids } = await importedAndWritten()
    const { context } = openStore(db)
    const auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const created = await send(`${server.url}/api/projects/1/resources`, { method: 'POST', headers: auth, body: { path: '/posts/:postId/comments', fields: { text: 'lorem.sentence' }, seed: 1 } })
    expect(created.status, created.text).toBe(201)
    expect(created.json.resource).toMatchObject({ path: '/posts/:postId/comments', seedCount: 1, recordCount: 4 })
    expect(await ids('/comments')).toEqual([2, 3, 4, 5])
    const plain = await send(`${server.url}/api/projects/1/resources`, { method: 'POST', headers: auth, body: { path: '/users/:userId/comments' } })
    expect(plain.status, plain.text).toBe(201)
    expect(await ids('/comments')).toEqual([2, 3, 4, 5])
    await server.close()
  })
})
