import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { createProject, deleteProject } from '../../src/domain/projects.ts'
import { cleanup, openStore, send, serve, tempDb } from '../_helpers.ts'

// The management API loads with its first request (src/server/app.ts): many first requests at once,
// mock requests beside them, and a project deleted by another connection meanwhile.

let url: string
let auth: Record<string, string>
let dbPath: string

beforeAll(async () => {
  dbPath = tempDb()
  const { context } = openStore(dbPath)
  createProject(context, { name: 'Shop', slug: 'shop' })
  createProject(context, { name: 'Gone', slug: 'gone' })
  auth = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
  url = (await serve(dbPath)).url
})
afterAll(cleanup)

describe('the management API, loaded by its first requests', () => {
  it('answers twenty first requests at once alike, and mocks and health beside them', async () => {
    const { context } = openStore(dbPath)
    const asked = Promise.all([
      send(`${url}/api/health`),
      ...Array.from({ length: 20 }, (_, i) => (i % 2 ? send(`${url}/api/projects`, { headers: auth }) : send(`${url}/api/projects/1`, { headers: auth }))),
      send(`${url}/api/projects`),
    ])
    // Another connection deletes a project while the API loads.
    await Promise.resolve().then(() => deleteProject(context, 'gone'))
    const [health, ...answers] = await asked
    expect(health!.status).toBe(200)
    const lists = answers.slice(0, 20).filter((_, i) => i % 2 === 1)
    const ones = answers.slice(0, 20).filter((_, i) => i % 2 === 0)
    for (const one of ones) expect(one!.json).toMatchObject({ id: 1, slug: 'shop' })
    for (const list of lists) expect(list!.status).toBe(200)
    // No token: refused in the project's error shape, as before the API loaded lazily.
    const refused = answers[20]!
    expect(refused.status).toBe(401)
    expect(refused.json).toMatchObject({ error: { code: expect.any(String) } })
    const after = await send(`${url}/api/projects`, { headers: auth })
    expect((after.json as { slug: string }[]).map((p) => p.slug)).toEqual(['shop'])
    expect((await send(`${url}/api/projects/2`, { headers: auth })).status).toBe(404)
  })
})

describe('the management API, first asked while another process holds the write lock', () => {
  it('loads without writing: reads answer, a write answers 503 STORE_BUSY, and goes through once the lock is free', async () => {
    const locked = tempDb()
    const { context } = openStore(locked)
    createProject(context, { name: 'Shop', slug: 'shop' })
    const token = { Authorization: `Bearer ${await mintToken(context, { expiresInMs: 60_000 })}` }
    const lockedUrl = (await serve(locked)).url
    const locker = new Database(locked)
    try {
      locker.exec('BEGIN IMMEDIATE')
      const [list, patch] = await Promise.all([
        send(`${lockedUrl}/api/projects`, { headers: token }),
        send(`${lockedUrl}/api/projects/1`, { method: 'PATCH', headers: token, body: { pathRules: 'off' } }),
      ])
      expect((list.json as { slug: string }[]).map((p) => p.slug)).toEqual(['shop'])
      expect([patch.status, patch.json?.error?.code]).toEqual([503, 'STORE_BUSY'])
    } finally {
      if (locker.inTransaction) locker.exec('ROLLBACK')
      locker.close()
    }
    const patched = await send(`${lockedUrl}/api/projects/1`, { method: 'PATCH', headers: token, body: { pathRules: 'off' } })
    expect([patched.status, (patched.json as { pathRules: string }).pathRules]).toEqual([200, 'off'])
  })
})
