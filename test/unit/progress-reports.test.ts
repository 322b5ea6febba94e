import { afterAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { applyProjectFile } from '../../src/domain/apply.ts'
import { exportProject, toYaml } from '../../src/domain/export.ts'
import { importSpec } from '../../src/domain/import.ts'
import { parseProjectFile, readProjectFile } from '../../src/domain/project-file.ts'
import { createProject, deleteProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { resetProject, seedNewResource } from '../../src/domain/seeding.ts'
import { loadFaker, parseFieldSpec } from '../../src/engine/generators.ts'
import { LONG_STEP_ITEMS, REPORT_ITEMS, type ProgressStep } from '../../src/engine/progress.ts'
import { cleanup, openStore, tempDb, tempDir } from '../_helpers.ts'

afterAll(cleanup)

/** What the long domain functions tell an `onProgress`, on a real database. */

function listener() {
  const steps: ProgressStep[] = []
  const startedAt = performance.now()
  return {
    steps,
    onProgress: (step: ProgressStep) => void steps.push(step),
    labels: () => [...new Set(steps.map((s) => s.label))],
    of: (label: string) => steps.filter((s) => s.label === label),
    elapsedMs: () => performance.now() - startedAt,
  }
}

/** A step's reports: from nothing, never backwards, ending complete; no more often than every 1,000 items or 100 ms. */
function expectCounted(reports: ProgressStep[], total: number, elapsedMs: number) {
  expect(reports[0]).toMatchObject({ done: 0, total })
  expect(reports.at(-1)).toMatchObject({ done: total, total })
  for (let i = 1; i < reports.length; i += 1) expect(reports[i]!.done).toBeGreaterThanOrEqual(reports[i - 1]!.done)
  expect(reports.length).toBeLessThanOrEqual(2 + Math.ceil(total / REPORT_ITEMS) + Math.ceil(elapsedMs / 100))
}

describe('progress reports of the domain', () => {
  it('seeding counts generated records, and reset counts collections', async () => {
    const { context } = openStore(tempDb())
    const makeFaker = await loadFaker()
    createProject(context, { name: 'T', slug: 't' })
    const seeding = listener()
    for (const path of ['/api/items', '/api/users']) {
      const { resource } = createResource(context, { project: 't', path })
      seedNewResource(context, resource, { fields: parseFieldSpec('title:lorem.word,views:int'), seedCount: 2500, seedValue: 1, seedRecords: [] }, makeFaker, { onProgress: seeding.onProgress })
    }
    expect(seeding.labels()).toEqual(['seeding /api/items', 'seeding /api/users'])
    expectCounted(seeding.of('seeding /api/items'), 2500, seeding.elapsedMs())

    const reset = listener()
    expect(resetProject(context, 1, { onProgress: reset.onProgress })).toEqual({ collections: 2, records: 5000 })
    expect(reset.labels()).toEqual(['resetting collections'])
    expectCounted(reset.steps, 2, reset.elapsedMs())
  })

  it('apply counts each reseeded resource’s records, then the endpoints', async () => {
    const { context } = openStore(tempDb())
    const makeFaker = await loadFaker()
    const file = parseProjectFile([
      'name: Shop',
      'resources:',
      '  - path: /api/products',
      '    fields: { name: commerce.productName }',
      '    count: 1500',
      '  - path: /api/orders',
      '    fields: { total: int }',
      '    count: 10',
      'endpoints:',
      '  - { method: GET, path: /api/health, body: { ok: true } }',
    ].join('\n'), 'shop.yaml')
    const apply = listener()
    applyProjectFile(context, file, makeFaker, { prune: true, onProgress: apply.onProgress })
    expect(apply.labels()).toEqual(['seeding /api/products', 'seeding /api/orders', 'applying endpoints', 'saving'])
    // Numbered: each reseeded collection, the endpoints, then the commit that writes them.
    expect(apply.labels().map((label) => apply.of(label).map((s) => s.part))).toEqual([1, 2, 3, 4].map((index) => [...apply.of(apply.labels()[index - 1]!)].map(() => ({ index, count: 4 }))))
    expect(apply.of('saving')).toEqual([{ label: 'saving', done: 0, total: null, long: false, part: { index: 4, count: 4 } }])
    expectCounted(apply.of('seeding /api/products'), 1500, apply.elapsedMs())
    // Each resource's standard endpoints and the file's own one.
    const endpoints = apply.of('applying endpoints')
    expect(endpoints.at(-1)!.done).toBe(context.repos.endpoints.listByProject(1).length)
    expectCounted(endpoints, endpoints.at(-1)!.total!, apply.elapsedMs())
  })

  it('reading a project file counts its lines as yaml reads them', async () => {
    const cwd = tempDir()
    const records = Array.from({ length: 1500 }, (_, i) => `      - { id: ${i + 1}, title: "post ${i}" }`)
    const text = ['name: Posts', 'resources:', '  - path: /api/posts', '    records:', ...records, ''].join('\n')
    writeFileSync(join(cwd, 'posts.yaml'), text)
    const reading = listener()
    const file = readProjectFile(join(cwd, 'posts.yaml'), await loadFaker(), { onProgress: reading.onProgress })
    expect(file.resources[0]!.records).toHaveLength(1500)
    // Then the values are made and checked, which reports nothing until it ends: a small file's is no long step.
    expect(reading.labels()).toEqual(['reading the lines of posts.yaml', 'checking posts.yaml'])
    expect(reading.of('checking posts.yaml')).toEqual([{ label: 'checking posts.yaml', done: 0, total: null, long: false }])
    const lines = text.split('\n').length
    expectCounted(reading.of('reading the lines of posts.yaml'), lines, reading.elapsedMs())
    expect(reading.steps.every((s) => s.done <= lines)).toBe(true)
  })

  it('an import says what it reads, then counts endpoints (a spec) or records (a db.json)', async () => {
    const { context } = openStore(tempDb())
    const cwd = tempDir()
    const paths = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`/api/things${i}`, { get: { responses: { 200: { description: 'ok' } } } }]))
    writeFileSync(join(cwd, 'spec.json'), JSON.stringify({ openapi: '3.0.3', info: { title: 'Things', version: '1' }, paths }))
    const spec = listener()
    await importSpec(context, () => createProject(context, { name: 'Things' }), { source: 'spec.json', cwd }, { onProgress: spec.onProgress })
    expect(spec.labels()).toEqual(['reading spec.json', 'importing endpoints'])
    expect(spec.steps[0]).toEqual({ label: 'reading spec.json', done: 0, total: null, long: false })
    expectCounted(spec.of('importing endpoints'), 30, spec.elapsedMs())

    writeFileSync(join(cwd, 'db.json'), JSON.stringify({ posts: Array.from({ length: 1200 }, (_, i) => ({ id: i + 1, title: `post ${i}` })) }))
    const data = listener()
    await importSpec(context, () => createProject(context, { name: 'Data' }), { source: 'db.json', cwd, prefix: '/api' }, { onProgress: data.onProgress })
    expect(data.labels()).toEqual(['reading db.json', 'seeding /api/posts'])
    expectCounted(data.of('seeding /api/posts'), 1200, data.elapsedMs())

    // Its export writes those records as literal ones: counted as yaml writes them, and the same bytes as without a listener.
    const file = exportProject(context, context.repos.projects.bySlug('data')!)
    const exported = listener()
    const text = toYaml(file, { onProgress: exported.onProgress })
    expect(text).toBe(toYaml(file))
    expect(exported.labels()).toEqual(['laying out records', 'writing records'])
    expect(exported.steps[0]).toEqual({ label: 'laying out records', done: 0, total: null, long: false })
    expectCounted(exported.of('writing records'), 1200, exported.elapsedMs())
    expect(exported.of('writing records').slice(1, -1).every((s) => s.done % 100 === 0 && s.done <= 1200)).toBe(true)
  })
})

describe('progress reports of big one-statement steps', () => {
  it('an import of a file over LONG_READ_BYTES, reset and delete of a project over LONG_STEP_ITEMS records say so, to be drawn at once', async () => {
    const { context } = openStore(tempDb())
    const cwd = tempDir()
    const posts = Array.from({ length: LONG_STEP_ITEMS }, (_, i) => ({ id: i + 1, title: `post ${i}`, body: 'x'.repeat(20) }))
    writeFileSync(join(cwd, 'db.json'), JSON.stringify({ posts }))
    const imported = listener()
    await importSpec(context, () => createProject(context, { name: 'Data', slug: 'data' }), { source: 'db.json', cwd, prefix: '/api' }, { onProgress: imported.onProgress })
    expect(imported.steps[0]).toEqual({ label: 'reading db.json', done: 0, total: null, long: true })

    const reset = listener()
    expect(resetProject(context, 1, { onProgress: reset.onProgress })).toEqual({ collections: 1, records: LONG_STEP_ITEMS })
    expect(reset.steps[0]).toEqual({ label: 'resetting collections', done: 0, total: 1, long: true })
    expect(reset.steps.at(-1)).toEqual({ label: 'resetting collections', done: 1, total: 1, long: true })

    // Collection by collection, counting their records.
    createResource(context, { project: 'data', path: '/api/tags' })
    const removed = listener()
    expect(deleteProject(context, 'data', { onProgress: removed.onProgress }).slug).toBe('data')
    expect(removed.steps[0]).toEqual({ label: 'deleting records', done: 0, total: LONG_STEP_ITEMS, long: true })
    expect(removed.steps.at(-1)).toEqual({ label: 'deleting records', done: LONG_STEP_ITEMS, total: LONG_STEP_ITEMS, long: true })
    expect(removed.steps.every((s) => s.long)).toBe(true)
    expect(context.repos.projects.list()).toEqual([])
  })
})
