/**
 * What swagger-parser's validation finds wrong in a spec, as warnings (where and why) rather than a
 * refusal: real specs are often slightly wrong, and Prism serves them. The parser reports schema
 * problems as ajv errors on the dereferenced document; each is said once, where it is written.
 */
import { derefPointer, escapePointer, isObj, resolvePointer, type Obj } from './pointer.ts'
import type { SpecVersion } from './types.ts'

interface AjvIssue {
  instancePath: string
  keyword: string
  message?: string
  params: Record<string, unknown>
}

/** A spec with hundreds of problems says the first ones; the rest are counted. */
const MAX_WARNINGS = 20

// Keywords of JSON Schema 2020-12 (OpenAPI 3.1) that a 3.0 Schema Object does not have: those
// JSON Schema draft-07 (how a 3.0 document's schemas are checked) knows too, and those it ignores.
const KEYWORDS_31_IN_DRAFT_7 = new Set(['const', 'examples', 'if', 'then', 'else', 'contains', 'propertyNames', 'contentMediaType', 'contentEncoding', '$id', '$schema', '$comment'])
const KEYWORDS_31_ONLY = new Set(['prefixItems', '$defs', 'dependentSchemas', 'dependentRequired', 'unevaluatedProperties', 'unevaluatedItems', '$anchor', '$dynamicRef', '$dynamicAnchor'])

/** Whether `error` is the parser's report of schema problems (the document dereferenced fine). */
export function schemaIssues(error: unknown): AjvIssue[] | null {
  const details = (error as { details?: unknown } | null)?.details
  return Array.isArray(details) ? (details as AjvIssue[]) : null
}

/** Whether `error` is the parser's Swagger 2.0 rule check (run only once the schema passes). */
export function isSpecRuleFailure(error: unknown): boolean {
  return error instanceof SyntaxError && error.message.startsWith('Validation failed.')
}

/**
 * A Swagger 2.0 rule's failure as a warning: the parser names the operation by its path as written
 * (`/paths/items/{id}/get is missing path parameter(s) for {id}`); a warning names it by pointer.
 */
export function ruleWarning(error: Error): string {
  const text = error.message.replace(/^Validation failed\.\s*/, '')
  const at = /^\/paths(\/\S*?)\/(get|put|post|delete|options|head|patch)((?:\/\S*)?) (.*)$/.exec(text)
  return at ? `#/paths/${escapePointer(at[1]!)}/${at[2]}${at[3]}: ${at[4]}` : text
}

/** `#/paths/~1pets/get` for an ajv path of the dereferenced document: where the bundled one writes it. */
function writtenAt(document: Obj, instancePath: string): string {
  let pointer = ''
  for (const segment of instancePath.split('/').slice(1)) pointer = `${derefPointer(document, pointer) ?? pointer}/${segment}`
  return `#${derefPointer(document, pointer) ?? pointer}`
}

const isSummary = (issue: AjvIssue) => ['oneOf', 'anyOf', 'if', 'allOf'].includes(issue.keyword)

/** Every path at or above one of `paths` (`/a/b` → `/a/b`, `/a`, ``). */
function atOrAbove(paths: string[]): Set<string> {
  const found = new Set<string>()
  for (const path of paths) {
    for (let end = path.length; end >= 0 && !found.has(path.slice(0, end)); end = path.lastIndexOf('/', end - 1)) found.add(path.slice(0, end))
  }
  return found
}

/** One line per place: what the parser said there, without the noise of the branches it tried. */
export function validationWarnings(document: Obj, version: SpecVersion, issues: AjvIssue[]): string[] {
  // A Reference Object is always one branch a node could have matched: "must have $ref" never helps.
  // A parameter whose `in` is not one OpenAPI knows is ignored: what its place would require of it is noise.
  const badIn = new Set(issues.filter((issue) => issue.keyword === 'enum' && /\/parameters\/\d+\/in$/.test(issue.instancePath)).map((issue) => issue.instancePath.slice(0, -'/in'.length)))
  const real = issues.filter((issue) => !(issue.keyword === 'required' && (issue.params.missingProperty === '$ref' || badIn.has(issue.instancePath))))
  // "must match exactly one schema in oneOf" is explained by what the branches said at or under it.
  const explained = atOrAbove(real.filter((issue) => !isSummary(issue)).map((issue) => issue.instancePath))
  const told = real.filter((issue) => !(isSummary(issue) && explained.has(issue.instancePath)))
  const byPlace = new Map<string, AjvIssue[]>()
  for (const issue of told) {
    const place = writtenAt(document, issue.instancePath)
    const here = byPlace.get(place)
    if (here) here.push(issue)
    else byPlace.set(place, [issue])
  }
  const lines = new Set<string>()
  for (const [place, here] of byPlace) for (const why of _reasons(document, version, place, here)) lines.add(`${place}: ${why}`)
  const all = [...lines]
  return all.length > MAX_WARNINGS ? [...all.slice(0, MAX_WARNINGS), `and ${all.length - MAX_WARNINGS} more validation problems (--strict lists the first ones as a refusal)`] : all
}

function _reasons(document: Obj, version: SpecVersion, place: string, issues: AjvIssue[]): string[] {
  const node = resolvePointer(document, place.slice(1))
  const reasons: string[] = []
  const missing = issues.filter((issue) => issue.keyword === 'required').map((issue) => String(issue.params.missingProperty))
  if (missing.length > 0) reasons.push(_missing(place, [...new Set(missing)]))
  // Each branch of a oneOf (the kinds of parameter) may allow one value: they are said together.
  const enumValues = [...new Set(issues.flatMap((issue) => (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues) ? issue.params.allowedValues : [])))]
  for (const issue of issues) {
    if (issue.keyword === 'required') continue
    if (issue.keyword === 'additionalProperties') reasons.push(_notAllowed(version, String(issue.params.additionalProperty)))
    else if (issue.keyword === 'not' && isObj(node) && 'example' in node && 'examples' in node) reasons.push('has both "example" and "examples" (OpenAPI allows one): "example" is answered, "examples" are there for Prefer: example=name')
    else if (version === '3.0' && place.endsWith('/type') && Array.isArray(node)) reasons.push('a list of types is OpenAPI 3.1 (JSON Schema 2020-12): read as 3.1 reads it')
    else if (issue.keyword === 'enum') reasons.push(_notOneOf(place, node, enumValues))
    else reasons.push(issue.message ?? `fails "${issue.keyword}"`)
  }
  return [...new Set(reasons)]
}

function _missing(place: string, names: string[]): string {
  if (place === '#' && names.includes('info')) return 'no "info" (required): titled after its file name or URL'
  if (place === '#/info' && names.includes('title')) return 'no "title" (required): titled after its file name or URL'
  const quoted = names.map((name) => `"${name}"`)
  if (names.length > 1) return `has neither ${quoted.slice(0, -1).join(', ')} nor ${quoted.at(-1)} (one is required)${names.includes('schema') ? ': any value is accepted' : ''}`
  return `no "${names[0]}" (required)`
}

function _notAllowed(version: SpecVersion, name: string): string {
  if (version === '3.0' && KEYWORDS_31_IN_DRAFT_7.has(name)) return `"${name}" is an OpenAPI 3.1 keyword in a 3.0 document: read as 3.1 reads it`
  if (version === '3.0' && KEYWORDS_31_ONLY.has(name)) return `"${name}" is an OpenAPI 3.1 keyword in a 3.0 document: ignored (a 3.0 document's schemas are read as JSON Schema draft-07)`
  return `"${name}" is not allowed here: ignored`
}

/** An enum failure: the allowed values, and what mockapi does with the value written. */
function _notOneOf(place: string, node: unknown, allowed: unknown[]): string {
  const said = `${JSON.stringify(node)} is not one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}`
  if (/\/(securitySchemes|securityDefinitions)\/[^/]+\/(type|in)$/.test(place)) return `${said}: the scheme is ignored (alternatives naming it open nothing)`
  if (/\/parameters\/\d+\/in$/.test(place)) return `${said}: the parameter is ignored`
  if (place.endsWith('/collectionFormat')) return `${said}: read as "csv"`
  if (place.endsWith('/type')) return `${said}: the type is not checked (any value is accepted there)`
  return said
}
