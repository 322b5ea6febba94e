import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { ROOT, send } from '../_helpers.ts'
import { noBrowser, openDashboard, paste, screenshot, shopInBrowser } from './_browser.ts'

const shop = shopInBrowser()

const fixture = (path: string) => join(ROOT, 'fixtures', path)
const endpointRow = (page: Page, method: string, path: string) => page.locator(`[data-testid="endpoint-row"][data-method="${method}"][data-path="${path}"]`)

interface Listed { id: number; method: string; path: string; url: string | null }

async function shopEndpoints(): Promise<{ id: number; endpoints: Listed[] }> {
  const auth = { Authorization: `Bearer ${shop.token}` }
  const projects = await send(`${shop.server.url}/api/projects`, { headers: auth })
  const id = projects.json.find((p: { slug: string }) => p.slug === 'shop').id as number
  const endpoints = await send(`${shop.server.url}/api/projects/${id}/endpoints`, { headers: auth })
  return { id, endpoints: endpoints.json }
}

/** Submits the form and waits for its answer: the summary, or the error (shown only when there is one). */
async function submitImport(page: Page): Promise<void> {
  await page.getByTestId('import-submit').click()
  await page.locator('[data-testid="import-summary"], [data-testid="import-error"]:not(:empty)').first().waitFor()
  expect(await page.getByTestId('import-error').textContent(), 'the error shown').toBe('')
}

/** Every endpoint the API lists has a row whose call line is at the URL the API gives (the rows read in one call to the page). */
async function expectRowsAtServedUrls(page: Page, endpoints: Listed[]): Promise<void> {
  const rows = await page.getByTestId('endpoint-row').evaluateAll((elements) => elements.map((row) =>
    [`${row.getAttribute('data-method')} ${row.getAttribute('data-path')}`, row.querySelector('[data-testid="endpoint-curl"]')?.textContent ?? null] as const))
  const shown = new Map<string, string | null>(rows)
  for (const endpoint of endpoints) {
    const key = `${endpoint.method} ${endpoint.path}`
    expect(endpoint.url, key).not.toBeNull()
    expect(shown.get(key), key).toContain(`'${endpoint.url}'`)
  }
}

describe.skipIf(noBrowser)('the Import action of the Endpoints tab', { timeout: 90_000 }, () => {
  it('imports a GraphQL schema pasted as text: the summary lists what was created, the rows appear at their served URL', async () => {
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    await endpointRow(page, 'GET', '/api/products').waitFor()
    await page.getByTestId('import-open').click()
    await paste(page.getByTestId('import-text'), readFileSync(fixture('graphql/swapi/schema.graphql'), 'utf8'))
    await submitImport(page)

    const summary = page.getByTestId('import-summary')
    expect(await summary.textContent()).toMatch(/^Imported .+ \(graphql\): \d+ created, 0 updated, 0 kept, 0 removed\.$/)
    await page.locator('[data-testid="import-created"] li[data-path="/graphql#Query.allFilms"]').waitFor()
    const row = endpointRow(page, 'POST', '/graphql#Query.allFilms')
    await row.waitFor()
    expect(await row.getByTestId('endpoint-curl').textContent()).toBe(
      `curl -X POST '${shop.server.url}/api/shop/graphql' -H 'content-type: application/json' -d '{"query":"{ __typename }"}'`)

    const { endpoints } = await shopEndpoints()
    await expectRowsAtServedUrls(page, endpoints)
    // The URL shown answers.
    const answered = await send(`${shop.server.url}/api/shop/graphql`, { method: 'POST', body: { query: '{ __typename }' } })
    expect(answered.status).toBe(200)
    await expect.poll(() => page.getByTestId('project').textContent()).toContain(`${endpoints.length} endpoints`)
    await screenshot(page, 'import-graphql')
    expect(problems).toEqual([])
    await context.close()
  })

  it('imports an OpenAPI file from the file picker, stateful with seeded items', async () => {
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    await endpointRow(page, 'GET', '/api/products').waitFor()
    await page.getByTestId('import-open').click()
    await page.getByTestId('import-file').setInputFiles(fixture('openapi/oai-v3.0/petstore.yaml'))
    // The file's text shows in the text box.
    await expect.poll(() => page.getByTestId('import-text').inputValue()).toContain('openapi:')
    await page.getByTestId('import-format').selectOption('openapi')
    await page.getByTestId('import-stateful').check()
    await page.getByTestId('import-seed').fill('3')
    await submitImport(page)

    const summary = page.getByTestId('import-summary')
    expect(await summary.textContent()).toBe('Imported Swagger Petstore (openapi): 3 created, 0 updated, 0 kept, 0 removed.')
    const row = endpointRow(page, 'GET', '/pets/:petId')
    await row.waitFor()
    expect(await row.getByTestId('endpoint-curl').textContent()).toBe(`curl '${shop.server.url}/api/shop/pets/:petId'`)
    expect(await endpointRow(page, 'POST', '/pets').getByTestId('endpoint-curl').textContent())
      .toBe(`curl -X POST '${shop.server.url}/api/shop/pets' -H 'content-type: application/json' -d '{}'`)
    await expectRowsAtServedUrls(page, (await shopEndpoints()).endpoints)
    // Stateful, with three generated items.
    const pets = await send(`${shop.server.url}/api/shop/pets`)
    expect(pets.status).toBe(200)
    expect(pets.json).toHaveLength(3)
    // The form is ready for the next one.
    expect(await page.getByTestId('import-text').inputValue()).toBe('')
    await screenshot(page, 'import-openapi')
    expect(problems).toEqual([])
    await context.close()
  })

  it('shows the API\'s message for a broken document, and nothing changes', async () => {
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    await endpointRow(page, 'GET', '/api/products').waitFor()
    const before = await shopEndpoints()
    const broken = readFileSync(fixture('graphql/broken/syntax-error.graphql'), 'utf8')
    // What the API says about it, asked directly.
    const refused = await send(`${shop.server.url}/api/projects/${before.id}/imports`, {
      method: 'POST', body: { text: broken, format: 'graphql' }, headers: { Authorization: `Bearer ${shop.token}` },
    })
    expect(refused.status).toBe(400)
    const message = refused.json.error.message as string
    expect(message).not.toBe('')

    await page.getByTestId('import-open').click()
    await page.getByTestId('import-text').fill(broken)
    await page.getByTestId('import-format').selectOption('graphql')
    await page.getByTestId('import-submit').click()
    await expect.poll(() => page.getByTestId('import-error').textContent(), { timeout: 15_000 }).toBe(message)
    expect(await page.getByTestId('import-result').textContent()).toBe('')
    // The text stays, to be fixed.
    expect(await page.getByTestId('import-text').inputValue()).toBe(broken)

    // Nothing given: said before asking.
    await page.getByTestId('import-text').fill('')
    await page.getByTestId('import-submit').click()
    await expect.poll(() => page.getByTestId('import-error').textContent()).toBe('Pick a file, paste a document or give its URL.')

    const after = await shopEndpoints()
    expect(after.endpoints).toEqual(before.endpoints)
    expect(await page.getByTestId('endpoint-row').count()).toBe(before.endpoints.length)
    await screenshot(page, 'import-error')
    expect(problems).toEqual([])
    await context.close()
  })

  it('imports an OpenAPI spec with a problem and shows its warning; Strict refuses it instead', async () => {
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    await endpointRow(page, 'GET', '/api/products').waitFor()
    await page.getByTestId('import-open').click()
    await page.getByTestId('import-file').setInputFiles(join(ROOT, 'test', 'fixtures', 'openapi', 'lenient', 'no-description.yaml'))
    await expect.poll(() => page.getByTestId('import-text').inputValue()).toContain('openapi:')
    await page.getByTestId('import-strict').check()
    await page.getByTestId('import-submit').click()
    await expect.poll(() => page.getByTestId('import-error').textContent(), { timeout: 15_000 })
      .toMatch(/^no-description\.yaml: Swagger schema validation failed\. #\/paths\/~1things\/get\/responses\/200 must have required property 'description'/)

    await page.getByTestId('import-strict').uncheck()
    await submitImport(page)
    expect(await page.getByTestId('import-summary').textContent()).toBe('Imported No description (openapi): 1 created, 0 updated, 0 kept, 0 removed.')
    expect(await page.getByTestId('import-warnings').locator('li').allTextContents())
      .toEqual(['Warning: #/paths/~1things/get/responses/200: no "description" (required)'])
    await endpointRow(page, 'GET', '/things').waitFor()
    expect((await send(`${shop.server.url}/api/shop/things`)).json).toEqual([{ id: 7 }])
    await screenshot(page, 'import-warnings')
    expect(problems).toEqual([])
    await context.close()
  })
})
