import { afterEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { cleanup, cliProcessAsync, openStore, tempDir } from '../_helpers.ts'
import { COLOUR, ERASE, onTerminal, terminalEnv } from './_terminal.ts'

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

  it('is not drawn with CI=true, with --quiet or with --json, even on a terminal', async () => {
    const url = await slowSpecServer()
    const runs: { args: string[]; env: Record<string, string> }[] = [
      { args: [], env: { CI: 'true' } },
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

  it('is drawn with NO_COLOR, which takes the colour off the summary; FORCE_COLOR still gives colour', async () => {
    const url = await slowSpecServer()
    const runs = [
      { env: terminalEnv({ NO_COLOR: '1' }, ['FORCE_COLOR']), coloured: false },
      { env: terminalEnv({}, ['FORCE_COLOR']), coloured: true },
      { env: terminalEnv({ NO_COLOR: '1', FORCE_COLOR: '1' }), coloured: true },
    ]
    const results = await Promise.all(runs.map(({ env }) => {
      const cwd = tempDir()
      return onTerminal(['--db', join(cwd, 'm.db'), 'import', url], env, cwd)
    }))
    for (const [i, { code, screen }] of results.entries()) {
      expect(code, screen).toBe(0)
      expect(screen).toMatch(/\rreading http\S+ · 1\.\d s\x1b\[K/)
      const summary = screen.slice(screen.indexOf('imported "Slow"') - 20)
      expect(COLOUR.test(summary), `${i}: ${JSON.stringify(summary.slice(0, 60))}`).toBe(runs[i]!.coloured)
    }
  })

  it('draws the reading of a big file at once, before parsing it, rather than after a second', async () => {
    const cwd = tempDir()
    const posts = Array.from({ length: 30_000 }, (_, i) => ({ id: i + 1, title: `post number ${i}`, body: 'lorem ipsum dolor sit amet' }))
    writeFileSync(join(cwd, 'db.json'), JSON.stringify({ posts }))
    const { code, screen } = await onTerminal(['--db', join(cwd, 'm.db'), 'import', 'db.json', '--prefix', '/api'], terminalEnv(), cwd)
    expect(code, screen).toBe(0)
    // The first thing drawn, within the first second.
    expect(screen).toMatch(/^\rreading db\.json · 0\.\d s\x1b\[K\r?\n/)
    expect(screen).toContain('✔ imported')
  })

  it('apply numbers its steps, and says it is saving while the commit of many records runs', async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, 'mockapi.yaml'), ['name: Shop', 'slug: shop', 'resources:', '  - path: /api/items', '    fields: { title: lorem.sentence, views: int }', '    count: 100000', ''].join('\n'))
    const { code, screen } = await onTerminal(['--db', join(cwd, 'm.db'), 'apply', 'mockapi.yaml'], terminalEnv(), cwd)
    expect(code, screen).toBe(0)
    expect(screen).toMatch(/\r\[1\/3\] seeding \/api\/items: [\d,]+ of 100,000 \(\d+%\) · \d+\.\d s/)
    // Many records written: the saving is drawn at once, whatever came just before it.
    expect(screen).toMatch(/\r\[3\/3\] saving · \d+\.\d s\x1b\[K/)
    const summary = screen.indexOf('✔ applied mockapi.yaml')
    expect(screen.slice(screen.lastIndexOf(`\r${ERASE}`) + `\r${ERASE}`.length, summary)).toBe('')
  }, 30_000)

  it('Ctrl-C during seeding rolls the work back, and the shell’s prompt starts on a line of its own', async () => {
    const cwd = tempDir()
    const db = join(cwd, 'm.db')
    expect((await cliProcessAsync(['--db', db, 'init', '--yes', '--name', 'Shop', '--slug', 'shop'], { cwd })).code).toBe(0)
    const { code, screen } = await onTerminal(['--db', db, 'add-resource', '/api/items', '--fields', 'title:lorem.sentence,body:lorem.paragraph,views:int', '--seed', '100000'], terminalEnv(), cwd, { shows: 'seeding /api/items', keys: '\x03' })
    expect(code, screen).not.toBe(0)
    // Killed mid-line: the cursor was on the line below the one drawn, where what comes next starts.
    const lastDraw = screen.lastIndexOf('seeding /api/items')
    expect(screen.slice(lastDraw)).toMatch(/^seeding \/api\/items: [\d,]+ of 100,000 \(\d+%\) · [^\r\n]*\x1b\[K\r?\n/)
    const { context } = openStore(db)
    expect(context.repos.resources.listByProject(context.repos.projects.bySlug('shop')!.id)).toEqual([])
  }, 30_000)

  it('is not drawn when stderr is a pipe: stderr holds exactly what it held before', async () => {
    const url = await slowSpecServer()
    const cwd = tempDir()
    const { code, stdout, stderr } = await cliProcessAsync(['--db', join(cwd, 'm.db'), 'import', url], { cwd, env: terminalEnv() })
    expect(code, stderr).toBe(0)
    expect(stderr).toBe('')
    expect(stdout).toMatch(/^✔ imported "Slow"/)
  })
})
