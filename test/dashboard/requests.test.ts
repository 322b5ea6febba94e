import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import type { JournalEntry } from '../../src/events.ts'
import type { RunningServer } from '../../src/server/start.ts'
import { cleanup, send } from '../_helpers.ts'
import { connectBrowser, waitForLive, openDashboard, screenshot, screenshotDark, startShop, noBrowser } from './_browser.ts'

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
    // The project's endpoint count follows: the shop's six resource endpoints and this one.
    await expect.poll(() => page.getByTestId('project').first().textContent()).toContain('7 endpoints')
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

/** The journal's entries through the management API, as the dashboard asks for them. */
async function journal(query = ''): Promise<{ entries: JournalEntry[]; total: number }> {
  const answer = await send(`${server.url}/api/projects/1/requests${query}`, { headers: auth })
  expect(answer.status).toBe(200)
  return { entries: answer.json, total: Number(answer.headers.get('x-total-count')) }
}

const rowPaths = (page: Page) => page.getByTestId('request-row').getByTestId('request-open').allTextContents()

describe.skipIf(noBrowser)('the Requests tab reads the journal through the API', { timeout: 60_000 }, () => {
  it('filters through the server by method, path, status and matched; under a filter a live request shows only when it matches', async () => {
    expect((await send(`${server.url}/api/projects/1/requests`, { method: 'DELETE', headers: auth })).status).toBe(204)
    await send(`${server.url}/api/shop/products/1`)
    await send(`${server.url}/api/shop/products`, { method: 'POST', body: { name: 'Lamp', price: 30 } })
    await send(`${server.url}/api/shop/basket`)
    const { page, problems, context } = await openDashboard(browser, server, token)
    await page.getByTestId('tab-requests').click()
    await waitForLive(page)
    await expect.poll(() => rowPaths(page)).toEqual(['/api/shop/basket', '/api/shop/products', '/api/shop/products/1'])
    expect(await page.getByTestId('request-count').textContent()).toMatch(/^3 requests in the journal, newest first\./)
    expect(await page.getByTestId('request-filter-path').getAttribute('placeholder')).toBe('/api/shop/**')

    // A menu applies at once; the list is the server's answer to the same query.
    await page.getByTestId('request-filter').getByLabel('Method').selectOption('POST')
    await expect.poll(() => rowPaths(page)).toEqual(['/api/shop/products'])
    expect((await journal('?method=POST')).total).toBe(1)
    expect(await page.getByTestId('request-count').textContent()).toMatch(/^1 request matches the filter, newest first\./)

    // Not matching the filter: a GET stays out; the POST after it comes in (the latch).
    await send(`${server.url}/api/shop/products/2`)
    await send(`${server.url}/api/shop/products`, { method: 'POST', body: { name: 'Chair', price: 45 } })
    await expect.poll(() => page.getByTestId('request-row').count()).toBe(2)
    expect(await rowPaths(page)).toEqual(['/api/shop/products', '/api/shop/products'])
    expect(await page.getByTestId('request-count').textContent()).toMatch(/^2 requests match the filter/)

    // A path pattern and a status class, typed and applied with Enter.
    await page.getByTestId('request-filter').getByLabel('Method').selectOption('')
    await page.getByTestId('request-filter').getByLabel('Path').fill('/api/shop/products/*')
    await page.getByTestId('request-filter').getByLabel('Status').fill('2xx')
    await page.getByTestId('request-filter').getByLabel('Status').press('Enter')
    await expect.poll(() => rowPaths(page)).toEqual(['/api/shop/products/2', '/api/shop/products/1'])
    await send(`${server.url}/api/shop/products/3`)
    await send(`${server.url}/api/shop/products/404404`)
    await expect.poll(() => rowPaths(page)).toEqual(['/api/shop/products/3', '/api/shop/products/2', '/api/shop/products/1'])

    // Unmatched only: the row is badged.
    await page.getByTestId('request-filter-reset').click()
    await page.getByTestId('request-filter').getByLabel('Matched').selectOption('false')
    await expect.poll(() => rowPaths(page)).toEqual(['/api/shop/basket'])
    expect(await page.getByTestId('request-row').getByTestId('request-unmatched').allTextContents()).toEqual(['unmatched'])

    // Back to all: live requests go on top again, matched ones without a badge.
    await page.getByTestId('request-filter-reset').click()
    expect(await page.getByTestId('request-filter').getByLabel('Matched').inputValue()).toBe('')
    await expect.poll(() => page.getByTestId('request-row').count()).toBe(7)
    await send(`${server.url}/api/shop/products/5`)
    await expect.poll(() => rowPaths(page).then((paths) => paths[0])).toBe('/api/shop/products/5')
    expect(await page.getByTestId('request-count').textContent()).toMatch(/^8 requests in the journal/)
    expect(await page.getByTestId('request-unmatched').count()).toBe(1)
    expect(problems).toEqual([])
    await context.close()
  })

  it('shows an unmatched request\'s near misses and a fallback\'s rules that did not hold, as the API gives them', async () => {
    const created = await send(`${server.url}/api/projects/1/endpoints`, { method: 'POST', headers: auth, body: { method: 'GET', path: '/api/reports', status: 200, body: { report: 'public' } } })
    expect(created.status).toBe(201)
    const rules = { pick: 'rules', responses: [{ name: 'admin', when: { headers: { 'x-role': 'admin' } }, status: 200, body: { report: 'full' } }, { status: 200, body: { report: 'public' } }] }
    expect((await send(`${server.url}/api/projects/1/endpoints/${created.json.id}`, { method: 'PATCH', headers: auth, body: rules })).status).toBe(200)
    await send(`${server.url}/api/shop/reports`, { headers: { 'x-role': 'guest' } })
    await send(`${server.url}/api/shop/product/7`, { method: 'DELETE' })
    const [miss, fallback] = (await journal('?limit=2')).entries
    expect(miss).toMatchObject({ matched: false, path: '/api/shop/product/7' })
    expect(miss!.nearMisses!.length).toBeGreaterThan(0)
    expect(fallback!.ruleMisses).toHaveLength(1)

    const { page, problems, context } = await openDashboard(browser, server, token)
    await page.getByTestId('tab-requests').click()
    const missRow = page.locator(`[data-testid="request-row"][data-id="${miss!.id}"]`)
    expect(await missRow.getByTestId('request-unmatched').textContent()).toBe('unmatched')
    await missRow.getByTestId('request-open').focus()
    await page.keyboard.press('Enter')
    const detail = page.getByTestId('request-detail')
    await expect.poll(() => detail.getByTestId('detail-title').textContent()).toBe('DELETE /api/shop/product/7')
    expect(await detail.getByTestId('detail-answered').textContent()).toBe('unmatched No endpoint of the project has this method and path.')
    const nearMisses = detail.getByTestId('near-miss')
    expect(await nearMisses.count()).toBe(miss!.nearMisses!.length)
    for (const [index, near] of miss!.nearMisses!.entries()) {
      const item = nearMisses.nth(index)
      expect(await item.locator('.method').textContent()).toBe(near.method)
      expect(await item.getByTestId('near-miss-path').textContent()).toBe(near.path)
      expect(await item.getByTestId('near-miss-difference').allTextContents()).toEqual(near.differences.map((difference) => difference.text))
    }
    expect(await nearMisses.first().getByTestId('near-miss-path').textContent()).toBe('/api/shop/products/:id')
    expect(await nearMisses.first().getByTestId('near-miss-difference').allTextContents()).toEqual([expect.stringContaining('"product"')])
    await screenshot(page, 'requests-near-misses')
    await screenshotDark(page, 'requests-near-misses')

    await page.locator(`[data-testid="request-row"][data-id="${fallback!.id}"]`).getByTestId('request-open').click()
    await expect.poll(() => detail.getByTestId('detail-title').textContent()).toBe('GET /api/shop/reports')
    expect(await detail.getByTestId('detail-answered').textContent()).toBe(`Answered by endpoint ${created.json.id}, response 2.`)
    expect(await detail.getByTestId('detail-near-misses').count()).toBe(0)
    const ruleMiss = detail.getByTestId('rule-miss')
    expect(await ruleMiss.locator('div').first().textContent()).toBe('Response 1 “admin”')
    expect(await ruleMiss.getByTestId('rule-miss-condition').allTextContents()).toEqual(fallback!.ruleMisses![0]!.failed)
    expect(fallback!.ruleMisses![0]!.failed).toEqual([expect.stringContaining('guest')])
    expect(problems).toEqual([])
    await context.close()
  })

  it('shows a secret header masked as the API gives it', async () => {
    const secret = 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.signature'
    await send(`${server.url}/api/shop/products/6`, { headers: { authorization: `Bearer ${secret}`, 'x-trace': 'visible' } })
    const [entry] = (await journal('?limit=1')).entries
    expect(entry!.headers.authorization).toBe(`Bearer eyJh… (${secret.length} chars)`)
    const { page, problems, context } = await openDashboard(browser, server, token)
    await page.getByTestId('tab-requests').click()
    await page.locator(`[data-testid="request-row"][data-id="${entry!.id}"]`).getByTestId('request-open').click()
    const headers = page.getByTestId('detail-request').locator('table.headers')
    expect(await headers.locator('tr', { hasText: 'authorization' }).locator('td').textContent()).toBe(entry!.headers.authorization)
    expect(await headers.locator('tr', { hasText: 'x-trace' }).locator('td').textContent()).toBe('visible')
    expect(await page.getByTestId('request-detail').textContent()).not.toContain(secret.slice(4, 20))
    expect(problems).toEqual([])
    await context.close()
  })

  it('shows the API\'s message for a bad filter, and empties the list with Clear (asked twice)', async () => {
    await send(`${server.url}/api/shop/products/8`)
    const { page, problems, context } = await openDashboard(browser, server, token)
    await page.getByTestId('tab-requests').click()
    await waitForLive(page)
    await page.getByTestId('request-row').first().waitFor()

    const refused = await send(`${server.url}/api/projects/1/requests?path=api/shop`, { headers: auth })
    expect(refused.status).toBe(400)
    await page.getByTestId('request-filter').getByLabel('Path').fill('api/shop')
    await page.getByTestId('request-filter-apply').click()
    await expect.poll(() => page.getByTestId('requests-error').textContent()).toBe(refused.json.error.message)
    expect(refused.json.error.message).toMatch(/"path" must start with \//)
    expect(await page.getByTestId('request-filter').getByLabel('Path').getAttribute('aria-invalid')).toBe('true')
    expect(await page.getByTestId('request-row').count()).toBe(0)
    expect(await page.getByTestId('requests-empty').isHidden()).toBe(true)
    await screenshot(page, 'requests-bad-filter')

    await page.getByTestId('request-filter').getByLabel('Path').fill('/api/shop/**')
    await page.getByTestId('request-filter').getByLabel('Path').press('Enter')
    await expect.poll(() => page.getByTestId('requests-error').textContent()).toBe('')
    expect(await page.getByTestId('request-filter').getByLabel('Path').getAttribute('aria-invalid')).toBeNull()
    await page.getByTestId('request-row').first().waitFor()

    const clear = page.getByTestId('requests-clear')
    await clear.click()
    expect(await clear.textContent()).toBe('Clear all?')
    expect((await journal()).total).toBeGreaterThan(0)
    await clear.click()
    await expect.poll(() => page.getByTestId('request-row').count()).toBe(0)
    expect(await journal()).toEqual({ entries: [], total: 0 })
    expect(await page.getByTestId('request-count').textContent()).toBe('')
    expect(await page.getByTestId('requests-empty').textContent()).toBe('No request matches this filter.')
    // Cleared, not stopped: the next request under the filter shows.
    await send(`${server.url}/api/shop/products/9`)
    await expect.poll(() => rowPaths(page)).toEqual(['/api/shop/products/9'])
    expect(problems).toEqual([])
    await context.close()
  })

  it('says the journal is off when the serve keeps none (--journal 0)', async () => {
    const off = await startShop({ journal: 0 })
    await send(`${off.server.url}/api/shop/products/1`)
    const { page, problems, context } = await openDashboard(browser, off.server, off.token)
    await page.getByTestId('tab-requests').click()
    await expect.poll(() => page.getByTestId('requests-off').isVisible()).toBe(true)
    expect(await page.getByTestId('requests-off').textContent()).toMatch(/^The journal is off: this serve was started with\s+--journal 0/)
    expect(await page.getByTestId('request-filter').isVisible()).toBe(false)
    expect(await page.getByTestId('requests-clear').isVisible()).toBe(false)
    await screenshotDark(page, 'requests-journal-off')
    expect(problems).toEqual([])
    await context.close()
  })
})
