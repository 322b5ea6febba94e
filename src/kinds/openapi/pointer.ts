/** RFC 6901 JSON Pointers into a spec document, and `$ref` following. */

export type Obj = Record<string, unknown>

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1')
}

function _unescape(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~')
}

/** The value at `pointer` (`''` is the whole document), or undefined when the path does not exist. */
export function resolvePointer(document: unknown, pointer: string): unknown {
  if (pointer === '') return document
  let node = document
  for (const segment of pointer.slice(1).split('/')) {
    if (typeof node !== 'object' || node === null) return undefined
    const key = _unescape(segment)
    if (!Object.hasOwn(node, key)) return undefined
    node = (node as Obj)[key]
  }
  return node
}

/**
 * A `$ref` for `pointer` (`#/paths/~1pets~1{id}/…`). Segments are percent-encoded because ajv and
 * openapi-sampler both percent-decode the fragment before reading it as a pointer.
 */
export function refTo(pointer: string): string {
  return '#' + pointer.split('/').map(encodeURIComponent).join('/')
}

/** The pointer an internal `$ref` names, or null for external or malformed refs. */
export function pointerOfRef(ref: string): string | null {
  if (!ref.startsWith('#')) return null
  try {
    return decodeURIComponent(ref.slice(1))
  } catch {
    return null
  }
}

/** Follows `$ref`s from `pointer` to the object they end at; null when broken, external or circular. */
export function derefPointer(document: unknown, pointer: string): string | null {
  const seen = new Set<string>()
  let current = pointer
  for (;;) {
    if (seen.has(current)) return null
    seen.add(current)
    const node = resolvePointer(document, current)
    if (!isObj(node)) return null
    if (typeof node.$ref !== 'string') return current
    const next = pointerOfRef(node.$ref)
    if (next === null) return null
    current = next
  }
}

export const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const

/**
 * Pointers of the parameters that apply to an operation: path-item ones, overridden by the
 * operation's own with the same name and `in`. `$ref`s are resolved to the referenced object.
 */
export function mergedParameterPointers(document: unknown, itemPointer: string, operationPointer: string): string[] {
  const byKey = new Map<string, string>()
  for (const owner of [itemPointer, operationPointer]) {
    const list = resolvePointer(document, `${owner}/parameters`)
    if (!Array.isArray(list)) continue
    list.forEach((_, index) => {
      const pointer = derefPointer(document, `${owner}/parameters/${index}`)
      const parameter = pointer === null ? undefined : resolvePointer(document, pointer)
      if (pointer === null || !isObj(parameter)) return
      byKey.set(`${String(parameter.in)} ${String(parameter.name)}`, pointer)
    })
  }
  return [...byKey.values()]
}
