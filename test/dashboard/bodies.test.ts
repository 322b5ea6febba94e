import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { noBrowser, openDashboard, screenshot, shopInBrowser } from './_browser.ts'

const shop = shopInBrowser()

const endpointRow = (page: Page, method: string, path: string) => page.locator(`[data-testid="endpoint-row"][data-method="${method}"][data-path="${path}"]`)

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

describe.skipIf(noBrowser)('the endpoints tab: bodies', { timeout: 60_000 }, () => {
  it('uploads a file an endpoint answers as it is, sets its Content-Type, edits a text or JSON body, and shows refusals', async () => {
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    const row = endpointRow(page, 'GET', '/api/products/:id')
    await row.waitFor()
    // Its settings are under the row, shown with Settings.
    await row.getByTestId('endpoint-expand').click()
    expect(await row.getByTestId('endpoint-body').textContent()).toBe('records')
    await row.getByTestId('endpoint-upload').setInputFiles({ name: 'pixel.png', mimeType: 'image/png', buffer: PNG })
    await expect.poll(() => row.getByTestId('endpoint-body').textContent(), { timeout: 15_000 }).toBe(`file pixel.png (${PNG.byteLength} bytes)`)
    const answer = await fetch(`${shop.server.url}/api/shop/products/1`)
    expect(answer.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await answer.arrayBuffer()).equals(PNG)).toBe(true)

    const type = row.getByTestId('endpoint-content-type')
    await type.fill('image/x-png')
    await type.press('Enter')
    await expect.poll(async () => (await fetch(`${shop.server.url}/api/shop/products/1`)).headers.get('content-type'), { timeout: 15_000 }).toBe('image/x-png')
    await type.fill('not a type')
    await type.press('Enter')
    await expect.poll(() => type.getAttribute('aria-invalid'), { timeout: 15_000 }).toBe('true')
    expect((await fetch(`${shop.server.url}/api/shop/products/1`)).headers.get('content-type')).toBe('image/x-png')

    const list = endpointRow(page, 'GET', '/api/products')
    await list.getByTestId('endpoint-expand').click()
    await list.getByText('Edit body').click()
    await list.getByTestId('endpoint-body-type').selectOption('text')
    await list.getByTestId('endpoint-body-text').fill('hello {{query.name}}')
    await list.getByTestId('endpoint-body-save').click()
    await expect.poll(() => list.getByTestId('endpoint-body').textContent(), { timeout: 15_000 }).toBe('text')
    const greeting = await fetch(`${shop.server.url}/api/shop/products?name=Ada`)
    expect([await greeting.text(), greeting.headers.get('content-type')]).toEqual(['hello Ada', 'text/plain; charset=utf-8'])
    // Saved, the editor stays open with what was saved.
    expect(await list.getByTestId('endpoint-body-type').inputValue()).toBe('text')
    await list.getByTestId('endpoint-body-type').selectOption('json')
    await list.getByTestId('endpoint-body-text').fill('{"a": ')
    await list.getByTestId('endpoint-body-save').click()
    await expect.poll(() => list.getByTestId('endpoint-body-text').getAttribute('aria-invalid'), { timeout: 15_000 }).toBe('true')
    expect(await (await fetch(`${shop.server.url}/api/shop/products?name=Bo`)).text()).toBe('hello Bo')
    await list.getByTestId('endpoint-body-text').fill('{"a": "{{query.name}}"}')
    await list.getByTestId('endpoint-body-save').click()
    await expect.poll(() => list.getByTestId('endpoint-body').textContent(), { timeout: 15_000 }).toBe('JSON')
    expect(await (await fetch(`${shop.server.url}/api/shop/products?name=Cy`)).json()).toEqual({ a: 'Cy' })
    expect(await list.getByTestId('endpoint-body-text').getAttribute('aria-invalid')).toBe(null)
    await list.getByTestId('endpoint-body-clear').click()
    await expect.poll(() => list.getByTestId('endpoint-body').textContent(), { timeout: 15_000 }).toBe('records')
    expect(await list.getByTestId('endpoint-body-text').inputValue()).toBe('')
    expect(await (await fetch(`${shop.server.url}/api/shop/products`)).json()).toHaveLength(12)
    await screenshot(page, 'endpoints-body')
    expect(problems).toEqual([])
    await context.close()
  })
})
