// The floor mockapi's design stands on: h3 v2 on node:http and better-sqlite3 (the same pragmas
// as mockapi), doing the same work: posts stored as JSON text, SQLite building every answer (one
// post as stored, a page or every post as the stored texts in one array, a created post with its
// id), X-Total-Count on lists, a POST body parsed and checked to be an object before it is stored.
// node bare-h3-sqlite.mjs posts.db            serve it
// node bare-h3-sqlite.mjs posts.db db.json    create it from a json-server database, then exit
import { createServer } from 'node:http'
import { readFileSync } from 'node:fs'
import { openPosts, postStatements } from './posts-db.mjs'

const db = openPosts(process.argv[2])

if (process.argv[3]) {
  db.exec('CREATE TABLE posts (id INTEGER PRIMARY KEY, data TEXT NOT NULL)')
  const insert = db.prepare('INSERT INTO posts (id, data) VALUES (?, ?)')
  const { posts } = JSON.parse(readFileSync(process.argv[3], 'utf8'))
  db.transaction(() => posts.forEach((post) => insert.run(post.id, JSON.stringify(post))))()
  db.close()
  process.exit(0)
}

const { H3, HTTPError, readBody, toNodeHandler } = await import('h3')
const { one, page, all, count, create } = postStatements(db)

// Written as an h3 handler is: status and headers set on event.res, the text returned, so h3 builds
// the answer on its own fast path (a Response made here would cost undici's, ~130 µs a request).
const json = (event, body, status = 200, headers = {}) => {
  event.res.status = status
  event.res.headers.set('content-type', 'application/json; charset=utf-8')
  for (const [name, value] of Object.entries(headers)) event.res.headers.set(name, value)
  return body
}
const app = new H3()
app.get('/posts/:id', (event) => {
  const data = one.get(Number(event.context.params.id))
  if (data === undefined) throw new HTTPError({ status: 404, message: 'not found' })
  return json(event, data)
})
app.get('/posts', (event) => {
  const query = new URL(event.req.url).searchParams
  const total = { 'x-total-count': String(count.get()) }
  if (!query.has('page') && !query.has('limit')) return json(event, all.get(), 200, total)
  const limit = Number(query.get('limit') ?? 10)
  return json(event, page.get(limit, (Math.max(Number(query.get('page') ?? 1), 1) - 1) * limit), 200, total)
})
app.post('/posts', async (event) => {
  const body = await readBody(event)
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new HTTPError({ status: 400, message: 'not an object' })
  return json(event, create.get(JSON.stringify(body)), 201)
})
const server = createServer(toNodeHandler(app))
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`))
