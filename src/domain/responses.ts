import { compileWhen, ConditionError, describeWhen } from '../engine/conditions.ts'
import { parseDelay } from '../engine/delay.ts'
import type { FakerFactory } from '../engine/generators.ts'
import { checkTemplate, checkTextTemplate, hasPlaceholders } from '../engine/template.ts'
import { AppError } from '../errors.ts'
import { PICKS, type Endpoint, type EndpointKind, type EndpointResponse, type ResponsePick } from '../model.ts'
import { kindOf } from '../kinds/registry.ts'
import type { ResponseView } from '../views.ts'
import { checkContentType, checkText, checkUpload, decodeBase64, type UploadedFile } from './bodies.ts'
import { checkStatus } from './endpoints.ts'
import { checkFault, storedDelay } from './latency.ts'
import { isObject } from '../engine/json-input.ts'

/*
 * An endpoint's responses (docs/mocking.md, "Responses and rules"): each checked here, whoever
 * sends it (CLI, API, project file, dashboard), refusals naming the field (`responses[2].when.body`).
 */

export const MAX_RESPONSES = 100
export const MAX_RESPONSE_NAME = 100
export const RESPONSE_FIELDS = ['name', 'when', 'status', 'headers', 'body', 'text', 'file', 'contentType', 'delay', 'fault'] as const

/** A response as sent and written back (project file, API, `--json`). */
export type ResponseJson = ResponseView

function refuse(field: string, message: string): never {
  throw new AppError('INVALID_INPUT', `${field}: ${message}`, { details: [{ field, message }] })
}

/** `check()`, its AppError refusal named by `field`. */
function named<T>(field: string, check: () => T): T {
  try {
    return check()
  } catch (error) {
    if (error instanceof AppError && error.status === 400) refuse(field, error.message)
    throw error
  }
}

/** Responses answer HTTP routes; an operation of a mounted schema or a gRPC service answers through its schema. */
export function checkResponsesAllowed(kind: EndpointKind): void {
  if (kindOf(kind).routing !== 'route') throw new AppError('INVALID_INPUT', `responses apply to HTTP routes; this ${kind} operation answers through its schema`)
}

export function checkPick(pick: string): ResponsePick {
  if (!(PICKS as readonly string[]).includes(pick)) throw new AppError('INVALID_INPUT', `pick "${pick}" must be one of ${PICKS.join(', ')}`)
  return pick as ResponsePick
}

export interface ResponseCheck {
  /** Checks a header set (the endpoint's own rule). */
  checkHeaders: (headers: Record<string, string>) => Record<string, string>
  /** null: templates are not checked here (a project file being read; `apply` checks them). */
  makeFaker: FakerFactory | null
  /** The endpoint's status rule. */
  checkStatus?: (status: number) => number
  /** Where a response's file is stored and looked up; absent: files are checked only (before the write, or a project file being read). */
  files?: ResponseFiles
}

/** A stored file as a response keeps it. */
export interface ResponseFileRef {
  id: number
  name: string
  size: number
}

export interface ResponseFiles {
  /** Stores the bytes (once per name and bytes in the project). */
  store: (file: UploadedFile) => ResponseFileRef
  /** A file of this project already stored; undefined when there is none with this id. */
  byId: (id: number) => ResponseFileRef | undefined
}

const FILE_FORMS = '{"name": "avatar.png", "base64": "…"} (new bytes), or {"id": 7} (a file this project stores already, as responses list it)'

/** `file` as sent: new bytes `{name, base64}`, or a stored file `{id, name?, size?}` as views show it. */
function responseFile(raw: unknown, at: string, files: ResponseFiles | undefined): ResponseFileRef {
  if (!isObject(raw)) refuse(at, `must be ${FILE_FORMS}`)
  if (raw.base64 !== undefined || raw.id === undefined) {
    if (typeof raw.name !== 'string' || typeof raw.base64 !== 'string' || Object.keys(raw).some((key) => key !== 'name' && key !== 'base64')) refuse(at, `must be ${FILE_FORMS}`)
    const bytes = decodeBase64(raw.base64)
    if (!bytes) refuse(`${at}.base64`, 'is not base64')
    const upload = named(at, () => checkUpload({ name: raw.name as string, bytes }))
    // Checked only: the id is given when the file is stored, inside the write.
    return files ? files.store(upload) : { id: 0, name: upload.name, size: upload.bytes.byteLength }
  }
  if (typeof raw.id !== 'number' || !Number.isInteger(raw.id) || Object.keys(raw).some((key) => key !== 'id' && key !== 'name' && key !== 'size')) refuse(at, `must be ${FILE_FORMS}`)
  if (!files) return { id: raw.id, name: typeof raw.name === 'string' ? raw.name : '', size: typeof raw.size === 'number' ? raw.size : 0 }
  const stored = files.byId(raw.id)
  if (!stored) refuse(`${at}.id`, `${raw.id} names no file stored in this project; send the bytes as {"name": …, "base64": …}`)
  return stored
}

/** One response as sent (JSON), checked; `at` names it in refusals (`responses[1]`). */
export function responseFromJson(raw: unknown, at: string, check: ResponseCheck): EndpointResponse {
  if (!isObject(raw)) refuse(at, `must be an object with any of ${RESPONSE_FIELDS.join(', ')}`)
  for (const key of Object.keys(raw)) {
    if (!(RESPONSE_FIELDS as readonly string[]).includes(key)) refuse(`${at}.${key}`, `is not a response setting; use ${RESPONSE_FIELDS.join(', ')}`)
  }
  const { name, when, status, headers, body, text, file, contentType, delay, fault } = raw
  const bodies = (['body', 'text', 'file'] as const).filter((key) => raw[key] !== undefined && raw[key] !== null)
  if (bodies.length > 1) refuse(`${at}.${bodies[1]}`, `cannot be given with ${bodies[0]}: a response has one body (body is JSON, text a text template, file bytes answered as they are)`)
  if (text !== undefined && text !== null) {
    named(`${at}.text`, () => checkText(text))
    if (check.makeFaker && hasPlaceholders(text as string)) {
      const { makeFaker } = check
      named(`${at}.text`, () => checkTextTemplate(text as string, makeFaker()))
    }
  }
  const fileRef = file === undefined || file === null ? null : responseFile(file, `${at}.file`, check.files)
  if (name !== undefined && name !== null && (typeof name !== 'string' || name.trim() === '' || name.length > MAX_RESPONSE_NAME || /[\u0000-\u001f]/.test(name) || /^\d+$/.test(name))) {
    refuse(`${at}.name`, `must be a one-line label of 1 to ${MAX_RESPONSE_NAME} characters, not only digits (digits name a position)`)
  }
  // The management API addresses a response by name in its URL (…/responses/{name}): "." and ".."
  // would resolve away there, to the endpoint itself.
  if (name === '.' || name === '..') refuse(`${at}.name`, `"${name}" names a URL segment the path resolves away: use a word`)
  if (when !== undefined && when !== null) {
    try {
      compileWhen(when, `${at}.when`)
    } catch (error) {
      if (error instanceof ConditionError) refuse(error.path, error.message.slice(error.path.length + 2))
      throw error
    }
  }
  if (status !== undefined && status !== null && (typeof status !== 'number' || !Number.isInteger(status))) refuse(`${at}.status`, `must be an HTTP status code, got ${JSON.stringify(status)}`)
  if (headers !== undefined && headers !== null && !isObject(headers)) refuse(`${at}.headers`, 'must be an object of header names to string values')
  if (delay !== undefined && delay !== null && typeof delay !== 'number' && typeof delay !== 'string') refuse(`${at}.delay`, `must be milliseconds (250) or a range ("100-300"), got ${JSON.stringify(delay)}`)
  if (fault !== undefined && fault !== null && typeof fault !== 'string') refuse(`${at}.fault`, `must be a fault name, got ${JSON.stringify(fault)}`)
  const bodyText = body === undefined || body === null ? null : JSON.stringify(body)
  if (bodyText !== null && check.makeFaker && hasPlaceholders(bodyText)) {
    const { makeFaker } = check
    named(`${at}.body`, () => checkTemplate(bodyText, makeFaker()))
  }
  const checkedHeaders = isObject(headers) ? named(`${at}.headers`, () => check.checkHeaders(headers as Record<string, string>)) : {}
  if (check.makeFaker) {
    const { makeFaker } = check
    for (const [header, value] of Object.entries(checkedHeaders)) {
      if (hasPlaceholders(value)) named(`${at}.headers.${header}`, () => checkTextTemplate(value, makeFaker()))
    }
  }
  const stored = delay === undefined || delay === null ? { delayMs: null, delayMaxMs: null } : named(`${at}.delay`, () => storedDelay(parseDelay(delay as string | number)))
  return {
    name: typeof name === 'string' ? name : null,
    when: isObject(when) ? when : null,
    status: typeof status === 'number' ? named(`${at}.status`, () => (check.checkStatus ?? checkStatus)(status)) : null,
    headers: checkedHeaders,
    bodyType: bodyText !== null ? 'json' : typeof text === 'string' ? 'text' : fileRef !== null ? 'file' : null,
    body: bodyText ?? (typeof text === 'string' ? text : null),
    fileId: fileRef === null ? null : fileRef.id,
    file: fileRef === null ? null : { name: fileRef.name, size: fileRef.size },
    contentType: contentType === undefined || contentType === null ? null : named(`${at}.contentType`, () => checkContentType(contentType)),
    delayMs: stored.delayMs,
    delayMaxMs: stored.delayMaxMs,
    fault: typeof fault === 'string' ? named(`${at}.fault`, () => checkFault(fault)) : null,
  }
}

/** The list as a whole: how many, unique names, one fallback, `when` only where rules pick. */
export function checkResponseList(responses: EndpointResponse[], pick: ResponsePick, field = 'responses'): EndpointResponse[] {
  if (responses.length > MAX_RESPONSES) refuse(field, `an endpoint has at most ${MAX_RESPONSES} responses`)
  const names = new Set<string>()
  let fallback = -1
  responses.forEach((response, i) => {
    if (response.name !== null) {
      if (names.has(response.name)) refuse(`${field}[${i}].name`, `"${response.name}" names another response already`)
      names.add(response.name)
    }
    if (pick !== 'rules' && response.when !== null) refuse(`${field}[${i}].when`, `"when" applies only with pick: rules (this endpoint picks by ${pick})`)
    if (pick === 'rules' && response.when === null) {
      if (fallback >= 0) refuse(`${field}[${i}]`, `is a second fallback (no "when"), after responses[${fallback}]; an endpoint has at most one`)
      fallback = i
    }
  })
  return responses
}

/** A list sent as JSON (API, project file), each response checked and named by position. */
export function responsesFromJson(raw: unknown, check: ResponseCheck, field = 'responses'): EndpointResponse[] {
  if (!Array.isArray(raw)) refuse(field, 'must be a list of responses')
  if (raw.length > MAX_RESPONSES) refuse(field, `an endpoint has at most ${MAX_RESPONSES} responses`)
  return raw.map((response, i) => responseFromJson(response, `${field}[${i}]`, check))
}

/**
 * The name `Prefer: example=` picks a response by, and the example the OpenAPI export writes it as:
 * its own, else `response` and its position (`response2`).
 */
export function responseExampleName(response: Pick<EndpointResponse, 'name'>, index: number): string {
  return response.name ?? `response${index + 1}`
}

/** Where a response is: its 1-based position or its name; NOT_FOUND otherwise. */
export function responseIndex(endpoint: Pick<Endpoint, 'method' | 'path' | 'responses'>, which: string): number {
  const byPosition = /^\d+$/.test(which) ? Number(which) - 1 : -1
  const index = byPosition >= 0 ? (byPosition < endpoint.responses.length ? byPosition : -1) : endpoint.responses.findIndex((r) => r.name === which)
  if (index < 0) {
    const count = endpoint.responses.length
    throw new AppError('NOT_FOUND', `${endpoint.method} ${endpoint.path} has no response ${/^\d+$/.test(which) ? `#${which}` : `"${which}"`} (it has ${count === 0 ? 'none' : count === 1 ? '#1' : `#1 to #${count}`})`)
  }
  return index
}

/** One line: `#1 admin  when body.username = admin → 201 json`. */
export function describeResponse(response: EndpointResponse, position: number): string {
  const when = response.when === null ? 'otherwise' : `when ${describeWhen(response.when)}`
  const extras = [
    response.status === null ? 'endpoint status' : String(response.status),
    response.bodyType === 'file' && response.file !== null ? `file ${response.file.name} (${response.file.size} bytes)` : response.bodyType ?? 'no body',
    ...(response.contentType !== null ? [`content type ${response.contentType}`] : []),
    ...(Object.keys(response.headers).length > 0 ? [`headers ${Object.keys(response.headers).join(', ')}`] : []),
    ...(response.delayMs !== null ? [`delay ${response.delayMaxMs === null ? response.delayMs : `${response.delayMs}-${response.delayMaxMs}`} ms`] : []),
    ...(response.fault !== null ? [`fault ${response.fault}`] : []),
  ]
  return `#${position}${response.name === null ? '' : ` ${response.name}`}  ${when} → ${extras.join(', ')}`
}

/** Longest line of a response's detail (`endpoint show`): a longer header value or body is cut there, with `…`. */
const DETAIL_WIDTH = 100

const cut = (text: string, width: number): string => (text.length > width ? `${text.slice(0, width - 1)}…` : text)

/** What the one-line description leaves out, a line each: its headers with their values, then its JSON or text body. */
export function describeResponseDetails(response: EndpointResponse): string[] {
  const lines = Object.entries(response.headers).map(([name, value]) => cut(`header ${name}: ${value}`, DETAIL_WIDTH))
  if (response.body !== null && response.bodyType === 'json') lines.push(cut(`body   ${response.body}`, DETAIL_WIDTH))
  if (response.body !== null && response.bodyType === 'text') lines.push(cut(`text   ${JSON.stringify(response.body)}`, DETAIL_WIDTH))
  return lines
}

/** A response's headers with their values in one cell (`response list`), cut to `width`. */
export function describeResponseHeaders(headers: Record<string, string>, width: number): string {
  return cut(Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join(', '), width)
}

/**
 * The endpoint as the chosen response answers it (design: the "effective endpoint"): its status,
 * headers over the endpoint's, body, delay and fault. Kinds answer it as any endpoint, never
 * learning that responses exist. A chosen response never runs the records' action: without a body
 * it answers none, except on an imported operation, which answers its documented response for the
 * status.
 */
export function effectiveEndpoint(endpoint: Endpoint, response: EndpointResponse): Endpoint {
  return {
    ...endpoint,
    status: response.status ?? endpoint.status,
    headers: { ...endpoint.headers, ...response.headers },
    body: response.body ?? (response.bodyType === 'file' || endpoint.specId === null ? '' : null),
    // A response's body replaces the endpoint's, whatever type either is; so does its content type.
    bodyType: response.bodyType ?? 'json',
    fileId: response.fileId,
    file: response.file,
    contentType: response.contentType ?? (response.bodyType === null ? endpoint.contentType : null),
    action: null,
    delayMs: response.delayMs ?? endpoint.delayMs,
    delayMaxMs: response.delayMs === null ? endpoint.delayMaxMs : response.delayMaxMs,
    fault: response.fault ?? endpoint.fault,
  }
}

