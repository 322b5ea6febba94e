// The ceiling: node:http with the posts in memory, answering what the others answer (one post,
// a page of 20, every post, a created post), each answer serialized per request.
// node bare-http.mjs db.json
import { createServer } from 'node:http'
import { readFileSync } from 'node:fs'

const posts = JSON.parse(readFileSync(process.argv[2], 'utf8')).posts
const byId = new Map(posts.map((post) => [String(post.id), post]))
let nextId = posts.length + 1

function send(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers })
  res.end(body)
}

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost')
  const [, collection, id, extra] = url.pathname.split('/')
  if (collection !== 'posts' || extra !== undefined) return send(res, 404, '{"error":"not found"}')
  if (req.method === 'POST' && id === undefined) {
    let text = ''
    req.setEncoding('utf8')
    req.on('data', (chunk) => (text += chunk))
    req.on('end', () => {
      let body
      try {
        body = JSON.parse(text)
      } catch {
        return send(res, 400, '{"error":"invalid JSON"}')
      }
      if (body === null || typeof body !== 'object' || Array.isArray(body)) return send(res, 400, '{"error":"not an object"}')
      const post = { id: nextId++, ...body }
      posts.push(post)
      byId.set(String(post.id), post)
      send(res, 201, JSON.stringify(post))
    })
    return
  }
  req.resume()
  if (req.method !== 'GET') return send(res, 405, '{"error":"method"}')
  if (id !== undefined) {
    const post = byId.get(id)
    return post ? send(res, 200, JSON.stringify(post)) : send(res, 404, '{"error":"not found"}')
  }
  const page = Number(url.searchParams.get('page') ?? 0)
  const limit = Number(url.searchParams.get('limit') ?? 0)
  const total = { 'x-total-count': String(posts.length) }
  if (!page && !limit) return send(res, 200, JSON.stringify(posts), total)
  const start = (Math.max(page, 1) - 1) * (limit || 10)
  send(res, 200, JSON.stringify(posts.slice(start, start + (limit || 10))), total)
})
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`))
