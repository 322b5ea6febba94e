import { afterAll, describe, expect, it } from 'vitest'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanup, tempDir } from '../_helpers.ts'
import { startChromiumBroker, type WorkerChromium } from './_chromium.ts'
import { connectBrowser, noBrowser, skipReason } from './_browser.ts'

// What the global setup and the test files do without a usable Chromium, driven through the
// candidates the global setup looks at: the other dashboard tests cover the Chromium that runs.
afterAll(cleanup)

describe('the dashboard tests without a usable Chromium', () => {
  it('are skipped locally with one line saying so, and fail under CI=true', async () => {
    const missing = join(tempDir(), 'chromium')
    const { setup, close } = await startChromiumBroker([missing])
    await close()
    expect(setup).toEqual({ state: 'not-found', looked: [missing] })

    expect(skipReason(setup, false)).toBe('dashboard browser tests skipped: no Chromium found (apt-get install chromium; CI installs it)')
    expect(skipReason(setup, true)).toBeNull()
    await expect(connectBrowser(setup, '1')).rejects.toThrow(`no Chromium found at ${missing}: apt-get install chromium (.ci/run does)`)
  })

  it('fail, locally too, when the Chromium found does not start', async () => {
    const broken = join(tempDir(), 'chromium')
    writeFileSync(broken, '#!/bin/sh\nexit 1\n')
    chmodSync(broken, 0o755)
    const { setup, close } = await startChromiumBroker([join(tempDir(), 'absent'), broken])
    try {
      expect(setup).toMatchObject({ state: 'found', executable: broken })
      expect(skipReason(setup, false)).toBeNull()
      // Each worker asks; each is told why.
      for (const worker of ['1', '2']) await expect(connectBrowser(setup, worker)).rejects.toThrow(`Chromium (${broken}) did not start: `)
    } finally {
      await close()
    }
  })
})

describe.skipIf(noBrowser)('the Chromium of the dashboard tests', () => {
  it('is launched by a worker\'s first ask, shared by that worker\'s files, and stopped by the teardown', async () => {
    const { setup, close } = await startChromiumBroker()
    expect(setup.state).toBe('found')
    if (setup.state !== 'found') return
    const ask = async (worker: string) => (await (await fetch(`${setup.broker}?worker=${worker}`)).json()) as WorkerChromium
    const [first, again, other] = [await ask('1'), await ask('1'), await ask('2')]
    expect(first.state).toBe('running')
    expect(again).toEqual(first)
    expect(other.state).toBe('running')
    expect(other).not.toEqual(first)
    const browser = await connectBrowser(setup, '1')
    expect(browser.isConnected()).toBe(true)
    await browser.close()
    await close()
    // Stopped: nothing listens at either address any more.
    for (const chromiumServer of [first, other]) {
      if (chromiumServer.state !== 'running') continue
      await expect(fetch(chromiumServer.endpoint.replace(/^ws:/, 'http:'))).rejects.toThrow()
    }
  })
})
