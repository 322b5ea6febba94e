import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import type { RunningServer } from '../../src/server/start.ts'
import { cleanup, send } from '../_helpers.ts'
import { connectBrowser, openDashboard, screenshot, screenshotDark, startShop, noBrowser } from './_browser.ts'

let browser: Browser
let server: RunningServer
let token: string
let auth: Record<string, string>

beforeAll(async () => {
  if (noBrowser) return
  ;({ server, token } = await startShop())
  auth = { Authorization: `Bearer ${token}` }
  browser = await connectBrowser()
})
afterAll(async () => {
  await browser?.close()
  await cleanup()
})

/** The Requests tab with the newest request of that line open, and its "create an endpoint" form unfolded. */
async function openRequest(page: Page, line: RegExp) {
  await page.getByTestId('tab-requests').click()
  const row = page.getByTestId('request-row').filter({ hasText: line }).first()
  await row.getByTestId('request-open').click()
  const detail = page.getByTestId('request-detail')
  await detail.getByTestId('create-endpoint-open').click()
  return detail.getByTestId('create-endpoint')
}

const endpointsNow = async () => (await send(`${server.url}/api/projects/1/endpoints`, { headers: auth })).json as { method: string; path: string; kind: string }[]

describe.skipIf(noBrowser)('create an endpoint from a request', { timeout: 60_000 }, () => {
  it('offers a form filled from an unmatched request; the endpoint it creates answers that request', async () => {
    // Asking turns the request log on where it is not on from the start.
    expect((await send(`${server.url}/api/projects/1/requests`, { headers: auth })).status).toBe(200)
    expect((await send(`${server.url}/api/shop/orders/42?expand=items`)).status).toBe(404)
    const { page, problems, context } = await openDashboard(browser, server, token)
    const form = await openRequest(page, /GET\/api\/shop\/orders\/42/)
    expect(await form.getByTestId('create-endpoint-method').inputValue()).toBe('GET')
    expect(await form.getByTestId('create-endpoint-path').inputValue()).toBe('/api/orders/:id')
    expect(await form.getByTestId('create-endpoint-status').inputValue()).toBe('200')
    expect(await form.getByTestId('create-endpoint-body').inputValue()).toBe('{}')
    await form.getByTestId('create-endpoint-as-sent').click()
    expect(await form.getByTestId('create-endpoint-path').inputValue()).toBe('/api/orders/42')
    await form.getByTestId('create-endpoint-path').fill('/api/orders/:id')
    await form.getByTestId('create-endpoint-body').fill('{"id": "{{params.id}}", "state": "paid"}')
    await form.getByTestId('create-endpoint-submit').click()
    const result = form.getByTestId('create-endpoint-result')
    await expect.poll(() => result.textContent()).toBe('Created GET /api/orders/:id (status 200): this request answers from it now.')
    expect(await result.getAttribute('data-kind')).toBe('ok')

    const again = await send(`${server.url}/api/shop/orders/42?expand=items`)
    expect([again.status, again.json]).toEqual([200, { id: '42', state: 'paid' }])
    expect((await endpointsNow()).filter((e) => e.path === '/api/orders/:id')).toEqual([expect.objectContaining({ method: 'GET', kind: 'custom' })])
    // The project's endpoint count follows: the shop's five resource endpoints and this one.
    await expect.poll(() => page.getByTestId('project').first().textContent()).toContain('6 endpoints')
    await screenshot(page, 'requests-create-endpoint')
    await screenshotDark(page, 'requests-create-endpoint')
    expect(problems).toEqual([])
    await context.close()
  })

  it('offers a uuid as :id and keeps the method; shows the API\'s refusal in the form, creating nothing', async () => {
    const cart = '3f2b8c1e-9d4a-4b6e-8f00-1a2b3c4d5e6f'
    expect((await send(`${server.url}/api/shop/carts/${cart}/items`, { method: 'POST', body: { sku: 'A-1' } })).status).toBe(404)
    const before = await endpointsNow()
    const { page, problems, context } = await openDashboard(browser, server, token)
    const form = await openRequest(page, /POST\/api\/shop\/carts\//)
    expect(await form.getByTestId('create-endpoint-method').inputValue()).toBe('POST')
    expect(await form.getByTestId('create-endpoint-path').inputValue()).toBe('/api/carts/:id/items')
    const result = form.getByTestId('create-endpoint-result')

    await form.getByTestId('create-endpoint-path').fill('/api/getCarts/:id/items')
    await form.getByTestId('create-endpoint-submit').click()
    await expect.poll(() => result.textContent()).toMatch(/segment "getCarts" contains the verb "get".*\(rule: no-verbs\)/)
    expect(await result.getAttribute('data-kind')).toBe('bad')

    await form.getByTestId('create-endpoint-path').fill('/api/carts/:id/items')
    await form.getByTestId('create-endpoint-status').fill('700')
    await form.getByTestId('create-endpoint-submit').click()
    await expect.poll(() => result.textContent()).toMatch(/^"status" is not valid: status 700 must be an HTTP status code/)

    await form.getByTestId('create-endpoint-status').fill('201')
    await form.getByTestId('create-endpoint-body').fill('{"sku": ')
    await form.getByTestId('create-endpoint-submit').click()
    await expect.poll(() => result.textContent()).toMatch(/^The body is not JSON/)

    // A route the project has already: the API's 409, word for word.
    await form.getByTestId('create-endpoint-path').fill('/api/products')
    await form.getByTestId('create-endpoint-body').fill('{}')
    await form.getByTestId('create-endpoint-submit').click()
    await expect.poll(() => result.textContent()).toBe('POST /api/products already exists in project "shop"')
    expect(await endpointsNow()).toEqual(before)
    expect((await send(`${server.url}/api/shop/carts/${cart}/items`, { method: 'POST', body: {} })).status).toBe(404)
    expect(problems).toEqual([])
    await context.close()
  })
})
