import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { send } from '../_helpers.ts'
import { noBrowser, openDashboard, screenshot, screenshotDark, shopInBrowser } from './_browser.ts'

const shop = shopInBrowser()

const endpointRow = (page: Page, method: string, path: string) => page.locator(`[data-testid="endpoint-row"][data-method="${method}"][data-path="${path}"]`)

async function recordIds(page: Page): Promise<string[]> {
  return page.getByTestId('record-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-id')!))
}

describe.skipIf(noBrowser)('projects, endpoints and records', { timeout: 60_000 }, () => {
  it('adds a resource, the path checked as you type, and lists its six endpoints with curl lines', async () => {
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    await endpointRow(page, 'GET', '/api/products').waitFor()
    const path = page.getByTestId('resource-form').getByLabel('Path')
    const check = page.getByTestId('resource-check')
    const add = page.getByTestId('resource-add')

    await path.fill('/api/getOrders')
    await expect.poll(() => check.textContent(), { timeout: 15_000 }).toMatch(/^✗ .*verb/i)
    expect(await add.isDisabled()).toBe(true)
    await path.fill('/api/products')
    await expect.poll(() => check.textContent(), { timeout: 15_000 }).toMatch(/^✗ .*exists/i)
    await path.fill('/api/orders')
    await expect.poll(() => check.textContent(), { timeout: 15_000 }).toBe('✓ /api/orders makes six endpoints')
    await page.getByLabel('Fields').fill('total:int, note:helpers.arrayElement(["a, b","c"])')
    await page.getByLabel('Seed records').fill('3')
    await page.getByLabel('On delete').selectOption('cascade')
    await add.click()
    await expect.poll(() => check.textContent(), { timeout: 15_000 }).toBe('Added /api/orders with 6 endpoints.')

    const rows = page.locator('[data-testid="endpoint-row"][data-path^="/api/orders"]')
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(6)
    const listed = await rows.evaluateAll((all) => all.map((row) => `${row.getAttribute('data-method')} ${row.getAttribute('data-path')}`))
    expect(listed.sort()).toEqual(['DELETE /api/orders/:id', 'GET /api/orders', 'GET /api/orders/:id', 'PATCH /api/orders/:id', 'POST /api/orders', 'PUT /api/orders/:id'])
    expect(await endpointRow(page, 'GET', '/api/orders/:id').getByTestId('endpoint-curl').textContent()).toBe(`curl '${shop.server.url}/api/shop/orders/:id'`)
    expect(await endpointRow(page, 'POST', '/api/orders').getByTestId('endpoint-curl').textContent())
      .toBe(`curl -X POST '${shop.server.url}/api/shop/orders' -H 'content-type: application/json' -d '{}'`)
    expect(await endpointRow(page, 'GET', '/api/orders').getByTestId('endpoint-kind').textContent()).toBe('resource')
    // The resource is served, seeded with the generators given.
    const orders = await send(`${shop.server.url}/api/shop/orders`)
    expect(orders.json).toHaveLength(3)
    expect(['a, b', 'c']).toContain(orders.json[0].note)
    // The project card counts them too (the shop's six products endpoints, these six, and whatever another test added).
    const endpoints = await send(`${shop.server.url}/api/projects/1/endpoints`, { headers: { Authorization: `Bearer ${shop.token}` } })
    expect(endpoints.json.filter((e: { path: string }) => e.path.startsWith('/api/orders'))).toHaveLength(6)
    await expect.poll(() => page.getByTestId('project').textContent()).toContain(`${endpoints.json.length} endpoints`)
    const resources = await send(`${shop.server.url}/api/projects/1/resources`, { headers: { Authorization: `Bearer ${shop.token}` } })
    expect(resources.json.find((r: { path: string }) => r.path === '/api/orders').onDelete).toBe('cascade')
    expect(await page.getByLabel('On delete').inputValue()).toBe('keep')

    await screenshot(page, 'endpoints')
    await screenshotDark(page, 'endpoints')
    await page.setViewportSize({ width: 480, height: 900 })
    await screenshot(page, 'endpoints-narrow')
    expect(problems).toEqual([])
    await context.close()
  })

  it('edits status, delay and error rate inline, and deletes an endpoint', async () => {
    // A resource of its own to delete an endpoint of, so that the test needs no other to run first.
    const carts = await send(`${shop.server.url}/api/projects/1/resources`, { method: 'POST', body: { path: '/api/carts' }, headers: { Authorization: `Bearer ${shop.token}` } })
    expect(carts.status, JSON.stringify(carts.json)).toBe(201)
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    const list = endpointRow(page, 'GET', '/api/products')
    await list.waitFor()
    await list.getByTestId('endpoint-expand').click()
    await list.getByTestId('endpoint-status').fill('203')
    await list.getByTestId('endpoint-status').press('Enter')
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toContain('status of GET /api/products is 203')
    expect((await send(`${shop.server.url}/api/shop/products`)).status).toBe(203)

    await list.getByTestId('endpoint-delay').fill('150')
    await list.getByTestId('endpoint-delay').blur()
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toContain('delay of GET /api/products is 150')
    const started = Date.now()
    await send(`${shop.server.url}/api/shop/products`)
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)

    // A refused value says why and marks the field.
    const rate = list.getByTestId('endpoint-error-rate')
    await rate.fill('150')
    await rate.press('Enter')
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toMatch(/error rate 150/)
    expect(await rate.getAttribute('aria-invalid')).toBe('true')
    await rate.fill('100')
    await rate.press('Enter')
    await expect.poll(() => rate.getAttribute('aria-invalid'), { timeout: 15_000 }).toBe(null)
    expect((await send(`${shop.server.url}/api/shop/products`)).status).toBe(500)
    await rate.fill('0')
    await rate.press('Enter')
    await list.getByTestId('endpoint-delay').fill('0')
    await list.getByTestId('endpoint-delay').press('Enter')
    await list.getByTestId('endpoint-status').fill('200')
    await list.getByTestId('endpoint-status').press('Enter')
    await expect.poll(async () => (await send(`${shop.server.url}/api/shop/products`)).status, { timeout: 15_000 }).toBe(200)

    // Delete asks once more.
    const remove = endpointRow(page, 'DELETE', '/api/carts/:id').getByTestId('endpoint-delete')
    await remove.click()
    expect(await remove.textContent()).toBe('Delete?')
    await remove.click()
    await endpointRow(page, 'DELETE', '/api/carts/:id').waitFor({ state: 'detached' })
    // The other rows stay as they were (the settings opened above too); the focus goes to a neighbour's Settings.
    expect(await list.getByTestId('endpoint-status').isVisible()).toBe(true)
    expect(await page.evaluate('document.activeElement?.getAttribute("data-testid")')).toBe('endpoint-expand')
    expect((await send(`${shop.server.url}/api/shop/carts/1`, { method: 'DELETE' })).status).toBe(405)
    expect(problems).toEqual([])
    await context.close()
  })

  it('fits the Endpoints tab in a 1280 px window without sideways scroll, settings and response cards open, and in a 900 px and a 480 px one', async () => {
    const auth = { Authorization: `Bearer ${shop.token}` }
    const listed = await send(`${shop.server.url}/api/projects/1/endpoints`, { headers: auth })
    const post = (listed.json as { id: number; method: string; path: string }[]).find((e) => e.method === 'POST' && e.path === '/api/products')!
    const responses = [{ name: 'taken', when: { body: { email: 'taken@example.com' } }, status: 409, headers: { 'X-Reason': 'taken' }, body: { error: 'taken' } }, { status: 201 }]
    const patched = await send(`${shop.server.url}/api/projects/1/endpoints/${post.id}`, { method: 'PATCH', headers: auth, body: { responses, fault: 'hang', delay: '100-300', auth: { type: 'bearer' } } })
    expect(patched.status, JSON.stringify(patched.json)).toBe(200)
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    const row = endpointRow(page, 'POST', '/api/products')
    await row.waitFor()
    // What used to have columns of its own is in the row's summary.
    expect(await row.getByTestId('endpoint-facts').textContent()).toBe('resource · 2 responses · rules · delay 100-300 ms · fault hang · auth: bearer, any token (endpoint)')
    // How far the table's scrolling container and the page scroll sideways (a string: the page's globals are not this file's).
    const overflow = () => page.evaluate(`(() => {
      const wrap = document.querySelector('[data-testid="endpoints-wrap"]')
      const root = document.documentElement
      return { wrap: wrap.scrollWidth - wrap.clientWidth, page: root.scrollWidth - root.clientWidth }
    })()`)
    expect(await overflow()).toEqual({ wrap: 0, page: 0 })
    await row.getByTestId('endpoint-expand').click()
    await row.locator('[data-testid="response-card"]').nth(1).waitFor()
    expect(await row.getByTestId('endpoint-fault').inputValue()).toBe('hang')
    expect(await overflow()).toEqual({ wrap: 0, page: 0 })
    await screenshot(page, 'endpoints-1280')
    // The narrowest window that still has the projects beside the tab, and the widest that has them above.
    await page.setViewportSize({ width: 901, height: 900 })
    expect(await overflow()).toEqual({ wrap: 0, page: 0 })
    await screenshot(page, 'endpoints-901')
    await page.setViewportSize({ width: 900, height: 900 })
    expect(await overflow()).toEqual({ wrap: 0, page: 0 })
    await screenshot(page, 'endpoints-900')
    await screenshotDark(page, 'endpoints-900')
    await page.setViewportSize({ width: 480, height: 900 })
    expect(await overflow()).toEqual({ wrap: 0, page: 0 })
    await screenshot(page, 'endpoints-480')
    // Closed again with the keyboard.
    await row.getByTestId('endpoint-expand').focus()
    await page.keyboard.press('Enter')
    expect(await row.getByTestId('endpoint-responses').isVisible()).toBe(false)
    const reset = await send(`${shop.server.url}/api/projects/1/endpoints/${post.id}`, { method: 'PATCH', headers: auth, body: { responses: [], fault: null, delay: 0, auth: null } })
    expect(reset.status, JSON.stringify(reset.json)).toBe(200)
    expect(problems).toEqual([])
    await context.close()
  })

  it('browses records with filter, sort and pages, edits one in the JSON editor, deletes one, resets to seed', async () => {
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    await page.getByTestId('tab-records').click()
    await page.getByTestId('record-resource').selectOption({ label: '/api/products (12 records)' })
    const info = page.getByTestId('page-info')
    await expect.poll(() => info.textContent(), { timeout: 15_000 }).toBe('Page 1 of 1 · 12 records')
    expect(await recordIds(page)).toHaveLength(12)

    // The same filters as the API.
    await page.getByLabel('Filter', { exact: true }).fill('active=true&price=25&price=45&price=50')
    await page.getByTestId('record-filter-apply').click()
    await expect.poll(() => recordIds(page), { timeout: 15_000 }).toEqual(['5', '9'])
    expect(await info.textContent()).toBe('Page 1 of 1 · 2 records')
    await page.getByLabel('Filter', { exact: true }).fill('order=up')
    await page.getByTestId('record-filter-apply').click()
    await expect.poll(() => page.getByTestId('records-error').textContent(), { timeout: 15_000 }).toMatch(/order/)
    await page.getByLabel('Filter', { exact: true }).fill('')
    await page.getByTestId('record-filter-apply').click()
    await expect.poll(() => recordIds(page), { timeout: 15_000 }).toHaveLength(12)

    // Sort by a column: ascending, then descending.
    await page.getByTestId('sort-price').click()
    await expect.poll(async () => (await recordIds(page))[0], { timeout: 15_000 }).toBe('1')
    expect(await page.locator('th[aria-sort="ascending"]').textContent()).toContain('price')
    await page.getByTestId('sort-price').click()
    await expect.poll(async () => (await recordIds(page))[0], { timeout: 15_000 }).toBe('12')

    // Pages from X-Total-Count.
    await page.getByLabel('Per page').selectOption('10')
    await expect.poll(() => info.textContent(), { timeout: 15_000 }).toBe('Page 1 of 2 · 12 records')
    expect(await page.getByTestId('page-prev').isDisabled()).toBe(true)
    await page.getByTestId('page-next').click()
    await expect.poll(() => info.textContent(), { timeout: 15_000 }).toBe('Page 2 of 2 · 12 records')
    expect(await recordIds(page)).toEqual(['2', '1'])
    expect(await page.getByTestId('page-next').isDisabled()).toBe(true)
    await screenshot(page, 'records')
    await screenshotDark(page, 'records')
    await page.getByTestId('page-prev').click()
    await expect.poll(() => info.textContent(), { timeout: 15_000 }).toBe('Page 1 of 2 · 12 records')

    // Edit record 3 in the JSON editor: refused JSON first, then a good one.
    await page.locator('[data-testid="record-row"][data-id="3"]').getByTestId('record-edit').click()
    const editor = page.getByTestId('record-json')
    expect(JSON.parse(await editor.inputValue())).toEqual({ id: 3, name: 'Product 3', price: 15, active: true })
    await editor.fill('{"name": ')
    await page.getByTestId('record-save').click()
    expect(await page.getByTestId('record-editor-error').textContent()).toMatch(/^Not valid JSON/)
    // An id typed as a string changes nothing: the record keeps its number id.
    await editor.fill(JSON.stringify({ id: '3', name: 'Edited <b>lamp</b>', price: 99, tags: ['x'] }, null, 2))
    await screenshot(page, 'record-editor')
    await page.getByTestId('record-save').click()
    await page.getByTestId('record-editor').waitFor({ state: 'hidden' })
    const row3 = page.locator('[data-testid="record-row"][data-id="3"]')
    await expect.poll(() => row3.textContent(), { timeout: 15_000 }).toContain('Edited <b>lamp</b>')
    expect(await row3.locator('b').count()).toBe(0)
    expect((await send(`${shop.server.url}/api/shop/products/3`)).json).toEqual({ id: 3, name: 'Edited <b>lamp</b>', price: 99, tags: ['x'] })

    // Delete record 4 (asked twice).
    const remove = page.locator('[data-testid="record-row"][data-id="4"]').getByTestId('record-delete')
    await remove.click()
    await remove.click()
    await page.locator('[data-testid="record-row"][data-id="4"]').waitFor({ state: 'detached' })
    expect((await send(`${shop.server.url}/api/shop/products/4`)).status).toBe(404)

    // Reset to seed brings both back as they were.
    await page.getByTestId('records-reset').click()
    await page.getByTestId('records-reset').click()
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toMatch(/^Reset \d+ records/)
    expect((await send(`${shop.server.url}/api/shop/products/3`)).json).toEqual({ id: 3, name: 'Product 3', price: 15, active: true })
    expect((await send(`${shop.server.url}/api/shop/products/4`)).status).toBe(200)
    expect(problems).toEqual([])
    await context.close()
  })
})
