import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import type { RunningServer } from '../../src/server/start.ts'
import { cleanup, send, startReceiver } from '../_helpers.ts'
import { connectBrowser, waitForLive, openDashboard, screenshot, screenshotDark, startShop, noBrowser } from './_browser.ts'

let browser: Browser
let server: RunningServer
let token: string
let auth: Record<string, string>

beforeAll(async () => {
  if (noBrowser) return
  ;({ server, token } = await startShop({ retryDelaysMs: [60_000] }))
  auth = { Authorization: `Bearer ${token}` }
  browser = await connectBrowser()
})
afterAll(async () => {
  await browser?.close()
  await cleanup()
})

const rowTexts = (page: Page, testid: string) => page.getByTestId(testid).allTextContents()

describe.skipIf(noBrowser)('live requests, inbox and integrations', { timeout: 60_000 }, () => {
  it('shows mock requests live, newest on top, and a request with its headers and bodies', async () => {
    // One made before the page opens comes from GET …/requests: the journal keeps requests from the start.
    await send(`${server.url}/api/shop/products/1`)
    const { page, problems, context } = await openDashboard(browser, server, token)
    await page.getByTestId('tab-requests').click()
    await waitForLive(page)
    const rows = page.getByTestId('request-row')
    await expect.poll(() => rowTexts(page, 'request-row'), { timeout: 15_000 }).toEqual([expect.stringMatching(/GET\/api\/shop\/products\/1200[\d.]+ ms/)])

    await send(`${server.url}/api/shop/products?active=true&sort=price`)
    await send(`${server.url}/api/shop/products`, { method: 'POST', body: { name: 'Desk <script>alert(1)</script>', price: 120 }, headers: { 'x-trace': 'abc' } })
    await send(`${server.url}/api/shop/products/999`)
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(4)
    const texts = await rowTexts(page, 'request-row')
    expect(texts[0]).toMatch(/GET\/api\/shop\/products\/999404/)
    expect(texts[1]).toMatch(/POST\/api\/shop\/products201/)
    expect(texts[2]).toMatch(/GET\/api\/shop\/products\?active=true&sort=price200/)

    await rows.nth(1).getByTestId('request-open').click()
    const detail = page.getByTestId('request-detail')
    await expect.poll(() => detail.getByTestId('detail-title').textContent()).toBe('POST /api/shop/products')
    const requestPart = detail.getByTestId('detail-request')
    expect(await requestPart.textContent()).toContain('x-trace')
    expect(await requestPart.textContent()).toContain('application/json')
    expect(JSON.parse((await detail.getByTestId('detail-request-body').textContent())!)).toEqual({ name: 'Desk <script>alert(1)</script>', price: 120 })
    const response = JSON.parse((await detail.getByTestId('detail-response-body').textContent())!)
    expect(response).toMatchObject({ id: 13, name: 'Desk <script>alert(1)</script>' })
    expect(await detail.getByTestId('detail-response').textContent()).toMatch(/content-type/i)
    expect(await page.locator('#request-detail script').count()).toBe(0)
    await screenshot(page, 'requests')
    await screenshotDark(page, 'requests')
    expect(problems).toEqual([])
    await context.close()
  })

  it('shows inbox payloads live, newest first, with headers; copies one; clears the inbox', async () => {
    const { page, problems, context } = await openDashboard(browser, server, token)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
    await page.getByTestId('tab-inbox').click()
    expect(await page.getByTestId('inbox-url').textContent()).toMatch(new RegExp(`^${server.url}/api/webhooks/inbox/\\S+$`))
    await waitForLive(page)
    expect(await page.getByTestId('inbox-count').textContent()).toMatch(/Nothing received yet/)

    const inboxUrl = (await page.getByTestId('inbox-url').textContent())!
    const first = await send(inboxUrl, { method: 'POST', body: { event: 'order.paid', amount: 12, note: '<img src=x onerror=alert(1)>' }, headers: { 'x-source': 'test' } })
    expect(first.status).toBe(201)
    const items = page.getByTestId('inbox-item')
    await items.first().waitFor()
    const body = items.first().getByTestId('inbox-body')
    expect(JSON.parse((await body.textContent())!)).toEqual({ event: 'order.paid', amount: 12, note: '<img src=x onerror=alert(1)>' })
    expect(await body.textContent()).toContain('\n  "amount": 12')
    expect(await items.first().locator('img').count()).toBe(0)
    await items.first().locator('summary').click()
    expect(await items.first().locator('table.headers').textContent()).toContain('x-source')

    await send(`${server.url}/api/webhooks/inbox/shop`, { method: 'POST', body: [1, 2, 3] })
    await expect.poll(() => items.count(), { timeout: 15_000 }).toBe(2)
    expect(JSON.parse((await items.first().getByTestId('inbox-body').textContent())!)).toEqual([1, 2, 3])
    expect(await page.getByTestId('inbox-count').textContent()).toBe('2 payloads received, newest first')

    await items.nth(1).getByTestId('inbox-copy').click()
    await expect.poll(() => page.getByTestId('notice').textContent()).toBe('Copied the payload')
    expect(JSON.parse(await page.evaluate<string>('navigator.clipboard.readText()'))).toMatchObject({ event: 'order.paid' })
    await screenshot(page, 'inbox')
    await screenshotDark(page, 'inbox')

    await page.getByTestId('inbox-clear').click()
    await page.getByTestId('inbox-clear').click()
    await expect.poll(() => items.count(), { timeout: 15_000 }).toBe(0)
    expect((await send(`${server.url}/api/projects/1/webhook-inbox`, { headers: auth })).json).toEqual([])
    expect(problems).toEqual([])
    await context.close()
  })

  it('adds a subscription, shows its deliveries live, redelivers, and toggles it off', async () => {
    const receiver = await startReceiver(() => 202)
    // A second, enabled subscription is the witness: once it has an event, the first would have had it too.
    const witness = await startReceiver(() => 200)
    const { page, problems, context } = await openDashboard(browser, server, token)
    await page.getByTestId('tab-integrations').click()
    await waitForLive(page)

    await page.getByLabel('Name').fill('orders hook')
    await page.getByLabel('Target URL').fill(receiver.url)
    await page.getByLabel('mock.error').uncheck()
    await page.getByTestId('sub-add').click()
    const card = page.locator('[data-testid="subscription"][data-name="orders hook"]')
    await card.waitFor()
    expect(await card.getByTestId('sub-target').textContent()).toBe(receiver.url)
    expect(await card.textContent()).toContain('mock.request')
    expect(await card.textContent()).not.toContain('mock.error')
    expect(await card.getByTestId('sub-enabled').isChecked()).toBe(true)

    // The secret stays hidden until "Show".
    const subscriptions = (await send(`${server.url}/api/projects/1/webhooks`, { headers: auth })).json
    const created = subscriptions.find((s: { name: string }) => s.name === 'orders hook')
    expect(await card.getByTestId('sub-secret').textContent()).not.toContain(created.secret)
    await card.getByTestId('sub-secret-toggle').click()
    expect(await card.getByTestId('sub-secret').textContent()).toBe(created.secret)
    expect(await card.getByTestId('sub-secret-toggle').getAttribute('aria-pressed')).toBe('true')

    // A mock request: its delivery shows up with the receiver's status code.
    await send(`${server.url}/api/shop/products/2`)
    const deliveries = card.getByTestId('delivery-row')
    await deliveries.first().waitFor()
    expect(await deliveries.first().getByTestId('delivery-status').textContent()).toBe('202')
    expect(await deliveries.first().getByTestId('delivery-result').textContent()).toBe('succeeded')
    expect(await deliveries.first().getByTestId('delivery-attempt').textContent()).toBe('#1')
    expect(receiver.requests).toHaveLength(1)
    // The secret stays shown while the log refreshes.
    expect(await card.getByTestId('sub-secret').textContent()).toBe(created.secret)

    // Redeliver: the same event once more, a new row.
    await deliveries.first().getByTestId('delivery-redeliver').click()
    await expect.poll(() => deliveries.count(), { timeout: 15_000 }).toBe(2)
    expect(receiver.requests).toHaveLength(2)
    expect(receiver.requests[1]!.headers['webhook-id']).toBe(receiver.requests[0]!.headers['webhook-id'])
    await screenshot(page, 'integrations')
    await screenshotDark(page, 'integrations')

    // Off: no new delivery for the next request (the witness gets its own).
    await card.getByTestId('sub-enabled').uncheck()
    await expect.poll(async () => (await send(`${server.url}/api/projects/1/webhooks/${created.id}`, { headers: auth })).json.enabled, { timeout: 15_000 }).toBe(false)
    await send(`${server.url}/api/projects/1/webhooks`, { method: 'POST', headers: auth, body: { name: 'witness', targetUrl: witness.url, events: ['mock.request'] } })
    await send(`${server.url}/api/shop/products/3`)
    const witnessCard = page.locator('[data-testid="subscription"][data-name="witness"]')
    await witnessCard.getByTestId('delivery-row').first().waitFor()
    expect(witness.requests).toHaveLength(1)
    expect(receiver.requests).toHaveLength(2)
    expect(await deliveries.count()).toBe(2)
    expect(await card.getByTestId('sub-enabled').isChecked()).toBe(false)

    // Delete (asked twice).
    await card.getByTestId('sub-delete').click()
    await card.getByTestId('sub-delete').click()
    await card.waitFor({ state: 'detached' })
    expect((await send(`${server.url}/api/projects/1/webhooks/${created.id}`, { headers: auth })).status).toBe(404)
    expect(problems).toEqual([])
    await context.close()
  })

  it('refuses a bad subscription with the reason', async () => {
    const { page, context } = await openDashboard(browser, server, token)
    await page.getByTestId('tab-integrations').click()
    await page.getByLabel('Name').fill('bad')
    await page.getByLabel('Target URL').fill('http://user:pw@127.0.0.1:9/hook')
    await page.getByTestId('sub-add').click()
    await expect.poll(() => page.getByTestId('sub-error').textContent(), { timeout: 15_000 }).toMatch(/targetUrl/)
    await context.close()
  })
})
