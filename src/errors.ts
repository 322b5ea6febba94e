/** Error codes as data: every code maps to exactly one HTTP status. */
export const ERRORS = {
  BAD_REQUEST: { status: 400 },
  INVALID_JSON: { status: 400 },
  INVALID_BODY: { status: 400 },
  INVALID_QUERY: { status: 400 },
  INVALID_ID: { status: 400 },
  INVALID_PATH: { status: 400 },
  INVALID_INPUT: { status: 400 },
  INVALID_SPEC: { status: 400 },
  UNAUTHORIZED: { status: 401 },
  FORBIDDEN: { status: 403 },
  NOT_FOUND: { status: 404 },
  PROJECT_NOT_FOUND: { status: 404 },
  ROUTE_NOT_MATCHED: { status: 404 },
  EXAMPLE_NOT_FOUND: { status: 404 },
  METHOD_NOT_ALLOWED: { status: 405 },
  /** An imported operation documents no response type the request's `Accept` takes. */
  NOT_ACCEPTABLE: { status: 406 },
  CONFLICT: { status: 409 },
  PAYLOAD_TOO_LARGE: { status: 413 },
  UNSUPPORTED_MEDIA_TYPE: { status: 415 },
  VALIDATION_FAILED: { status: 422 },
  /** A test's `verify` found other requests than it expected (thrown in process, never sent). */
  VERIFICATION_FAILED: { status: 417 },
  INTERNAL: { status: 500 },
  /** The proxy target could not be reached, or broke off before answering (`serve --proxy`). */
  PROXY_FAILED: { status: 502 },
  /** The proxy target did not start answering within `--proxy-timeout`. */
  PROXY_TIMEOUT: { status: 504 },
  /** Another process holds the database's write lock longer than a request may wait. */
  STORE_BUSY: { status: 503 },
  /** The database file is gone or cannot be written: nothing more can be kept. */
  STORE_UNAVAILABLE: { status: 503 },
} as const satisfies Record<string, { status: number }>

export type ErrorCode = keyof typeof ERRORS

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: unknown }
}

export class AppError extends Error {
  readonly code: ErrorCode
  readonly details: unknown
  /** Extra response headers the error implies (e.g. `Allow` on 405). */
  readonly headers: Record<string, string> | undefined

  constructor(code: ErrorCode, message: string, options: { details?: unknown; headers?: Record<string, string> } = {}) {
    super(message)
    this.name = 'AppError'
    this.code = code
    this.details = options.details
    this.headers = options.headers
  }

  get status(): number {
    return ERRORS[this.code].status
  }
}

/** Maps a bare HTTP status (from h3 or the runtime) to our closest code. */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400: return 'BAD_REQUEST'
    case 401: return 'UNAUTHORIZED'
    case 403: return 'FORBIDDEN'
    case 404: return 'ROUTE_NOT_MATCHED'
    case 405: return 'METHOD_NOT_ALLOWED'
    case 406: return 'NOT_ACCEPTABLE'
    case 409: return 'CONFLICT'
    case 413: return 'PAYLOAD_TOO_LARGE'
    case 415: return 'UNSUPPORTED_MEDIA_TYPE'
    case 422: return 'VALIDATION_FAILED'
    default: return 'INTERNAL'
  }
}

/** The project's error shape (docs/mocking.md, "Errors"); mock endpoints also use it for the errors they are told to simulate. */
export function errorBody(code: string, message: string, details?: unknown): { error: { code: string; message: string; details?: unknown } } {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } }
}

export function toErrorBody(error: AppError): ErrorBody {
  return errorBody(error.code, error.message, error.details) as ErrorBody
}
