import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { cleanup, cliWorkspace, expectAliveAndIntact, openStore, send, serve, type Sent } from '../_helpers.ts'

afterAll(cleanup)

const LOCK_WAIT_MS = 300

/**
 * The write routes issue 16 added (project settings, endpoint delay/fault/auth/body, responses,
 * file uploads) meet another process's write lock as every write does: 503 STORE_BUSY with
 * Retry-After after the lock wait, nothing stored; the mock answers that only read (a rule, a
 * sequence's turn, auth) keep answering meanwhile.
 */
describe('issue 16 settings while another process holds the write lock', () => {
  it('refuse with 503 STORE_BUSY and store nothing; mock answers go on; the same writes pass once the lock is free', async () => {
    const { ok, db } = cliWorkspace()
    await ok('init', '--yes', '--slug', 't', '--resource', '/api/items')
    await ok('add-endpoint', 'GET', '/api/turns', '--body', '{"n":0}')
    await ok('endpoint', 'set', 'GET', '/api/turns', '--pick', 'sequence')
    await ok('response', 'add', 'GET', '/api/turns', '--body', '{"n":1}')
    await ok('response', 'add', 'GET', '/api/turns', '--body', '{"n":2}')
    await ok('add-endpoint', 'GET', '/api/private', '--body', '{"secret":true}', '--auth', 'bearer:t-1')
    const { url } = await serve(db, { lockWaitMs: LOCK_WAIT_MS })
    const { context } = openStore(db)
    const headers = { authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const api = `${url}/api/projects/1`
    const endpoints = async () => (await send(`${api}/endpoints`, { headers })).json as { id: number; path: string; method: string }[]
    const turns = (await endpoints()).find((e) => e.path === '/api/turns')!
    const snapshot = () => ({
      project: context.db.prepare('SELECT path_rules, auth FROM projects WHERE id = 1').get(),
      endpoints: context.db.prepare('SELECT * FROM endpoints ORDER BY id').all(),
      files: context.db.prepare('SELECT count(*) FROM response_files').pluck().get(),
    })
    const before = snapshot()

    const writes: [string, () => Promise<Sent>][] = [
      ['project settings', () => send(api, { method: 'PATCH', headers, body: { pathRules: 'off' } })],
      ['delay, fault and auth', () => send(`${api}/endpoints/${turns.id}`, { method: 'PATCH', headers, body: { delay: '100-300', fault: 'reset', auth: 'none' } })],
      ['a response added', () => send(`${api}/endpoints/${turns.id}/responses`, { method: 'POST', headers, body: { status: 204 } })],
      ['a text body', () => send(`${api}/endpoints/${turns.id}`, { method: 'PATCH', headers, body: { text: 'plain' } })],
      ['a file uploaded', () => send(`${api}/endpoints/${turns.id}/file?name=a.txt`, { method: 'PUT', headers: { ...headers, 'content-type': 'application/octet-stream' }, body: 'bytes' })],
    ]
    const locker = new Database(db)
    try {
      locker.exec('BEGIN IMMEDIATE')
      for (const [what, write] of writes) {
        const answer = await write()
        expect([what, answer.status, answer.json?.error?.code, answer.headers.get('retry-after')]).toEqual([what, 503, 'STORE_BUSY', '2'])
      }
      // Reads go on: a sequence takes its turns (kept in memory), auth refuses and admits, without the lock.
      expect((await send(`${url}/api/t/turns`)).json).toEqual({ n: 1 })
      expect((await send(`${url}/api/t/turns`)).json).toEqual({ n: 2 })
      expect((await send(`${url}/api/t/private`)).status).toBe(401)
      expect((await send(`${url}/api/t/private`, { headers: { authorization: 'Bearer t-1' } })).json).toEqual({ secret: true })
    } finally {
      if (locker.inTransaction) locker.exec('ROLLBACK')
      locker.close()
    }
    expect(snapshot()).toEqual(before)

    for (const [what, write] of writes) expect([what, (await write()).status]).toEqual([what, what === 'a response added' ? 201 : 200])
    expect(snapshot()).not.toEqual(before)
    await expectAliveAndIntact(url, db)
  })
})
