import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync, readdirSync } from 'node:fs'
import { createProject } from '../../src/domain/projects.ts'
import { cleanup, openStore, send, serve, tempDb } from '../_helpers.ts'

let base: string

beforeAll(async () => {
  const dbPath = tempDb()
  createProject(openStore(dbPath).context, { name: 'Shop', slug: 'shop' })
  base = (await serve(dbPath)).url
})
afterAll(cleanup)

const CSP = "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'"
const FOLDER = new URL('../../src/dashboard/', import.meta.url)
const MODULES = readdirSync(FOLDER).filter((name) => name.endsWith('.js'))
const source = (name: string) => readFileSync(new URL(name, FOLDER), 'utf8')

describe('serving the dashboard', () => {
  it('redirects /_mockapi to /_mockapi/ with 308, keeping the query', async () => {
    const response = await fetch(`${base}/_mockapi?x=1`, { redirect: 'manual' })
    expect(response.status).toBe(308)
    expect(response.headers.get('location')).toBe('/_mockapi/?x=1')
  })

  it.each([
    ['/_mockapi/', 'text/html; charset=utf-8', 'index.html'],
    ['/_mockapi/index.html', 'text/html; charset=utf-8', 'index.html'],
    ['/_mockapi/app.css', 'text/css; charset=utf-8', 'app.css'],
    ...MODULES.map((name) => [`/_mockapi/${name}`, 'text/javascript; charset=utf-8', name]),
  ])('serves %s as %s, no-cache, with a strict CSP', async (path, type, file) => {
    const response = await send(`${base}${path}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe(type)
    expect(response.headers.get('cache-control')).toBe('no-cache')
    expect(response.headers.get('content-security-policy')).toBe(CSP)
    expect(response.text).toBe(source(file))
  })

  it('serves every module the page loads, following the imports from main.js', async () => {
    expect(source('index.html')).toContain('<script type="module" src="main.js"></script>')
    const seen = new Set<string>()
    const pending = ['main.js']
    while (pending.length) {
      const name = pending.pop()!
      if (seen.has(name)) continue
      seen.add(name)
      const response = await send(`${base}/_mockapi/${name}`)
      expect(response.status, name).toBe(200)
      expect(response.headers.get('content-type'), name).toBe('text/javascript; charset=utf-8')
      expect(response.text.startsWith('// @ts-check\n'), `${name} starts with // @ts-check`).toBe(true)
      for (const match of response.text.matchAll(/^import [^'\n]* from '\.\/([\w-]+\.js)'$/gm)) pending.push(match[1]!)
    }
    // Every module in the folder is reached: none is left over.
    expect([...seen].sort()).toEqual([...MODULES].sort())
  })

  it('answers HEAD without a body', async () => {
    const response = await fetch(`${base}/_mockapi/main.js`, { method: 'HEAD' })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(await response.text()).toBe('')
  })

  it('answers any other /_mockapi/ path with a 404 in the project error shape', async () => {
    for (const path of ['/_mockapi/nope.js', '/_mockapi/app.js', '/_mockapi/../package.json', '/_mockapi/%2e%2e/package.json', '/_mockapi/main.js/x', '/_mockapi/constructor']) {
      const response = await send(`${base}${path}`)
      expect(response.status, path).toBe(404)
      expect(response.json, path).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } })
    }
  })

  it('refuses other methods with 405 and Allow', async () => {
    const response = await send(`${base}/_mockapi/`, { method: 'POST', body: {} })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('GET, HEAD')
    expect(response.json.error.code).toBe('METHOD_NOT_ALLOWED')
  })

  it('loads nothing from elsewhere: every asset is served by mockapi itself', () => {
    // The SVG namespace (charts.js) is a name, not an address anything is loaded from.
    for (const name of ['index.html', 'app.css', ...MODULES]) expect(source(name), name).not.toMatch(/https?:\/\/(?!127\.0\.0\.1|www\.w3\.org\/2000\/svg\b)/)
    for (const name of MODULES) expect(source(name), name).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/)
  })

  it('still answers the management API with 401 without a token', async () => {
    const response = await send(`${base}/api/projects/1/webhooks`)
    expect(response.status).toBe(401)
  })
})
