/** gRPC status codes by number (grpc/doc/statuscodes.md). */
const CODE_NAMES = [
  'OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS',
  'UNAUTHENTICATED',
] as const

export const GRPC_OK = 0
export const GRPC_INVALID_ARGUMENT = 3
export const GRPC_PERMISSION_DENIED = 7
export const GRPC_UNIMPLEMENTED = 12
export const GRPC_INTERNAL = 13
export const GRPC_UNAVAILABLE = 14
export const GRPC_UNAUTHENTICATED = 16

/** HTTP statuses with an obvious gRPC twin (after google.rpc.Code's own HTTP mapping). */
const FROM_HTTP: Record<number, number> = {
  400: 3, 401: 16, 403: 7, 404: 5, 408: 4, 409: 6, 410: 5, 412: 9, 416: 11, 422: 3, 429: 8, 499: 1,
  500: 13, 501: 12, 502: 14, 503: 14, 504: 4,
}

/**
 * The gRPC code to answer for a configured status: 0–16 as is; an HTTP status 100–599 mapped to the
 * closest code (2xx → OK, other 4xx → INVALID_ARGUMENT, other 5xx → INTERNAL); anything else UNKNOWN.
 */
export function grpcCodeFor(status: number): number {
  if (Number.isInteger(status) && status >= 0 && status < CODE_NAMES.length) return status
  if (status >= 200 && status < 300) return GRPC_OK
  const mapped = FROM_HTTP[status]
  if (mapped !== undefined) return mapped
  if (status >= 400 && status < 500) return GRPC_INVALID_ARGUMENT
  if (status >= 500 && status < 600) return GRPC_INTERNAL
  return 2
}

/** `5` → `NOT_FOUND`. */
export function grpcCodeName(code: number): string {
  return CODE_NAMES[code] ?? `CODE_${code}`
}
