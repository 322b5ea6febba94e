import type { AuthRequirement } from '../../engine/auth-check.ts'
import type { SpecDocument } from '../../model.ts'
import { escapePointer, isObj, pointerOfRef, resolvePointer, type Obj } from './pointer.ts'

/** Per stored document (rebuilt with it), the requirements of each operation by its pointer. */
const cache = new WeakMap<Obj, Map<string, AuthRequirement[][] | null>>()

function followRef(document: Obj, node: unknown): unknown {
  if (!isObj(node) || typeof node.$ref !== 'string') return node
  const pointer = pointerOfRef(node.$ref)
  return pointer === null ? undefined : resolvePointer(document, pointer)
}

/** An HTTP token (RFC 9110): what a header name, or an auth scheme, may be. */
const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/

/**
 * What a security scheme asks a request for. `open`: nothing a request can show (mutualTLS), so it
 * passes; `unknown`: no scheme the spec defines or that can be read, so it opens nothing.
 */
function requirementOf(scheme: unknown): AuthRequirement | 'open' | 'unknown' {
  if (!isObj(scheme)) return 'unknown'
  const place = scheme.in
  switch (scheme.type) {
    case 'apiKey':
      // A header name no request can carry ("api key") stays required: it is never present, so 401.
      if ((place === 'header' || place === 'query' || place === 'cookie') && typeof scheme.name === 'string' && scheme.name !== '') return { type: 'present', in: place, name: scheme.name }
      return 'unknown'
    case 'http': {
      const name = typeof scheme.scheme === 'string' && TOKEN.test(scheme.scheme) ? scheme.scheme : 'Bearer'
      return { type: 'http', scheme: name.toLowerCase() === 'bearer' ? 'Bearer' : name.toLowerCase() === 'basic' ? 'Basic' : name }
    }
    // Swagger 2.0's Basic scheme.
    case 'basic':
      return { type: 'http', scheme: 'Basic' }
    case 'oauth2':
    case 'openIdConnect':
      return { type: 'http', scheme: 'Bearer' }
    case 'mutualTLS':
      return 'open'
    default:
      return 'unknown'
  }
}

/** What an operation whose every alternative names an undefined scheme asks for: something, not nothing. */
const FALLBACK: AuthRequirement[][] = [[{ type: 'http', scheme: 'Bearer' }]]

function schemesOf(document: Obj): Obj {
  const components = isObj(document.components) ? document.components.securitySchemes : undefined
  return isObj(components) ? components : isObj(document.securityDefinitions) ? document.securityDefinitions : {}
}

function compute(document: Obj, pointer: string): AuthRequirement[][] | null {
  const operation = resolvePointer(document, pointer)
  const declared = isObj(operation) && Array.isArray(operation.security) ? operation.security : Array.isArray(document.security) ? document.security : null
  if (declared === null) return null
  const schemes = schemesOf(document)
  const alternatives: AuthRequirement[][] = []
  for (const alternative of declared) {
    if (!isObj(alternative)) continue
    const requirements: AuthRequirement[] = []
    let unknown = false
    for (const name of Object.keys(alternative)) {
      const requirement = requirementOf(followRef(document, Object.hasOwn(schemes, name) ? schemes[name] : undefined))
      if (requirement === 'unknown') unknown = true
      else if (requirement !== 'open') requirements.push(requirement)
    }
    // A misspelt scheme name opens nothing: its alternative is dropped, not read as public.
    if (unknown) continue
    // An empty alternative (`{}`), or one of schemes a request cannot show (mutualTLS), lets anyone in.
    if (requirements.length === 0) return []
    alternatives.push(requirements)
  }
  return declared.length > 0 && alternatives.length === 0 ? FALLBACK : alternatives
}

/**
 * An operation's `security` (else the document's), read as requirements: the outer list ORs, an
 * inner one ANDs; `[]` is public; null: the spec says nothing, so the project's auth applies.
 */
export function operationSecurity(spec: SpecDocument, pointer: string): AuthRequirement[][] | null {
  let byPointer = cache.get(spec.document)
  if (!byPointer) cache.set(spec.document, (byPointer = new Map()))
  if (!byPointer.has(pointer)) byPointer.set(pointer, compute(spec.document, pointer))
  return byPointer.get(pointer)!
}

/** What an import says of the spec's security: header names no request can carry, scheme names it never defines. */
export function securityWarnings(document: Obj): string[] {
  const schemes = schemesOf(document)
  const warnings: string[] = []
  for (const [name, raw] of Object.entries(schemes)) {
    const scheme = followRef(document, raw)
    if (isObj(scheme) && scheme.type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string' && !TOKEN.test(scheme.name)) {
      warnings.push(`security scheme "${name}": header name "${scheme.name}" is not a valid header name, so no request carries it: its operations answer 401`)
    }
  }
  // Said where each list is written: the root's, or an operation's (which replaces it).
  const lists: [string, unknown][] = [['#/security', document.security]]
  for (const [path, item] of Object.entries(isObj(document.paths) ? document.paths : {})) {
    if (isObj(item)) for (const [method, operation] of Object.entries(item)) if (isObj(operation)) lists.push([`#/paths/${escapePointer(path)}/${method}/security`, operation.security])
  }
  for (const [where, list] of lists) {
    if (!Array.isArray(list)) continue
    const undefinedNames = new Set<string>()
    for (const alternative of list) if (isObj(alternative)) for (const name of Object.keys(alternative)) if (!Object.hasOwn(schemes, name)) undefinedNames.add(name)
    if (undefinedNames.size > 0) {
      warnings.push(`${where}: names undefined scheme(s) ${[...undefinedNames].map((n) => `"${n}"`).join(', ')}: alternatives naming them are ignored (an operation left with none asks for a bearer token)`)
    }
  }
  return warnings
}
