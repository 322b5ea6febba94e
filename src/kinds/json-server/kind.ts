import { isObject, parseJson, refuseInput, type JsonObject } from '../../engine/json-input.ts'
import type { DataKind, DataSet } from '../kind.ts'

const typeOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`)

/** json-server 1.x's db.json names its JSON Schema for editors (`"$schema": "./node_modules/json-server/schema.json"`): not a resource. */
const entriesOf = (db: JsonObject) => Object.entries(db).filter(([name, value]) => !(name === '$schema' && typeof value === 'string'))

/** The top level of a json-server database: every value a resource's array or a singular object, at least one array. */
function looksLikeDb(value: unknown): value is JsonObject {
  if (!isObject(value)) return false
  const values = entriesOf(value).map(([, v]) => v)
  return values.some(Array.isArray) && values.every((v) => Array.isArray(v) || isObject(v))
}

/** Top-level keys that say a JSON document is a spec of another kind, never a database. */
const SPEC_KEYS = new Set(['openapi', 'swagger', 'asyncapi', '__schema'])

/**
 * What a json-server database with a mistake in it looks like: a JSON object naming no spec's key,
 * with an array among its values and at least as many arrays and objects as other values
 * (`{"posts": [...], "count": 5}`, `{"tags": ["x", "y"]}`).
 */
function claimsDb(value: unknown): boolean {
  if (!isObject(value)) return false
  const entries = entriesOf(value)
  if (entries.some(([name]) => SPEC_KEYS.has(name))) return false
  const values = entries.map(([, v]) => v)
  const collections = values.filter((v) => Array.isArray(v) || isObject(v)).length
  return values.some(Array.isArray) && collections * 2 >= values.length
}

/** A collection's records: objects, each id (when given) a non-empty string or a number, none twice. */
function checkRecords(file: string, name: string, records: unknown[]): JsonObject[] {
  const seen = new Map<string, number>()
  records.forEach((record, index) => {
    const at = `${name}[${index}]`
    if (!isObject(record)) refuseInput(file, at, `${at} is ${typeOf(record)}, not a record (an object)`)
    const id = record.id
    if (id === undefined) return
    if (!((typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id)))) {
      refuseInput(file, `${at}.id`, `${at}.id must be a non-empty string or a number, got ${JSON.stringify(id)}`)
    }
    if (id === '.' || id === '..') refuseInput(file, `${at}.id`, `${at}.id "${id}" cannot be used in a URL path (clients resolve it as a dot-segment)`)
    // json-server finds `/posts/1` whether the id is 1 or "1": to it they are the same record.
    const key = String(id)
    const first = seen.get(key)
    if (first !== undefined) refuseInput(file, `${at}.id`, `${name} has id ${JSON.stringify(id)} twice (${name}[${first}] and ${at}); ids must be unique`)
    seen.set(key, index)
  })
  return records as JsonObject[]
}

/**
 * A json-server database (`db.json`): a JSON object whose arrays are resources with their records
 * (`"posts": [{…}]`) and whose objects are singular resources (`"profile": {…}`), as json-server
 * 0.17 and 1.x read it.
 */
export const jsonServerKind: DataKind = {
  name: 'json-server',
  label: 'json-server database',
  detect: {
    extensions: [],
    looksLike: (text) => text.trimStart().startsWith('{') && looksLikeDb(parseJson(text)),
    described: 'json-server database (a JSON object of arrays of records, db.json)',
    claims: (text) => text.trimStart().startsWith('{') && claimsDb(parseJson(text)),
  },
  load(text, file): DataSet {
    const db = parseJson(text)
    if (db === undefined) refuseInput(file, null, 'is not JSON; a json-server database is a JSON object such as {"posts": [{"id": 1, "title": "…"}]}')
    if (!isObject(db)) refuseInput(file, null, `is ${typeOf(db)}; a json-server database is a JSON object whose keys name resources, such as {"posts": [{"id": 1}]}`)
    const entries = entriesOf(db)
    if (entries.length === 0) refuseInput(file, null, 'names no resources; a json-server database is a JSON object such as {"posts": [{"id": 1}]}')
    const set: DataSet = { collections: [], singulars: [] }
    for (const [name, value] of entries) {
      if (name.trim() === '') refuseInput(file, name, 'a resource name is empty')
      if (Array.isArray(value)) set.collections.push({ name, records: checkRecords(file, name, value) })
      else if (isObject(value)) set.singulars.push({ name, value })
      else refuseInput(file, name, `"${name}" is ${typeOf(value)}; each top-level value is an array of records (a resource) or an object (a singular resource)`)
    }
    return set
  },
}
