import { isObj, pointerOfRef, resolvePointer, type Obj } from './pointer.ts'

/**
 * How much openapi-sampler would build for a schema, bounded before it runs. A spec of a kilobyte can
 * ask for billions of values: ten properties each referring to the next schema, nine levels deep
 * ($ref "laughs"), or `minItems: 100000000` (the sampler makes every item). It was 1.7 s and 15 MB
 * at six levels, out of memory at nine, on the first request for that response.
 */

/** Units of sampled output allowed: one per value, plus one per 64 characters of a long string. */
export const MAX_SAMPLE_UNITS = 200_000
/** openapi-sampler's own default depth, the deepest we let it go. */
export const DEFAULT_SAMPLE_DEPTH = 15
/** A repair may make an array or a string this long at most (`minItems`, `minLength`). */
export const MAX_REPAIR_SIZE = 1_000

const num = (schema: Obj, key: string): number => (typeof schema[key] === 'number' ? (schema[key] as number) : 0)

/**
 * The deepest `maxSampleDepth` (up to openapi-sampler's 15) at which sampling `schema` stays within
 * MAX_SAMPLE_UNITS, or null when even the shallowest sample would not. An upper bound: every branch
 * of a oneOf/anyOf counts, and circular `$ref`s (which openapi-sampler cuts at once) are followed to the depth.
 */
export function boundedSampleDepth(schema: unknown, document: unknown): number | null {
  // Memoised per schema node and depth: the walk is linear in the spec, whatever the sample's size.
  const memo = new Map<unknown, Map<number, number>>()
  const size = (node: unknown, depth: number, limit: number): number => {
    if (!isObj(node)) return 1
    const known = memo.get(node)?.get(depth)
    if (known !== undefined) return known
    const result = _size(node, depth, limit)
    let byDepth = memo.get(node)
    if (!byDepth) memo.set(node, (byDepth = new Map()))
    byDepth.set(depth, result)
    return result
  }
  const _size = (node: Obj, depth: number, limit: number): number => {
    if (depth > limit) return 1
    if (typeof node.$ref === 'string') {
      const pointer = pointerOfRef(node.$ref)
      return size(pointer === null ? undefined : resolvePointer(document, pointer), depth, limit)
    }
    if (node.example !== undefined || node.const !== undefined || node.default !== undefined) return 1
    let total = 1
    for (const key of ['allOf', 'oneOf', 'anyOf']) {
      if (Array.isArray(node[key])) for (const branch of node[key] as unknown[]) total += size(branch, depth, limit)
    }
    if (isObj(node.properties)) for (const property of Object.values(node.properties)) total += size(property, depth + 1, limit)
    if (isObj(node.additionalProperties)) total += 2 * size(node.additionalProperties, depth + 1, limit)
    const items = node.prefixItems ?? node.items ?? node.contains
    if (Array.isArray(items)) for (const item of items) total += size(item, depth + 1, limit)
    else if (items !== undefined) total += Math.max(1, Math.min(num(node, 'minItems'), node.maxItems === undefined ? Infinity : num(node, 'maxItems'))) * size(items, depth + 1, limit)
    total += Math.max(num(node, 'minLength'), _longestRepeat(node.pattern)) / 64
    return total
  }
  for (let limit = DEFAULT_SAMPLE_DEPTH; limit >= 1; limit -= 1) {
    memo.clear()
    if (size(schema, 1, limit) <= MAX_SAMPLE_UNITS) return limit
  }
  return null
}

/** The largest repeat count written in a pattern (`{100000000}`): openapi-sampler writes that many characters. */
function _longestRepeat(pattern: unknown): number {
  if (typeof pattern !== 'string') return 0
  let longest = 0
  for (const match of pattern.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) longest = Math.max(longest, Number(match[1]), Number(match[2] || 0))
  return longest
}
