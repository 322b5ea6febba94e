/**
 * The JSONPath subset a `when` on a body may use: `$.a.b`, `[n]`, `[*]`, `['key']` (and a plain
 * dotted path, `user.name`). Recursive descent, filters and slices are refused: a rule names the
 * field it tests, and each of these could make one request walk a whole large body many times.
 */

/** One step: a property name, an index, or every element/value. */
export type PathStep = { key: string } | { index: number } | { all: true }

export const JSON_PATH_SUBSET = "JSONPath subset: $.a.b, [n], [*], ['key']"

export class JsonPathError extends Error {}

/** `$.items[0].sku` or `user.name` as steps; throws JsonPathError. */
export function parsePath(path: string): PathStep[] {
  // A bracket in a dotted path would be taken as part of a key and never match: say so instead.
  if (!path.startsWith('$')) {
    if (/[[\]]/.test(path)) throw new JsonPathError(`"${path}" uses brackets: start it with $ ($.${path}), or quote the key ($['${path}'])`)
    return path.split('.').map((key) => ({ key }))
  }
  const steps: PathStep[] = []
  let at = 1
  const fail = (): never => {
    throw new JsonPathError(`"${path}" is not in the ${JSON_PATH_SUBSET}`)
  }
  while (at < path.length) {
    if (path.startsWith('..', at)) fail()
    if (path[at] === '.') {
      const name = /^[^.[\]'"\s]+/.exec(path.slice(at + 1))?.[0] ?? fail()
      steps.push(name === '*' ? { all: true } : { key: name })
      at += 1 + name.length
      continue
    }
    if (path[at] !== '[') fail()
    const bracket = /^\[(?:(\d{1,9})|(\*)|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/.exec(path.slice(at)) ?? fail()
    const [whole, index, star, single, double] = bracket
    if (index !== undefined) steps.push({ index: Number(index) })
    else if (star !== undefined) steps.push({ all: true })
    else steps.push({ key: (single ?? double)!.replace(/\\(.)/g, '$1') })
    at += whole.length
  }
  return steps
}

/**
 * The values `steps` reach in `value` (several through `[*]`); own properties only, so `__proto__` is
 * a plain key. null when a step would reach more than `limit` values: the caller's budget is spent.
 */
export function valuesAt(value: unknown, steps: readonly PathStep[], limit = Infinity): unknown[] | null {
  let current: unknown[] = [value]
  for (const step of steps) {
    const next: unknown[] = []
    for (const item of current) {
      if (item === null || typeof item !== 'object') continue
      if ('all' in step) {
        // One push per element: spreading a large array as arguments overflows the stack.
        const elements = Array.isArray(item) ? item : Object.values(item)
        if (next.length + elements.length > limit) return null
        for (const element of elements) next.push(element)
      } else if ('index' in step) {
        if (Array.isArray(item) && step.index < item.length) next.push(item[step.index])
      } else if (Object.hasOwn(item, step.key)) next.push((item as Record<string, unknown>)[step.key])
    }
    current = next
  }
  return current
}
