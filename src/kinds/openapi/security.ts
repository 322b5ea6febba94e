import type { AuthRequirement } from '../../engine/auth-check.ts'
import type { SpecDocument } from '../../model.ts'
import { isObj, pointerOfRef, resolvePointer, type Obj } from './pointer.ts'

/** Per stored document (rebuilt with it), the requirements of each operation by its pointer. */
const cache = new WeakMap<Obj, Map<string, AuthRequirement[][] | null>>()

function followRef(document: Obj, node: unknown): unknown {
  if (!isObj(node) || typeof node.$ref !== 'string') return node
  const pointer = pointerOfRef(node.$ref)
  return pointer === null ? undefined : resolvePointer(document, pointer)
}

/** What a security scheme asks a request for; null: nothing a request can show (mutualTLS), so it passes. */
function requirementOf(scheme: unknown): AuthRequirement | null {
  if (!isObj(scheme)) return null
  const place = scheme.in
  switch (scheme.type) {
    case 'apiKey':
      if ((place === 'header' || place === 'query' || place === 'cookie') && typeof scheme.name === 'string' && scheme.name !== '') return { type: 'present', in: place, name: scheme.name }
      return null
    case 'http': {
      const name = typeof scheme.scheme === 'string' && /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(scheme.scheme) ? scheme.scheme : 'Bearer'
      return { type: 'http', scheme: name.toLowerCase() === 'bearer' ? 'Bearer' : name.toLowerCase() === 'basic' ? 'Basic' : name }
    }
    // Swagger 2.0's Basic scheme.
    case 'basic':
      return { type: 'http', scheme: 'Basic' }
    case 'oauth2':
    case 'openIdConnect':
      return { type: 'http', scheme: 'Bearer' }
    default:
      return null
  }
}

function compute(document: Obj, pointer: string): AuthRequirement[][] | null {
  const operation = resolvePointer(document, pointer)
  const declared = isObj(operation) && Array.isArray(operation.security) ? operation.security : Array.isArray(document.security) ? document.security : null
  if (declared === null) return null
  const components = isObj(document.components) ? document.components.securitySchemes : undefined
  const schemes = isObj(components) ? components : isObj(document.securityDefinitions) ? document.securityDefinitions : {}
  const alternatives: AuthRequirement[][] = []
  for (const alternative of declared) {
    if (!isObj(alternative)) continue
    const requirements: AuthRequirement[] = []
    for (const name of Object.keys(alternative)) {
      const requirement = requirementOf(followRef(document, Object.hasOwn(schemes, name) ? schemes[name] : undefined))
      if (requirement) requirements.push(requirement)
    }
    // An empty alternative (`{}`), or one of schemes a request cannot show, lets anyone in.
    if (requirements.length === 0) return []
    alternatives.push(requirements)
  }
  return alternatives
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
