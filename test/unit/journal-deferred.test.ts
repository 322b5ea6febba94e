import { describe, expect, it } from 'vitest'
import { createJournal, type JournalRecord } from '../../src/domain/journal.ts'

function recordOf(projectId: number, epoch: number, path: string): JournalRecord {
  return {
    id: 0,
    projectId,
    at: 1_700_000_000_000,
    epoch,
    protocol: 'http',
    method: 'GET',
    path,
    search: '',
    headerLines: 'Host\n127.0.0.1:3000',
    params: null,
    body: null,
    bodySize: 0,
    contentType: null,
    status: 200,
    durationMs: 1,
    endpointId: null,
    answeredBy: null,
    matched: true,
    fault: null,
    note: null,
    answer: { headers: { 'Content-Type': 'application/json' }, body: '{}', bodySize: 2 },
    nearMisses: null,
    ruleMisses: null,
  }
}

/** A journal whose packing waits until the test says so, as `setImmediate` waits for the turn's end. */
function journalWithLatch() {
  const tasks: (() => void)[] = []
  const journal = createJournal({ later: (task) => tasks.push(task) })
  return { journal, tasks, runLater: () => tasks.splice(0).forEach((task) => task()) }
}

describe('records packed at the end of the turn', () => {
  it('are read at once: a read packs what waits', () => {
    const { journal, tasks, runLater } = journalWithLatch()
    const kept = journal.record(recordOf(1, journal.epoch, '/a'))
    journal.record(recordOf(1, journal.epoch, '/b'))
    expect(kept?.id).toBe(1)
    // One packing asked for the turn, however many requests it answered.
    expect(tasks).toHaveLength(1)
    expect(journal.records(1).map((record) => [record.id, record.path])).toEqual([[1, '/a'], [2, '/b']])
    expect(journal.projects()).toEqual([1])
    // The packing asked for finds nothing left, and packs nothing twice.
    runLater()
    expect(journal.records(1).map((record) => record.path)).toEqual(['/a', '/b'])
  })

  it('are packed by the task the turn ends with, in arrival order across projects', () => {
    const { journal, runLater } = journalWithLatch()
    journal.record(recordOf(1, journal.epoch, '/a'))
    journal.record(recordOf(2, journal.epoch, '/x'))
    journal.record(recordOf(1, journal.epoch, '/b'))
    runLater()
    journal.record(recordOf(1, journal.epoch, '/c'))
    runLater()
    expect(journal.records(1).map((record) => [record.id, record.path])).toEqual([[1, '/a'], [3, '/b'], [4, '/c']])
    expect(journal.records(2).map((record) => [record.id, record.path])).toEqual([[2, '/x']])
  })

  it('go with a clear that comes before their packing, and a later arrival stays', () => {
    const { journal, runLater } = journalWithLatch()
    journal.record(recordOf(1, journal.epoch, '/before'))
    journal.record(recordOf(2, journal.epoch, '/other'))
    journal.clear(1)
    journal.record(recordOf(1, journal.epoch, '/after'))
    runLater()
    expect(journal.records(1).map((record) => record.path)).toEqual(['/after'])
    expect(journal.records(2).map((record) => record.path)).toEqual(['/other'])
    journal.record(recordOf(2, journal.epoch, '/gone'))
    journal.clear()
    runLater()
    expect(journal.records(2)).toEqual([])
  })

  it('go with a reset another process made, seen before their packing', () => {
    const { journal, runLater } = journalWithLatch()
    journal.seenReset(1, 4)
    journal.record(recordOf(1, journal.epoch, '/before'))
    journal.seenReset(1, 5)
    journal.record(recordOf(1, journal.epoch, '/after'))
    runLater()
    expect(journal.records(1).map((record) => record.path)).toEqual(['/after'])
  })

  it('go with their project when it is dropped', () => {
    const { journal, runLater } = journalWithLatch()
    journal.record(recordOf(1, journal.epoch, '/a'))
    journal.drop(1)
    runLater()
    expect(journal.records(1)).toEqual([])
    expect(journal.projects()).toEqual([])
  })

  it('reach listeners at once, before they are packed', () => {
    const { journal, tasks } = journalWithLatch()
    const heard: string[] = []
    journal.subscribe(1, (record) => heard.push(`${record.id} ${record.path}`))
    journal.record(recordOf(1, journal.epoch, '/a'))
    expect(heard).toEqual(['1 /a'])
    expect(tasks).toHaveLength(1)
  })

  it('with the default, are packed by the end of the turn without a read', async () => {
    const journal = createJournal()
    const kept = journal.record(recordOf(1, journal.epoch, '/a'))!
    await new Promise((resolve) => setImmediate(resolve))
    // Packed already: what the object says now is not what was kept.
    ;(kept as { path: string }).path = '/changed'
    expect(journal.records(1).map((record) => record.path)).toEqual(['/a'])
  })
})
