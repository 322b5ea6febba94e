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
    expect(writes).toEqual(['\rseeding /api/items: 40,000 of 100,000 (40%) · 1.0 s · about 2 s left\x1b[K'])
    advance(REDRAW_MS - 1)
    line.update({ label: 'seeding /api/items', done: 41_000, total: 100_000 })
    expect(writes).toHaveLength(1)
    advance(1)
    line.update({ label: 'seeding /api/items', done: 42_000, total: 100_000 })
    expect(writes).toHaveLength(2)
    expect(writes[1]).toMatch(/^\rseeding \/api\/items: 42,000 of 100,000 \(42%\) · 1\.1 s · about 2 s left\x1b\[K$/)
    line.clear()
    expect(writes.at(-1)).toBe('\r\x1b[K')
    // Nothing after the line is erased: the summary follows on a clean line.
    advance(REDRAW_MS)
    line.update({ label: 'seeding /api/items', done: 43_000, total: 100_000 })
    line.tick()
    line.clear()
    expect(writes).toHaveLength(3)
  })

  it('draws a new step at once, and estimates from that step alone once it has run half a second', () => {
    const { writes, terminal, now, advance } = fixture()
    const line = progressLine({ terminal, now })
    line.update({ label: 'applying endpoints', done: 0, total: 10 })
    advance(FIRST_DRAW_MS + 500)
    line.update({ label: 'applying endpoints', done: 10, total: 10 })
    line.update({ label: 'seeding /api/posts', done: 0, total: 3000 })
    expect(writes.at(-1)).toBe('\rseeding /api/posts: 0 of 3,000 (0%) · 1.5 s\x1b[K')
    advance(REDRAW_MS)
    line.update({ label: 'seeding /api/posts', done: 200, total: 3000 })
    expect(writes.at(-1)).toBe('\rseeding /api/posts: 200 of 3,000 (6%) · 1.6 s\x1b[K')
    advance(400)
    line.update({ label: 'seeding /api/posts', done: 1000, total: 3000 })
    // 1,000 in 500 ms: 2,000 more take 1 s.
    expect(writes.at(-1)).toBe('\rseeding /api/posts: 1,000 of 3,000 (33%) · 2.0 s · about 1 s left\x1b[K')
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
    expect(writes).toEqual(['\rreading https://example.test/spec.json · 1.0 s\x1b[K', '\rreading https://example.test/spec.json · 1.3 s\x1b[K'])
  })

  it('cuts the line one column short of the terminal, so it never wraps', () => {
    const { writes, terminal, now, advance } = fixture(30)
    const line = progressLine({ terminal, now })
    advance(FIRST_DRAW_MS)
    line.update({ label: 'seeding /api/a-very-long-resource-name', done: 5, total: 10 })
    const text = writes[0]!.slice(1, -'\x1b[K'.length)
    expect(text).toBe('seeding /api/a-very-long-res…')
    expect(text).toHaveLength(29)
  })
})

describe('progressText', () => {
  it('says what, how many of how many, the elapsed time and the estimate', () => {
    expect(progressText({ label: 'resetting collections', done: 3, total: 12 }, 12_400, 65_000)).toBe('resetting collections: 3 of 12 (25%) · 12 s · about 2 min left')
    expect(progressText({ label: 'importing operations', done: 7, total: null }, 2_000, null)).toBe('importing operations: 7 · 2.0 s')
    expect(progressText({ label: 'seeding /api/none', done: 0, total: 0 }, 1_000, null)).toBe('seeding /api/none: 0 of 0 (100%) · 1.0 s')
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

  it('stays silent with --quiet, --json, NO_COLOR, CI and TERM=dumb', () => {
    expect(showsProgress(terminal, env({}), { quiet: true })).toBe(false)
    expect(showsProgress(terminal, env({}), { json: true })).toBe(false)
    expect(showsProgress(terminal, env({ NO_COLOR: '1' }), {})).toBe(false)
    expect(showsProgress(terminal, env({ CI: 'true' }), {})).toBe(false)
    expect(showsProgress(terminal, env({ CI: '1' }), {})).toBe(false)
    expect(showsProgress(terminal, env({ TERM: 'dumb' }), {})).toBe(false)
  })

  it('takes an empty NO_COLOR, and CI set to empty, 0 or false, as unset', () => {
    const unset: Record<string, string>[] = [{ NO_COLOR: '' }, { CI: '' }, { CI: '0' }, { CI: 'false' }]
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
