import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { send } from '../_helpers.ts'
import { noBrowser, openDashboard, screenshot, shopInBrowser } from './_browser.ts'

const shop = shopInBrowser()

const endpointRow = (page: Page, method: string, path: string) => page.locator(`[data-testid="endpoint-row"][data-method="${method}"][data-path="${path}"]`)

describe.skipIf(noBrowser)('auth in the dashboard', { timeout: 60_000 }, () => {
  it('sets the project\'s auth in the heading, shows what each endpoint demands, and sets an endpoint\'s own', async () => {
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    const row = endpointRow(page, 'GET', '/api/products/:id')
    await row.waitFor()
    // Its settings are under the row, shown with Settings.
    await row.getByTestId('endpoint-expand').click()
    const effective = row.getByTestId('endpoint-effective-auth')
    expect(await effective.textContent()).toBe('none')

    const projectAuth = page.getByTestId('project-auth')
    await projectAuth.fill('{"type":"bearer","tokens":[]}')
    await projectAuth.press('Enter')
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toContain('auth.tokens must be a non-empty list')
    expect(await projectAuth.getAttribute('aria-invalid')).toBe('true')
    await projectAuth.fill('{"type":"bearer","tokens":["t-1"]}')
    await projectAuth.press('Enter')
    await expect.poll(() => effective.textContent(), { timeout: 15_000 }).toBe('bearer, 1 listed token (project)')
    expect((await send(`${shop.server.url}/api/shop/products/1`)).status).toBe(401)

    const own = row.getByTestId('endpoint-auth')
    await own.fill('none')
    await own.press('Enter')
    await expect.poll(() => effective.textContent(), { timeout: 15_000 }).toBe('none (endpoint)')
    expect((await send(`${shop.server.url}/api/shop/products/1`)).status).not.toBe(401)
    await own.fill('{"type":"apiKey","in":"header"}')
    await own.press('Enter')
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toContain('auth.name must be a header name')
    await screenshot(page, 'endpoints-auth')
    await own.fill('')
    await own.press('Enter')
    await expect.poll(() => effective.textContent(), { timeout: 15_000 }).toBe('bearer, 1 listed token (project)')

    await projectAuth.fill('')
    await projectAuth.press('Enter')
    await expect.poll(() => effective.textContent(), { timeout: 15_000 }).toBe('none')
    const security = page.getByTestId('project-openapi-security')
    expect(await security.isChecked()).toBe(true)
    await security.uncheck()
    await expect.poll(async () => (await send(`${shop.server.url}/api/projects/1`, { headers: { Authorization: `Bearer ${shop.token}` } })).json.openapiSecurity, { timeout: 15_000 }).toBe(false)
    expect(problems).toEqual([])
    await context.close()
  })
})
