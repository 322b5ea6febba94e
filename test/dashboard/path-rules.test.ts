import { describe, expect, it } from 'vitest'
import { send } from '../_helpers.ts'
import { noBrowser, openDashboard, screenshot, shopInBrowser } from './_browser.ts'

const shop = shopInBrowser()

describe.skipIf(noBrowser)('the project heading\'s path rules', { timeout: 60_000 }, () => {
  it('shows the project\'s path rules, saves a change at once, and the resource check follows it', async () => {
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    const rules = page.getByTestId('project-path-rules')
    expect(await rules.inputValue()).toBe('strict')
    const path = page.getByTestId('resource-form').getByLabel('Path')
    const check = page.getByTestId('resource-check')
    await path.fill('/v1/user_profiles')
    await expect.poll(() => check.textContent(), { timeout: 15_000 }).toMatch(/^✗ .*must start with \/api/)

    await rules.selectOption('off')
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toBe('Path rules of shop: off (new paths only)')
    const stored = await send(`${shop.server.url}/api/projects/1`, { headers: { Authorization: `Bearer ${shop.token}` } })
    expect(stored.json.pathRules).toBe('off')
    await path.fill('/v1/user_profile')
    await path.fill('/v1/user_profiles')
    await expect.poll(() => check.textContent(), { timeout: 15_000 }).toBe('✓ /v1/user_profiles makes six endpoints')
    await screenshot(page, 'path-rules')

    // A reload shows what is stored.
    await page.reload()
    await page.getByTestId('project').first().waitFor()
    await expect.poll(() => rules.inputValue(), { timeout: 15_000 }).toBe('off')
    expect(problems).toEqual([])
    await context.close()
  })
})
