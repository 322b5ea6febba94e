import { createServer } from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { send } from '../_helpers.ts'
import { noBrowser, openDashboard, screenshot, shopInBrowser } from './_browser.ts'

const shop = shopInBrowser()

const endpointRow = (page: Page, method: string, path: string) => page.locator(`[data-testid="endpoint-row"][data-method="${method}"][data-path="${path}"]`)

/** The real API the shop's proxy setting points at: it says which path it was asked for. */
async function realApi(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume()
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ real: req.url }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

const closing: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const close of closing) await close()
})

describe.skipIf(noBrowser)('the proxy toggle in the Endpoints tab', { timeout: 60_000 }, () => {
  it('forwards an endpoint to the project\'s proxy target when checked, and answers here again when cleared', async () => {
    const real = await realApi()
    closing.push(real.close)
    const projectId = shop.server.project('shop').id
    const auth = { Authorization: `Bearer ${shop.token}` }
    expect((await send(`${shop.server.url}/api/projects/${projectId}`, { method: 'PATCH', headers: auth, body: { proxy: { target: real.url } } })).status).toBe(200)
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
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
    expect(problems).toEqual([])
    await context.close()
  })
})
