import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { noBrowser, openDashboard, screenshot, shopInBrowser } from './_browser.ts'

const shop = shopInBrowser()

const endpointRow = (page: Page, method: string, path: string) => page.locator(`[data-testid="endpoint-row"][data-method="${method}"][data-path="${path}"]`)

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

describe.skipIf(noBrowser)('the endpoints tab: bodies', { timeout: 60_000 }, () => {
  it('uploads a file an endpoint answers as it is, sets its Content-Type, and shows a refused one', async () => {
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    const row = endpointRow(page, 'GET', '/api/products/:id')
    await row.waitFor()
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
    await screenshot(page, 'endpoints-body')
    expect(problems).toEqual([])
    await context.close()
  })
})
