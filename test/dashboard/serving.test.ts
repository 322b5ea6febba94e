import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
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

describe('serving the dashboard', () => {
  it('redirects /_mockapi to /_mockapi/ with 308, keeping the query', async () => {
    const response = await fetch(`${base}/_mockapi?x=1`, { redirect: 'manual' })
    expect(response.status).toBe(308)
    expect(response.headers.get('location')).toBe('/_mockapi/?x=1')
  })

  it.each([
    ['/_mockapi/', 'text/html; charset=utf-8', 'index.html'],
    ['/_mockapi/app.js', 'text/javascript; charset=utf-8', 'app.js'],
    ['/_mockapi/app.css', 'text/css; charset=utf-8', 'app.css'],
  ])('serves %s as %s, no-cache, with a strict CSP', async (path, type, file) => {
    const response = await send(`${base}${path}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe(type)
    expect(response.headers.get('cache-control')).toBe('no-cache')
    expect(response.headers.get('content-security-policy')).toBe(CSP)
    expect(response.text).toBe(readFileSync(new URL(`../../src/dashboard/${file}`, import.meta.url), 'utf8'))
  })

  it('answers HEAD without a body', async () => {
    const response = await fetch(`${base}/_mockapi/app.js`, { method: 'HEAD' })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(await response.text()).toBe('')
  })

  it('answers any other /_mockapi/ path with a 404 in the project error shape', async () => {
    for (const path of ['/_mockapi/nope.js', '/_mockapi/../package.json', '/_mockapi/%2e%2e/package.json', '/_mockapi/app.js/x']) {
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
    const html = readFileSync(new URL('../../src/dashboard/index.html', import.meta.url), 'utf8')
    const js = readFileSync(new URL('../../src/dashboard/app.js', import.meta.url), 'utf8')
    const css = readFileSync(new URL('../../src/dashboard/app.css', import.meta.url), 'utf8')
    for (const text of [html, js, css]) expect(text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/)
    expect(js).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/)
  })

  it('still answers the management API with 401 without a token', async () => {
    const response = await send(`${base}/api/projects/1/webhooks`)
    expect(response.status).toBe(401)
  })
})
