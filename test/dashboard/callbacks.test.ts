import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import type { RunningServer } from '../../src/server/start.ts'
import { cleanup, send, startReceiver, waitFor } from '../_helpers.ts'
import { SPEC } from '../openapi/_callbacks-spec.ts'
import { connectBrowser, openDashboard, screenshot, startShop, noBrowser } from './_browser.ts'

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

describe.skipIf(noBrowser)('OpenAPI callbacks in the Integrations tab', { timeout: 60_000 }, () => {
  it('shows the callbacks subscription with what it sends and each attempt', async () => {
    expect((await send(`${server.url}/api/projects/1/imports`, { method: 'POST', body: { text: JSON.stringify(SPEC), filename: 'callbacks.json' }, headers: auth })).status).toBe(201)
    const receiver = await startReceiver()
    expect((await send(`${server.url}/api/shop/subscribe`, { method: 'POST', body: { callbackUrl: receiver.url } })).status).toBe(201)
    await waitFor(async () => (await send(`${server.url}/api/projects/1/webhooks?deliveries=true`, { headers: auth })).json[0]?.deliveries.length === 1, 5000, 'a logged attempt')
    const { page, problems, context } = await openDashboard(browser, server, token)
    await page.getByTestId('tab-integrations').click()
    const card = page.locator('[data-testid="subscription"][data-name="openapi-callbacks"]')
    await card.waitFor()
    expect(await card.getByTestId('sub-target').textContent()).toBe("each callback's own URL (OpenAPI callbacks)")
    expect(await card.textContent()).toContain('the OpenAPI callbacks of imported operations')
    const row = card.getByTestId('delivery-row')
    await row.waitFor()
    expect(await row.textContent()).toContain('openapi.callback')
    expect(await row.getByTestId('delivery-result').textContent()).toBe('succeeded')
    console.log('screenshot:', await screenshot(page, 'integrations-callbacks'))
    expect(problems).toEqual([])
    await context.close()
  })
})
