import { afterEach, describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanup, cli, cliProcessAsync, openStore, tempDir } from '../_helpers.ts'
import { arrangeFailed } from '../webhooks/_failed.ts'
import { ERASE, onTerminal, terminalEnv } from './_terminal.ts'

afterEach(cleanup)

/** Where the summary starts, once the line was erased right before it with nothing drawn after. */
function summaryAfterErasedLine(screen: string, summary: string, lastLine: string): number {
  const at = screen.indexOf(summary)
  expect(at, screen).toBeGreaterThan(0)
  const erased = screen.lastIndexOf(`\r${ERASE}`)
  expect(erased).toBeGreaterThan(screen.lastIndexOf(lastLine))
  expect(screen.slice(erased + `\r${ERASE}`.length, at)).toBe('')
  expect(screen.slice(at)).not.toContain(ERASE)
  return at
}

describe('the progress line of redeliver and export --format openapi', () => {
  it('webhooks redeliver --failed of 20,000: counts the deliveries queued, then says how many', async () => {
    const cwd = tempDir()
    const db = join(cwd, 'p.db')
    expect((await cli(['--db', db, 'init', '--yes', '--slug', 'one'], { cwd })).code).toBe(0)
    expect((await cli(['--db', db, 'webhooks', 'add', 'http://127.0.0.1:9/hook'], { cwd })).code).toBe(0)
    arrangeFailed(db, 1, 20_000)
    // As a busy serve would: the write lock taken for 1.5 s, so the queuing outlasts the line's first-draw delay on any machine.
    const { context } = openStore(db)
    context.db.exec('BEGIN IMMEDIATE')
    const release = setTimeout(() => context.db.exec('ROLLBACK'), 1500)
    const { code, screen } = await onTerminal(['--db', db, 'webhooks', 'redeliver', '--failed'], terminalEnv(), cwd).finally(() => {
      clearTimeout(release)
      if (context.db.inTransaction) context.db.exec('ROLLBACK')
    })
    expect(code, screen).toBe(0)
    expect(screen).toMatch(/\rqueuing deliveries: [\d,]+ of 20,000 \(\d+%\) · \d+\.\d s/)
    summaryAfterErasedLine(screen, '✔ queued 20,000 deliveries again', 'queuing deliveries')
  }, 30_000)

  it('export --format openapi to YAML of 25 resources of 1,000 records: counts the records as yaml writes them, and writes what it writes without a terminal', async () => {
    const cwd = tempDir()
    const db = join(cwd, 'e.db')
    const fruits = 'apples pears plums grapes lemons limes melons cherries peaches berries kiwis figs dates mangos papayas oranges bananas apricots quinces guavas olives nuts seeds beans peas'.split(' ')
    const resources = fruits.map((fruit) => [
      `  - path: /api/${fruit}`,
      '    fields: { title: lorem.sentence, views: int, body: lorem.paragraph }',
      '    count: 1000',
    ].join('\n'))
    writeFileSync(join(cwd, 'big.yaml'), `name: Big\nslug: big\nresources:\n${resources.join('\n')}\nendpoints: []\n`)
    const applied = await cli(['--db', db, 'apply', 'big.yaml'], { cwd })
    expect(applied.code, applied.stderr).toBe(0)
    const [{ code, screen }, plain] = await Promise.all([
      onTerminal(['--db', db, 'export', '--format', 'openapi', '-o', 'on-terminal.yaml'], terminalEnv(), cwd),
      cliProcessAsync(['--db', db, 'export', '--format', 'openapi', '-o', 'piped.yaml'], { cwd }),
    ])
    expect(code, screen).toBe(0)
    expect(plain.code, plain.stderr).toBe(0)
    expect(screen).toMatch(/\rwriting records: [\d,]+ of 25,000 \(\d+%\) · \d+\.\d s/)
    summaryAfterErasedLine(screen, '✔ wrote on-terminal.yaml', 'writing records')
    expect(plain.stderr).toBe('✔ wrote piped.yaml\n')
    expect(readFileSync(join(cwd, 'on-terminal.yaml'), 'utf8')).toBe(readFileSync(join(cwd, 'piped.yaml'), 'utf8'))
  }, 60_000)
})
