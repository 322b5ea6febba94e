import { parseDelay, type DelaySpec } from '../engine/delay.ts'
import type { FakerFactory } from '../engine/generators.ts'
import { checkTemplate, checkTextTemplate, hasPlaceholders } from '../engine/template.ts'
import { compileSchema } from '../engine/validate.ts'
import { AppError } from '../errors.ts'
import { FAULTS, HTTP_METHODS, PICKS, type Endpoint, type EndpointAuth, type Project } from '../model.ts'
import type { StatusRule } from '../kinds/kind.ts'
import { kindOf } from '../kinds/registry.ts'
import type { EndpointSettings } from '../store/endpoints.ts'
import { checkContentType, checkText, checkUpload, decodeBase64, storeFile, type UploadedFile } from './bodies.ts'
import type { Context } from './context.ts'
import { addEndpoint, checkDelay, checkJsonBody, checkStatus, findEndpoint, parseMethod, type AddEndpointInput } from './endpoints.ts'
import { checkFault, storedDelay } from './latency.ts'
import { checkEndpointAuth } from './auth-settings.ts'
import { checkPick, checkResponseList, checkResponsesAllowed, responsesFromJson, type ResponseFiles } from './responses.ts'
import { checkEndpointPath, pathField } from './path-rules.ts'
import { selectProject } from './projects.ts'
import { writeTransaction } from './transaction.ts'

export interface SettingsInput {
  status?: number | undefined
  headers?: Record<string, string> | undefined
  /** A fixed delay (clears a range). */
  delayMs?: number | undefined
  /** A fixed delay or a range (`parseDelay`); wins over `delayMs`. */
  delay?: DelaySpec | undefined
  /** A network fault every call gets instead of an answer; null clears it. */
  fault?: string | null | undefined
  /** The credentials it demands: schemes, `none`, or null for the project's (checked by `checkEndpointAuth`). */
  auth?: EndpointAuth | undefined
  /** JSON text, or null to clear. */
  body?: string | null | undefined
  /** A text body (a template); replaces a JSON body or a file. */
  text?: string | undefined
  /** A file to answer as it is; stored by configureEndpoint, which gives mergeSettings its fileId. */
  file?: UploadedFile | undefined
  fileId?: number | undefined
  /** The Content-Type of a configured body, or null for the one its type implies. */
  contentType?: string | null | undefined
  /** JSON Schema text, or null to clear. */
  schema?: string | null | undefined
  errorRate?: number | undefined
  errorStatus?: number | undefined
  /** rules | sequence | random. */
  pick?: string | undefined
  /** The whole list, replaced: each response as JSON (`responses.ts`, `responseFromJson`). */
  responses?: unknown[] | undefined
  /** Forward a matched request to the project's proxy target instead of answering it. */
  proxy?: boolean | undefined
}

/** The settings of a new endpoint; its kind says the status (a gRPC method's is 0, OK). */
export function defaultSettings(endpoint: Pick<Endpoint, 'action' | 'operation' | 'kind'>): EndpointSettings {
  const status = kindOf(endpoint.kind).defaultStatus(endpoint)
  return { status, headers: {}, delayMs: 0, delayMaxMs: null, fault: null, auth: null, pick: 'rules', responses: [], body: null, bodyType: 'json', contentType: null, fileId: null, schema: null, errorRate: 0, errorStatus: 500, proxy: false }
}

/** What most kinds answer: an HTTP status. */
const HTTP_STATUSES: StatusRule = { check: checkStatus, isErrorStatus: (status) => status >= 400, errorStatusHint: '' }

export function checkHeaders(headers: Record<string, string>): Record<string, string> {
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) throw new AppError('INVALID_INPUT', `header name "${name}" is not a valid HTTP header name`)
    if (typeof value !== 'string' || /[\r\n]/.test(value)) throw new AppError('INVALID_INPUT', `header "${name}" must be a one-line string`)
  }
  return headers
}

/** The delay of `input` over `current`: a range or fixed `delay`, else a fixed `delayMs`. */
function mergedDelay(input: SettingsInput, current: EndpointSettings): Pick<EndpointSettings, 'delayMs' | 'delayMaxMs'> {
  if (input.delay !== undefined) return storedDelay(input.delay)
  if (input.delayMs !== undefined) return { delayMs: checkDelay(input.delayMs), delayMaxMs: null }
  return { delayMs: current.delayMs, delayMaxMs: current.delayMaxMs }
}

/**
 * Merges `input` over `current` and checks every setting; the result is what gets stored. Without
 * `files`, the responses' files are checked but not stored (a check before the write).
 */
export function mergeSettings(current: EndpointSettings, input: SettingsInput, makeFaker: FakerFactory, kind?: Endpoint['kind'], files?: ResponseFiles): EndpointSettings {
  const statuses = (kind && kindOf(kind).statuses) || HTTP_STATUSES
  const next: EndpointSettings = {
    status: input.status === undefined ? current.status : statuses.check(input.status),
    headers: input.headers === undefined ? current.headers : checkHeaders(input.headers),
    ...mergedDelay(input, current),
    fault: input.fault === undefined ? current.fault : input.fault === null ? null : checkFault(input.fault),
    auth: input.auth === undefined ? current.auth : checkEndpointAuth(input.auth),
    pick: input.pick === undefined ? current.pick : checkPick(input.pick),
    responses: input.responses === undefined ? current.responses : responsesFromJson(input.responses, { checkHeaders, makeFaker, checkStatus: statuses.check, ...(files ? { files } : {}) }),
    ...mergeBody(current, input),
    contentType: input.contentType === undefined ? current.contentType : input.contentType === null ? null : checkContentType(input.contentType),
    schema: input.schema === undefined ? current.schema : input.schema === null ? null : checkJsonBody(input.schema),
    errorRate: input.errorRate ?? current.errorRate,
    errorStatus: input.errorStatus === undefined ? current.errorStatus : statuses.check(input.errorStatus),
    proxy: input.proxy ?? current.proxy,
  }
  if (next.proxy && kind && kindOf(kind).routing !== 'route') {
    throw new AppError('INVALID_INPUT', 'proxy applies to HTTP routes; a GraphQL, SOAP or gRPC operation is answered here')
  }
  if (next.auth !== null && kind && kindOf(kind).routing !== 'route') {
    throw new AppError('INVALID_INPUT', 'auth applies to HTTP routes; a GraphQL, SOAP or gRPC operation follows the project\'s auth')
  }
  if (!Number.isFinite(next.errorRate) || next.errorRate < 0 || next.errorRate > 100) {
    throw new AppError('INVALID_INPUT', `error rate ${next.errorRate} must be a percentage from 0 to 100`)
  }
  if (!statuses.isErrorStatus(next.errorStatus)) throw new AppError('INVALID_INPUT', `error status ${next.errorStatus} must be 400 or more${statuses.errorStatusHint}`)
  if (next.responses.length > 0 && kind) checkResponsesAllowed(kind)
  checkResponseList(next.responses, next.pick)
  if (next.schema !== null) compileSchema(next.schema)
  if (next.body !== null && hasPlaceholders(next.body)) (next.bodyType === 'text' ? checkTextTemplate : checkTemplate)(next.body, makeFaker())
  for (const [name, value] of Object.entries(next.headers)) {
    if (!hasPlaceholders(value)) continue
    try {
      checkTextTemplate(value, makeFaker())
    } catch (error) {
      if (error instanceof AppError) throw new AppError(error.code, `header "${name}": ${error.message}`)
      throw error
    }
  }
  if (kind && kindOf(kind).routing !== 'route' && (next.bodyType !== 'json' || next.contentType !== null)) {
    throw new AppError('INVALID_INPUT', `a ${kind} operation answers through its schema: text, file and contentType apply to HTTP routes`)
  }
  return next
}

/** At most one of a JSON body, text and a file (the JSON body may come apart from the others, as `add-endpoint` gives it). */
function checkOneBody(body: string | null | undefined, input: Pick<SettingsInput, 'text' | 'file' | 'fileId'>): void {
  const given = [body !== undefined && body !== null, input.text !== undefined, input.fileId !== undefined || input.file !== undefined]
  if (given.filter(Boolean).length > 1) throw new AppError('INVALID_INPUT', 'give only one of body (JSON), text and file: a response has one body')
}

/**
 * The body settings after `input`: at most one of body, text and file is given, and it replaces the
 * others. A file is stored first (configureEndpoint, apply) and given here by its `fileId`.
 */
function mergeBody(current: EndpointSettings, input: SettingsInput): Pick<EndpointSettings, 'body' | 'bodyType' | 'fileId'> {
  checkOneBody(input.body, input)
  if (input.body !== undefined) return { body: input.body === null ? null : checkJsonBody(input.body), bodyType: 'json', fileId: null }
  if (input.text !== undefined) return { body: checkText(input.text), bodyType: 'text', fileId: null }
  if (input.fileId !== undefined) return { body: null, bodyType: 'file', fileId: input.fileId }
  return { body: current.body, bodyType: current.bodyType, fileId: current.fileId }
}

export function currentSettings(endpoint: Endpoint): EndpointSettings {
  const { status, headers, delayMs, delayMaxMs, fault, auth, pick, responses, body, bodyType, contentType, fileId, schema, errorRate, errorStatus, proxy } = endpoint
  return { status, headers, delayMs, delayMaxMs, fault, auth, pick, responses, body, bodyType, contentType, fileId, schema, errorRate, errorStatus, proxy }
}

export function requireEndpoint(context: Context, input: { project?: string | undefined; method: string; path: string }): Endpoint {
  const project = selectProject(context, input.project)
  const method = parseMethod(input.method)
  const endpoint = findEndpoint(context, project.id, method, input.path.replace(/\/+$/, '') || '/')
  if (!endpoint) throw new AppError('NOT_FOUND', `no endpoint ${method} ${input.path} in project "${project.slug}"`)
  return endpoint
}

/**
 * `mockapi endpoint set`: changes only the settings given, on this endpoint only. `endpoint` may
 * have been read long before (an upload's body is read after it): the settings given are merged
 * onto the endpoint as it is when the write lock is taken, so a change made meanwhile is kept,
 * and an endpoint deleted meanwhile is NOT_FOUND.
 */
export function configureEndpoint(context: Context, endpoint: Endpoint, input: SettingsInput, makeFaker: FakerFactory): Endpoint {
  // Checked before the write lock is taken, except with a file (the endpoint's or a response's): it
  // is stored first so that the settings can name it, and a refusal rolls the two back together.
  const storesFiles = input.file !== undefined || responsesHoldFiles(input.responses)
  const checked = storesFiles ? null : mergeSettings(currentSettings(endpoint), input, makeFaker, endpoint.kind)
  return writeTransaction(context.db, () => {
    const fresh = context.repos.endpoints.byId(endpoint.id)
    if (!fresh) throw new AppError('NOT_FOUND', `endpoint ${endpoint.id} (${endpoint.method} ${endpoint.path}) was deleted meanwhile`)
    // Merged again only when it changed since: the checks (schemas, templates) are not repeated under the lock for nothing.
    const unchanged = JSON.stringify(currentSettings(fresh)) === JSON.stringify(currentSettings(endpoint)) && fresh.kind === endpoint.kind
    const settings = checked && unchanged
      ? checked
      : mergeSettings(currentSettings(fresh), input.file ? { ...input, fileId: storeFile(context, fresh.projectId, input.file) } : input, makeFaker, fresh.kind, responseFiles(context, fresh.projectId))
    const configured = context.repos.endpoints.configure(endpoint.id, settings)
    // A file no endpoint answers any more is not kept (nor exported) for nothing.
    context.repos.files.removeUnused(endpoint.projectId)
    return configured
  })
}

/** Whether some response of a list sent names a file (stored, or checked against the stored ones, under the write lock). */
function responsesHoldFiles(responses: unknown[] | undefined): boolean {
  return responses?.some((response) => response !== null && typeof response === 'object' && (response as { file?: unknown }).file != null) ?? false
}

/** Responses' files stored in, and looked up among, the files of project `projectId`. */
export function responseFiles(context: Context, projectId: number): ResponseFiles {
  return {
    store: (file) => {
      const id = storeFile(context, projectId, file)
      return { id, ...refOf(context.repos.files.meta(id)!) }
    },
    byId: (id) => {
      const meta = context.repos.files.meta(id)
      return meta && meta.projectId === projectId ? { id, ...refOf(meta) } : undefined
    },
  }
}

const refOf = (meta: { name: string; size: number }) => ({ name: meta.name, size: meta.size })

/** `mockapi add-endpoint` with a text or file body or a content type: added and configured in one transaction. */
export function addEndpointWithBody(context: Context, input: AddEndpointInput, settings: SettingsInput, makeFaker: FakerFactory): { endpoint: Endpoint; warnings: string[] } {
  checkOneBody(input.body, settings)
  const fixed = settings.text !== undefined || settings.file !== undefined
  return writeTransaction(context.db, () => {
    const { endpoint, warnings } = addEndpoint(context, { ...input, fixedAnswer: fixed || input.fixedAnswer })
    const changed = Object.values(settings).some((value) => value !== undefined)
    return { endpoint: changed ? configureEndpoint(context, endpoint, settings, makeFaker) : endpoint, warnings }
  })
}

const SETTING_FIELDS = ['status', 'delay', 'delayMs', 'fault', 'auth', 'errorRate', 'errorStatus', 'headers', 'body', 'text', 'file', 'contentType', 'schema', 'pick', 'responses', 'proxy'] as const

function invalidSetting(field: string, message: string): never {
  throw new AppError('INVALID_INPUT', `"${field}" ${message}`, { details: [{ field, message }] })
}

/** A value checked now, its refusal named by its field. */
function fieldValue<T>(field: string, check: () => T): T {
  try {
    return check()
  } catch (error) {
    if (error instanceof AppError) invalidSetting(field, `is not valid: ${error.message}`)
    throw error
  }
}

/** The settings of a JSON object (the management API's PATCH): `body` and `schema` any JSON, null clears. */
export function settingsFromJson(input: unknown): SettingsInput {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new AppError('INVALID_BODY', `request body must be a JSON object with any of ${SETTING_FIELDS.join(', ')}`)
  }
  const fields = input as Record<string, unknown>
  const unknown = Object.keys(fields).find((key) => !(SETTING_FIELDS as readonly string[]).includes(key))
  if (unknown !== undefined) invalidSetting(unknown, `is not an endpoint setting; send any of ${SETTING_FIELDS.join(', ')}`)
  if (Object.keys(fields).length === 0) throw new AppError('INVALID_INPUT', `nothing to change: send any of ${SETTING_FIELDS.join(', ')}`)
  const numberOf = (field: string): number | undefined => {
    const value = fields[field]
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) invalidSetting(field, `must be a number, got ${JSON.stringify(value)}`)
    return value as number | undefined
  }
  const jsonOf = (field: string): string | null | undefined => (fields[field] === undefined ? undefined : fields[field] === null ? null : JSON.stringify(fields[field]))
  const headers = fields.headers
  if (headers !== undefined && (headers === null || typeof headers !== 'object' || Array.isArray(headers))) {
    invalidSetting('headers', 'must be an object of header names to string values')
  }
  const delay = fields.delay
  if (delay !== undefined && typeof delay !== 'number' && typeof delay !== 'string') invalidSetting('delay', `must be milliseconds (250) or a range ("100-300"), got ${JSON.stringify(delay)}`)
  if (delay !== undefined && fields.delayMs !== undefined) invalidSetting('delay', 'and "delayMs" say the same thing: send one of them')
  const fault = fields.fault
  if (fault !== undefined && fault !== null && typeof fault !== 'string') invalidSetting('fault', `must be one of ${FAULTS.join(', ')}, or null for none`)
  if (fields.text !== undefined && typeof fields.text !== 'string') invalidSetting('text', 'must be a string (the text answered)')
  if (fields.contentType !== undefined && fields.contentType !== null && typeof fields.contentType !== 'string') invalidSetting('contentType', 'must be a string such as text/csv, or null')
  if (fields.pick !== undefined && typeof fields.pick !== 'string') invalidSetting('pick', `must be one of ${PICKS.join(', ')}`)
  if (fields.responses !== undefined && !Array.isArray(fields.responses)) invalidSetting('responses', 'must be a list of responses (the whole list, replaced)')
  if (fields.proxy !== undefined && typeof fields.proxy !== 'boolean') invalidSetting('proxy', 'must be true (forward to the project\'s proxy target) or false')
  return {
    status: numberOf('status'),
    delay: delay === undefined ? undefined : fieldValue('delay', () => parseDelay(delay as string | number)),
    delayMs: numberOf('delayMs'),
    fault: fault === undefined || fault === null ? (fault as null | undefined) : fieldValue('fault', () => checkFault(fault as string)),
    auth: fields.auth === undefined ? undefined : checkEndpointAuth(fields.auth),
    errorRate: numberOf('errorRate'),
    errorStatus: numberOf('errorStatus'),
    headers: headers as Record<string, string> | undefined,
    body: jsonOf('body'),
    text: fields.text as string | undefined,
    file: fields.file === undefined ? undefined : fileFromJson(fields.file, 'file'),
    contentType: fields.contentType as string | null | undefined,
    schema: jsonOf('schema'),
    pick: fields.pick as string | undefined,
    responses: fields.responses as unknown[] | undefined,
    proxy: fields.proxy as boolean | undefined,
  }
}

/** `{name, base64}`: a file as JSON (the API's PATCH, the project file's exported form). */
function fileFromJson(value: unknown, field: string): UploadedFile {
  const file = value as { name?: unknown; base64?: unknown } | null
  if (file === null || typeof file !== 'object' || Array.isArray(file) || typeof file.name !== 'string' || typeof file.base64 !== 'string'
    || Object.keys(file).some((key) => key !== 'name' && key !== 'base64')) {
    invalidSetting(field, 'must be {"name": "avatar.png", "base64": "…"}; or upload the bytes with PUT …/endpoints/{id}/file?name=avatar.png')
  }
  const bytes = decodeBase64(file.base64)
  if (!bytes) invalidSetting(`${field}.base64`, 'is not base64')
  return { name: file.name, bytes }
}

/** A refusal that already names a field inside `field` (`auth[0].tokens`) is passed on as it is. */
function namesItsField(error: AppError, field: string): boolean {
  const named = Array.isArray(error.details) ? (error.details[0] as { field?: unknown } | undefined)?.field : undefined
  return typeof named === 'string' && named.startsWith(field)
}

/** A fixed response its kind could never answer (a gRPC method's must fit its output message) is refused. */
export async function checkResponseBody(context: Context, endpoint: Endpoint, body: string): Promise<void> {
  const { checkBody } = kindOf(endpoint.kind)
  if (!checkBody || endpoint.specId === null) return
  await checkBody(context.repos.specs.byId(endpoint.specId)!.document, endpoint, body)
}

/**
 * Each setting of `input` checked over `current` alone, a refusal named by its field (`"delayMs": …`)
 * as an API caller sent it; `checkBody` checks a JSON body against what the kind can answer.
 */
async function checkSettingFields(current: EndpointSettings, kind: Endpoint['kind'], input: SettingsInput, makeFaker: FakerFactory, checkBody: (body: string) => Promise<void>): Promise<void> {
  const given = ['body', 'text', 'file'].filter((field) => input[field as keyof SettingsInput] !== undefined && input[field as keyof SettingsInput] !== null)
  if (given.length > 1) invalidSetting(given[1]!, `cannot be given with ${given[0]}: a response has one body`)
  for (const [field, value] of Object.entries(input)) {
    // pick and responses are judged together: a new pick may come with a list that suits it.
    if (value === undefined || field === 'pick' || field === 'responses') continue
    try {
      if (field === 'file') checkUpload(value as UploadedFile)
      else mergeSettings(current, { [field]: value }, makeFaker, kind)
      if (field === 'body' && typeof value === 'string') await checkBody(value)
    } catch (error) {
      if (error instanceof AppError && error.status === 400 && !namesItsField(error, field)) invalidSetting(field, `is not valid: ${error.message}`)
      throw error
    }
  }
  if (input.pick !== undefined || input.responses !== undefined) {
    try {
      mergeSettings(current, { pick: input.pick, responses: input.responses }, makeFaker, kind)
    } catch (error) {
      // A refusal that names its field already (`responses[1].when.body`) keeps it.
      if (error instanceof AppError && error.status === 400 && !error.details) invalidSetting(input.responses !== undefined ? 'responses' : 'pick', `is not valid: ${error.message}`)
      throw error
    }
  }
}

/**
 * `configureEndpoint` with each refused setting named by its field, as an API caller sent it; a
 * body is checked against the spec where the kind can (a gRPC method's output message).
 */
export async function configureEndpointFields(context: Context, endpoint: Endpoint, input: SettingsInput, makeFaker: FakerFactory): Promise<Endpoint> {
  await checkSettingFields(currentSettings(endpoint), endpoint.kind, input, makeFaker, (body) => checkResponseBody(context, endpoint, body))
  return configureEndpoint(context, endpoint, input, makeFaker)
}

/**
 * `mockapi add-endpoint` from a JSON object (the management API's POST): `method` and `path`, and
 * any settings as PATCH takes them. Everything is checked before the write, each refusal naming its
 * field; then the endpoint is added and configured in one transaction (a route taken → CONFLICT).
 */
export async function addEndpointFromJson(context: Context, project: Project, input: unknown, makeFaker: FakerFactory): Promise<{ endpoint: Endpoint; warnings: string[] }> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new AppError('INVALID_BODY', `request body must be a JSON object: {method, path} and any of ${SETTING_FIELDS.join(', ')}`)
  }
  const { method, path, ...given } = input as Record<string, unknown>
  if (typeof method !== 'string') invalidSetting('method', `must be one of ${HTTP_METHODS.join(', ')}`)
  fieldValue('method', () => parseMethod(method))
  if (typeof path !== 'string' || path === '') invalidSetting('path', 'must be a path such as /api/orders/:id')
  // Checked again under the write lock by addEndpoint, against the project as it is then.
  pathField(() => checkEndpointPath(path, project.pathRules))
  const settings = Object.keys(given).length === 0 ? {} : settingsFromJson(given)
  // A new endpoint answers as a custom one; one bound to a resource's records is checked again when configured.
  const kind = 'custom'
  await checkSettingFields(defaultSettings({ kind, action: null, operation: null }), kind, settings, makeFaker, async () => {})
  // A JSON body makes it answer that body, not a resource's records at the same path (as `add-endpoint --body`).
  const fixedAnswer = settings.body !== undefined && settings.body !== null
  return addEndpointWithBody(context, { project: project.slug, method, path, fixedAnswer }, settings, makeFaker)
}
