import type { ImportedOperation, OpenApiOperation } from './types.ts'

/**
 * The first 2xx code in numeric order, else `default` (as 200), else the lowest other documented
 * code (a redirect before an error); never a 1xx, which no client can read as a final answer: an
 * operation documenting only those (a WebSocket upgrade's 101) answers 200.
 */
export function defaultStatus(operation: OpenApiOperation): number {
  const numeric = operation.responses.map((r) => Number(r.code)).filter((code) => Number.isInteger(code) && code >= 200).sort((a, b) => a - b)
  const success = numeric.find((code) => code < 300)
  if (success !== undefined) return success
  if (operation.responses.some((r) => r.code === 'default')) return 200
  return numeric[0] ?? 200
}

/**
 * What an import says of operations documenting a 1xx and no success: they answer another status
 * instead, which a client asking for the upgrade may not expect (every request gets that error).
 */
export function informationalWarnings(operations: ImportedOperation[]): string[] {
  return operations.flatMap(({ method, path, operation }) => {
    const informational = operation.responses.filter((r) => r.code.startsWith('1')).map((r) => r.code)
    if (informational.length === 0 || operation.responses.some((r) => /^2|^default$/i.test(r.code))) return []
    if (informational.length === operation.responses.length) {
      return [`${method} ${path} documents only ${informational.join(', ')}: no client can read a 1xx as the answer, so it answers what it documents there as 200`]
    }
    return [`${method} ${path} documents ${informational.join(', ')} and no success: no client can read a 1xx as the answer, so it answers ${defaultStatus(operation)} instead`]
  })
}
