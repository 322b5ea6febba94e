import type { JournalAnswer, JournalRecord } from './journal-record.ts'

/*
 * One project's journal, packed. A record kept as a JS object survives the young-generation
 * collections and is copied and promoted, with its strings, headers and bodies: with thousands kept
 * per project that was most of what the journal cost per request. Here each record's numbers go into
 * one Float64Array, its text into a Buffer chunk (outside the JS heap, in one write of one string, so
 * its length in characters says where each field ends), and only what is rare (a fault, a note, near
 * misses) stays an object. A record is rebuilt when it is read.
 *
 * Text that is all ASCII (nearly every request's) is kept at one byte a character; any other as
 * UTF-16, which keeps every string exactly (UTF-8 would not keep a lone surrogate, which a JSON body
 * can hold). Half the bytes is half the memory each request writes, and half the ring's.
 */

/** The numbers of one record, at `slot * FIELDS + …` in `numbers`. */
const ID = 0
const AT = 1
const EPOCH = 2
const BODY_SIZE = 3
const STATUS = 4
const DURATION = 5
/** -1: none. */
const ENDPOINT = 6
const ANSWER_SIZE = 7
const FLAGS = 8
/** Where the record's text starts in its chunk; its binary bodies follow the text. */
const OFFSET = 9
/** Lengths in characters of the text's parts, in this order. */
const PATH = 10
const SEARCH = 11
const HEADER_LINES = 12
const PARAMS = 13
const CONTENT_TYPE = 14
const ANSWER_HEADERS = 15
const ANSWER_TEXT = 16
/** Lengths in bytes of the binary bodies, after the text. */
const BODY_BYTES = 17
const ANSWER_BYTES = 18
/** What the record counts against the ring's byte cap. */
const KEPT = 19
const FIELDS = 20

const GRPC = 1
const MATCHED = 2
const HAS_PARAMS = 4
const HAS_CONTENT_TYPE = 8
const HAS_ANSWER = 16
const ANSWER_IS_TEXT = 32
const ANSWER_IS_BYTES = 64
const HAS_BODY = 128
const PROXIED = 256
const NOT_PROXIED = 512
/** The parameters, or the answer's headers, are JSON: a name or value held a line break. */
const PARAMS_JSON = 1024
const HEADERS_JSON = 2048
/** The text is ASCII, kept at one byte a character; else UTF-16. */
const TEXT_ASCII = 4096

/** What few records have, kept as it came. */
type Rare = Pick<JournalRecord, 'answeredBy' | 'fault' | 'note' | 'nearMisses' | 'ruleMisses'>

/** Per-record bookkeeping counted against the byte cap (the numbers, the slot). */
const RECORD_OVERHEAD = 256
const FIRST_CAPACITY = 64
/** Chunks start small (a project with a few requests holds little) and double up to this. */
const FIRST_CHUNK = 16 * 1024
const MAX_CHUNK = 1024 * 1024

/** Method names as constants, so a record's method is no string of its own. */
const METHODS = new Map(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT'].map((name) => [name, name]))

export class JournalRing {
  /** Records that arrived before this clear epoch are not kept. */
  clearedAt: number
  /** What the kept records count against the byte cap. */
  bytes = 0
  private capacity = 0
  /** The oldest record's slot. */
  private head = 0
  private count = 0
  private numbers = new Float64Array(0)
  private methods: string[] = []
  private chunks: (Buffer | null)[] = []
  private rare: (Rare | null)[] = []
  /** Records already rebuilt by a read, until their slot is taken. */
  private rebuilt: (JournalRecord | undefined)[] = []
  private chunk: Buffer | null = null
  private chunkUsed = 0
  /**
   * The last chunk no record names any more, taken again for the next: a new chunk per MiB of
   * traffic would grow the memory outside the heap until a full collection freed the old ones.
   */
  private spare: Buffer | null = null
  /** The last answer's header names and values (`[name, value, …]`), and the lines made of them. */
  private lastHeaders: string[] = []
  private lastHeaderLines = ''

  readonly projectId: number
  /** Records kept at most, and bytes counted at most (the newest is kept whatever its size). */
  private readonly size: number
  private readonly maxBytes: number

  constructor(projectId: number, size: number, maxBytes: number, clearedAt: number) {
    this.projectId = projectId
    this.size = size
    this.maxBytes = maxBytes
    this.clearedAt = clearedAt
  }

  /** Forgets every record; `clearedAt` is the caller's to move. */
  empty(): void {
    this.capacity = this.head = this.count = this.bytes = this.chunkUsed = 0
    this.numbers = new Float64Array(0)
    this.methods = []
    this.chunks = []
    this.rare = []
    this.rebuilt = []
    this.chunk = null
    this.spare = null
  }

  /** Packs the record (the caller's object is not kept), dropping the oldest past the size or byte cap. */
  push(record: JournalRecord): void {
    if (this.count === this.size) this.dropOldest()
    if (this.count === this.capacity) this.grow()
    const answer = record.answer
    let flags = flagsOf(record)
    let params = ''
    if (record.params !== null) {
      const lines = linesOf(record.params)
      if (lines === null) flags |= PARAMS_JSON
      params = lines ?? JSON.stringify(record.params)
    }
    const contentType = record.contentType ?? ''
    let answerHeaders = ''
    if (answer) {
      const lines = this.answerHeaderLines(answer.headers)
      if (lines === null) flags |= HEADERS_JSON
      answerHeaders = lines ?? JSON.stringify(answer.headers)
    }
    const answerText = typeof answer?.body === 'string' ? answer.body : ''
    const text = record.path + record.search + record.headerLines + params + contentType + answerHeaders + answerText
    const body = record.body
    const answerBytes = answer && typeof answer.body !== 'string' ? answer.body : null
    const bodyBytes = body?.byteLength ?? 0
    const answerByteLength = answerBytes?.byteLength ?? 0
    // Room for the text as UTF-8 at its longest (three bytes a UTF-16 unit), so the write is never cut short.
    const chunk = this.room(text.length * 3 + bodyBytes + answerByteLength)
    const offset = this.chunkUsed
    // As many bytes as characters: every one was ASCII. Else written again, as UTF-16.
    let textBytes = chunk.write(text, offset, 'utf8')
    if (textBytes === text.length) flags |= TEXT_ASCII
    else textBytes = chunk.write(text, offset, 'utf16le')
    if (body) chunk.set(body, offset + textBytes)
    if (answerBytes) chunk.set(answerBytes, offset + textBytes + bodyBytes)
    const length = textBytes + bodyBytes + answerByteLength
    this.chunkUsed += length

    const slot = (this.head + this.count) % this.capacity
    const at = slot * FIELDS
    const numbers = this.numbers
    numbers[at + ID] = record.id
    numbers[at + AT] = record.at
    numbers[at + EPOCH] = record.epoch
    numbers[at + BODY_SIZE] = record.bodySize
    numbers[at + STATUS] = record.status
    numbers[at + DURATION] = record.durationMs
    numbers[at + ENDPOINT] = record.endpointId ?? -1
    numbers[at + ANSWER_SIZE] = answer?.bodySize ?? 0
    numbers[at + FLAGS] = flags
    numbers[at + OFFSET] = offset
    numbers[at + PATH] = record.path.length
    numbers[at + SEARCH] = record.search.length
    numbers[at + HEADER_LINES] = record.headerLines.length
    numbers[at + PARAMS] = params.length
    numbers[at + CONTENT_TYPE] = contentType.length
    numbers[at + ANSWER_HEADERS] = answerHeaders.length
    numbers[at + ANSWER_TEXT] = answerText.length
    numbers[at + BODY_BYTES] = bodyBytes
    numbers[at + ANSWER_BYTES] = answerByteLength
    numbers[at + KEPT] = RECORD_OVERHEAD + length
    this.methods[slot] = METHODS.get(record.method) ?? record.method
    this.chunks[slot] = chunk
    this.rare[slot] = record.answeredBy != null || record.fault != null || record.note != null || record.nearMisses != null || record.ruleMisses != null
      ? { answeredBy: record.answeredBy, fault: record.fault, note: record.note, nearMisses: record.nearMisses, ruleMisses: record.ruleMisses }
      : null
    this.rebuilt[slot] = undefined
    this.count += 1
    this.bytes += RECORD_OVERHEAD + length
    while (this.bytes > this.maxBytes && this.count > 1) this.dropOldest()
  }

  /**
   * An answer's headers as lines: those of the answer before when they are the same names and
   * values in the same order, as most answers' are (the CORS pair, the type, often the length).
   * Comparing them costs a fraction of making the lines again and checking each for a line break.
   */
  private answerHeaderLines(headers: Record<string, string>): string | null {
    const last = this.lastHeaders
    let at = 0
    for (const name in headers) {
      if (last[at] !== name || last[at + 1] !== headers[name]) return this.rememberHeaders(headers)
      at += 2
    }
    return at === last.length ? this.lastHeaderLines : this.rememberHeaders(headers)
  }

  private rememberHeaders(headers: Record<string, string>): string | null {
    const lines = linesOf(headers)
    if (lines === null) return null
    const pairs: string[] = []
    for (const name in headers) pairs.push(name, headers[name]!)
    this.lastHeaders = pairs
    this.lastHeaderLines = lines
    return lines
  }

  /** The records, oldest first, rebuilt as objects (once per record: a second read finds them made). */
  records(): JournalRecord[] {
    const records = new Array<JournalRecord>(this.count)
    for (let i = 0; i < this.count; i++) {
      const slot = (this.head + i) % this.capacity
      records[i] = this.rebuilt[slot] ??= this.rebuild(slot)
    }
    return records
  }

  private rebuild(slot: number): JournalRecord {
    const numbers = this.numbers
    const at = slot * FIELDS
    const chunk = this.chunks[slot]!
    const flags = numbers[at + FLAGS]!
    let start = numbers[at + OFFSET]!
    const textLength = numbers[at + PATH]! + numbers[at + SEARCH]! + numbers[at + HEADER_LINES]! + numbers[at + PARAMS]! + numbers[at + CONTENT_TYPE]! + numbers[at + ANSWER_HEADERS]! + numbers[at + ANSWER_TEXT]!
    const textBytes = flags & TEXT_ASCII ? textLength : textLength * 2
    const text = chunk.toString(flags & TEXT_ASCII ? 'latin1' : 'utf16le', start, start + textBytes)
    let cursor = 0
    const next = (field: number) => text.slice(cursor, (cursor += numbers[at + field]!))
    const path = next(PATH)
    const search = next(SEARCH)
    const headerLines = next(HEADER_LINES)
    const params = next(PARAMS)
    const contentType = next(CONTENT_TYPE)
    const answerHeaders = next(ANSWER_HEADERS)
    const answerText = next(ANSWER_TEXT)
    start += textBytes
    const bodyBytes = numbers[at + BODY_BYTES]!
    // Copied: a view would keep the whole chunk alive for as long as a reader keeps the record.
    const body = flags & HAS_BODY ? Buffer.from(chunk.subarray(start, start + bodyBytes)) : null
    start += bodyBytes
    let answer: JournalAnswer | null = null
    if (flags & HAS_ANSWER) {
      const answerBody = flags & ANSWER_IS_TEXT ? answerText : flags & ANSWER_IS_BYTES ? Buffer.from(chunk.subarray(start, start + numbers[at + ANSWER_BYTES]!)) : null
      answer = { headers: flags & HEADERS_JSON ? (JSON.parse(answerHeaders) as Record<string, string>) : recordOfLines(answerHeaders), body: answerBody, bodySize: numbers[at + ANSWER_SIZE]! }
    }
    const rare = this.rare[slot]
    const endpointId = numbers[at + ENDPOINT]!
    return {
      id: numbers[at + ID]!,
      projectId: this.projectId,
      at: numbers[at + AT]!,
      epoch: numbers[at + EPOCH]!,
      protocol: flags & GRPC ? 'grpc' : 'http',
      method: this.methods[slot]!,
      path,
      search,
      headerLines,
      params: flags & HAS_PARAMS ? (flags & PARAMS_JSON ? (JSON.parse(params) as Record<string, string>) : recordOfLines(params)) : null,
      body,
      bodySize: numbers[at + BODY_SIZE]!,
      contentType: flags & HAS_CONTENT_TYPE ? contentType : null,
      status: numbers[at + STATUS]!,
      durationMs: numbers[at + DURATION]!,
      endpointId: endpointId === -1 ? null : endpointId,
      answeredBy: rare?.answeredBy ?? null,
      matched: (flags & MATCHED) !== 0,
      fault: rare?.fault ?? null,
      note: rare?.note ?? null,
      answer,
      nearMisses: rare?.nearMisses ?? null,
      ruleMisses: rare?.ruleMisses ?? null,
      proxied: flags & PROXIED ? true : flags & NOT_PROXIED ? false : undefined,
    }
  }

  /** A chunk with `length` bytes free: the current one, or a new one (twice the last, up to a MiB, or the record's size). */
  private room(length: number): Buffer {
    const current = this.chunk
    if (current && this.chunkUsed + length <= current.byteLength) return current
    const size = Math.max(length, current ? Math.min(current.byteLength * 2, MAX_CHUNK) : FIRST_CHUNK)
    const spare = this.spare
    this.spare = null
    // Unpooled: a pooled slice would share 8 KiB with whatever else the pool gave out.
    this.chunk = spare && spare.byteLength >= size ? spare : Buffer.allocUnsafeSlow(size)
    this.chunkUsed = 0
    return this.chunk
  }

  private dropOldest(): void {
    const slot = this.head
    this.bytes -= this.numbers[slot * FIELDS + KEPT]!
    const chunk = this.chunks[slot]!
    this.chunks[slot] = null
    this.rare[slot] = null
    this.rebuilt[slot] = undefined
    this.head = (this.head + 1) % this.capacity
    this.count -= 1
    // Records fill chunks in order, so a chunk the next record is not in holds no record any more.
    if (chunk !== this.chunk && (this.count === 0 || this.chunks[this.head] !== chunk)) this.spare = chunk
  }

  /** Twice the slots (up to the size), the records copied oldest first. */
  private grow(): void {
    const capacity = Math.min(this.size, Math.max(FIRST_CAPACITY, this.capacity * 2))
    const numbers = new Float64Array(capacity * FIELDS)
    const methods = new Array<string>(capacity)
    const chunks = new Array<Buffer | null>(capacity).fill(null)
    const rare = new Array<Rare | null>(capacity).fill(null)
    const rebuilt = new Array<JournalRecord | undefined>(capacity)
    for (let i = 0; i < this.count; i++) {
      const slot = (this.head + i) % this.capacity
      numbers.set(this.numbers.subarray(slot * FIELDS, slot * FIELDS + FIELDS), i * FIELDS)
      methods[i] = this.methods[slot]!
      chunks[i] = this.chunks[slot]!
      rare[i] = this.rare[slot]!
      rebuilt[i] = this.rebuilt[slot]
    }
    this.capacity = capacity
    this.numbers = numbers
    this.methods = methods
    this.chunks = chunks
    this.rare = rare
    this.rebuilt = rebuilt
    this.head = 0
  }
}

/**
 * A string record as `name\nvalue\n` lines, some ten times cheaper than JSON for a few headers;
 * null when a name or value holds a line break (a decoded path parameter can).
 */
function linesOf(record: Record<string, string>): string | null {
  let lines = ''
  for (const name in record) {
    const value = record[name]!
    if (name.includes('\n') || value.includes('\n')) return null
    lines += name + '\n' + value + '\n'
  }
  return lines
}

function recordOfLines(lines: string): Record<string, string> {
  const record: Record<string, string> = {}
  const parts = lines.split('\n')
  for (let i = 0; i + 1 < parts.length; i += 2) {
    // Defined, not assigned: a header or parameter named `__proto__` stays a field.
    Object.defineProperty(record, parts[i]!, { value: parts[i + 1]!, enumerable: true, writable: true, configurable: true })
  }
  return record
}

function flagsOf(record: JournalRecord): number {
  const answer = record.answer
  let flags = 0
  if (record.protocol === 'grpc') flags |= GRPC
  if (record.matched) flags |= MATCHED
  if (record.params !== null) flags |= HAS_PARAMS
  if (record.contentType !== null) flags |= HAS_CONTENT_TYPE
  if (record.body !== null) flags |= HAS_BODY
  if (answer) flags |= HAS_ANSWER | (typeof answer.body === 'string' ? ANSWER_IS_TEXT : answer.body ? ANSWER_IS_BYTES : 0)
  if (record.proxied === true) flags |= PROXIED
  else if (record.proxied === false) flags |= NOT_PROXIED
  return flags
}
