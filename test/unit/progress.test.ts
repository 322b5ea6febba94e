import { describe, expect, it } from 'vitest'
import { FIRST_DRAW_MS, REDRAW_MS, duration, progressLine, progressText, showsProgress } from '../../src/cli/progress.ts'
import type { Terminal } from '../../src/cli/output.ts'
import { counted, countProgress, REPORT_ITEMS, REPORT_MS, type ProgressStep } from '../../src/engine/progress.ts'

/** A clock the test moves, and a terminal that keeps what was written. */
function fixture(columns = 100) {
  let at = 0
  const writes: string[] = []
  const terminal: Terminal = { write: (text) => void writes.push(text), columns: () => columns }
  return { writes, terminal, now: () => at, advance: (ms: number) => void (at += ms) }
}

/** What a draw writes: the line (over the one before it, if any), the cursor left on the line below. */
const FIRST = (text: string) => `\r${text}\x1b[K\n`
const OVER = (text: string) => `\x1b[A\r${text}\x1b[K\n`
const ERASED = '\x1b[A\r\x1b[K'

describe('progressLine', () => {
  it('draws nothing for work that ends within the first second, and erases nothing then', () => {
    const { writes, terminal, now, advance } = fixture()
    const line = progressLine({ terminal, now })
    line.update({ label: 'seeding /api/items', done: 0, total: 500 })
    advance(FIRST_DRAW_MS - 1)
    line.update({ label: 'seeding /api/items', done: 500, total: 500 })
    line.tick()
    line.clear()
    expect(writes).toEqual([])
  })

  it('draws after the first second over the same line, at most every REDRAW_MS, and erases it when cleared', () => {
    const { writes, terminal, now, advance } = fixture()
    const line = progressLine({ terminal, now })
    line.update({ label: 'seeding /api/items', done: 0, total: 100_000 })
    advance(FIRST_DRAW_MS)
    line.update({ label: 'seeding /api/items', done: 40_000, total: 100_000 })
    expect(writes).toEqual([FIRST('seeding /api/items: 40,000 of 100,000 (40%) · 1.0 s · about 2 s left')])
    advance(REDRAW_MS - 1)
    line.update({ label: 'seeding /api/items', done: 41_000, total: 100_000 })
    expect(writes).toHaveLength(1)
    advance(1)
    line.update({ label: 'seeding /api/items', done: 42_000, total: 100_000 })
    expect(writes).toEqual([writes[0], OVER('seeding /api/items: 42,000 of 100,000 (42%) · 1.1 s · about 2 s left')])
    line.clear()
    expect(writes.at(-1)).toBe(ERASED)
    // Nothing after the line is erased: the summary follows on a clean line.
    advance(REDRAW_MS)
    line.update({ label: 'seeding /api/items', done: 43_000, total: 100_000 })
    line.tick()
    line.clear()
    expect(writes).toHaveLength(3)
  })

  it('draws a step known to be long at once, even in the first second, and everything after it', () => {
    const { writes, terminal, now, advance } = fixture()
    const line = progressLine({ terminal, now })
    advance(10)
    line.update({ label: 'reading db.json', done: 0, total: null, long: true })
    line.update({ label: 'reading db.json', done: 0, total: null, long: true })
    expect(writes).toEqual([FIRST('reading db.json · 0.0 s')])
    advance(300)
    line.update({ label: 'seeding /api/posts', done: 0, total: 3000 })
    expect(writes.at(-1)).toBe(OVER('seeding /api/posts: 0 of 3,000 (0%) · 0.3 s'))
    line.clear()
    expect(writes.at(-1)).toBe(ERASED)
  })

  it('draws the end of the step it shows, however soon after the last draw: its count does not stay behind', () => {
    const { writes, terminal, now, advance } = fixture()
    const line = progressLine({ terminal, now })
    advance(FIRST_DRAW_MS)
    line.update({ label: 'applying endpoints', done: 0, total: 25 })
    advance(20)
    line.update({ label: 'applying endpoints', done: 25, total: 25 })
    expect(writes).toEqual([FIRST('applying endpoints: 0 of 25 (0%) · 1.0 s'), OVER('applying endpoints: 25 of 25 (100%) · 1.0 s')])
    // Quick steps after it wait their turn, their ends too: the line does not show them.
    advance(20)
    line.update({ label: 'seeding /api/a', done: 0, total: 5 })
    line.update({ label: 'seeding /api/a', done: 5, total: 5 })
    advance(20)
    line.update({ label: 'seeding /api/b', done: 0, total: 5 })
    line.update({ label: 'seeding /api/b', done: 5, total: 5 })
    expect(writes).toHaveLength(2)
    advance(REDRAW_MS)
    line.update({ label: 'seeding /api/c', done: 0, total: 5 })
    line.update({ label: 'seeding /api/c', done: 5, total: 5 })
    expect(writes.slice(2)).toEqual([OVER('seeding /api/c: 0 of 5 (0%) · 1.2 s'), OVER('seeding /api/c: 5 of 5 (100%) · 1.2 s')])
  })

  it('estimates from the step alone, once it has run a second and done a twentieth of its items', () => {
    const { writes, terminal, now, advance } = fixture()
    const line = progressLine({ terminal, now })
    line.update({ label: 'applying endpoints', done: 0, total: 10 })
    advance(FIRST_DRAW_MS + 500)
    line.update({ label: 'applying endpoints', done: 10, total: 10 })
    line.update({ label: 'seeding /api/posts', done: 0, total: 100_000 })
    expect(writes.at(-1)).toBe(OVER('seeding /api/posts: 0 of 100,000 (0%) · 1.5 s'))
    // A slow start (loading, warming up): half a second for 1% says nothing yet.
    advance(500)
    line.update({ label: 'seeding /api/posts', done: 1000, total: 100_000 })
    expect(writes.at(-1)).toBe(OVER('seeding /api/posts: 1,000 of 100,000 (1%) · 2.0 s'))
    // A second, but not yet 5%: still none.
    advance(500)
    line.update({ label: 'seeding /api/posts', done: 4000, total: 100_000 })
    expect(writes.at(-1)).toBe(OVER('seeding /api/posts: 4,000 of 100,000 (4%) · 2.5 s'))
    // 10,000 in 1.5 s: 90,000 more take 13.5 s.
    advance(500)
    line.update({ label: 'seeding /api/posts', done: 10_000, total: 100_000 })
    expect(writes.at(-1)).toBe(OVER('seeding /api/posts: 10,000 of 100,000 (10%) · 3.0 s · about 14 s left'))
  })

  it('draws quick steps in a row no more often than one step', () => {
    const { writes, terminal, now, advance } = fixture()
    const line = progressLine({ terminal, now })
    advance(FIRST_DRAW_MS)
    for (let i = 0; i < 50; i += 1) {
      line.update({ label: `seeding /api/things${i}`, done: 0, total: 5 })
      advance(10)
    }
    // 500 ms of steps: the first, then one every REDRAW_MS.
    expect(writes.map((text) => /things(\d+)/.exec(text)![1])).toEqual(['0', '10', '20', '30', '40'])
  })

  it('redraws the elapsed time on the timer while the work waits (a URL being fetched)', () => {
    const { writes, terminal, now, advance } = fixture()
    const line = progressLine({ terminal, now })
    line.update({ label: 'reading https://example.test/spec.json', done: 0, total: null })
    line.tick()
    expect(writes).toEqual([])
    advance(FIRST_DRAW_MS)
    line.tick()
    advance(250)
    line.tick()
    expect(writes).toEqual([FIRST('reading https://example.test/spec.json · 1.0 s'), OVER('reading https://example.test/spec.json · 1.3 s')])
  })

  it('says which step of how many, when the work knows its steps', () => {
    const { writes, terminal, now, advance } = fixture()
    const line = progressLine({ terminal, now })
    advance(FIRST_DRAW_MS)
    line.update({ label: 'seeding /api/items', done: 500, total: 1000, part: { index: 2, count: 4 } })
    expect(writes).toEqual([FIRST('[2/4] seeding /api/items: 500 of 1,000 (50%) · 1.0 s')])
  })

  it('keeps the numbers of a long line in 80 columns: the label loses its middle, a path keeps its file name', () => {
    const { writes, terminal, now, advance } = fixture(80)
    const line = progressLine({ terminal, now })
    line.update({ label: 'reading the lines of /home/someone/projects/acme/fixtures/exports/2026-11/db-export.yaml', done: 0, total: 1_200_000 })
    advance(FIRST_DRAW_MS + 1000)
    line.update({ label: 'reading the lines of /home/someone/projects/acme/fixtures/exports/2026-11/db-export.yaml', done: 600_000, total: 1_200_000 })
    const text = writes[0]!.slice(1, -'\x1b[K\n'.length)
    expect(text).toBe('reading th…/db-export.yaml: 600,000 of 1,200,000 (50%) · 2.0 s · about 2 s left')
    expect(text).toHaveLength(79)
  })

  it('cuts the end only of a line too narrow for its numbers, one column short of the terminal', () => {
    const { writes, terminal, now, advance } = fixture(30)
    const line = progressLine({ terminal, now })
    advance(FIRST_DRAW_MS)
    line.update({ label: 'seeding /api/a-very-long-resource-name', done: 5, total: 10 })
    const text = writes[0]!.slice(1, -'\x1b[K\n'.length)
    expect(text).toBe('seeding /api/a-very-long-res…')
    expect(text).toHaveLength(29)
  })
})

describe('progressText', () => {
  it('says what, how many of how many, the elapsed time and the estimate', () => {
    expect(progressText({ label: 'resetting collections', done: 3, total: 12 }, 12_400, 65_000)).toBe('resetting collections: 3 of 12 (25%) · 12 s · about 2 min left')
    expect(progressText({ label: 'importing operations', done: 7, total: null }, 2_000, null)).toBe('importing operations: 7 · 2.0 s')
    expect(progressText({ label: 'seeding /api/none', done: 0, total: 0 }, 1_000, null)).toBe('seeding /api/none: 0 of 0 (100%) · 1.0 s')
    expect(progressText({ label: 'saving', done: 0, total: null, part: { index: 4, count: 4 } }, 1_000, null)).toBe('[4/4] saving · 1.0 s')
  })

  it('shortens a label whose last path part is too long in its middle, keeping its start and end', () => {
    expect(progressText({ label: 'reading https://example.test:8443/a-spec-with-a-long-name?version=2024-11-01', done: 0, total: null }, 1_000, null, 50))
      .toBe('reading https://examp…e?version=2024-11-01 · 1.0 s')
  })

  it('shortens a label without a path before its last word', () => {
    expect(progressText({ label: 'reading the lines of out.yaml', done: 105_865, total: 360_010 }, 2_200, 6_000, 79))
      .toBe('reading the lines … out.yaml: 105,865 of 360,010 (29%) · 2.2 s · about 6 s left')
  })

  it('writes durations as a person reads them', () => {
    expect([duration(950), duration(9_940), duration(42_300), duration(125_000)]).toEqual(['0.9 s', '9.9 s', '42 s', '2 min 05 s'])
  })
})

describe('showsProgress', () => {
  const terminal: Terminal = { write() {}, columns: () => 80 }
  const env = (vars: Record<string, string>) => ({ cwd: '/', env: vars })

  it('shows on a terminal, and nowhere else', () => {
    expect(showsProgress(terminal, env({}), {})).toBe(true)
    expect(showsProgress(undefined, env({}), {})).toBe(false)
  })

  it('stays silent with --quiet, --json, CI and TERM=dumb', () => {
    expect(showsProgress(terminal, env({}), { quiet: true })).toBe(false)
    expect(showsProgress(terminal, env({}), { json: true })).toBe(false)
    expect(showsProgress(terminal, env({ CI: 'true' }), {})).toBe(false)
    expect(showsProgress(terminal, env({ CI: '1' }), {})).toBe(false)
    expect(showsProgress(terminal, env({ TERM: 'dumb' }), {})).toBe(false)
  })

  it('shows with NO_COLOR (which asks for no colour, and the line has none), and takes CI set to empty, 0 or false as unset', () => {
    const unset: Record<string, string>[] = [{ NO_COLOR: '1' }, { CI: '' }, { CI: '0' }, { CI: 'false' }]
    for (const vars of unset) expect(showsProgress(terminal, env(vars), {})).toBe(true)
  })
})

describe('countProgress', () => {
  const listen = () => {
    let at = 0
    const steps: ProgressStep[] = []
    return { steps, onProgress: (step: ProgressStep) => void steps.push(step), now: () => at, advance: (ms: number) => void (at += ms) }
  }

  it('reports the step at once, every REPORT_ITEMS items of fast work, and once finished', () => {
    const { steps, onProgress, now } = listen()
    const progress = countProgress(onProgress, 'seeding /api/items', 2500, now)
    for (let i = 0; i < 2500; i += 1) progress.add()
    progress.finish()
    expect(steps.map((s) => s.done)).toEqual([0, REPORT_ITEMS, 2 * REPORT_ITEMS, 2500])
    expect(steps.every((s) => s.label === 'seeding /api/items' && s.total === 2500)).toBe(true)
  })

  it('reports slow work every REPORT_MS, whatever the count', () => {
    const { steps, onProgress, now, advance } = listen()
    const progress = countProgress(onProgress, 'importing endpoints', 5, now)
    progress.add()
    advance(REPORT_MS - 1)
    progress.add()
    advance(1)
    progress.add()
    expect(steps.map((s) => s.done)).toEqual([0, 3])
  })

  it('reports nothing of a step with nothing to count', () => {
    const { steps, onProgress, now } = listen()
    const progress = countProgress(onProgress, 'seeding collections', 0, now)
    progress.finish()
    expect(steps).toEqual([])
  })

  it('counts the items of an iterable as they are taken, and is the iterable itself when nobody listens', () => {
    const { steps, onProgress, now } = listen()
    const items = [1, 2, 3]
    expect([...counted(items, countProgress(onProgress, 'three', 3, now))]).toEqual(items)
    expect(steps.map((s) => s.done)).toEqual([0, 3])
    expect(counted(items, countProgress(undefined, 'three', 3))).toBe(items)
  })
})
