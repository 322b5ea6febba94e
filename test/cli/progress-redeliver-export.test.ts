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
    // As a busy serve would: once the first batch is queued, the write lock taken for 1.2 s, so the
    // queuing outlasts the line's first-draw delay however fast the machine queues or slowly the CLI
    // starts (each batch is followed by a pause as long as it took: 40 batches leave time to see one).
    const { context } = openStore(db)
    const queuedAgain = context.db.prepare("SELECT count(*) AS n FROM deliveries WHERE state <> 'failed'")
    let release: NodeJS.Timeout | undefined
    const watch = setInterval(() => {
      if ((queuedAgain.get() as { n: number }).n === 0) return
      clearInterval(watch)
      context.db.exec('BEGIN IMMEDIATE')
      release = setTimeout(() => context.db.exec('ROLLBACK'), 1200)
    }, 2)
    const { code, screen } = await onTerminal(['--db', db, 'webhooks', 'redeliver', '--failed'], terminalEnv(), cwd).finally(() => {
      clearInterval(watch)
      clearTimeout(release)
      if (context.db.inTransaction) context.db.exec('ROLLBACK')
    })
    expect(release, 'the first batch was seen queued before the last').toBeDefined()
    expect(code, screen).toBe(0)
    expect(screen).toMatch(/\rqueuing deliveries: [\d,]+ of 20,000 \(\d+%\) · \d+\.\d s/)
    summaryAfterErasedLine(screen, '✔ queued 20,000 deliveries again', 'queuing deliveries')
  }, 30_000)

  it('export --format openapi to YAML of 50 resources of 1,000 records (50,000, the most it writes per resource: a step drawn at once): counts the records as yaml writes them, and writes what it writes without a terminal', async () => {
    const cwd = tempDir()
    const db = join(cwd, 'e.db')
    const fruits = 'apples pears plums grapes lemons limes melons cherries peaches berries kiwis figs dates mangos papayas oranges bananas apricots quinces guavas olives nuts seeds beans peas'.split(' ').flatMap((fruit) => [fruit, `dried-${fruit}`])
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
    expect(screen).toMatch(/\rwriting records: [\d,]+ of 50,000 \(\d+%\) · \d+\.\d s/)
    summaryAfterErasedLine(screen, '✔ wrote on-terminal.yaml', 'writing records')
    expect(plain.stderr).toBe('✔ wrote piped.yaml\n')
    expect(readFileSync(join(cwd, 'on-terminal.yaml'), 'utf8')).toBe(readFileSync(join(cwd, 'piped.yaml'), 'utf8'))
  }, 60_000)
})
