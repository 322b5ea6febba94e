import { resolve } from 'node:path'
import SwaggerParser from '@apidevtools/swagger-parser'
import { AppError } from '../errors.ts'
import { normalizeSpec } from './normalize.ts'
import { escapePointer, isObj, type Obj } from './pointer.ts'
import type { SpecDocument, SpecVersion } from './types.ts'

const MAX_ISSUES = 5

export interface LoadOptions {
  /**
   * Fetch from localhost and private addresses too. swagger-parser refuses them by default (SSRF);
   * the CLI, run by the machine's own user, may allow them, a server taking URLs from requests should not.
   */
  allowInternalUrls?: boolean
}

/**
 * Reads a Swagger 2.0 / OpenAPI 3.0 / 3.1 document (file path or http(s) URL, YAML or JSON),
 * refuses invalid ones with INVALID_SPEC and returns it bundled (internal `$ref`s kept, so
 * recursive schemas stay serializable) and normalized for ajv and openapi-sampler.
 */
export async function loadSpec(source: string, options: LoadOptions = {}): Promise<SpecDocument> {
  let document: Obj
  try {
    // bundle() reads the source once and inlines external refs; the copy validated below then needs no base path.
    const parserOptions = { resolve: { http: { safeUrlResolver: !options.allowInternalUrls } } }
    document = (await SwaggerParser.bundle(source, parserOptions as never)) as unknown as Obj
    await SwaggerParser.validate(_forValidation(document) as never)
  } catch (error) {
    throw _invalid(source, error, await _refLocation(source, error))
  }
  const version = _versionOf(document)
  if (!version) throw new AppError('INVALID_SPEC', `${_name(source)}: unsupported version (expected swagger "2.0" or openapi 3.0.x / 3.1.x)`)
  normalizeSpec(document, version)
  const info = isObj(document.info) ? document.info : {}
  return { version, title: typeof info.title === 'string' ? info.title : '', document }
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
  return /^https?:\/\//i.test(source) ? source : (source.split(/[\\/]/).pop() ?? source)
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
async function _refLocation(source: string, error: unknown): Promise<string | null> {
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
  const parsed = await SwaggerParser.parse(source).catch(() => null)
  const pointer = find(parsed, '')
  return pointer === null ? null : `#${pointer}`
}
