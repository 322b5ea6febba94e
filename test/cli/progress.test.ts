import { afterEach, describe, expect, it } from 'vitest'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { cleanup, cliProcessAsync, tempDir } from '../_helpers.ts'
import { ERASE, onTerminal, terminalEnv } from './_terminal.ts'

const servers: Server[] = []

afterEach(async () => {
  for (const server of servers.splice(0)) server.close()
  await cleanup()
})

/** Longer than the line's first-draw delay (1 s), whatever the machine's speed. */
const SPEC_DELAY_MS = 1300
const OPERATIONS = 50

/** A server that answers an OpenAPI document of OPERATIONS paths after SPEC_DELAY_MS, as a slow host would. */
async function slowSpecServer(): Promise<string> {
  const paths = Object.fromEntries(Array.from({ length: OPERATIONS }, (_, i) => [`/api/things${i}`, {
    get: { responses: { 200: { description: 'ok', content: { 'application/json': { example: [{ id: 1, name: `thing ${i}` }] } } } } },
  }]))
  const document = JSON.stringify({ openapi: '3.0.3', info: { title: 'Slow', version: '1' }, paths })
  const server = createServer((_request, response) => {
    setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end(document), SPEC_DELAY_MS)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  servers.push(server)
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/spec.json`
}

describe('the progress line', () => {
  it('on a terminal: an import says what it waits for, then how far it got, over one line that is erased before the summary', async () => {
    const url = await slowSpecServer()
    const cwd = tempDir()
    const { code, screen } = await onTerminal(['--db', join(cwd, 'm.db'), 'import', url], terminalEnv(), cwd)
    expect(code, screen).toBe(0)
    // Drawn over itself: each draw starts at the line's start and erases what a longer one left.
    expect(screen).toMatch(new RegExp(`\\rreading ${url.replaceAll('.', '\\.')} · 1\\.\\d s\\x1b\\[K`))
    expect(screen).toMatch(new RegExp(`\\rimporting endpoints: \\d+ of ${OPERATIONS} \\(\\d+%\\) · \\d+\\.\\d s`))
    const summary = screen.indexOf('✔ imported "Slow"')
    expect(summary).toBeGreaterThan(0)
    const erased = screen.lastIndexOf(`\r${ERASE}`)
    // Erased, with nothing drawn after it, right before the summary.
    expect(erased).toBeGreaterThan(screen.lastIndexOf('importing endpoints'))
    expect(screen.slice(erased + `\r${ERASE}`.length, summary)).toBe('')
    expect(screen.slice(summary)).not.toContain(ERASE)
  })

  it('is not drawn with CI=true, with NO_COLOR, with --quiet or with --json, even on a terminal', async () => {
    const url = await slowSpecServer()
    const runs: { args: string[]; env: Record<string, string> }[] = [
      { args: [], env: { CI: 'true' } },
      { args: [], env: { NO_COLOR: '1' } },
      { args: ['--quiet'], env: {} },
      { args: ['--json'], env: {} },
    ]
    // At once: each waits out the slow server.
    const results = await Promise.all(runs.map(({ args, env }) => {
      const cwd = tempDir()
      return onTerminal(['--db', join(cwd, 'm.db'), 'import', url, ...args], terminalEnv(env), cwd)
    }))
    for (const [i, { code, screen }] of results.entries()) {
      const { args, env } = runs[i]!
      expect(code, screen).toBe(0)
      expect(screen, `${args.join(' ')} ${JSON.stringify(env)}`).not.toContain(ERASE)
      expect(screen).not.toContain('reading http')
      expect(screen).toContain(args.includes('--json') ? '"title": "Slow"' : '✔ imported "Slow"')
    }
  })

  it('is not drawn when stderr is a pipe: stderr holds exactly what it held before', async () => {
    const url = await slowSpecServer()
    const cwd = tempDir()
    const { code, stdout, stderr } = await cliProcessAsync(['--db', join(cwd, 'm.db'), 'import', url], { cwd, env: terminalEnv() })
    expect(code, stderr).toBe(0)
    expect(stderr).toBe('')
    expect(stdout).toMatch(/^✔ imported "Slow"/)
  })
})
