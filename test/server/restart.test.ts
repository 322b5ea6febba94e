import { afterAll, describe, expect, it } from 'vitest'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { cleanup, send, tempDb, openStore } from '../_helpers.ts'
import { startServer } from '../../src/server/start.ts'

afterAll(cleanup)

describe('restart', () => {
  it('keeps records written before the server closed', async () => {
    const dbPath = tempDb()
    const setup = openStore(dbPath)
    createProject(setup.context, { name: 'Keep', slug: 'keep' })
    createResource(setup.context, { path: '/api/notes' })
    setup.close()

    const first = await startServer({ dbPath, port: 0, host: '127.0.0.1', demo: false })
    for (const text of ['one', 'two', 'three']) {
      expect((await send(`${first.url}/api/keep/notes`, { method: 'POST', body: { text } })).status).toBe(201)
    }
    await send(`${first.url}/api/keep/notes/2`, { method: 'PUT', body: { text: 'TWO' } })
    await first.close()

    const second = await startServer({ dbPath, port: 0, host: '127.0.0.1', demo: false })
    try {
      const list = await send(`${second.url}/api/keep/notes`)
      expect(list.json).toEqual([{ id: 1, text: 'one' }, { id: 2, text: 'TWO' }, { id: 3, text: 'three' }])
      // The id counter survives too.
      expect((await send(`${second.url}/api/keep/notes`, { method: 'POST', body: {} })).json.id).toBe(4)
    } finally {
      await second.close()
    }
  })
})
