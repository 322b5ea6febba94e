import { readFileSync } from 'node:fs'
import type { H3, H3Event } from 'h3'
import { FastResponse } from 'srvx'
import { AppError } from '../errors.ts'

/**
 * The dashboard: three static files, read once from `../dashboard/` next to this module — the
 * sources' `src/dashboard/` under vitest, `dist/dashboard/` from `dist/server/` and the CLI bundle
 * in `dist/bin/` (the build copies the folder).
 */
const FOLDER = new URL('../dashboard/', import.meta.url)

// A Map: a name from the URL such as "constructor" must not find a property of every object.
const FILES = new Map<string, { file: string; type: string }>([
  ['', { file: 'index.html', type: 'text/html; charset=utf-8' }],
  ['index.html', { file: 'index.html', type: 'text/html; charset=utf-8' }],
  ['app.js', { file: 'app.js', type: 'text/javascript; charset=utf-8' }],
  ['app.css', { file: 'app.css', type: 'text/css; charset=utf-8' }],
])

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
  const entry = FILES.get(name)
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

/** `GET /_mockapi` → 308 `/_mockapi/`; `/_mockapi/`, `app.js`, `app.css`; any other `/_mockapi/…` → 404. */
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
