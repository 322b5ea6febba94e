// The floor's work (bare-h3-sqlite.mjs: the same database, statements and answers) without h3, to
// show what each layer under mockapi costs (`npm run bench -- --layers`):
// node layer-sqlite.mjs node posts.db   node:http alone: the request read and the answer written by hand
// node layer-sqlite.mjs srvx posts.db   srvx's request and FastResponse on node:http, as h3 has them, no h3
import { createServer } from 'node:http'
import { openPosts, postStatements } from './posts-db.mjs'

const [layer, file] = process.argv.slice(2)
if (layer !== 'node' && layer !== 'srvx') throw new Error('usage: node layer-sqlite.mjs node|srvx posts.db')
const { one, page, all, count, create } = postStatements(openPosts(file))

/** The floor's routes on a path, query and body: [status, body, extra headers]. */
function answer(method, pathname, query, body) {
  const item = /^\/posts\/(\d+)$/.exec(pathname)
  if (method === 'GET' && item) {
    const data = one.get(Number(item[1]))
    return data === undefined ? [404, '{"message":"not found"}'] : [200, data]
  }
  if (pathname !== '/posts') return [404, '{"message":"not found"}']
  if (method === 'GET') {
    const total = { 'x-total-count': String(count.get()) }
    if (!query.has('page') && !query.has('limit')) return [200, all.get(), total]
    const limit = Number(query.get('limit') ?? 10)
    return [200, page.get(limit, (Math.max(Number(query.get('page') ?? 1), 1) - 1) * limit), total]
  }
  if (method === 'POST') {
    let parsed
    try {
      parsed = JSON.parse(body)
    } catch {
      return [400, '{"message":"not JSON"}']
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return [400, '{"message":"not an object"}']
    return [201, create.get(JSON.stringify(parsed))]
  }
  return [405, '{"message":"method not allowed"}']
}

/** The body as text, read whole (only a POST has one here). */
function readText(req, then) {
  if (req.method !== 'POST') return then('')
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => then(Buffer.concat(chunks).toString()))
}

const JSON_TYPE = 'application/json; charset=utf-8'

function nodeListener(req, res) {
  const q = req.url.indexOf('?')
  const pathname = q === -1 ? req.url : req.url.slice(0, q)
  const query = new URLSearchParams(q === -1 ? '' : req.url.slice(q + 1))
  readText(req, (text) => {
    const [status, body, headers] = answer(req.method, pathname, query, text)
    res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body), ...headers })
    res.end(body)
  })
}

const { NodeRequest, FastResponse } = await import('srvx/node')

function srvxListener(req, res) {
  const request = new NodeRequest({ req, res })
  const url = request._url
  const respond = (text) => {
    const [status, body, headers] = answer(request.method, url.pathname, url.searchParams, text)
    // Ended as mockapi's listener ends it: status, headers and body in one write.
    const parts = new FastResponse(body, { status, headers: { 'content-type': JSON_TYPE, ...headers } })._toNodeResponse()
    res.writeHead(parts.status, parts.statusText, parts.headers)
    res.end(parts.body)
  }
  if (request.method === 'POST') request.text().then(respond)
  else respond('')
}

const server = createServer(layer === 'node' ? nodeListener : srvxListener)
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`))
