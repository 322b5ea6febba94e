import type { OpenApiOperation } from './types.ts'

/** The first 2xx code in numeric order, else `default` (as 200), else the first documented code. */
export function defaultStatus(operation: OpenApiOperation): number {
  const numeric = operation.responses.map((r) => Number(r.code)).filter((code) => Number.isInteger(code))
  const success = numeric.filter((code) => code >= 200 && code < 300).sort((a, b) => a - b)[0]
  if (success !== undefined) return success
  if (operation.responses.some((r) => r.code === 'default')) return 200
  return numeric[0] ?? 200
}
