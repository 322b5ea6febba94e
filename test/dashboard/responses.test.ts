import { describe, expect, it } from 'vitest'
import type { Locator, Page } from 'playwright-core'
import { send } from '../_helpers.ts'
import { noBrowser, openDashboard, screenshot, screenshotDark, shopInBrowser } from './_browser.ts'

const shop = shopInBrowser()

const endpointRow = (page: Page, method: string, path: string) => page.locator(`[data-testid="endpoint-row"][data-method="${method}"][data-path="${path}"]`)

/** The row of an endpoint with its settings open. */
async function openSettings(page: Page, method: string, path: string): Promise<Locator> {
  const row = endpointRow(page, method, path)
  await row.getByTestId('endpoint-expand').click()
  await row.getByTestId('endpoint-responses').waitFor()
  return row
}

const auth = () => ({ Authorization: `Bearer ${shop.token}` })

/** The endpoint's id in the shop project (project 1). */
async function endpointId(method: string, path: string): Promise<number> {
  const listed = await send(`${shop.server.url}/api/projects/1/endpoints`, { headers: auth() })
  return (listed.json as { id: number; method: string; path: string }[]).find((e) => e.method === method && e.path === path)!.id
}

/** What the management API says the endpoint's responses are. */
async function stored(id: number): Promise<{ pick: string; responses: Record<string, unknown>[] }> {
  return (await send(`${shop.server.url}/api/projects/1/endpoints/${id}/responses`, { headers: auth() })).json
}

async function setResponses(id: number, change: { pick: string; responses: unknown[] }): Promise<void> {
  const patched = await send(`${shop.server.url}/api/projects/1/endpoints/${id}`, { method: 'PATCH', body: change, headers: auth() })
  expect(patched.status, JSON.stringify(patched.json)).toBe(200)
}

/** Which field has the focus, in which card (a string: the page's globals are not this file's). */
const FOCUSED = `(() => { const el = document.activeElement; return el?.dataset.testid + ' in #' + el?.closest('[data-testid="response-card"]')?.dataset.position })()`

const card = (row: Locator, position: number) => row.locator(`[data-testid="response-card"][data-position="${position}"]`)

describe.skipIf(noBrowser)('responses in the Endpoints tab', { timeout: 60_000 }, () => {
  it('adds, reorders and removes responses through the cards; the API then returns that list and the mock answers it in turn', async () => {
    const id = await endpointId('GET', '/api/products/:id')
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    const row = await openSettings(page, 'GET', '/api/products/:id')
    const notice = () => page.getByTestId('notice').textContent()
    await row.getByTestId('responses-pick').selectOption('sequence')
    for (const [position, name, status] of [[1, 'first', 201], [2, 'second', 202], [3, 'third', 203]] as const) {
      await row.getByTestId('responses-add').click()
      const added = card(row, position)
      // The new card's first field has the focus: a keyboard user types straight on.
      expect(await page.evaluate(FOCUSED)).toBe(`response-name in #${position}`)
      await page.keyboard.type(name)
      await added.getByTestId('response-status').fill(String(status))
      await added.getByTestId('response-body-kind').selectOption('json')
      await added.getByTestId('response-body').fill(`{"n": ${position}}`)
    }
    await card(row, 1).getByTestId('response-headers').fill('X-Turn: first\nX-Trace: {{uuid}}')
    await row.getByTestId('responses-save').click()
    await expect.poll(notice, { timeout: 15_000 }).toContain('Saved: 3 responses of GET /api/products/:id, picked by sequence')
    expect(await stored(id)).toEqual({
      pick: 'sequence',
      responses: [
        { name: 'first', status: 201, headers: { 'X-Turn': 'first', 'X-Trace': '{{uuid}}' }, body: { n: 1 } },
        { name: 'second', status: 202, body: { n: 2 } },
        { name: 'third', status: 203, body: { n: 3 } },
      ],
    })
    expect(await row.getByTestId('endpoint-facts').textContent()).toBe('resource · 3 responses · sequence')

    // The third up twice, by keyboard (the focus stays on the moved card's button), then the second removed.
    await card(row, 3).getByTestId('response-up').click()
    await page.keyboard.press('Enter')
    expect(await card(row, 1).getByTestId('response-name').inputValue()).toBe('third')
    expect(await card(row, 1).getByTestId('response-up').isDisabled()).toBe(true)
    await card(row, 2).getByTestId('response-remove').click()
    expect(await row.getByTestId('response-card').count()).toBe(2)
    await screenshot(page, 'endpoints-responses')
    await screenshotDark(page, 'endpoints-responses')
    await row.getByTestId('responses-save').click()
    await expect.poll(notice, { timeout: 15_000 }).toContain('Saved: 2 responses')
    expect((await stored(id)).responses).toEqual([
      { name: 'third', status: 203, body: { n: 3 } },
      { name: 'second', status: 202, body: { n: 2 } },
    ])
    const answers = []
    for (let i = 0; i < 3; i++) {
      const answer = await send(`${shop.server.url}/api/shop/products/1`)
      answers.push([answer.status, answer.json])
    }
    expect(answers).toEqual([[203, { n: 3 }], [202, { n: 2 }], [203, { n: 3 }]])

    await card(row, 1).getByTestId('response-remove').click()
    await card(row, 1).getByTestId('response-remove').click()
    expect(await row.getByTestId('responses-empty').isVisible()).toBe(true)
    await row.getByTestId('responses-save').click()
    await expect.poll(notice, { timeout: 15_000 }).toContain('Saved: 0 responses')
    expect((await stored(id)).responses).toEqual([])
    expect(problems).toEqual([])
    await context.close()
  })

  it('shows a bad when on the card it concerns, with the API\'s message, and changes nothing stored', async () => {
    const id = await endpointId('GET', '/api/products')
    const before = { pick: 'rules', responses: [{ when: { query: { a: '1' } }, status: 201 }, { status: 202 }] }
    await setResponses(id, before)
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    const row = await openSettings(page, 'GET', '/api/products')
    expect(await row.getByTestId('response-card').count()).toBe(2)
    expect(JSON.parse(await card(row, 1).getByTestId('response-when').inputValue())).toEqual({ query: { a: '1' } })

    // Refused by the server (a lookahead): its message, naming responses[1], on card #2 only.
    const when = card(row, 2).getByTestId('response-when')
    await when.fill('{"query": {"a": {"matches": "(?=x)"}}}')
    await row.getByTestId('responses-save').click()
    const problem = card(row, 2).getByTestId('response-problem')
    await expect.poll(() => problem.textContent(), { timeout: 15_000 }).toContain('responses[1].when.query.a.matches')
    expect(await page.getByTestId('notice').textContent()).toBe(await problem.textContent())
    expect(await when.getAttribute('aria-invalid')).toBe('true')
    expect(await card(row, 1).getByTestId('response-problem').textContent()).toBe('')
    expect(await stored(id)).toEqual(before)
    await screenshot(page, 'endpoints-responses-refused')

    // Not JSON: said on card #1 before anything is sent.
    await card(row, 1).getByTestId('response-when').fill('{"query": ')
    await row.getByTestId('responses-save').click()
    await expect.poll(() => card(row, 1).getByTestId('response-problem').textContent(), { timeout: 15_000 }).toMatch(/^when is not JSON/)
    expect(await card(row, 1).getByTestId('response-when').getAttribute('aria-invalid')).toBe('true')
    expect(await problem.textContent()).toBe('')
    expect(await stored(id)).toEqual(before)

    // Put right, both save; the problems go.
    await card(row, 1).getByTestId('response-when').fill('{"query": {"a": "2"}}')
    await when.fill('')
    await row.getByTestId('responses-save').click()
    await expect.poll(() => page.getByTestId('notice').textContent(), { timeout: 15_000 }).toContain('Saved: 2 responses')
    expect(await row.locator('[data-testid="response-problem"]:not(:empty)').count()).toBe(0)
    expect((await stored(id)).responses).toEqual([{ when: { query: { a: '2' } }, status: 201 }, { status: 202 }])
    expect((await send(`${shop.server.url}/api/shop/products?a=2`)).status).toBe(201)
    await setResponses(id, { pick: 'rules', responses: [] })
    expect(problems).toEqual([])
    await context.close()
  })

  it('answers a text and a picked file from cards, keeps the file on a later save, and edits the list as JSON', async () => {
    const id = await endpointId('GET', '/api/products/:id')
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    const row = await openSettings(page, 'GET', '/api/products/:id')
    const notice = () => page.getByTestId('notice').textContent()
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')
    await row.getByTestId('responses-pick').selectOption('rules')
    await row.getByTestId('responses-add').click()
    await card(row, 1).getByTestId('response-when').fill('{"query": {"as": "text"}}')
    await card(row, 1).getByTestId('response-body-kind').selectOption('text')
    await card(row, 1).getByTestId('response-body').fill('plain')
    await card(row, 1).getByTestId('response-content-type').fill('text/markdown')
    await row.getByTestId('responses-add').click()
    await card(row, 2).getByTestId('response-body-kind').selectOption('file')
    await card(row, 2).getByTestId('response-file').setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: svg })
    await expect.poll(() => card(row, 2).getByTestId('response-file-name').textContent(), { timeout: 15_000 }).toBe('logo.svg (to upload on save)')
    await row.getByTestId('responses-save').click()
    await expect.poll(notice, { timeout: 15_000 }).toContain('Saved: 2 responses')
    expect(await card(row, 2).getByTestId('response-file-name').textContent()).toBe(`logo.svg (${svg.byteLength} bytes, kept)`)
    const file = await fetch(`${shop.server.url}/api/shop/products/1`)
    expect([file.headers.get('content-type'), Buffer.from(await file.arrayBuffer()).equals(svg)]).toEqual(['image/svg+xml', true])
    const text = await send(`${shop.server.url}/api/shop/products/1?as=text`)
    expect([text.headers.get('content-type'), text.text]).toEqual(['text/markdown', 'plain'])

    // A second save sends the kept file by its id: still answered.
    await card(row, 2).getByTestId('response-status').fill('203')
    await row.getByTestId('responses-save').click()
    await expect.poll(async () => (await stored(id)).responses[1], { timeout: 15_000 }).toEqual({ status: 203, file: { id: expect.any(Number), name: 'logo.svg', size: svg.byteLength } })
    expect((await fetch(`${shop.server.url}/api/shop/products/1`)).status).toBe(203)

    // The escape hatch: the cards as JSON, saved as written (a misspelt setting refused by the API, nothing stored), the cards drawn from it.
    await row.getByText('Edit as JSON').click()
    const json = row.getByTestId('responses-json')
    // Filled when it opens (the toggle event comes after the click).
    await expect.poll(async () => JSON.parse((await json.inputValue()) || 'null'), { timeout: 15_000 }).toEqual((await stored(id)).responses)
    const before = await stored(id)
    await json.fill('[{"when": {"headers": {"x-v": "2"}}, "staus": 226}]')
    await row.getByTestId('responses-json-save').click()
    await expect.poll(() => row.getByTestId('responses-json-problem').textContent(), { timeout: 15_000 }).toContain('responses[0].staus')
    expect(await stored(id)).toEqual(before)
    await json.fill('[{"when": {"headers": {"x-v": "2"}}, "status": 226}]')
    await row.getByTestId('responses-json-save').click()
    await expect.poll(async () => (await stored(id)).responses, { timeout: 15_000 }).toEqual([{ when: { headers: { 'x-v': '2' } }, status: 226 }])
    await expect.poll(() => row.getByTestId('response-card').count(), { timeout: 15_000 }).toBe(1)
    expect(await card(row, 1).getByTestId('response-status').inputValue()).toBe('226')
    expect(await row.getByTestId('responses-json-problem').textContent()).toBe('')
    await setResponses(id, { pick: 'rules', responses: [] })
    expect(problems).toEqual([])
    await context.close()
  })
})
