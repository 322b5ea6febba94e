import type { ImportedOperation, OpenApiOperation } from './types.ts'

/**
 * The first 2xx code in numeric order, else `default` (as 200), else the first other documented
 * code; never a 1xx, which no client can read as a final answer: an operation documenting only
 * those (a WebSocket upgrade's 101) answers 200.
 */
export function defaultStatus(operation: OpenApiOperation): number {
  const numeric = operation.responses.map((r) => Number(r.code)).filter((code) => Number.isInteger(code) && code >= 200)
  const success = numeric.filter((code) => code < 300).sort((a, b) => a - b)[0]
  if (success !== undefined) return success
  if (operation.responses.some((r) => r.code === 'default')) return 200
  return numeric[0] ?? 200
}

/** What an import says of operations documenting only 1xx answers: they answer that content as 200 instead. */
export function informationalWarnings(operations: ImportedOperation[]): string[] {
  return operations
    .filter(({ operation }) => operation.responses.length > 0 && operation.responses.every((r) => r.code.startsWith('1')))
    .map(({ method, path, operation }) => `${method} ${path} documents only ${operation.responses.map((r) => r.code).join(', ')}: no client can read a 1xx as the answer, so it answers what it documents there as 200`)
}
