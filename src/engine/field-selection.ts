import { parseKeepingNumbers, stringifyKeepingNumbers } from './exact-numbers.ts'

type Json = Record<string, unknown>
/** Wanted names as a tree: `true` keeps the whole value, a subtree keeps those keys of an object. */
type Wanted = Map<string, Wanted | true>

function wantedTree(fields: string[]): Wanted {
  const root: Wanted = new Map()
  for (const field of fields) {
    const keys = field.split('.')
    let node = root
    for (const [at, key] of keys.entries()) {
      const current = node.get(key)
      if (current === true) break
      if (at === keys.length - 1) {
        node.set(key, true)
        break
      }
      const child: Wanted = current ?? new Map()
      node.set(key, child)
      node = child
    }
  }
  return root
}

/** The keys of `record` that `wanted` names, in the record's own order; a nested name reaches into objects only. */
function pick(record: Json, wanted: Wanted): Json {
  const kept: Json = {}
  for (const [key, value] of Object.entries(record)) {
    const want = wanted.get(key)
    if (want === true) kept[key] = value
    else if (want && value !== null && typeof value === 'object' && !Array.isArray(value)) kept[key] = pick(value as Json, want)
  }
  return kept
}

/** `_fields=id,title` on a record's JSON text; numbers past a double's precision keep their digits. */
export function selectFieldsOfRecord(json: string, fields: string[]): string {
  return stringifyKeepingNumbers(pick(parseKeepingNumbers(json) as Json, wantedTree(fields)))
}

/** `_fields` on each record of a list's JSON array text. */
export function selectFieldsOfList(json: string, fields: string[]): string {
  const wanted = wantedTree(fields)
  return stringifyKeepingNumbers((parseKeepingNumbers(json) as Json[]).map((record) => pick(record, wanted)))
}
