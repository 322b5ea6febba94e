import type { H3Event } from 'h3'
import { AppError } from '../errors.ts'
import type { RoutedEndpoint } from '../domain/catalog.ts'
import { MAX_RECORD_DEPTH, deeperThan } from '../domain/records.ts'
import type { Preferences } from '../engine/prefer.ts'
import type { OpenApiOperation, SpecDocument } from '../kinds/openapi/types.ts'
import { isJsonContentType, parseJson, readRawBody } from './body.ts'

type Responder = ReturnType<typeof import('../kinds/openapi/respond.ts').createResponder>

// One responder (compiled validators, cached samples) per parsed spec document; the catalog keeps
// a document (and so its responder) until that spec is imported again.
const responders = new WeakMap<SpecDocument, Responder>()

/** ajv and openapi-sampler load with the first imported endpoint that answers. */
export async function responderFor(route: RoutedEndpoint): Promise<Responder> {
  const spec = route.spec!()
  let responder = responders.get(spec)
  if (!responder) {
    const { createResponder } = await import('../kinds/openapi/respond.ts')
    responder = createResponder(spec)
    responders.set(spec, responder)
  }
  return responder
}

const FORM_TYPE = 'application/x-www-form-urlencoded'
const MULTIPART_TYPE = 'multipart/form-data'

/** Form fields as an object; a repeated key (`a=1&a=2`) becomes an array, as form arrays are sent. */
function formFields(entries: Iterable<[string, string]>): Record<string, string | string[]> {
  // A Map, then fromEntries: a field named __proto__ stays a plain field.
  const fields = new Map<string, string | string[]>()
  for (const [name, value] of entries) {
    const before = fields.get(name)
    fields.set(name, before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value])
  }
  return Object.fromEntries(fields)
}

/** JSON and form bodies (urlencoded and multipart) are parsed for validation; others (XML, binary) pass as raw bytes, unchecked. */
export async function readOperationBody(event: H3Event, bodyLimit: number): Promise<unknown> {
  const bytes = await readRawBody(event, bodyLimit)
  if (bytes.byteLength === 0) return undefined
  const contentType = event.req.headers.get('content-type')
  if (isJsonContentType(contentType)) {
    const body = parseJson(bytes)
    if (deeperThan(body, MAX_RECORD_DEPTH)) throw new AppError('INVALID_BODY', `request body is nested deeper than ${MAX_RECORD_DEPTH} levels`)
    return body
  }
  const mime = contentType?.split(';', 1)[0]!.trim().toLowerCase()
  if (mime === FORM_TYPE) return formFields(new URLSearchParams(Buffer.from(bytes).toString('utf8')))
  if (mime === MULTIPART_TYPE) {
    // Node's own (undici) multipart parser; an uploaded file counts as its file name.
    const form = await new Response(bytes, { headers: { 'content-type': contentType! } }).formData().catch(() => {
      throw new AppError('INVALID_BODY', 'request body is not valid multipart/form-data')
    })
    return formFields([...form].map(([name, value]): [string, string] => [name, typeof value === 'string' ? value : value.name]))
  }
  return bytes
}

/** 422 with each problem when the request breaks the operation's parameters or body schema. */
export function checkRequest(responder: Responder, operation: OpenApiOperation, event: H3Event, params: Record<string, string>, body: unknown): void {
  const problems = responder.validateRequest(operation, {
    params,
    query: event.url.searchParams,
    headers: event.req.headers,
    contentType: event.req.headers.get('content-type'),
    body,
  })
  if (problems.length > 0) {
    throw new AppError('VALIDATION_FAILED', `request does not match the OpenAPI operation${operation.operationId ? ` ${operation.operationId}` : ''}`, { details: problems })
  }
}

export interface SpecAnswer {
  status: number
  headers: Record<string, string>
  body: string | null
}

/**
 * The documented response: `Prefer: code=` and `example=` pick one as Prism does; null when the
 * preferred code is not documented (the caller answers as for any endpoint).
 */
export function specAnswer(responder: Responder, operation: OpenApiOperation, status: number, prefer: Pick<Preferences, 'code' | 'example'>, accept: string | null): SpecAnswer | null {
  const built = responder.buildResponse(operation, {
    status,
    ...(prefer.code === undefined ? {} : { preferCode: prefer.code }),
    ...(prefer.example === undefined ? {} : { preferExample: prefer.example }),
    accept,
  })
  if (!built) return null
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(built.headers)) headers[name.toLowerCase() === 'content-type' ? 'Content-Type' : name] = value
  return { status: built.status, headers, body: built.body }
}
