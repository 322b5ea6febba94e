import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { send } from '../_helpers.ts'
import { noBrowser, openDashboard, screenshot, shopInBrowser } from './_browser.ts'

const shop = shopInBrowser()

const endpointRow = (page: Page, method: string, path: string) => page.locator(`[data-testid="endpoint-row"][data-method="${method}"][data-path="${path}"]`)

describe.skipIf(noBrowser)('responses in the Endpoints tab', { timeout: 60_000 }, () => {
  it('saves a pick and a list, shows a refusal with its field, and the mock answers in turn', async () => {
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    const row = endpointRow(page, 'GET', '/api/products/:id')
    await row.waitFor()
    await row.getByTestId('responses-summary').click()
    const list = row.getByTestId('responses-json')
    const notice = () => page.getByTestId('notice').textContent()

    await list.fill('[{"when":{"query":{"a":{"matches":"(?=x)"}}},"status":200}]')
    await row.getByTestId('responses-save').click()
    await expect.poll(notice, { timeout: 15_000 }).toContain('responses[0].when.query.a.matches')
    expect(await list.getAttribute('aria-invalid')).toBe('true')

    await row.getByTestId('responses-pick').selectOption('sequence')
    await list.fill('[{"name":"first","body":{"n":1}},{"body":{"n":2},"status":202}]')
    await row.getByTestId('responses-save').click()
    await expect.poll(notice, { timeout: 15_000 }).toContain('Saved: 2 responses of GET /api/products/:id, picked by sequence')
    expect(await row.getByTestId('responses-summary').textContent()).toBe('Responses (2) · sequence')
    expect(await list.getAttribute('aria-invalid')).toBe(null)
    await screenshot(page, 'endpoints-responses')
    const first = await send(`${shop.server.url}/api/shop/products/1`)
    const second = await send(`${shop.server.url}/api/shop/products/1`)
    expect([first.status, first.json, second.status, second.json]).toEqual([200, { n: 1 }, 202, { n: 2 }])

    await list.fill('[]')
    await row.getByTestId('responses-save').click()
    await expect.poll(notice, { timeout: 15_000 }).toContain('Saved: 0 responses')
    expect(problems).toEqual([])
    await context.close()
  })

  it('adds a file response from a picked file; the mock answers its bytes', async () => {
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    const row = endpointRow(page, 'GET', '/api/products/:id')
    await row.waitFor()
    await row.getByTestId('responses-summary').click()
    const list = row.getByTestId('responses-json')
    const notice = () => page.getByTestId('notice').textContent()
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')
    await row.getByTestId('responses-pick').selectOption('rules')
    await list.fill('[{"when":{"query":{"as":"text"}},"text":"plain","contentType":"text/markdown"}]')
    await row.getByTestId('responses-file').setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: svg })
    await expect.poll(notice, { timeout: 15_000 }).toContain('logo.svg added as response #2')
    await row.getByTestId('responses-save').click()
    await expect.poll(notice, { timeout: 15_000 }).toContain('Saved: 2 responses')
    // Saved, the list shows the kept file by its id.
    expect(JSON.parse(await list.inputValue())[1]).toEqual({ file: { id: expect.any(Number), name: 'logo.svg', size: svg.byteLength } })
    const file = await fetch(`${shop.server.url}/api/shop/products/1`)
    expect([file.headers.get('content-type'), Buffer.from(await file.arrayBuffer()).equals(svg)]).toEqual(['image/svg+xml', true])
    const text = await send(`${shop.server.url}/api/shop/products/1?as=text`)
    expect([text.headers.get('content-type'), text.text]).toEqual(['text/markdown', 'plain'])
    await list.fill('[]')
    await row.getByTestId('responses-save').click()
    await expect.poll(notice, { timeout: 15_000 }).toContain('Saved: 0 responses')
    expect(problems).toEqual([])
    await context.close()
  })
})
