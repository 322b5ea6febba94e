import type { FieldCondition, SortKey } from '../model.ts'

/**
 * SQL of record lists, built as fragments: text plus the values bound to its `?`s, in order. Every
 * value a client sends (field names as JSON paths, operands, patterns, directions' fields) is bound;
 * the text follows only the query's shape, so a statement cache keyed by it stays small.
 */
export class Fragment {
  readonly text: string
  readonly params: readonly unknown[]
  constructor(text: string, params: readonly unknown[]) {
    this.text = text
    this.params = params
  }
}

/** A fragment from a template: interpolated fragments are spliced, any other value is bound. */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Fragment {
  let text = strings[0]!
  const params: unknown[] = []
  values.forEach((value, at) => {
    if (value instanceof Fragment) {
      text += value.text
      params.push(...value.params)
    } else {
      text += '?'
      params.push(value)
    }
    text += strings[at + 1]!
  })
  return new Fragment(text, params)
}

export function join(fragments: Fragment[], separator: string): Fragment {
  return new Fragment(fragments.map((f) => f.text).join(separator), fragments.flatMap((f) => f.params))
}

/** Text that is ours, never a client's (keywords, aliases). */
export const raw = (text: string): Fragment => new Fragment(text, [])

const NUMERIC = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?)?$/
/** Any text sorts before a BLOB in SQLite, and any number before text: the bounds of a type's range. */
const AFTER_ALL_TEXT = Buffer.alloc(0)
const BEFORE_ALL_TEXT = ''

/**
 * A field name becomes a JSON path bound as a parameter (never spliced into SQL).
 * Dots address nested fields, as json-server does: `author.name` → `$."author"."name"`.
 */
export function toJsonPath(field: string): string {
  return '$' + field.split('.').map((key) => `."${key}"`).join('')
}

/**
 * The JSON texts a query value may stand for: the string itself, and its number or boolean
 * reading, so `?views=10` matches `10` and `"10"`, `?done=true` matches `true`.
 */
export function toJsonCandidates(values: string[]): string {
  const candidates = new Set<string>()
  for (const value of values) {
    candidates.add(JSON.stringify(value))
    if (NUMERIC.test(value) && Number.isFinite(Number(value))) candidates.add(JSON.stringify(Number(value)))
    // Stored numbers keep the digits they were sent with (an id past 2^53, `1.50`): match those too.
    if (JSON_NUMBER.test(value)) candidates.add(value)
    if (value === 'true' || value === 'false' || value === 'null') candidates.add(value)
  }
  return JSON.stringify([...candidates])
}

/** `YYYY-MM-DD` `days` after the date written at the start of `iso` (UTC calendar arithmetic). */
function dayShift(iso: RegExpExecArray, days: number): string {
  return new Date(Date.UTC(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3]) + days)).toISOString().slice(0, 10)
}

function isCalendarDate(iso: RegExpExecArray): boolean {
  const date = new Date(Date.UTC(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3])))
  return date.getUTCMonth() === Number(iso[2]) - 1 && date.getUTCDate() === Number(iso[3])
}

/**
 * The values one condition binds. A comparison reads its operand as a number when it is one, as
 * an instant when it is an ISO date, else as text; `lower`/`upper` keep it to values of that type
 * (a date's written day is within a day of its UTC day, so two or three days bound it as text),
 * which is also the range a field index is walked over.
 */
export interface Bound {
  field: string
  op: string
  cands: string | null
  operand: unknown
  lower: unknown
  upper: unknown
  /** The lower-cased text `contains`… look for; for their `-any` forms (a repeated key), a JSON array of such texts. */
  needle: string | null
  /** 1 when the needle is ASCII: SQLite's own lower() then folds as JavaScript's would, without a call into JavaScript per value. */
  ascii: number
  slot: number | null
}

const COMPARISONS = new Set(['lt', 'lte', 'gt', 'gte'])

/**
 * The conditions bound, equalities first: an equality has SQL of its own (the common filter, kept
 * as quick as before operators), the others share one text, so the text depends only on how many
 * of each there are.
 */
export function bindAll(conditions: FieldCondition[]): Bound[] {
  const bounds = conditions.map((condition, slot) => bind(condition, slot))
  return [...bounds.filter((b) => b.op === 'eq'), ...bounds.filter((b) => b.op !== 'eq')]
}

function bind(condition: FieldCondition, slot: number): Bound {
  // Filled in with Object.assign: V8 takes a slow path for a literal spreading an object then adding fields.
  const bound: Bound = { field: condition.field, op: condition.op, cands: null, operand: null, lower: null, upper: null, needle: null, ascii: 0, slot: null }
  const value = condition.values[0] ?? ''
  if (condition.op === 'eq' || condition.op === 'in' || condition.op === 'ne') {
    return Object.assign(bound, { op: condition.op === 'ne' ? 'ne' : 'eq', cands: toJsonCandidates(condition.values) })
  }
  if (condition.op === 'like') return Object.assign(bound, { slot })
  if (!COMPARISONS.has(condition.op)) {
    const ascii = condition.values.every(isAscii) ? 1 : 0
    // Repeated, any of the needles will do: they go as a JSON array to a test of their own.
    if (condition.values.length > 1) return Object.assign(bound, { op: `${condition.op}-any`, needle: JSON.stringify(condition.values.map((v) => v.toLowerCase())), ascii })
    return Object.assign(bound, { needle: value.toLowerCase(), ascii })
  }
  const upward = condition.op === 'gt' || condition.op === 'gte'
  if (NUMERIC.test(value) && Number.isFinite(Number(value))) {
    return Object.assign(bound, { operand: Number(value), lower: -Infinity, upper: BEFORE_ALL_TEXT })
  }
  const iso = ISO_DATE.exec(value)
  if (iso && isCalendarDate(iso)) {
    return upward
      ? Object.assign(bound, { op: `date-${condition.op}`, operand: value, lower: dayShift(iso, -2), upper: AFTER_ALL_TEXT })
      : Object.assign(bound, { op: `date-${condition.op}`, operand: value, lower: BEFORE_ALL_TEXT, upper: dayShift(iso, 3) })
  }
  return Object.assign(bound, { operand: value, lower: BEFORE_ALL_TEXT, upper: AFTER_ALL_TEXT })
}

/**
 * One condition as a test of a value (`value`: the SQL value, `->>`; `json`: its JSON text, `->`).
 * All operators share this one text, the operator being bound: however filters combine, their
 * SQL only grows with their number.
 */
export function conditionTest(b: Bound, value: Fragment, json: Fragment): Fragment {
  if (b.op === 'eq') return sql`${json} IN (SELECT value FROM json_each(${b.cands}))`
  const v = value
  const folded = sql`iif(${b.ascii}, lower(${v}), mockapi_fold(${v}))`
  return sql`(CASE ${b.op}
    WHEN 'ne' THEN coalesce(${json} IN (SELECT value FROM json_each(${b.cands})), 0) = 0
    WHEN 'gt' THEN ${v} > ${b.operand} AND ${v} < ${b.upper}
    WHEN 'gte' THEN ${v} >= ${b.operand} AND ${v} < ${b.upper}
    WHEN 'lt' THEN ${v} < ${b.operand} AND ${v} >= ${b.lower}
    WHEN 'lte' THEN ${v} <= ${b.operand} AND ${v} >= ${b.lower}
    WHEN 'date-gt' THEN ${v} >= ${b.lower} AND ${v} < ${b.upper} AND unixepoch(${v}, 'subsec') > unixepoch(${b.operand}, 'subsec')
    WHEN 'date-gte' THEN ${v} >= ${b.lower} AND ${v} < ${b.upper} AND unixepoch(${v}, 'subsec') >= unixepoch(${b.operand}, 'subsec')
    WHEN 'date-lt' THEN ${v} >= ${b.lower} AND ${v} < ${b.upper} AND unixepoch(${v}, 'subsec') < unixepoch(${b.operand}, 'subsec')
    WHEN 'date-lte' THEN ${v} >= ${b.lower} AND ${v} < ${b.upper} AND unixepoch(${v}, 'subsec') <= unixepoch(${b.operand}, 'subsec')
    WHEN 'contains' THEN typeof(${v}) = 'text' AND instr(${folded}, ${b.needle}) > 0
    WHEN 'startsWith' THEN typeof(${v}) = 'text' AND substr(${folded}, 1, length(${b.needle})) = ${b.needle}
    WHEN 'endsWith' THEN typeof(${v}) = 'text' AND (${b.needle} = '' OR substr(${folded}, -length(${b.needle})) = ${b.needle})
    WHEN 'contains-any' THEN typeof(${v}) = 'text' AND EXISTS (SELECT 1 FROM json_each(${b.needle}) n WHERE instr(${folded}, n.value) > 0)
    WHEN 'startsWith-any' THEN typeof(${v}) = 'text' AND EXISTS (SELECT 1 FROM json_each(${b.needle}) n WHERE substr(${folded}, 1, length(n.value)) = n.value)
    WHEN 'endsWith-any' THEN typeof(${v}) = 'text' AND EXISTS (SELECT 1 FROM json_each(${b.needle}) n WHERE n.value = '' OR substr(${folded}, -length(n.value)) = n.value)
    WHEN 'like' THEN typeof(${v}) IN ('text', 'integer', 'real') AND mockapi_match(${b.slot}, ${v})
  END)`
}

/**
 * The part of a field index one condition can walk: equal JSON texts, or a range of values
 * (which `conditionTest` then narrows); null when it needs every entry (`ne`, `contains`, `like`…).
 */
export function indexRange(b: Bound): { kind: 'json'; cands: string } | { kind: 'range'; lower: unknown; upper: unknown } | null {
  if (b.op === 'eq') return { kind: 'json', cands: b.cands! }
  if (b.op.startsWith('date-')) return { kind: 'range', lower: b.lower, upper: b.upper }
  if (b.op === 'gt' || b.op === 'gte') return { kind: 'range', lower: b.operand, upper: b.upper }
  if (b.op === 'lt' || b.op === 'lte') return { kind: 'range', lower: b.lower, upper: b.operand }
  return null
}

export type IndexRange = NonNullable<ReturnType<typeof indexRange>>

/** SQLite's order of values: numbers, then text (by UTF-8 bytes), then BLOBs. */
function compareValues(a: unknown, b: unknown): number {
  const rank = (value: unknown) => (typeof value === 'number' ? 0 : typeof value === 'string' ? 1 : 2)
  if (rank(a) !== rank(b)) return rank(a) - rank(b)
  if (typeof a === 'number') return a - (b as number)
  if (typeof a === 'string') return Buffer.compare(Buffer.from(a), Buffer.from(b as string))
  return Buffer.compare(a as Buffer, b as Buffer)
}

/**
 * The index walks a list's conditions allow: each equality's values, and per field the range all
 * its comparisons share (`price:gte=10&price:lte=20` walks 10 to 20, not everything from 10 on).
 * `covers` names the one condition a walk makes true by itself (an equality), which then needs no test.
 */
export function indexWalks(bounds: Bound[]): { field: string; range: IndexRange; covers: number | null }[] {
  const walks: { field: string; range: IndexRange; covers: number | null }[] = []
  const byField = new Map<string, { lower: unknown; upper: unknown }>()
  bounds.forEach((bound, at) => {
    const range = indexRange(bound)
    if (range === null) return
    if (range.kind === 'json') {
      walks.push({ field: bound.field, range, covers: at })
      return
    }
    const shared = byField.get(bound.field)
    if (!shared) byField.set(bound.field, { lower: range.lower, upper: range.upper })
    else {
      if (compareValues(range.lower, shared.lower) > 0) shared.lower = range.lower
      if (compareValues(range.upper, shared.upper) < 0) shared.upper = range.upper
    }
  })
  for (const [field, { lower, upper }] of byField) walks.push({ field, range: { kind: 'range', lower, upper }, covers: null })
  return walks
}

/** The entries of the field index (aliased `alias`) that `range` walks. */
export function walk(alias: string, range: IndexRange): Fragment {
  const entry = raw(alias)
  return range.kind === 'json'
    ? sql`${entry}.json IN (SELECT value FROM json_each(${range.cands}))`
    : sql`${entry}.value >= ${range.lower} AND ${entry}.value <= ${range.upper}`
}

/** Values are joined with this in record_text (migration 0200): a search containing it reads the records instead. */
const TEXT_SEPARATOR = '\u001f'

/** The FTS5 phrase that finds `needle` in record_text, or null when the trigram index cannot (under 3 characters). */
export function textPhrase(needle: string): string | null {
  if ([...needle].length < 3 || needle.includes(TEXT_SEPARATOR)) return null
  return `"${needle.replaceAll('"', '""')}"`
}

// Without the letters (the Kelvin sign, a dotted capital I) whose JavaScript lower case is ASCII.
const isAscii = (text: string) => /^[\x00-\x7f]*$/.test(text)

/** `q` over the record `r`: through record_text when `phrase` is given, else by reading every string value. */
export function qTest(needle: string, phrase: string | null): Fragment {
  return phrase === null
    ? sql`EXISTS (SELECT 1 FROM json_tree(r.data) t WHERE t.type = 'text' AND instr(iif(${isAscii(needle) ? 1 : 0}, lower(t.value), mockapi_fold(t.value)), ${needle}) > 0)`
    : sql`r.seq IN (SELECT rowid FROM record_text WHERE record_text MATCH ${phrase})`
}

/**
 * ORDER BY of a scan: each key's missing values (or null) last, then ties by insertion order,
 * newest first when the first key descends; records missing the first key come last, oldest first.
 */
export function scanOrder(sort: SortKey[]): Fragment {
  if (sort.length === 0) return raw('ORDER BY r.seq')
  const keys = sort.map(({ field, descending }) => {
    const path = toJsonPath(field)
    return sql`(r.data ->> ${path}) IS NULL, r.data ->> ${path}${raw(descending ? ' DESC' : '')}`
  })
  const first = toJsonPath(sort[0]!.field)
  const ties = sort[0]!.descending ? sql`CASE WHEN (r.data ->> ${first}) IS NULL THEN r.seq ELSE -r.seq END` : raw('r.seq')
  return sql`ORDER BY ${join(keys, ', ')}, ${ties}`
}

/**
 * A sorted page through the field index: walks the first key's index in order (its values, then
 * the records without it) and stops after the page; later keys break ties from their own entries.
 */
export function sortPageSql(collectionId: number, sort: SortKey[], where: Fragment, limit: number, offset: number): Fragment {
  const [first, ...rest] = sort
  const joins = join(rest.map((key, at) =>
    sql` JOIN field_values ${raw(`s${at + 1}`)} ON ${raw(`s${at + 1}`)}.collection_id = ${collectionId} AND ${raw(`s${at + 1}`)}.field = ${key.field} AND ${raw(`s${at + 1}`)}.seq = s0.seq`), '')
  const later = rest.map((key, at) => raw(`s${at + 1}.value IS NULL, s${at + 1}.value${key.descending ? ' DESC' : ''}, `))
  const part = (present: boolean) => {
    const order = present
      ? raw(`s0.value${first!.descending ? ' DESC' : ''}, ${later.map((f) => f.text).join('')}s0.seq${first!.descending ? ' DESC' : ''}`)
      : raw(`${later.map((f) => f.text).join('')}s0.seq`)
    return sql`SELECT * FROM (SELECT r.data AS data FROM field_values s0 JOIN records r ON r.seq = s0.seq${joins}
      WHERE s0.collection_id = ${collectionId} AND s0.field = ${first!.field} AND s0.value IS ${raw(present ? 'NOT ' : '')}NULL${where}
      ORDER BY ${order})`
  }
  return sql`${part(true)} UNION ALL ${part(false)} LIMIT ${limit} OFFSET ${offset}`
}
