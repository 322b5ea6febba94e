import { createServer } from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { listenLocally, send } from '../_helpers.ts'
import { noBrowser, openDashboard, screenshot, shopInBrowser } from './_browser.ts'

const shop = shopInBrowser()

const endpointRow = (page: Page, method: string, path: string) => page.locator(`[data-testid="endpoint-row"][data-method="${method}"][data-path="${path}"]`)

/** The real API the shop's proxy setting points at: it says which path it was asked for. */
async function realApi(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume()
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ real: req.url }))
  })
  return listenLocally(server)
}

const closing: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const close of closing) await close()
})

describe.skipIf(noBrowser)('the proxy toggle in the Endpoints tab', { timeout: 60_000 }, () => {
  it('sets the project\'s proxy target in its heading, forwards an endpoint there when checked, and answers here again when cleared', async () => {
    const real = await realApi()
    closing.push(real.close)
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    // The project's target, set in its heading: a file:// one is refused with the server's reason.
    const target = page.getByTestId('project-proxy')
    await target.fill('file:///etc/passwd')
    await target.press('Enter')
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toContain('must use http or https, not file')
    expect(await target.getAttribute('aria-invalid')).toBe('true')
    await target.fill(real.url)
    await target.press('Enter')
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toContain(`Proxy of shop: ${real.url}`)
    expect(shop.server.project('shop').proxy).toEqual({ target: real.url, headers: {}, pathRewrite: {} })
    // What no endpoint matches goes there now.
    expect((await send(`${shop.server.url}/api/shop/nothing-here`, { overSocket: true })).json).toEqual({ real: '/nothing-here' })
    const row = endpointRow(page, 'GET', '/api/products/:id')
    await row.waitFor()
    await row.getByTestId('endpoint-expand').click()
    const toggle = row.getByTestId('endpoint-proxy')
    expect(await toggle.isChecked()).toBe(false)
    await toggle.check()
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toContain('GET /api/products/:id is forwarded to the proxy target')
    expect(await row.getByTestId('endpoint-facts').textContent()).toBe('resource · proxied')
    expect((await send(`${shop.server.url}/api/shop/products/1`, { overSocket: true })).json).toEqual({ real: '/api/products/1' })
    await screenshot(page, 'endpoints-proxy')
    await toggle.uncheck()
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toContain('GET /api/products/:id is answered here')
    expect((await send(`${shop.server.url}/api/shop/products/1`, { overSocket: true })).json).toMatchObject({ id: 1, name: 'Product 1' })
    await target.fill('')
    await target.press('Enter')
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toContain('Proxy of shop: off')
    expect((await send(`${shop.server.url}/api/shop/nothing-here`)).status).toBe(404)
    expect(problems).toEqual([])
    await context.close()
  })
})
