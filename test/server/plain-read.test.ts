import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { insertRecord } from '../../src/domain/records.ts'
import { entryOf } from '../../src/domain/journal-view.ts'
import type { RunningServer } from '../../src/server/start.ts'
import { cleanup, openStore, send, serve, tempDb } from '../_helpers.ts'

/*
 * A records read with nothing to decide per request is answered without the stages (mock.ts
 * answerPlainly). `Prefer: code=200` asks for what the endpoint answers anyway, but sends the same
 * request through every stage: both must answer, and journal, alike.
 */

let server: RunningServer
let base: string
let projectId: number

beforeAll(async () => {
  const dbPath = tempDb()
  const { context } = openStore(dbPath)
  projectId = createProject(context, { name: 'Plain', slug: 'plain' }).id
  const { resource: users } = createResource(context, { path: '/api/users' })
  insertRecord(context, users.collectionId, { id: 7, name: 'Ann' })
  const { resource: posts } = createResource(context, { path: '/api/posts' })
  createResource(context, { path: '/api/users/:userId/posts' })
  for (let i = 1; i <= 30; i += 1) insertRecord(context, posts.collectionId, { title: `post ${i}`, userId: 7, views: i % 5, status: i % 2 ? 'published' : 'draft' })
  server = await serve(dbPath)
  base = `${server.url}/api/plain`
})
afterAll(cleanup)

const READS: [string, number][] = [
  ['/posts/3', 200],
  ['/posts', 200],
  ['/posts?_page=2&_limit=5', 200],
  ['/posts?status=draft&_sort=views&_order=desc&_limit=4', 200],
  ['/posts?views_gte=3&q=post%201&_expand=user', 200],
  ['/posts/3?_expand=user', 200],
  ['/users/7/posts?_limit=2', 200],
  ['/posts/999', 404],
  ['/posts?_limt=2', 400],
]

const comparable = (sent: { status: number; headers: Headers; text: string }) => ({
  status: sent.status,
  headers: [...sent.headers].filter(([name]) => name !== 'date'),
  text: sent.text,
})

describe('a plain records read', () => {
  it.each(READS)('answers %s as the stages do (%i)', async (path, status) => {
    const plain = await send(`${base}${path}`)
    const staged = await send(`${base}${path}`, { headers: { prefer: 'code=200' } })
    expect(plain.status).toBe(status)
    expect(comparable(plain)).toEqual(comparable(staged))
  })

  it('answers HEAD with the headers of the GET and no body', async () => {
    const head = await send(`${base}/posts?_limit=3`, { method: 'HEAD' })
    const get = await send(`${base}/posts?_limit=3`)
    expect(head.status).toBe(200)
    expect(head.text).toBe('')
    expect(head.headers.get('x-total-count')).toBe(get.headers.get('x-total-count'))
    expect(head.headers.get('link')).toBe(get.headers.get('link'))
  })

  it('is journalled as the stages journal it', async () => {
    server.journal!.clear(projectId)
    await send(`${base}/posts/4?_expand=user`)
    await send(`${base}/posts/4?_expand=user`, { headers: { prefer: 'code=200' } })
    const [plain, staged] = server.journal!.records(projectId).map((record) => entryOf(record, { mask: null }))
    const kept = (entry: typeof plain) => ({ ...entry!, id: 0, time: '', durationMs: 0, headers: {}, answer: { ...entry!.answer!, headers: { ...entry!.answer!.headers, Date: '' } } })
    expect(plain).toMatchObject({ status: 200, matched: true, response: null })
    expect(kept(plain)).toEqual(kept(staged))
  })
})
