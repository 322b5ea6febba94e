import { describe, expect, it } from 'vitest'
import type { JournalRecord } from '../../src/domain/journal-record.ts'
import { JournalRing } from '../../src/domain/journal-ring.ts'

function recordOf(id: number, fields: Partial<JournalRecord> = {}): JournalRecord {
  return {
    id,
    projectId: 7,
    at: 1_700_000_000_000 + id,
    epoch: 3,
    protocol: 'http',
    method: 'GET',
    path: `/api/shop/items/${id}`,
    search: '',
    headerLines: 'Host\n127.0.0.1:3000\nAccept\napplication/json',
    params: { id: String(id) },
    body: null,
    bodySize: 0,
    contentType: null,
    status: 200,
    durationMs: 1.25,
    endpointId: 4,
    answeredBy: null,
    matched: true,
    fault: null,
    note: null,
    answer: { headers: { 'Content-Type': 'application/json', 'Content-Length': '12' }, body: `{"id":${id}}`, bodySize: 12 },
    nearMisses: null,
    ruleMisses: null,
    ...fields,
  }
}

/** What a record reads as: `proxied` absent and undefined are the same to every reader. */
function plain(record: JournalRecord): object {
  return JSON.parse(JSON.stringify({ ...record, body: record.body && [...record.body], answer: record.answer && { ...record.answer, body: record.answer.body instanceof Uint8Array ? [...record.answer.body] : record.answer.body } }))
}

describe('the packed journal ring', () => {
  it('gives back every field as it was kept: text in any script, line breaks, binary bodies, rare fields', () => {
    const ring = new JournalRing(7, 100, 1 << 20, 0)
    const kept = [
      recordOf(1),
      recordOf(2, {
        protocol: 'grpc',
        method: 'POST',
        path: '/shop.Items/Get',
        search: '?q=caf%C3%A9&x=1',
        params: { name: 'line\nbreak', 'é': '東京 🍣' },
        body: new Uint8Array([0, 1, 2, 255]),
        bodySize: 4,
        contentType: 'application/grpc',
        status: 0,
        durationMs: 0.01,
        endpointId: null,
        matched: false,
        fault: 'reset',
        note: 'client closed the connection',
        answer: { headers: { 'X-Odd': 'a\nb', 'Content-Type': 'application/octet-stream' }, body: new Uint8Array([9, 8, 7]), bodySize: 3 },
        nearMisses: [{ method: 'GET', path: '/shop.Items/List', distance: 2 } as never],
        ruleMisses: [],
        proxied: true,
      }),
      recordOf(3, { params: null, answer: null, proxied: false, headerLines: '', note: '' }),
      recordOf(4, { answer: { headers: {}, body: null, bodySize: 0 }, params: {} }),
      recordOf(5, { method: 'PROPFIND', answer: { headers: { A: '' }, body: '', bodySize: 0 } }),
      recordOf(6, { params: JSON.parse('{"__proto__":"p","constructor":"c"}'), answer: { headers: JSON.parse('{"__proto__":"h"}'), body: 'x', bodySize: 1 } }),
      // Past ASCII, text is kept as UTF-16: a lone surrogate (a JSON body can hold one) and Latin-1 come back as they were.
      recordOf(7, { answer: { headers: { 'Content-Type': 'application/json' }, body: JSON.parse('"{\\"s\\":\\"\\ud800 \u00ff\\"}"'), bodySize: 14 } }),
    ]
    for (const record of kept) ring.push(record)
    const read = ring.records()
    expect(read.map(plain)).toEqual(kept.map(plain))
    expect(read[1]!.body).toBeInstanceOf(Buffer)
    expect(read[1]!.proxied).toBe(true)
    expect(read[2]!.proxied).toBe(false)
    expect(read[0]!.proxied).toBeUndefined()
    // A second read finds the records made by the first.
    expect(ring.records()[1]).toBe(read[1])
    expect(Object.keys(read[5]!.params!)).toEqual(['__proto__', 'constructor'])
    expect(Object.getPrototypeOf(read[5]!.answer!.headers)).toBe(Object.prototype)
    expect(read[6]!.answer!.body).toBe('{"s":"\ud800 \u00ff"}')
  })

  it("gives back each answer's own headers when one answer's follow another's: the same, a value changed, one more, one fewer, reordered, a line break", () => {
    const ring = new JournalRing(7, 100, 1 << 20, 0)
    const same = { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'application/json', 'Content-Length': '12' }
    const variants: Record<string, string>[] = [
      same,
      { ...same },
      { ...same, 'Content-Length': '13' },
      { ...same, ETag: 'W/"1"' },
      { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'application/json' },
      { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*', 'Content-Length': '12' },
      { ...same, 'X-Odd': 'a\nb' },
      same,
      {},
      same,
    ]
    const kept = variants.map((headers, i) => recordOf(i + 1, { answer: { headers, body: `{"id":${i + 1}}`, bodySize: 12 } }))
    for (const record of kept) ring.push({ ...record })
    const read = ring.records()
    expect(read.map((record) => Object.entries(record.answer!.headers))).toEqual(variants.map((headers) => Object.entries(headers)))
  })

  it('keeps the newest `size` records, oldest first, across growth and wrap-around', () => {
    const ring = new JournalRing(7, 150, 1 << 30, 0)
    for (let id = 1; id <= 1_000; id++) ring.push(recordOf(id))
    const read = ring.records()
    expect(read).toHaveLength(150)
    expect(read.map((record) => record.id)).toEqual(Array.from({ length: 150 }, (_, i) => 851 + i))
    expect(read.at(-1)!.answer!.body).toBe('{"id":1000}')
    expect(read[0]!.params).toEqual({ id: '851' })
  })

  it('keeps its byte cap, and the newest record whatever its size', () => {
    const big = 'x'.repeat(100_000)
    const ring = new JournalRing(7, 1_000, 450_000, 0)
    for (let id = 1; id <= 10; id++) ring.push(recordOf(id, { answer: { headers: {}, body: big, bodySize: big.length } }))
    // ASCII: 100 KB each, at one byte a character: four fit.
    expect(ring.records().map((record) => record.id)).toEqual([7, 8, 9, 10])
    expect(ring.bytes).toBeLessThanOrEqual(450_000)
    // One character past ASCII: the record's text is UTF-16, 200 KB: two fit.
    const wide = `${big.slice(1)}é`
    const mixed = new JournalRing(7, 1_000, 450_000, 0)
    for (let id = 1; id <= 10; id++) mixed.push(recordOf(id, { answer: { headers: {}, body: wide, bodySize: wide.length + 1 } }))
    const read = mixed.records()
    expect(read.map((record) => record.id)).toEqual([9, 10])
    expect(read[1]!.answer!.body).toBe(wide)
    expect(mixed.bytes).toBeLessThanOrEqual(450_000)
    const alone = new JournalRing(7, 1_000, 1_000, 0)
    alone.push(recordOf(1, { answer: { headers: {}, body: big, bodySize: big.length } }))
    expect(alone.records()).toHaveLength(1)
    expect(alone.records()[0]!.answer!.body).toBe(big)
  })

  it('forgets everything when emptied, and keeps going after', () => {
    const ring = new JournalRing(7, 10, 1 << 20, 0)
    for (let id = 1; id <= 25; id++) ring.push(recordOf(id))
    ring.empty()
    expect(ring.records()).toEqual([])
    expect(ring.bytes).toBe(0)
    ring.push(recordOf(26))
    expect(ring.records().map((record) => record.id)).toEqual([26])
  })

  it('a record read before its slot is taken again stays whole', () => {
    const ring = new JournalRing(7, 5, 1 << 20, 0)
    for (let id = 1; id <= 5; id++) ring.push(recordOf(id, { body: new Uint8Array([id, id, id]), bodySize: 3 }))
    const first = ring.records()[0]!
    // Enough traffic to reuse the chunks the first records were packed in.
    for (let id = 6; id <= 5_000; id++) ring.push(recordOf(id, { body: new Uint8Array(300).fill(id & 255), bodySize: 300 }))
    expect(first.id).toBe(1)
    expect([...first.body!]).toEqual([1, 1, 1])
    expect(first.path).toBe('/api/shop/items/1')
    expect(ring.records().map((record) => record.id)).toEqual([4996, 4997, 4998, 4999, 5000])
    expect([...ring.records()[4]!.body!]).toEqual(new Array(300).fill(5000 & 255))
  })
})
