import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { mintToken } from '../../src/domain/auth.ts'
import { createProject } from '../../src/domain/projects.ts'
import { openStore, send, serve, serveCli, tempDb, tempDir } from '../_helpers.ts'
import { noBrowser, openDashboard, openPage, screenshot, screenshotDark, shopInBrowser } from './_browser.ts'

const shop = shopInBrowser()

describe.skipIf(noBrowser)('dashboard login', { timeout: 60_000 }, () => {
  it('logs in with the token of the banner URL, then forgets it from the address bar', async () => {
    const { page, problems, context } = await openDashboard(shop.browser, shop.server, shop.token)
    expect(await page.getByTestId('project').allTextContents()).toEqual([expect.stringContaining('Shop')])
    expect(await page.getByTestId('project-title').textContent()).toBe('Shop')
    expect(await page.getByTestId('login').isHidden()).toBe(true)
    expect(new URL(page.url()).hash).toBe('')
    // The token stays for the tab: a reload needs no new one.
    await page.reload()
    await page.getByTestId('project').first().waitFor()
    expect(await page.getByTestId('login').isHidden()).toBe(true)
    await screenshot(page, 'login-dashboard')

    // The sections are a tab list: arrows move between tabs.
    await page.getByRole('tab', { name: 'Endpoints' }).focus()
    await page.keyboard.press('ArrowRight')
    expect(await page.getByRole('tab', { name: 'Records' }).getAttribute('aria-selected')).toBe('true')
    expect(await page.locator('#panel-records').isVisible()).toBe(true)
    expect(await page.locator('#panel-endpoints').isHidden()).toBe(true)
    await page.keyboard.press('End')
    expect(await page.getByRole('tab', { name: 'Integrations' }).getAttribute('aria-selected')).toBe('true')
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('tab-integrations')
    expect(problems).toEqual([])
    await context.close()
  })

  it('an empty database says how to make a project', async () => {
    const dbPath = tempDb()
    const empty = await serve(dbPath)
    const { page, problems, context } = await openPage(shop.browser, `${empty.url}/_mockapi/#token=${await mintToken(openStore(dbPath).context, { expiresInMs: 60_000 })}`)
    await page.getByText('No projects yet').waitFor()
    expect(await page.locator('#project-main').isHidden()).toBe(true)
    expect(problems).toEqual([])
    await context.close()
  })

  it('without a token shows the paste-a-token screen, and the API answers 401', async () => {
    const { page, problems, context } = await openPage(shop.browser, `${shop.server.url}/_mockapi/`)
    const login = page.getByTestId('login')
    await login.waitFor()
    expect(await login.textContent()).toContain('Paste a token from mockapi token')
    expect(await page.getByTestId('dashboard').isHidden()).toBe(true)
    expect(await page.getByTestId('login-error').textContent()).toBe('')
    expect((await send(`${shop.server.url}/api/projects`)).status).toBe(401)
    await screenshot(page, 'login-empty')
    await screenshotDark(page, 'login-empty')

    // Pasting the token (or a whole dashboard URL) opens the dashboard.
    await page.getByLabel('Token').fill(`  ${shop.server.url}/_mockapi/#token=${shop.token}\n`)
    await page.getByTestId('login-submit').click()
    await page.getByTestId('project').first().waitFor()
    expect(await page.getByTestId('login').isHidden()).toBe(true)

    await page.getByTestId('sign-out').click()
    await login.waitFor()
    expect(await page.getByTestId('login-error').textContent()).toBe('Signed out.')
    await page.reload()
    await login.waitFor()
    expect(problems).toEqual([])
    await context.close()
  })

  it('takes the token of a banner URL given to a tab already open on the login screen (only the #fragment changes)', async () => {
    const { page, problems, context } = await openPage(shop.browser, `${shop.server.url}/_mockapi/`)
    await page.getByTestId('login').waitFor()
    await page.goto(`${shop.server.url}/_mockapi/#token=${shop.token}`)
    await page.getByTestId('project').first().waitFor()
    expect(await page.getByTestId('login').isHidden()).toBe(true)
    expect(new URL(page.url()).hash).toBe('')
    expect(problems).toEqual([])
    await context.close()
  })

  it('a bad token shows the paste screen with the reason', async () => {
    const { page, context } = await openPage(shop.browser, `${shop.server.url}/_mockapi/#token=not-a-jwt`)
    const error = page.getByTestId('login-error')
    await error.waitFor()
    expect(await error.textContent()).toMatch(/refused.*malformed/)
    expect(await page.getByTestId('dashboard').isHidden()).toBe(true)

    // A token of another database: its signature does not match.
    const otherDb = tempDb()
    const { context: store } = openStore(otherDb)
    createProject(store, { name: 'Elsewhere', slug: 'elsewhere' })
    await page.getByLabel('Token').fill(await mintToken(store, { expiresInMs: 60_000 }))
    await page.getByTestId('login-submit').click()
    await expect.poll(() => error.textContent(), { timeout: 15_000 }).toMatch(/signature/)
    await screenshot(page, 'login-bad-token')

    await page.getByLabel('Token').fill(shop.token)
    await page.getByTestId('login-submit').click()
    await page.getByTestId('project').first().waitFor()
    await context.close()
  })

  it('mockapi serve prints the dashboard URL with a 7-day token that opens it', async () => {
    const server = await serveCli(['--db', join(tempDir(), 'm.db'), 'serve', '--port', '0', '--grpc-port', '0', '--quiet'])
    const output = server.output()
    const match = /^ {2}dashboard {8}(http:\/\/127\.0\.0\.1:\d+)\/_mockapi\/#token=(\S+)$/m.exec(output)
    expect(match, output).not.toBeNull()
    const [, url, jwt] = match!
    const claims = JSON.parse(Buffer.from(jwt!.split('.')[1]!, 'base64url').toString())
    expect(claims.exp - claims.iat).toBe(7 * 24 * 60 * 60)
    expect(claims.projectId).toBeUndefined()
    const { page, context } = await openPage(shop.browser, `${url}/_mockapi/#token=${jwt}`)
    await page.locator('[data-testid="project"][data-slug="demo"]').waitFor()
    await context.close()
    expect(await server.stop()).toBe(0)
  })
})
