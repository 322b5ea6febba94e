import { setImmediate as nextTurn } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { runRecordAction } from '../../src/domain/records.ts'
import { whenStoreFree } from '../../src/domain/transaction.ts'
import { AppError } from '../../src/errors.ts'
import { cleanup, cliWorkspace, openStore, send, spawnServe } from '../_helpers.ts'

afterEach(cleanup)

describe('a cascading DELETE in the server, nested POSTs from another process', () => {
  it('leaves no child of a deleted parent: each POST either lands before the delete (and goes with it) or is refused after', { timeout: 60_000 }, async () => {
    const ws = cliWorkspace()
    await ws.ok('init', '--yes', '--slug', 'race')
    await ws.ok('add-resource', '/api/posts', '--on-delete', 'cascade')
    await ws.ok('add-resource', '/api/posts/:postId/comments')
    const server = await spawnServe(['--db', ws.db, 'serve', '--port', '0', '--quiet'], { cwd: ws.cwd })
    const parents = ['p1', 'p2', 'p3', 'p4', 'p5']
    for (const id of parents) expect((await send(`${server.url}/api/posts`, { method: 'POST', body: { id } })).status).toBe(201)

    // This test process is the second writer, through the same domain code the server runs.
    const { context } = openStore(ws.db)
    const comments = context.repos.resources.byPath(1, '/api/posts/:postId/comments')!
    const postComment = (postId: string, n: number) => whenStoreFree(context.db, () => runRecordAction(context, {
      action: 'create', resource: comments, collectionId: comments.collectionId, parents: [{ field: 'postId', values: [postId] }],
      id: undefined, query: new URLSearchParams(), body: { n }, url: new URL('http://localhost/'), status: 201,
    }))

    let created = 0
    let refused = 0
    let cascaded = 0
    for (const postId of parents) {
      // A few children before, then children posted while the DELETE is on its way and answered.
      for (let n = 0; n < 3; n += 1) await postComment(postId, n)
      created += 3
      let answered = false
      const deleted = send(`${server.url}/api/posts/${postId}`, { method: 'DELETE' }).then((response) => {
        answered = true
        return response
      })
      for (let n = 3; !answered; n += 1) {
        try {
          await postComment(postId, n)
          created += 1
        } catch (error) {
          if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error
          refused += 1
        }
        await nextTurn()
      }
      const response = await deleted
      expect(response.status).toBe(200)
      cascaded += Number(response.headers.get('x-deleted-dependents'))
      // After the answer, the parent is gone for good: a POST under it is refused.
      await expect(postComment(postId, -1)).rejects.toMatchObject({ code: 'NOT_FOUND', message: `no posts record with id "${postId}"` })
    }

    const file = new Database(ws.db, { readonly: true })
    const left = file.prepare('SELECT count(*) FROM records WHERE collection_id = ?').pluck().get(comments.collectionId)
    file.close()
    expect(left).toBe(0)
    // Every child that was stored went with its parent, none was lost track of.
    expect(cascaded).toBe(created)
    expect(created).toBeGreaterThanOrEqual(15)
    expect(refused + created).toBeGreaterThan(15)
  })
})
