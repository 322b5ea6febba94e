import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import type { AuthScheme, Fault, Negotiation, OnDelete, PathRules, ResponsePick, SpecFormat } from '../model.ts'
import type { ResponseJson } from './responses.ts'

/**
 * The project file's JSON Schema (schema/mockapi.schema.json) is the source of truth for its shape:
 * the loader checks it, the package publishes it, and `export` points editors at it.
 */

// Two levels up from src/domain, dist/domain or dist/bin is the package root.
export const PROJECT_FILE_SCHEMA_PATH = fileURLToPath(new URL('../../schema/mockapi.schema.json', import.meta.url))

/** What the schema accepts, before defaults: absent lists and maps may also be null. */
export interface RawProjectFile {
  name: string
  slug?: string
  description?: string
  seed?: number | null
  pathRules?: PathRules
  auth?: AuthScheme | AuthScheme[]
  openapiSecurity?: boolean
  negotiation?: Negotiation
  proxy?: { target: string; headers?: Record<string, string> | null; pathRewrite?: Record<string, string> | null }
  resources?: RawResource[] | null
  endpoints?: RawEndpoint[] | null
  webhooks?: RawWebhook[] | null
  imports?: RawImport[] | null
}

export interface RawResource {
  path: string
  fields?: Record<string, string> | null
  count?: number | null
  seed?: number | null
  records?: Record<string, unknown>[] | null
  without?: string[] | null
  onDelete?: OnDelete
  object?: Record<string, unknown>
}

export interface RawEndpoint {
  method: string
  path: string
  status?: number
  headers?: Record<string, string> | null
  delay?: number | string
  fault?: Fault
  auth?: 'none' | AuthScheme | AuthScheme[]
  pick?: ResponsePick
  responses?: ResponseJson[]
  body?: unknown
  text?: string
  file?: string | { name: string; base64: string }
  contentType?: string
  schema?: Record<string, unknown> | boolean
  errorRate?: number
  errorStatus?: number
  proxy?: boolean
  import?: string
  operation?: string
}

export interface RawWebhook {
  name: string
  targetUrl: string
  events?: ('mock.request' | 'mock.error')[] | null
  enabled?: boolean
}

export interface RawImport {
  format?: SpecFormat | null
  title: string
  version?: string | number | null
  source?: string | null
  document?: unknown
}

/** One refusal: the value at `path`, or an unknown key of the mapping at `path`. */
export type SchemaProblem =
  | { kind: 'value'; path: (string | number)[]; message: string }
  | { kind: 'unknown-key'; path: (string | number)[]; key: string; known: string[] }

// The schema's own keyword: what a value must be, completing "<where> …" in the refusal.
const MESSAGE_KEYWORD = 'x-message'

let validator: ValidateFunction<RawProjectFile> | undefined

/** Compiled on first use: `serve` without a project file never pays for it. */
function validate(): ValidateFunction<RawProjectFile> {
  if (!validator) {
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true })
    ajv.addKeyword({ keyword: MESSAGE_KEYWORD, schemaType: 'string' })
    validator = ajv.compile<RawProjectFile>(JSON.parse(readFileSync(PROJECT_FILE_SCHEMA_PATH, 'utf8')) as object)
  }
  return validator
}

/** The instance path as keys and indexes, walking the data so a mapping key "0" stays a string. */
function pathOf(pointer: string, data: unknown): (string | number)[] {
  const path: (string | number)[] = []
  let at = data
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    const step = Array.isArray(at) ? Number(segment) : segment
    path.push(step)
    at = (at as Record<string | number, unknown> | undefined)?.[step]
  }
  return path
}

function problemOf(error: ErrorObject, data: unknown): SchemaProblem {
  const path = pathOf(error.instancePath, data)
  const schema = error.parentSchema as Record<string, unknown> | undefined
  const properties = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>
  if (error.keyword === 'additionalProperties') {
    return { kind: 'unknown-key', path, key: String(error.params.additionalProperty), known: Object.keys(properties) }
  }
  if (error.keyword === 'required') {
    const missing = String(error.params.missingProperty)
    return { kind: 'value', path: [...path, missing], message: String(properties[missing]?.[MESSAGE_KEYWORD] ?? error.message) }
  }
  return { kind: 'value', path, message: String(schema?.[MESSAGE_KEYWORD] ?? error.message) }
}

/**
 * Every way the parsed file breaks the schema (none when it matches). A mapping with an unknown
 * key reports that key, not a required one it lacks: the unknown one is most likely it, misspelt.
 */
export function schemaProblems(data: unknown): { valid: true; file: RawProjectFile } | { valid: false; problems: SchemaProblem[] } {
  const check = validate()
  if (check(data)) return { valid: true, file: data }
  const errors = (check.errors ?? []).filter((error) => error.keyword !== 'if')
  const withUnknownKeys = new Set(errors.filter((e) => e.keyword === 'additionalProperties').map((e) => e.instancePath))
  const problems = errors
    .filter((error) => !(error.keyword === 'required' && withUnknownKeys.has(error.instancePath)))
    .map((error) => problemOf(error, data))
  return { valid: false, problems }
}

/** Optimal string alignment distance: a swapped pair of letters counts as one edit. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}

/** The known name closest to `word`, when it is close enough to be a slip (case aside). */
export function closestName(word: string, known: readonly string[]): string | undefined {
  const allowed = word.length <= 4 ? 1 : 2
  let best: { name: string; distance: number } | undefined
  for (const name of known) {
    const distance = editDistance(word.toLowerCase(), name.toLowerCase())
    if (distance <= allowed && (!best || distance < best.distance)) best = { name, distance }
  }
  return best?.name
}
