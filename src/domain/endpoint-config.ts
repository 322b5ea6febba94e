import type { FakerFactory } from '../engine/generators.ts'
import { checkTemplate, hasPlaceholders } from '../engine/template.ts'
import { compileSchema } from '../engine/validate.ts'
import { AppError } from '../errors.ts'
import type { Endpoint } from '../model.ts'
import { defaultStatus } from '../openapi/default-status.ts'
import type { EndpointSettings } from '../store/endpoints.ts'
import type { Store } from './context.ts'
import { checkDelay, checkJsonBody, checkStatus, findEndpoint, parseMethod } from './endpoints.ts'
import { selectProject } from './projects.ts'
import { writeTransaction } from './transaction.ts'

export interface SettingsInput {
  status?: number | undefined
  headers?: Record<string, string> | undefined
  delayMs?: number | undefined
  /** JSON text, or null to clear. */
  body?: string | null | undefined
  /** JSON Schema text, or null to clear. */
  schema?: string | null | undefined
  errorRate?: number | undefined
  errorStatus?: number | undefined
}

/** gRPC methods answer a gRPC status (0 is OK); everything else an HTTP one. */
export function defaultSettings(endpoint: Pick<Endpoint, 'action' | 'operation' | 'kind'>): EndpointSettings {
  const status = endpoint.kind === 'grpc' ? 0 : endpoint.operation ? defaultStatus(endpoint.operation) : endpoint.action === 'create' ? 201 : 200
  return { status, headers: {}, delayMs: 0, body: null, schema: null, errorRate: 0, errorStatus: 500 }
}

function checkHeaders(headers: Record<string, string>): Record<string, string> {
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) throw new AppError('INVALID_INPUT', `header name "${name}" is not a valid HTTP header name`)
    if (typeof value !== 'string' || /[\r\n]/.test(value)) throw new AppError('INVALID_INPUT', `header "${name}" must be a one-line string`)
  }
  return headers
}

/** Merges `input` over `current` and checks every setting; the result is what gets stored. */
export function mergeSettings(current: EndpointSettings, input: SettingsInput, makeFaker: FakerFactory, kind?: Endpoint['kind']): EndpointSettings {
  const next: EndpointSettings = {
    status: input.status === undefined ? current.status : kind === 'grpc' ? checkGrpcStatus(input.status) : checkStatus(input.status),
    headers: input.headers === undefined ? current.headers : checkHeaders(input.headers),
    delayMs: input.delayMs === undefined ? current.delayMs : checkDelay(input.delayMs),
    body: input.body === undefined ? current.body : input.body === null ? null : checkJsonBody(input.body),
    schema: input.schema === undefined ? current.schema : input.schema === null ? null : checkJsonBody(input.schema),
    errorRate: input.errorRate ?? current.errorRate,
    errorStatus: input.errorStatus === undefined ? current.errorStatus : kind === 'grpc' ? checkGrpcStatus(input.errorStatus) : checkStatus(input.errorStatus),
  }
  if (!Number.isFinite(next.errorRate) || next.errorRate < 0 || next.errorRate > 100) {
    throw new AppError('INVALID_INPUT', `error rate ${next.errorRate} must be a percentage from 0 to 100`)
  }
  const grpcError = kind === 'grpc' && next.errorStatus >= 1 && next.errorStatus <= 16
  if (next.errorStatus < 400 && !grpcError) throw new AppError('INVALID_INPUT', `error status ${next.errorStatus} must be 400 or more${kind === 'grpc' ? ', or a gRPC code from 1 to 16' : ''}`)
  if (next.schema !== null) compileSchema(next.schema)
  if (next.body !== null && hasPlaceholders(next.body)) checkTemplate(next.body, makeFaker())
  return next
}

/** A gRPC code (0–16), or an HTTP status the gRPC server maps to the closest code. */
function checkGrpcStatus(status: number): number {
  if (Number.isInteger(status) && status >= 0 && status <= 16) return status
  if (Number.isInteger(status) && status >= 100 && status <= 599) return status
  throw new AppError('INVALID_INPUT', `status ${status} must be a gRPC status code from 0 (OK) to 16, or an HTTP status to map to one`)
}

export function currentSettings(endpoint: Endpoint): EndpointSettings {
  const { status, headers, delayMs, body, schema, errorRate, errorStatus } = endpoint
  return { status, headers, delayMs, body, schema, errorRate, errorStatus }
}

export function requireEndpoint(store: Store, input: { project?: string | undefined; method: string; path: string }): Endpoint {
  const project = selectProject(store, input.project)
  const method = parseMethod(input.method)
  const endpoint = findEndpoint(store, project.id, method, input.path.replace(/\/+$/, '') || '/')
  if (!endpoint) throw new AppError('NOT_FOUND', `no endpoint ${method} ${input.path} in project "${project.slug}"`)
  return endpoint
}

/** `mockapi endpoint set`: changes only the settings given, on this endpoint only. */
export function configureEndpoint(store: Store, endpoint: Endpoint, input: SettingsInput, makeFaker: FakerFactory): Endpoint {
  const settings = mergeSettings(currentSettings(endpoint), input, makeFaker, endpoint.kind)
  return writeTransaction(store.db, () => store.repos.endpoints.configure(endpoint.id, settings))
}
