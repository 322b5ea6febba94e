// A webhook receiver that answers 200 at once and counts what it received: GET /count.
import { createServer } from 'node:http'

let received = 0
const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    if (req.method === 'GET') return res.writeHead(200, { 'content-type': 'text/plain' }).end(String(received))
    received += 1
    res.writeHead(200).end()
  })
})
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`))
