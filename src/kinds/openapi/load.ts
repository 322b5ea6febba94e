import { readFile, realpath } from 'node:fs/promises'
import { dirname, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import SwaggerParser from '@apidevtools/swagger-parser'
import { isScalar, parseDocument, parse as parseYaml } from 'yaml'
import { AppError } from '../../errors.ts'
import { normalizeSpec } from './normalize.ts'
import { escapePointer, isObj, resolvePointer, type Obj } from './pointer.ts'
import type { SpecDocument, SpecVersion } from './types.ts'
import { isSpecRuleFailure, ruleWarning, schemaIssues, validationWarnings } from './validation.ts'

const MAX_ISSUES = 5

export interface LoadOptions {
  /**
   * Fetch from localhost and private addresses too. swagger-parser refuses them by default (SSRF);
   * mockapi allows them, from the CLI and from the management API alike: it is a local tool, specs
   * served by a back end on localhost are the common case, and the API needs a token
   * (docs/management-api.md, "Imports", says so).
   */
  allowInternalUrls?: boolean
  /** A local spec may `$ref` files outside its own folder (by default only files under it). */
  allowRefsOutside?: boolean
  /** Refuse a spec swagger-parser calls invalid, rather than import it with warnings. */
  strict?: boolean
}

/** A spec read, with what is wrong in it that the import works around. */
export interface LoadedSpecDocument extends SpecDocument {
  warnings: string[]
}

const isHttp = (location: string) => /^https?:\/\//i.test(location)

/**
 * YAML anchors are shared, not copied, when parsed, but every later step (bundling, validation,
 * storing) walks the spec as a tree: a "billion laughs" spec of a few lines would expand without end.
 * The yaml package refuses documents with too many aliases; what aliases add is bounded on top,
 * since one alias of a large node can still multiply the size.
 */
const MAX_ALIAS_COUNT = 10_000
const MAX_ALIAS_EXPANSION = 1_000_000

/**
 * How many values `root` holds once every shared node (a YAML alias) is counted where it is used,
 * and every reference `follow` finds (a `$ref`) as its target; and how many it holds as written.
 * Linear in what is written: each node's size is worked out once. A node's size stops growing
 * past `limit`; a node that contains itself counts once.
 */
function expansion(root: unknown, options: { limit?: number; follow?: (node: Obj) => { target: unknown } | null } = {}): { expanded: number; written: number } {
  const limit = options.limit ?? Infinity
  const sizes = new Map<object, number>()
  let written = 0
  const sizeOf = (value: unknown): number => {
    if (value === null || typeof value !== 'object') {
      written += 1
      return 1
    }
    const known = sizes.get(value)
    if (known !== undefined) return known
    written += 1
    sizes.set(value, 1)
    let size = 1
    const reference = options.follow?.(value as Obj)
    if (reference) size += sizeOf(reference.target)
    for (const child of Object.values(value)) {
      size += sizeOf(child)
      if (size > limit) break
    }
    sizes.set(value, size)
    return size
  }
  return { expanded: sizeOf(root), written }
}

const TOO_MANY_ALIASES = `its YAML aliases expand too far (over ${MAX_ALIAS_COUNT.toLocaleString('en')} aliases or ${MAX_ALIAS_EXPANSION.toLocaleString('en')} values): a "billion laughs" document?`

function parseSpecYaml(text: string): unknown {
  const json = _plainJson(text)
  if (json !== undefined) return json
  let value: unknown
  try {
    value = parseYaml(text, { maxAliasCount: MAX_ALIAS_COUNT })
  } catch (error) {
    if (error instanceof ReferenceError && /alias count/i.test(error.message)) throw new Error(TOO_MANY_ALIASES)
    // The first line, without the code frame: "… at line 10, column 1:" → "… (10:1)".
    throw new Error(String((error as Error).message).split('\n')[0]!.replace(/ at line (\d+), column (\d+):?$/, ' ($1:$2)'))
  }
  // What aliases add beyond the text itself.
  const { expanded, written } = expansion(value)
  if (expanded - written > MAX_ALIAS_EXPANSION) throw new Error(TOO_MANY_ALIASES)
  return value
}

/**
 * JSON text as the YAML parser would read it, by JSON.parse (a tenth of the time: Slack's 1.2 MB
 * spec took half a second as YAML); undefined for anything else, which the YAML parser then reads
 * and words the errors of. JSON has no aliases, so nothing is shared to expand. A key repeated in
 * one object is left to the YAML parser too, which refuses it where JSON.parse keeps the last.
 */
function _plainJson(text: string): unknown {
  if (!/^\s*[{[]/.test(text)) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  return _hasRepeatedKey(text) ? undefined : value
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const JSON_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d])

/** Whether an object of `text` (valid JSON) names a key twice, compared as decoded strings. */
function _hasRepeatedKey(text: string): boolean {
  const objects: (Set<string> | null)[] = []
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i)
    if (code === 0x7b) objects.push(new Set())
    else if (code === 0x5b) objects.push(null)
    else if (code === 0x7d || code === 0x5d) objects.pop()
    else if (code === QUOTE) {
      let end = i + 1
      let escaped = false
      for (let c = text.charCodeAt(end); c !== QUOTE; c = text.charCodeAt(end)) {
        if (c === BACKSLASH) {
          escaped = true
          end += 2
        } else end += 1
      }
      const keys = objects.at(-1)
      let next = end + 1
      while (JSON_SPACE.has(text.charCodeAt(next))) next += 1
      if (keys && text.charCodeAt(next) === COLON) {
        const key = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end)
        if (keys.has(key)) return true
        keys.add(key)
      }
      i = end
    }
  }
  return false
}

/**
 * Validation (and every later walk of the spec) visits a schema once per place that `$ref`s it, so
 * schemas that each `$ref` the next several times (a "billion laughs" made of `$ref`s) multiply
 * without end. Slack's 174-operation spec expands to about 80,000 values; validating 1,000,000
 * takes about 2 s.
 */
const MAX_REF_EXPANSION = 2_000_000

/** How many values the document holds with every internal `$ref` counted as its target; stops past `limit`. */
function refExpansion(document: Obj, limit: number): number {
  const follow = (node: Obj) => (typeof node.$ref === 'string' && node.$ref.startsWith('#') ? { target: resolvePointer(document, node.$ref.slice(1)) } : null)
  return expansion(document, { limit, follow }).expanded
}

interface RefPolicy {
  parserOptions: object
  /** Why a file was not read: the parser reports a resolver's own error only as "Error reading file". */
  failure(): Error | null
}

/**
 * Where `$ref`s may point: a remote spec only at http(s) URLs; a local one at files under its own
 * folder (symbolic links followed) unless `allowRefsOutside`, and at http(s) URLs.
 */
function refPolicy(source: string, options: LoadOptions): RefPolicy {
  const remote = isHttp(source)
  const folder = remote ? null : realpath(dirname(resolve(source))).catch(() => dirname(resolve(source)))
  let failure: Error | null = null
  const refuse = (message: string): never => {
    failure = new Error(message)
    throw failure
  }
  const readLocal = async (file: { url: string }): Promise<Buffer> => {
    if (remote) refuse(`${source}: $ref "${file.url}" is refused: a spec fetched from a URL may only $ref http(s) URLs`)
    if (/^[a-z][a-z0-9+.-]+:\/\//i.test(file.url) && !/^file:/i.test(file.url)) refuse(`${_name(source)}: $ref "${file.url}" is refused: only files and http(s) URLs are read`)
    let path = file.url
    try {
      if (/^file:/i.test(file.url)) path = fileURLToPath(file.url)
    } catch (error) {
      refuse(`${_name(source)}: $ref "${file.url}" is not a local file URL (${(error as Error).message})`)
    }
    if (!options.allowRefsOutside) {
      const root = await folder!
      const real = await realpath(path).catch(() => resolve(path))
      if (real !== root && !real.startsWith(root + sep)) {
        refuse(`${_name(source)}: $ref "${file.url}" is outside the spec's folder (${root}); --allow-refs-outside reads it`)
      }
    }
    return readFile(path).catch((error: Error) => refuse(`Error opening file ${path}: ${error.message}`))
  }
  return { parserOptions: parserOptions(readLocal, options), failure: () => failure }
}

/** The parser's options: http(s) `$ref`s as `allowInternalUrls` says, every other one through `readLocal`, YAML with our bounds. */
function parserOptions(readLocal: (file: { url: string }) => Promise<Buffer>, options: LoadOptions): SwaggerParser.Options {
  return {
    resolve: {
      http: { safeUrlResolver: !options.allowInternalUrls },
      // Anything that is not http(s) is a file path or file: URL (as the library's own resolver decides).
      file: { canRead: (file: { url: string }) => !isHttp(file.url), read: readLocal },
    },
    parse: {
      yaml: { parse: (file: { data: Buffer | string }) => parseSpecYaml(typeof file.data === 'string' ? file.data : file.data.toString('utf8')) },
    },
  }
}

/**
 * Reads a Swagger 2.0 / OpenAPI 3.0 / 3.1 document (file path or http(s) URL, YAML or JSON) and
 * returns it bundled (internal `$ref`s kept, so recursive schemas stay serializable) and normalized
 * for ajv and openapi-sampler. Refuses with INVALID_SPEC only what cannot be served (a document
 * that does not parse, an unknown version, no paths, a `$ref` that does not resolve); what
 * validation finds wrong besides becomes a warning, or a refusal with `strict`.
 */
export async function loadSpec(source: string, options: LoadOptions = {}, text?: string): Promise<LoadedSpecDocument> {
  const policy = refPolicy(source, options)
  if (text === undefined && isHttp(source)) return load(source, source, policy, options)
  const read = text ?? await readFile(source, 'utf8').catch((error: Error) => {
    throw _invalid(source, new Error(`Error opening file ${resolve(source)}: ${error.message}`), null)
  })
  // Parsed here, its $refs still resolved from `source`.
  return load(parsedDocument(read, source), source, policy, options, source)
}

/**
 * `loadSpec` for a document given as text (YAML or JSON), named `name` in messages. With no folder
 * of its own, it may `$ref` only http(s) URLs.
 */
export async function loadSpecText(text: string, name: string, options: LoadOptions = {}): Promise<LoadedSpecDocument> {
  return load(parsedDocument(text, name), name, textPolicy(name, options), options)
}

function parsedDocument(text: string, name: string): Obj {
  let parsed: unknown
  try {
    parsed = parseSpecYaml(text)
  } catch (error) {
    throw new AppError('INVALID_SPEC', `${_name(name)}: ${(error as Error).message}`)
  }
  if (!isObj(parsed)) throw new AppError('INVALID_SPEC', `${_name(name)}: an OpenAPI or Swagger document is a YAML or JSON mapping`)
  if (isObj(parsed.info) && typeof parsed.info.version === 'number') {
    // Parsed again only then: the number has lost how it was written (`1.0` is 1).
    const node = parseDocument(text).getIn(['info', 'version'], true)
    if (isScalar(node) && typeof node.source === 'string') versionsAsWritten.set(parsed, node.source)
  }
  return parsed
}

/** `info.version` written as a number, as the text wrote it (`1.0`), by the document parsed from that text. */
const versionsAsWritten = new WeakMap<Obj, string>()

/** `base`: where a parsed `input` came from, so its relative `$ref`s resolve from there. */
async function load(input: string | Obj, source: string, policy: RefPolicy, options: LoadOptions, base?: string): Promise<LoadedSpecDocument> {
  const strict = options.strict === true
  // swagger-parser's own first look refuses what the lenient import repairs: it sees the repaired document.
  const warnings = typeof input === 'string' ? [] : _checkRoot(input, source, strict)
  let document: Obj
  // bundle() reads the source once and inlines external refs; the copy validated below then needs no base path.
  try {
    const bundled = base === undefined
      ? SwaggerParser.bundle(input as never, policy.parserOptions as never)
      : SwaggerParser.bundle(base, input as never, policy.parserOptions as never)
    document = (await bundled) as unknown as Obj
    if (refExpansion(document, MAX_REF_EXPANSION) > MAX_REF_EXPANSION) {
      throw new Error(`its $refs expand too far (over ${MAX_REF_EXPANSION.toLocaleString('en')} values once every $ref is followed): schemas that each $ref the next several times?`)
    }
    if (strict) await SwaggerParser.validate(_forValidation(document) as never)
    else warnings.push(...await _validationWarnings(document))
  } catch (error) {
    throw _invalid(source, policy.failure() ?? error, await _refLocation(input, error, policy))
  }
  const version = _versionOf(document)
  if (!version) throw new AppError('INVALID_SPEC', `${_name(source)}: unsupported version (expected swagger "2.0" or openapi 3.0.x / 3.1.x)`)
  normalizeSpec(document, version)
  const info = isObj(document.info) ? document.info : {}
  return { version, title: typeof info.title === 'string' ? info.title : '', document, warnings }
}

/**
 * Validation's findings as warnings. A spec that cannot be dereferenced (a `$ref` to nothing) still
 * throws: it cannot be served. Swagger 2.0's own rules (path parameters declared, operation ids
 * unique…) are checked only once the schema passes, so a spec that fails it is checked again for them.
 */
async function _validationWarnings(document: Obj): Promise<string[]> {
  const version = _versionOf(document)
  const rule = (error: unknown) => [ruleWarning(error as Error)]
  try {
    await SwaggerParser.validate(_forValidation(document) as never)
    return []
  } catch (error) {
    if (isSpecRuleFailure(error)) return rule(error)
    const issues = schemaIssues(error)
    if (issues === null || version === null) throw error
    const warnings = validationWarnings(document, version, issues)
    if (version !== '2.0') return warnings
    return SwaggerParser.validate(_forValidation(document) as never, { validate: { schema: false } }).then(() => warnings, (failure: unknown) => {
      if (!isSpecRuleFailure(failure)) throw failure
      return [...warnings, ...rule(failure)]
    })
  }
}

/**
 * Refuses a document whose version is unknown or that has no paths (nothing to serve); unless
 * `strict`, repairs in place what swagger-parser would refuse before looking further (a version
 * written as a number), with a warning.
 */
function _checkRoot(document: Obj, source: string, strict: boolean): string[] {
  const warnings: string[] = []
  const refuse = (why: string): never => {
    throw new AppError('INVALID_SPEC', `${_name(source)}: ${why}`, { details: { source, issues: [] } })
  }
  // YAML reads `swagger: 2.0` and `openapi: 3.1` as numbers.
  const asString: Record<string, string> = { 'swagger 2': '2.0', 'openapi 3': '3.0.0', 'openapi 3.1': '3.1.0' }
  for (const key of ['swagger', 'openapi'] as const) {
    const repaired = typeof document[key] === 'number' && !strict ? asString[`${key} ${document[key]}`] : undefined
    if (repaired === undefined) continue
    warnings.push(`#/${key}: the number ${String(document[key])}, not a string: read as "${repaired}"`)
    document[key] = repaired
  }
  const version = _versionOf(document)
  if (!version) {
    const written = document.openapi ?? document.swagger
    refuse(written === undefined ? 'no "openapi" or "swagger" version: not an OpenAPI or Swagger document' : `unsupported version ${JSON.stringify(written)} (expected swagger "2.0" or openapi 3.0.x / 3.1.x)`)
  }
  if (document.paths === undefined) {
    if (!(version === '3.1' && document.webhooks !== undefined)) refuse('#/paths: missing: the document describes no operation to serve')
  } else if (!isObj(document.paths)) refuse('#/paths: must be a mapping of paths to operations')
  const info = document.info
  if (!strict && isObj(info) && typeof info.version === 'number') {
    const written = versionsAsWritten.get(document) ?? String(info.version)
    warnings.push(`#/info/version: the number ${written}, not a string: read as "${written}"`)
    info.version = written
  }
  return warnings
}

/** A document given as text has no folder: its `$ref`s may point only at http(s) URLs. */
function textPolicy(name: string, options: LoadOptions): RefPolicy {
  let failure: Error | null = null
  const refuse = async (file: { url: string }): Promise<never> => {
    failure = new Error(`${name}: $ref "${file.url}" is refused: a spec given as text may only $ref http(s) URLs`)
    throw failure
  }
  return { parserOptions: parserOptions(refuse, options), failure: () => failure }
}

function _versionOf(document: Obj): SpecVersion | null {
  if (document.swagger === '2.0') return '2.0'
  const openapi = typeof document.openapi === 'string' ? document.openapi : ''
  if (/^3\.0\.\d+$/.test(openapi)) return '3.0'
  if (/^3\.1\.\d+$/.test(openapi)) return '3.1'
  return null
}

/**
 * validate() dereferences its argument in place, so it gets a copy. HTTP auth scheme names are
 * case-insensitive (RFC 7235), but the 3.1 schema swagger-parser ships only accepts a lowercase
 * `bearer` beside `bearerFormat` (OAI/OpenAPI-Specification#2703): lowercase them in the copy.
 */
function _forValidation(document: Obj): Obj {
  const copy = structuredClone(document)
  const components = isObj(copy.components) ? copy.components : {}
  for (const scheme of Object.values(isObj(components.securitySchemes) ? components.securitySchemes : {})) {
    if (isObj(scheme) && scheme.type === 'http' && typeof scheme.scheme === 'string') scheme.scheme = scheme.scheme.toLowerCase()
  }
  return copy
}

function _name(source: string): string {
  return isHttp(source) ? source : (source.split(/[\\/]/).pop() ?? source)
}

/** One readable line: the parser's head line plus schema issues (`#/…` lines); code frames are dropped. */
function _invalid(source: string, error: unknown, location: string | null): AppError {
  const name = _name(source)
  let text = String((error as Error)?.message ?? error).replaceAll(resolve(source), name)
  if (text.startsWith(`Unable to resolve $ref pointer "${source}"`)) text = `${name}: local and internal addresses are not fetched`
  const [head = 'invalid spec', ...rest] = text.split('\n').map((line) => line.trim()).filter(Boolean)
  const issues = rest.filter((line) => line.startsWith('#/'))
  const more = issues.length > MAX_ISSUES ? ` (and ${issues.length - MAX_ISSUES} more)` : ''
  const message = [head.includes(name) ? head : `${name}: ${head}`, issues.slice(0, MAX_ISSUES).join('; ')].join(' ').trim() + more + (location ? ` (at ${location})` : '')
  return new AppError('INVALID_SPEC', message, { details: { source, issues } })
}

/** Where a missing `$ref` is written: the parser names only the target. */
async function _refLocation(input: string | Obj, error: unknown, policy: RefPolicy): Promise<string | null> {
  const target = (error as { targetRef?: unknown })?.targetRef
  if (typeof target !== 'string') return null
  const find = (node: unknown, pointer: string): string | null => {
    if (typeof node !== 'object' || node === null) return null
    if ((node as Obj).$ref === target) return pointer
    for (const [key, child] of Object.entries(node)) {
      const found = find(child, `${pointer}/${escapePointer(key)}`)
      if (found !== null) return found
    }
    return null
  }
  const parsed = await (SwaggerParser.parse(input as never, policy.parserOptions as never) as unknown as Promise<unknown>).catch(() => null)
  const pointer = find(parsed, '')
  return pointer === null ? null : `#${pointer}`
}
