// The ceiling: node:http answering a fixed small JSON body.
import { createServer } from 'node:http'

const body = JSON.stringify({ id: '500', title: 'Item number 500', status: 'active', price: 919 })
const server = createServer((req, res) => {
  req.resume()
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  res.end(body)
})
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`))
