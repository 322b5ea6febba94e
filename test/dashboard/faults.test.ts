import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { send } from '../_helpers.ts'
import { noBrowser, openDashboard, screenshot, shopInBrowser } from './_browser.ts'

const shop = shopInBrowser()

const endpointRow = (page: Page, method: string, path: string) => page.locator(`[data-testid="endpoint-row"][data-method="${method}"][data-path="${path}"]`)

describe.skipIf(noBrowser)('latency ranges and faults in the Endpoints tab', { timeout: 60_000 }, () => {
  it('takes a delay range, refuses a backwards one with the server\'s reason, and sets and clears a fault', async () => {
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    const row = endpointRow(page, 'GET', '/api/products/:id')
    await row.waitFor()
    // Its settings are under the row, shown with Settings.
    await row.getByTestId('endpoint-expand').click()
    const delay = row.getByTestId('endpoint-delay')
    await delay.fill('20-40')
    await delay.press('Enter')
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toContain('delay of GET /api/products/:id is 20-40')

    await delay.fill('300-100')
    await delay.press('Enter')
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toContain('delay range 300-100 must go from low to high (100-300)')
    expect(await delay.getAttribute('aria-invalid')).toBe('true')
    await delay.fill('0')
    await delay.press('Enter')
    await expect.poll(() => delay.getAttribute('aria-invalid'), { timeout: 15_000 }).toBe(null)

    const fault = row.getByTestId('endpoint-fault')
    await fault.selectOption('reset')
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toContain('fault of GET /api/products/:id is reset')
    expect(await row.getByTestId('endpoint-facts').textContent()).toBe('resource · fault reset')
    await expect(send(`${shop.server.url}/api/shop/products/1`, { overSocket: true })).rejects.toMatchObject({ cause: { code: 'ECONNRESET' } })
    await screenshot(page, 'endpoints-fault')
    await page.getByTestId('tab-requests').click()
    await expect.poll(() => page.getByTestId('request-fault').first().textContent(), { timeout: 15_000 }).toBe('— reset')
    await page.getByTestId('tab-endpoints').click()
    // Drawn again, the row keeps its settings open.
    await expect.poll(() => row.getByTestId('endpoint-expand').getAttribute('aria-expanded'), { timeout: 15_000 }).toBe('true')
    await fault.selectOption('')
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toContain('fault of GET /api/products/:id is none')
    expect((await send(`${shop.server.url}/api/shop/products/1`)).status).not.toBe(0)
    expect(problems).toEqual([])
    await context.close()
  })
})
