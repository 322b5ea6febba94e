// The cold-start floor on this machine: h3 + better-sqlite3 reading one row, nothing else.
import { createRequire } from 'node:module'
import { createServer } from 'node:http'

const require = createRequire(import.meta.url)
const { H3, toNodeHandler } = await import('h3')
const Database = require('better-sqlite3')
const db = new Database(process.argv[2], { readonly: true })
const row = db.prepare('SELECT data FROM records WHERE id = ?').pluck()
const app = new H3()
app.get('/**', () => new Response(row.get('1'), { headers: { 'content-type': 'application/json' } }))
const server = createServer(toNodeHandler(app))
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`))
