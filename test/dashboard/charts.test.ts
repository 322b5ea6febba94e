import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Locator, Page } from 'playwright-core'
import { addEndpoint } from '../../src/domain/endpoints.ts'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import type { DeliveryBucketView, RequestBucketView, StatsView } from '../../src/views.ts'
import { openStore, send, serve, startReceiver, tempDb, testClock } from '../_helpers.ts'
import { noBrowser, openDashboard, SCREENSHOTS, screenshot, screenshotDark, shopInBrowser, startShop, waitForLive } from './_browser.ts'

const shop = shopInBrowser({ retryDelaysMs: [100] })
const auth = () => ({ Authorization: `Bearer ${shop.token}` })

async function stats(window: string): Promise<StatsView> {
  const answer = await send(`${shop.server.url}/api/projects/1/stats?window=${window}`, { headers: auth() })
  expect(answer.status).toBe(200)
  return answer.json
}

/** A duration as the dashboard writes it (dom.js `ms`). */
const ms = (value: number | null) => (value === null ? '—' : `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`)

/** The numbers a request bucket's text (its aria-label, its tooltip) gives, in the order the stats endpoint has them. */
function requestNumbers(text: string) {
  const match = /: (\d+) requests? \([\d.]+\/s\): 2xx (\d+), 3xx (\d+), 4xx (\d+), 5xx (\d+)(?:, no answer \d+)?; p50 (.+?), p95 (.+?), p99 (.+)$/.exec(text)
  expect(match, text).not.toBeNull()
  const [, total, c2, c3, c4, c5, p50, p95, p99] = match!
  return { total: Number(total), '2xx': Number(c2), '3xx': Number(c3), '4xx': Number(c4), '5xx': Number(c5), p50, p95, p99 }
}

const expectedRequestNumbers = (bucket: RequestBucketView) => ({
  total: bucket.total, '2xx': bucket['2xx'], '3xx': bucket['3xx'], '4xx': bucket['4xx'], '5xx': bucket['5xx'], p50: ms(bucket.p50), p95: ms(bucket.p95), p99: ms(bucket.p99),
})

function deliveryNumbers(text: string) {
  const match = /: (\d+) attempts?: succeeded (\d+), retrying (\d+), failed (\d+); p50 (.+?), p95 (.+)$/.exec(text)
  expect(match, text).not.toBeNull()
  const [, , succeeded, retrying, failed, p50, p95] = match!
  return { succeeded: Number(succeeded), retrying: Number(retrying), failed: Number(failed), p50, p95 }
}

const expectedDeliveryNumbers = (bucket: DeliveryBucketView) => ({ succeeded: bucket.succeeded, retrying: bucket.retrying, failed: bucket.failed, p50: ms(bucket.p50), p95: ms(bucket.p95) })

/** The chart's buckets that had traffic, by their start, with their aria-labels. */
async function labelledBuckets(chart: Locator): Promise<Map<string, string>> {
  const pairs = await chart.getByTestId('chart-bucket').evaluateAll((buckets) => buckets.map((bucket) => [bucket.getAttribute('data-at') ?? '', bucket.getAttribute('aria-label') ?? '']))
  return new Map(pairs.filter(([, label]) => !/: no (requests|attempts)$/.test(label!)) as [string, string][])
}

/** A chart alone, in both themes, for the docs and for review, with room above it for the tooltip that sits over the caption. */
async function chartShots(page: Page, chart: Locator, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  const box = (await chart.boundingBox())!
  const clip = { x: box.x - 4, y: box.y - 24, width: box.width + 8, height: box.height + 28 }
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-light.png`), clip })
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-dark.png`), clip })
  await page.emulateMedia({ colorScheme: 'light' })
}

/** The fill a bar of this class is painted with, as the page computes it. */
const fillOf = (chart: Locator, className: string) => chart.locator(`rect.${className}`).first().evaluate((rect) => rect.ownerDocument.defaultView!.getComputedStyle(rect).fill)

describe.skipIf(noBrowser)('charts', { timeout: 60_000 }, () => {
  it('draws requests per second by status class with p50/p95, live, showing what the stats endpoint answers, in light and dark', async () => {
    // Made before the page opens: the chart is seeded from the stats endpoint.
    for (let i = 0; i < 3; i++) await send(`${shop.server.url}/api/shop/products/1`)
    await send(`${shop.server.url}/api/shop/products/999`)
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    await page.getByTestId('tab-requests').click()
    await waitForLive(page)
    const chart = page.getByTestId('request-chart')
    const drawing = page.getByTestId('request-chart-svg')
    await expect.poll(() => drawing.getAttribute('aria-label'), { timeout: 15_000 }).toMatch(/^Requests per second over the last 5 minutes, by status class, in 5-second buckets: 4 requests, 2xx 3, 3xx 0, 4xx 1, 5xx 0;/)
    expect(await chart.getByTestId('chart-bucket').count()).toBe(60)

    // New traffic: the chart follows it from the event stream, without a reload.
    await send(`${shop.server.url}/api/shop/products`, { method: 'POST', body: { name: 'Lamp', price: 30 } })
    await send(`${shop.server.url}/api/shop/products`, { method: 'POST', body: { name: 'Desk', price: 120 } })
    await send(`${shop.server.url}/api/shop/nothing-here`)
    await expect.poll(() => drawing.getAttribute('aria-label'), { timeout: 15_000 }).toMatch(/: 7 requests, 2xx 5, 3xx 0, 4xx 2, 5xx 0;/)

    // Every bucket with traffic says what the endpoint says of it, and no other bucket has any.
    const answer = await stats('5m')
    const withTraffic = answer.requests.filter((bucket) => bucket.total > 0)
    const labels = await labelledBuckets(chart)
    expect([...labels.keys()]).toEqual(withTraffic.map((bucket) => bucket.at))
    for (const bucket of withTraffic) expect(requestNumbers(labels.get(bucket.at)!)).toEqual(expectedRequestNumbers(bucket))
    const slowest = Math.max(...answer.requests.map((bucket) => bucket.p95 ?? 0))
    expect(await drawing.getAttribute('aria-label')).toContain(`p95 duration at most ${ms(slowest)}`)

    // Hover: the tooltip has the bucket's numbers.
    const newest = chart.locator(`[data-testid="chart-bucket"][data-at="${withTraffic.at(-1)!.at}"]`)
    const tip = chart.getByTestId('chart-tip')
    await newest.hover()
    await expect.poll(() => tip.isVisible()).toBe(true)
    expect(await tip.textContent()).toBe(await newest.getAttribute('aria-label'))
    expect(requestNumbers((await tip.textContent())!)).toEqual(expectedRequestNumbers(withTraffic.at(-1)!))

    // Keyboard: one tab stop (the newest bucket with traffic), the arrows move along, the tooltip follows.
    await page.mouse.move(0, 0)
    expect(await chart.locator('[data-testid="chart-bucket"][tabindex="0"]').getAttribute('data-at')).toBe(withTraffic.at(-1)!.at)
    // From the tab, past the panel, the Tab key lands on it.
    await page.getByTestId('tab-requests').focus()
    await page.keyboard.press('Tab')
    await page.keyboard.press('Tab')
    expect(await chart.locator('[data-testid="chart-bucket"]:focus').getAttribute('data-at')).toBe(withTraffic.at(-1)!.at)
    expect(await tip.textContent()).toBe(await newest.getAttribute('aria-label'))
    await page.keyboard.press('ArrowLeft')
    const previous = chart.locator('[data-testid="chart-bucket"]:focus')
    const previousAt = await previous.getAttribute('data-at')
    expect(Date.parse(withTraffic.at(-1)!.at) - Date.parse(previousAt!)).toBe(5000)
    expect(await tip.textContent()).toBe(await previous.getAttribute('aria-label'))
    expect(await tip.isVisible()).toBe(true)
    // Read in one step in the page: a bucket ending meanwhile moves the window, and the chart with it.
    const focusedAt = (end: 'first' | 'last') => chart.evaluate((element, which) => {
      const buckets = [...element.querySelectorAll('[data-testid="chart-bucket"]')]
      return (which === 'first' ? buckets[0] : buckets.at(-1)) === element.ownerDocument.activeElement
    }, end)
    // A refresh landing between the key and the read redraws the window: the key is pressed again.
    await expect.poll(async () => (await page.keyboard.press('Home'), focusedAt('first'))).toBe(true)
    await expect.poll(async () => (await page.keyboard.press('End'), focusedAt('last'))).toBe(true)

    // The theme's colours: 2xx is the page's "ok" green in each theme.
    expect(await fillOf(chart, 'c-2xx')).toBe('rgb(20, 108, 63)')
    await page.emulateMedia({ colorScheme: 'dark' })
    expect(await fillOf(chart, 'c-2xx')).toBe('rgb(92, 201, 143)')
    expect(await fillOf(chart, 'c-4xx')).toBe('rgb(226, 180, 74)')
    await page.emulateMedia({ colorScheme: 'light' })
    await newest.hover()
    await chartShots(page, chart, 'chart-requests')
    await screenshot(page, 'charts-requests')
    await screenshotDark(page, 'charts-requests')
    expect(problems).toEqual([])
    await context.close()
  })

  it('draws each subscription\'s delivery outcomes and attempt latency, live, showing what the stats endpoint answers', async () => {
    const good = await startReceiver(() => 200)
    const bad = await startReceiver(() => 500)
    const ids: Record<string, number> = {}
    for (const [name, receiver] of [['good hook', good], ['bad hook', bad]] as const) {
      const created = await send(`${shop.server.url}/api/projects/1/webhooks`, { method: 'POST', headers: auth(), body: { name, targetUrl: receiver.url, events: ['mock.request'] } })
      ids[name] = created.json.id
    }
    await send(`${shop.server.url}/api/shop/products/2`)
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    await page.getByTestId('tab-integrations').click()
    await waitForLive(page)
    const card = (name: string) => page.locator(`[data-testid="subscription"][data-name="${name}"]`)
    const summary = (name: string) => card(name).getByTestId('delivery-chart-svg').getAttribute('aria-label')
    // The bad one: tried, failed, tried again 100 ms later, given up.
    await expect.poll(() => summary('bad hook'), { timeout: 15_000 }).toMatch(/^Delivery attempts of bad hook over the last hour, by outcome, in 30-second buckets: 2 attempts, succeeded 0, retrying 1, failed 1;/)
    await expect.poll(() => summary('good hook'), { timeout: 15_000 }).toMatch(/: 1 attempt, succeeded 1, retrying 0, failed 0;/)

    // Live: another request's deliveries show without a reload.
    await send(`${shop.server.url}/api/shop/products/3`)
    await expect.poll(() => summary('good hook'), { timeout: 15_000 }).toMatch(/: 2 attempts, succeeded 2, retrying 0, failed 0;/)
    await expect.poll(() => summary('bad hook'), { timeout: 15_000 }).toMatch(/: 4 attempts, succeeded 0, retrying 2, failed 2;/)

    const answer = await stats('1h')
    for (const name of ['good hook', 'bad hook']) {
      const withAttempts = answer.deliveries.filter((bucket) => bucket.subscriptionId === ids[name] && bucket.succeeded + bucket.retrying + bucket.failed > 0)
      const labels = await labelledBuckets(card(name).getByTestId('delivery-chart'))
      expect([...labels.keys()]).toEqual(withAttempts.map((bucket) => bucket.at))
      for (const bucket of withAttempts) expect(deliveryNumbers(labels.get(bucket.at)!)).toEqual(expectedDeliveryNumbers(bucket))
    }
    const chart = card('bad hook').getByTestId('delivery-chart')
    const newest = chart.locator('[data-testid="chart-bucket"][tabindex="0"]')
    await newest.focus()
    expect(await chart.getByTestId('chart-tip').textContent()).toBe(await newest.getAttribute('aria-label'))
    expect(await fillOf(chart, 'c-failed')).toBe('rgb(179, 38, 30)')
    await chartShots(page, card('bad hook'), 'chart-deliveries')
    await screenshot(page, 'charts-integrations')
    await screenshotDark(page, 'charts-integrations')
    expect(problems).toEqual([])
    await context.close()
  })

  it('a flaky receiver (500 to every third request): the attempts table says of each attempt what the chart counts, in its colours, the status and error kept', async () => {
    const flaky = await startShop({ retryDelaysMs: [100] })
    const flakyAuth = { Authorization: `Bearer ${flaky.token}` }
    const receiver = await startReceiver((n) => (n % 3 === 0 ? 500 : 204))
    const created = await send(`${flaky.server.url}/api/projects/1/webhooks`, { method: 'POST', headers: flakyAuth, body: { name: 'flaky hook', targetUrl: receiver.url, events: ['mock.request'] } })
    expect(created.status).toBe(201)
    const events = 9
    for (let id = 1; id <= events; id++) await send(`${flaky.server.url}/api/shop/products/${id}`)
    const { page, problems, context } = await openDashboard(shop.browser, flaky.server, flaky.token)
    await page.getByTestId('tab-integrations').click()
    await waitForLive(page)
    const card = page.locator('[data-testid="subscription"][data-name="flaky hook"]')
    const tableOutcomes = async () => {
      const words = await card.getByTestId('delivery-result').allTextContents()
      return { succeeded: words.filter((w) => w === 'succeeded').length, retrying: words.filter((w) => w === 'retrying').length, failed: words.filter((w) => w === 'failed').length, rows: words.length }
    }
    // Every delivery ended (got through or given up), and the chart has caught up with the table.
    const chartOutcomes = async () => {
      const summary = /: (\d+) attempts?, succeeded (\d+), retrying (\d+), failed (\d+);/.exec((await card.getByTestId('delivery-chart-svg').getAttribute('aria-label')) ?? '')
      return { succeeded: Number(summary?.[2] ?? 0), retrying: Number(summary?.[3] ?? 0), failed: Number(summary?.[4] ?? 0) }
    }
    await expect.poll(async () => {
      const table = await tableOutcomes()
      const chart = await chartOutcomes()
      return table.succeeded + table.failed === events && table.rows === chart.succeeded + chart.retrying + chart.failed && table.rows
    }, { timeout: 15_000 }).toBeTruthy()
    const table = await tableOutcomes()
    const chart = await chartOutcomes()
    console.log('table', JSON.stringify(table), 'chart', JSON.stringify(chart))
    expect({ succeeded: table.succeeded, retrying: table.retrying, failed: table.failed }).toEqual({ succeeded: chart.succeeded, retrying: chart.retrying, failed: chart.failed })
    expect(table.retrying).toBeGreaterThan(0)
    const counted = (await send(`${flaky.server.url}/api/projects/1/stats?window=1h`, { headers: flakyAuth })).json.deliveries as DeliveryBucketView[]
    expect(counted.reduce((sum, b) => ({ succeeded: sum.succeeded + b.succeeded, retrying: sum.retrying + b.retrying, failed: sum.failed + b.failed }), { succeeded: 0, retrying: 0, failed: 0 }))
      .toEqual({ succeeded: table.succeeded, retrying: table.retrying, failed: table.failed })

    // A retried attempt: amber "retrying" as the chart's bar, its 500 and error still shown.
    const retried = card.getByTestId('delivery-row').filter({ has: page.locator('[data-testid="delivery-result"]', { hasText: 'retrying' }) }).first()
    expect(await retried.getByTestId('delivery-status').textContent()).toBe('500')
    expect(await retried.locator('.error-text').textContent()).toBe('HTTP 500')
    const colour = await retried.getByTestId('delivery-result').evaluate((span) => span.ownerDocument.defaultView!.getComputedStyle(span).color)
    expect(colour).toBe(await fillOf(card.getByTestId('delivery-chart'), 'c-retrying'))
    expect(problems).toEqual([])
    await context.close()
  })

  it('turning a subscription off ends its pending retries: the attempt they followed turns from retrying to failed, in the table and the chart', async () => {
    const waiting = await startShop({ retryDelaysMs: [60_000] })
    const receiver = await startReceiver(() => 500)
    const created = await send(`${waiting.server.url}/api/projects/1/webhooks`, { method: 'POST', headers: { Authorization: `Bearer ${waiting.token}` }, body: { name: 'down hook', targetUrl: receiver.url, events: ['mock.request'] } })
    expect(created.status).toBe(201)
    await send(`${waiting.server.url}/api/shop/products/1`)
    const { page, problems, context } = await openDashboard(shop.browser, waiting.server, waiting.token)
    await page.getByTestId('tab-integrations').click()
    await waitForLive(page)
    const card = page.locator('[data-testid="subscription"][data-name="down hook"]')
    const summary = () => card.getByTestId('delivery-chart-svg').getAttribute('aria-label')
    await expect.poll(() => card.getByTestId('delivery-result').allTextContents(), { timeout: 15_000 }).toEqual(['retrying'])
    await expect.poll(summary, { timeout: 15_000 }).toMatch(/: 1 attempt, succeeded 0, retrying 1, failed 0;/)
    await card.getByTestId('sub-enabled').click()
    await expect.poll(() => card.getByTestId('delivery-result').allTextContents(), { timeout: 15_000 }).toEqual(['failed'])
    await expect.poll(summary, { timeout: 15_000 }).toMatch(/: 1 attempt, succeeded 0, retrying 0, failed 1;/)
    expect(problems).toEqual([])
    await context.close()
  })

  it('draws the requests with the journal off (serve --journal 0), where the list is off, without a request the browser reports failed', async () => {
    const quiet = await startShop({ journal: 0 })
    await send(`${quiet.server.url}/api/shop/products/1`)
    await send(`${quiet.server.url}/api/shop/products/999`)
    // Watched from before the page loads: the list's 409 used to come at once, twice.
    const context = await shop.browser.newContext({ viewport: { width: 1280, height: 860 } })
    const page = await context.newPage()
    const consoleErrors: string[] = []
    const refused: string[] = []
    page.on('console', (message) => void (message.type() === 'error' && consoleErrors.push(message.text())))
    page.on('pageerror', (error) => consoleErrors.push(error.message))
    page.on('response', (response) => void (response.status() >= 400 && refused.push(`${response.status()} ${response.url()}`)))
    await page.goto(`${quiet.server.url}/_mockapi/#token=${quiet.token}`)
    await page.getByTestId('tab-requests').click()
    await page.getByTestId('requests-off').waitFor()
    await expect.poll(() => page.getByTestId('request-chart-svg').getAttribute('aria-label'), { timeout: 15_000 }).toMatch(/: 2 requests, 2xx 1, 3xx 0, 4xx 1, 5xx 0;/)
    // Another project chosen and back, and the stream opened: still nothing asked that is known to fail.
    await waitForLive(page)
    await page.reload()
    await page.getByTestId('requests-off').waitFor()
    await waitForLive(page)
    expect(refused).toEqual([])
    expect(consoleErrors).toEqual([])
    await context.close()
  })

  it('draws requests that got no answer (faults, status 0) as their own part of the bar, in the legend, counted for the empty message and the tab stop', async () => {
    const dbPath = tempDb()
    const { context: store } = openStore(dbPath)
    createProject(store, { name: 'Shop', slug: 'shop' })
    addEndpoint(store, { project: 'shop', method: 'GET', path: '/api/reset', fault: 'reset' })
    const clock = testClock()
    const faulty = await serve(dbPath, { clock })
    const reset = () => expect(send(`${faulty.url}/api/shop/reset`)).rejects.toThrow('fetch failed')
    // One bucket of unanswered requests only, then the next of 2×404 and 3×reset: 1/s.
    for (let i = 0; i < 3; i++) await reset()
    clock.advance(5000 - (clock.now().getTime() % 5000))
    for (let i = 0; i < 2; i++) expect((await send(`${faulty.url}/api/shop/missing`)).status).toBe(404)
    for (let i = 0; i < 3; i++) await reset()
    const answer = (await send(`${faulty.url}/api/projects/1/stats?window=5m`, { headers: { Authorization: `Bearer ${await faulty.dashboardToken()}` } })).json as StatsView
    const counted = answer.requests.filter((bucket) => bucket.total > 0)
    expect(counted.map(({ total, noAnswer, '4xx': c4 }) => ({ total, noAnswer, '4xx': c4 }))).toEqual([{ total: 3, noAnswer: 3, '4xx': 0 }, { total: 5, noAnswer: 3, '4xx': 2 }])

    const { page, problems, context } = await openDashboard(shop.browser, faulty, await faulty.dashboardToken())
    await page.getByTestId('tab-requests').click()
    await waitForLive(page)
    const chart = page.getByTestId('request-chart')
    const drawing = page.getByTestId('request-chart-svg')
    await expect.poll(() => drawing.getAttribute('aria-label'), { timeout: 15_000 }).toMatch(/: 8 requests, 2xx 0, 3xx 0, 4xx 2, 5xx 0, no answer 6;/)
    expect(await chart.locator('.chart-empty').count()).toBe(0)
    expect(await chart.locator('.chart-legend').textContent()).toContain('no answer')
    const [only, mixed] = counted.map((bucket) => chart.locator(`[data-testid="chart-bucket"][data-at="${bucket.at}"]`))
    expect(await only!.getAttribute('aria-label')).toMatch(/: 3 requests \(0.6\/s\): 2xx 0, 3xx 0, 4xx 0, 5xx 0, no answer 3;/)
    expect(await mixed!.getAttribute('aria-label')).toMatch(/: 5 requests \(1\/s\): 2xx 0, 3xx 0, 4xx 2, 5xx 0, no answer 3;/)
    expect(await only!.locator('rect.c-none').count()).toBe(1)
    // The 1/s bucket reaches the axis's top (1/s): its parts' heights add up to the plot's.
    const heights = await mixed!.evaluate((bucket) => {
      const parts = [...bucket.querySelectorAll('rect:not(.chart-hit)')].map((rect) => Number(rect.getAttribute('height')))
      return { parts: parts.reduce((sum, height) => sum + height, 0), plot: Number(bucket.querySelector('.chart-hit')!.getAttribute('height')) }
    })
    expect(heights.parts).toBeCloseTo(heights.plot, 5)
    expect(await chart.locator('[data-testid="chart-bucket"][tabindex="0"]').getAttribute('data-at')).toBe(counted[1]!.at)
    // Its own colour in each theme.
    expect(await fillOf(chart, 'c-none')).toBe('rgb(14, 116, 144)')
    await page.emulateMedia({ colorScheme: 'dark' })
    expect(await fillOf(chart, 'c-none')).toBe('rgb(76, 201, 224)')
    await page.emulateMedia({ colorScheme: 'light' })
    await mixed!.hover()
    await chartShots(page, chart, 'chart-requests-no-answer')
    expect(problems).toEqual([])
    await context.close()
  })

  it('keeps its text a readable size and its height fixed from a phone\'s width to a wide screen, the tooltip off the plot, times along the axis', async () => {
    for (let i = 0; i < 3; i++) await send(`${shop.server.url}/api/shop/products/1`)
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    await page.getByTestId('tab-requests').click()
    await waitForLive(page)
    const chart = page.getByTestId('request-chart')
    const drawing = page.getByTestId('request-chart-svg')
    await expect.poll(() => drawing.getAttribute('aria-label'), { timeout: 15_000 }).toMatch(/by status class/)
    for (const width of [420, 1280, 1920]) {
      await page.setViewportSize({ width, height: 900 })
      // Drawn again at the box's width (a ResizeObserver): the drawing's units are its pixels.
      await expect.poll(() => drawing.evaluate((svg) => Math.abs(svg.getBoundingClientRect().width - Number(svg.getAttribute('viewBox')!.split(' ')[2])))).toBeLessThan(1.5)
      const sizes = await drawing.evaluate((svg) => ({
        text: Math.max(...[...svg.querySelectorAll('.chart-axis')].map((text) => text.getBoundingClientRect().height)),
        height: svg.getBoundingClientRect().height,
        times: svg.querySelectorAll('[data-testid="chart-time"]').length,
      }))
      console.log(`at ${width} px: axis text ${sizes.text.toFixed(1)} px tall, chart ${sizes.height.toFixed(0)} px, ${sizes.times} times between the ends`)
      expect(sizes.text, `${width}`).toBeGreaterThanOrEqual(11)
      expect(sizes.text, `${width}`).toBeLessThanOrEqual(18)
      expect(sizes.height, `${width}`).toBe(170)
      expect(sizes.times, `${width}`).toBeGreaterThanOrEqual(width < 600 ? 1 : 3)
      // The tooltip sits above the plot: its top axis label stays in sight.
      const bucket = chart.locator('[data-testid="chart-bucket"][tabindex="0"]')
      await bucket.hover()
      const tip = chart.getByTestId('chart-tip')
      await expect.poll(() => tip.isVisible()).toBe(true)
      // Measured again (hovering again) when a live redraw lands between the two reads: the labels
      // of a drawing being replaced measure 0.
      await expect.poll(async () => {
        await bucket.hover()
        const box = await tip.boundingBox()
        const topLabel = await drawing.evaluate((svg) => Math.min(...[...svg.querySelectorAll('.chart-axis')].map((text) => text.getBoundingClientRect().top)))
        return box !== null && topLabel > 0 && box.y + box.height <= topLabel
      }, { message: `${width}: the tooltip ends above the top axis label` }).toBe(true)
      await page.screenshot({ path: join(SCREENSHOTS, `charts-width-${width}.png`) })
      await page.mouse.move(0, 0)
    }
    expect(problems).toEqual([])
    await context.close()
  })

  it('leaves screenshots of a busy five minutes, light and dark, for review (docs/images has a pair of them)', async () => {
    // Five minutes of traffic in a few seconds: the server's clock starts five minutes back and steps 5 s at a time up to now.
    const dbPath = tempDb()
    const { context: store } = openStore(dbPath)
    createProject(store, { name: 'Shop', slug: 'shop' })
    createResource(store, { project: 'shop', path: '/api/products' })
    addEndpoint(store, { project: 'shop', method: 'GET', path: '/api/search', delay: { min: 5, max: 60 }, body: '{"hits":[]}' })
    addEndpoint(store, { project: 'shop', method: 'GET', path: '/api/legacy', status: 301, headers: { location: '/api/products' } })
    addEndpoint(store, { project: 'shop', method: 'GET', path: '/api/checkout', status: 503, body: '{"down":true}' })
    const clock = testClock()
    clock.advance(-5 * 60_000)
    const busy = await serve(dbPath, { clock })
    const get = (path: string) => busy.fetch(new Request(`${busy.url}/api/shop${path}`)).then((response) => response.arrayBuffer())
    for (let step = 0; step < 60; step++) {
      const wave = Math.round(6 + 5 * Math.sin(step / 6))
      const calls = [
        ...Array.from({ length: wave }, () => get('/products')),
        ...Array.from({ length: 1 + (step % 3) }, () => get('/search')),
        ...(step % 4 === 0 ? [get('/legacy')] : []),
        ...(step % 5 === 0 ? [get('/products/999')] : []),
        ...(step >= 38 && step < 46 ? [get('/checkout'), get('/checkout')] : []),
      ]
      await Promise.all(calls)
      clock.advance(5000)
    }
    const { page, problems, context } = await openDashboard(shop.browser, busy, await busy.dashboardToken())
    await page.getByTestId('tab-requests').click()
    await waitForLive(page)
    const chart = page.getByTestId('request-chart')
    await expect.poll(() => page.getByTestId('request-chart-svg').getAttribute('aria-label'), { timeout: 15_000 }).toMatch(/5xx 16;/)
    await chart.locator('[data-testid="chart-bucket"]').nth(42).hover()
    await chartShots(page, chart, 'chart-requests-busy')
    expect(problems).toEqual([])
    await context.close()
  })
})
