import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core'
import { mintToken } from '../../src/domain/auth.ts'
import { applyProjectFile } from '../../src/domain/apply.ts'
import { parseProjectFile } from '../../src/domain/project-file.ts'
import { loadFaker } from '../../src/engine/generators.ts'
import type { RunningServer } from '../../src/server/start.ts'
import { afterAll, beforeAll, expect, inject } from 'vitest'
import { cleanup, openStore, serve, tempDb } from '../_helpers.ts'
import type { ChromiumSetup, WorkerChromium } from './_chromium.ts'

const provided = inject('chromium') as ChromiumSetup | undefined

/**
 * Without a Chromium the dashboard's browser tests are skipped, with this one line saying why, so
 * that `npm test` needs nothing outside npm; in CI (`CI=true`) they run and fail instead.
 */
export function skipReason(setup: ChromiumSetup | undefined, ci: boolean): string | null {
  return setup?.state === 'not-found' && !ci ? 'dashboard browser tests skipped: no Chromium found (apt-get install chromium; CI installs it)' : null
}

const skip = skipReason(provided, process.env.CI === 'true')
export const noBrowser = skip !== null
if (skip !== null) console.warn(skip)

/**
 * This worker's Chromium (the global setup, `_chromium.ts`, launches it on the first ask), connected
 * to; closing the Browser disconnects and closes the contexts opened through it.
 */
export async function connectBrowser(setup: ChromiumSetup | undefined = provided, worker: string = process.env.VITEST_POOL_ID ?? '1'): Promise<Browser> {
  if (setup === undefined) throw new Error('no Chromium setup was provided: vitest.config.ts names test/dashboard/_chromium.ts as globalSetup')
  if (setup.state === 'not-found') throw new Error(`no Chromium found at ${setup.looked.join(', ')}: apt-get install chromium (.ci/run does)`)
  const answer = (await (await fetch(`${setup.broker}?worker=${encodeURIComponent(worker)}`)).json()) as WorkerChromium
  if (answer.state === 'failed') throw new Error(`Chromium (${setup.executable}) did not start: ${answer.error}`)
  return chromium.connect(answer.endpoint)
}

/** Screenshots of every run land here, to look at. */
export const SCREENSHOTS = join(tmpdir(), 'mockapi-dashboard-screenshots')

/** A shop project with a dozen known products, served on a free port; a token for every project. */
export async function startShop(options: { retryDelaysMs?: number[]; journal?: number } = {}): Promise<{ server: RunningServer; token: string; dbPath: string }> {
  const dbPath = tempDb()
  const { context: store } = openStore(dbPath)
  const products = Array.from({ length: 12 }, (_, i) => `      - { id: ${i + 1}, name: Product ${i + 1}, price: ${(i + 1) * 5}, active: ${i % 2 === 0} }`)
  const yaml = ['name: Shop', 'slug: shop', 'resources:', '  - path: /api/products', '    records:', ...products].join('\n')
  applyProjectFile(store, parseProjectFile(yaml, 'shop.yaml'), await loadFaker(), { prune: true })
  const token = await mintToken(store, { expiresInMs: 60 * 60 * 1000 })
  const server = await serve(dbPath, options)
  return { server, token, dbPath }
}

export interface ShopInBrowser {
  server: RunningServer
  token: string
  browser: Browser
}

/** The shop served and this worker's Chromium connected to before the file's tests (when there is one), both let go after them. */
export function shopInBrowser(options: Parameters<typeof startShop>[0] = {}): ShopInBrowser {
  const shop = {} as ShopInBrowser
  beforeAll(async () => {
    if (noBrowser) return
    Object.assign(shop, await startShop(options))
    shop.browser = await connectBrowser()
  })
  afterAll(async () => {
    await shop.browser?.close()
    await cleanup()
  })
  return shop
}

export interface Opened {
  context: BrowserContext
  page: Page
  /** Uncaught page errors and CSP refusals: none expected. */
  problems: string[]
}

/** A fresh browser context (own sessionStorage) on the dashboard URL. */
export async function openPage(browser: Browser, url: string, colorScheme: 'light' | 'dark' = 'light'): Promise<Opened> {
  const context = await browser.newContext({ colorScheme, viewport: { width: 1280, height: 860 } })
  const page = await context.newPage()
  page.setDefaultTimeout(15_000)
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text())
  })
  await page.goto(url)
  return { context, page, problems }
}

export async function openDashboard(browser: Browser, server: RunningServer, token: string, colorScheme: 'light' | 'dark' = 'light'): Promise<Opened> {
  const opened = await openPage(browser, `${server.url}/_mockapi/#token=${token}`, colorScheme)
  await opened.page.getByTestId('project').first().waitFor()
  return opened
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  const path = join(SCREENSHOTS, `${name}.png`)
  await page.screenshot({ path, fullPage: true })
  return path
}

/** The same page in the other color scheme, screenshotted. */
export async function screenshotDark(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'dark' })
  await screenshot(page, `${name}-dark`)
  await page.emulateMedia({ colorScheme: 'light' })
}

/**
 * Pastes text into a field as a user does, Ctrl+V from the clipboard: one input event for the whole
 * text, where fill() inserts a multi-line text line by line (seconds for a 36 KB schema).
 */
export async function paste(field: Locator, text: string): Promise<void> {
  const page = field.page()
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin })
  await field.focus()
  await page.evaluate(`navigator.clipboard.writeText(${JSON.stringify(text)})`)
  await field.press('ControlOrMeta+V')
  expect(await field.inputValue(), 'the text pasted').toBe(text)
}

/** Waits until the live stream is open, so what the test does next is seen live. */
export async function waitForLive(page: Page): Promise<void> {
  await page.locator('[data-testid="live-state"][data-state="on"]').waitFor()
}
