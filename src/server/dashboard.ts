import { readFileSync, readdirSync } from 'node:fs'
import { extname } from 'node:path'
import type { H3, H3Event } from 'h3'
import { FastResponse } from 'srvx'
import { AppError } from '../errors.ts'

/**
 * The dashboard: static files read once from `../dashboard/` next to this module — the sources'
 * `src/dashboard/` under vitest, `dist/dashboard/` from `dist/server/` and the CLI bundle in
 * `dist/bin/` (the build copies the folder). Served: the page, its stylesheet and every ES module
 * in that folder (no subfolders); any other name is a 404.
 */
const FOLDER = new URL('../dashboard/', import.meta.url)

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
}

// A Map: a name from the URL such as "constructor" must not find a property of every object.
let files: Map<string, { file: string; type: string }> | null = null

/** The folder's files by the name they are asked for, listed at the first request (not at start). */
function servedFiles(): Map<string, { file: string; type: string }> {
  if (!files) {
    files = new Map()
    for (const entry of readdirSync(FOLDER, { withFileTypes: true })) {
      const type = entry.isFile() ? TYPES[extname(entry.name)] : undefined
      if (type) files.set(entry.name, { file: entry.name, type })
    }
    files.set('', { file: 'index.html', type: TYPES['.html']! })
  }
  return files
}

export const DASHBOARD_CSP = "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'"

const cache = new Map<string, Buffer>()

function contentOf(file: string): Buffer {
  let content = cache.get(file)
  if (!content) {
    content = readFileSync(new URL(file, FOLDER))
    cache.set(file, content)
  }
  return content
}

function serveFile(event: H3Event, name: string): Response {
  const entry = servedFiles().get(name)
  if (!entry) throw new AppError('ROUTE_NOT_MATCHED', `the dashboard has no file "${name}"`)
  const method = event.req.method
  if (method !== 'GET' && method !== 'HEAD') {
    throw new AppError('METHOD_NOT_ALLOWED', `${method} is not allowed here; allowed: GET, HEAD`, { headers: { Allow: 'GET, HEAD' } })
  }
  const content = contentOf(entry.file)
  return new FastResponse(method === 'HEAD' ? null : content, {
    status: 200,
    headers: {
      'Content-Type': entry.type,
      'Content-Length': String(content.byteLength),
      'Cache-Control': 'no-cache',
      'Content-Security-Policy': DASHBOARD_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    },
  })
}

/** `GET /_mockapi` → 308 `/_mockapi/`; `/_mockapi/`, `index.html`, `app.css` and the modules; any other `/_mockapi/…` → 404. */
export function mountDashboard(app: H3): void {
  const handler = (event: H3Event): Response => {
    const { pathname, search } = event.url
    if (pathname === '/_mockapi') {
      return new FastResponse(null, { status: 308, headers: { Location: `/_mockapi/${search}` } })
    }
    return serveFile(event, pathname.slice('/_mockapi/'.length))
  }
  app.all('/_mockapi', handler)
  app.all('/_mockapi/**', handler)
}
