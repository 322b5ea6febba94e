import { describe, expect, it } from 'vitest'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../_helpers.ts'
import { startChromiumServers } from './_chromium.ts'
import { browserPlan, connectBrowser } from './_browser.ts'

// What the global setup and the test files do without a usable Chromium, driven through the
// candidates the global setup looks at: the other dashboard tests cover the Chromium that runs.
describe('the dashboard tests without a usable Chromium', () => {
  it('are skipped locally with one line saying so, and fail under CI=true', async () => {
    const missing = join(tempDir(), 'chromium')
    const { servers, close } = await startChromiumServers(2, [missing])
    await close()
    expect(servers).toEqual({ state: 'not-found', looked: [missing] })

    const local = browserPlan(servers, false, 1)
    expect(local).toEqual({ skip: 'dashboard browser tests skipped: no Chromium found (apt-get install chromium; CI installs it)' })
    expect('skip' in local && local.skip.includes('\n')).toBe(false)

    const ci = browserPlan(servers, true, 1)
    expect(ci).toEqual({ fail: `no Chromium found at ${missing}: apt-get install chromium (.ci/run does)` })
    await expect(connectBrowser(ci)).rejects.toThrow(`no Chromium found at ${missing}: apt-get install chromium (.ci/run does)`)
  })

  it('fail, locally too, when the Chromium found does not start', async () => {
    const broken = join(tempDir(), 'chromium')
    writeFileSync(broken, '#!/bin/sh\nexit 1\n')
    chmodSync(broken, 0o755)
    const { servers, close } = await startChromiumServers(2, [join(tempDir(), 'absent'), broken])
    await close()
    expect(servers).toMatchObject({ state: 'failed', executable: broken, error: expect.stringMatching(/\S/) })
    const error = servers.state === 'failed' ? servers.error : ''
    for (const ci of [false, true]) {
      const plan = browserPlan(servers, ci, 1)
      expect(plan).toEqual({ fail: `Chromium (${broken}) did not start: ${error}` })
      await expect(connectBrowser(plan)).rejects.toThrow(`Chromium (${broken}) did not start`)
    }
  })

  it('fail in a worker the global setup started no Chromium for', async () => {
    const plan = browserPlan({ state: 'running', endpoints: ['ws://127.0.0.1:1/a'] }, false, 2)
    expect(plan).toEqual({ fail: 'no Chromium for worker 2: the global setup started 1' })
    expect(browserPlan({ state: 'running', endpoints: ['ws://127.0.0.1:1/a', 'ws://127.0.0.1:1/b'] }, false, 2)).toEqual({ connect: 'ws://127.0.0.1:1/b' })
  })
})
