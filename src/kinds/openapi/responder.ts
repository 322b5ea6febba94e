import { AppError } from '../../errors.ts'
import { createSpecValidators } from './ajv.ts'
import { createCallbackBuilder, type CallbackRequests, type CallbackRuntime } from './callbacks.ts'
import { writeCsv } from './csv.ts'
import { isBinary, isCsv, isJsonish, isText, isXml, negotiate, type Negotiated } from './media.ts'
import { derefPointer, escapePointer, isObj, resolvePointer } from './pointer.ts'
import { createRequestValidator, type MockRequestParts, type RequestProblem } from './request.ts'
import { createSampler } from './sample.ts'
import type { MediaSpec, OpenApiOperation, ResponseSpec, SpecDocument } from './types.ts'
import { writeXml } from './xml.ts'

export type { MockRequestParts, RequestProblem } from './request.ts'
export type { Negotiated } from './media.ts'

/** What an `Accept` nothing documented fits gets: 406 (`strict`), or the default media as if none had been sent (`lenient`). */
export type Negotiation = 'strict' | 'lenient'

export interface ResponseChoice {
  /** The status mockapi would answer with by default (e.g. 201 for POST). */
  status: number
  preferCode?: number
  preferExample?: string
  accept?: string | null
  /** Absent: lenient. */
  negotiation?: Negotiation
}

export interface BuiltResponse {
  status: number
  headers: Record<string, string>
  body: string | null
}

export interface Responder {
  validateRequest(operation: OpenApiOperation, request: MockRequestParts): RequestProblem[]
  /** null when `preferCode` names a response the operation does not document (the caller falls back). */
  buildResponse(operation: OpenApiOperation, choice: ResponseChoice): BuiltResponse | null
  /** For an invalid request: the operation's documented 422, 400, `4XX` or `default` with a body (its example, else generated); else null. */
  buildRejection(operation: OpenApiOperation, accept: string | null): BuiltResponse | null
  /**
   * For records a stateful import answers: the documented media of the response for `status` that
   * `Accept` selects (406 under `strict` when none fits); null when that response documents none.
   */
  negotiateRecords(operation: OpenApiOperation, status: number, accept: string | null, negotiation: Negotiation): Negotiated | null
  /** A record (or a list of them) written as the negotiated media carries it: XML from the schema's hints, text, or JSON. */
  writeRecords(chosen: Negotiated, records: unknown): string | null
  /** The operation's OpenAPI callbacks for one answered request: what to send, and what cannot be. */
  callbacks(operation: OpenApiOperation, runtime: CallbackRuntime): CallbackRequests
}

// As Prism picks the answer to an invalid request: the documented 422, then 400, then (mockapi
// only) the 4XX range, then `default`; the last two are answered as 422.
const REJECTION_CODES = ['422', '400', '4XX', 'DEFAULT']

/** Validators and generated bodies for one spec; both are built lazily and cached. */
export function createResponder(spec: SpecDocument): Responder {
  // Requests are checked for `format: byte` (base64); an example or sample answered is not passed over for it.
  const answers = createSpecValidators(spec, { coerce: false })
  const requests = { strict: createSpecValidators(spec, { coerce: false, checkBytes: true }), coercing: createSpecValidators(spec, { coerce: true, checkBytes: true }) }
  const sampler = createSampler(spec, answers)
  // Sampling is deterministic, so each (operation, code, media, answered type) body is generated once.
  const generated = new Map<string, string | null>()

  const value = (pointer: string): unknown => resolvePointer(spec.document, pointer)

  /** An example that breaks its own schema (real specs have them) is passed over for a generated body; a text or XML string is not checked. */
  const fitsSchema = (media: MediaSpec, type: string, example: unknown): boolean => {
    if (!media.schema || (typeof example === 'string' && !isJsonish(type))) return true
    const validate = answers.at(media.schema)
    return validate === null || validate(example) === true
  }

  /**
   * A value as the answered type carries it: JSON text, XML written from the schema's hints, or
   * text. An example written as a string is taken to be the body as sent (an XML document already).
   */
  const format = (media: MediaSpec, type: string, body: unknown, generated = false): string | null => {
    if (isXml(type) && body !== undefined && body !== null && (generated || typeof body !== 'string')) return writeXml(spec.document, media.schema, body)
    if (isText(type) && body !== undefined && body !== null && typeof body !== 'object') return String(body)
    if (isCsv(type) && typeof body === 'object' && body !== null) return writeCsv(body)
    return _text(type, body)
  }

  const examplesOf = (media: MediaSpec): unknown[] => [media.example, ...Object.values(media.examples)].filter((pointer) => pointer !== null).map(value)

  /** `type: string, format: binary`: how OpenAPI 3.x describes a file's bytes. */
  const isBinarySchema = (pointer: string): boolean => {
    const schema = resolvePointer(spec.document, derefPointer(spec.document, pointer) ?? pointer)
    return isObj(schema) && schema.format === 'binary'
  }

  const bodyOf = (operation: OpenApiOperation, response: ResponseSpec, { media, type }: Negotiated): string | null => {
    const key = `${operation.pointer}|${response.code}|${media.type}|${type}`
    if (!generated.has(key)) {
      const examples = examplesOf(media)
      const example = examples.find((candidate) => fitsSchema(media, type, candidate))
      let body: string | null = null
      if (example !== undefined) body = format(media, type, example)
      // A generated blob would be the word "string": no body, as for a schema without type.
      else if (media.schema && !(isBinary(type) && isBinarySchema(media.schema))) body = format(media, type, sampler.json(media.schema), true)
      else if (examples.length > 0) body = format(media, type, examples[0])
      generated.set(key, body)
    }
    return generated.get(key) ?? null
  }

  /** Whether the spec names that example on this media with an `externalValue` only (not fetched, so not kept). */
  const externalOnly = (operation: OpenApiOperation, response: ResponseSpec, media: MediaSpec, name: string): boolean => {
    const responsePointer = derefPointer(spec.document, `${operation.pointer}/responses/${escapePointer(response.code)}`)
    const mediaPointer = responsePointer && `${responsePointer}/content/${escapePointer(media.type)}`
    const examplePointer = mediaPointer && derefPointer(spec.document, `${mediaPointer}/examples/${escapePointer(name)}`)
    const example = examplePointer === null ? undefined : resolvePointer(spec.document, examplePointer)
    return isObj(example) && example.externalValue !== undefined && example.value === undefined
  }

  /**
   * `Prefer: example=name`: that example, from the negotiated media if it has it, else from any of
   * the response's. An `externalValue` example is not fetched: its media's body is generated from
   * the schema instead, as when no example is named.
   */
  const preferredBody = (operation: OpenApiOperation, response: ResponseSpec, negotiated: Negotiated, name: string): { answered: Negotiated; body: string | null } => {
    const where = `${operation.operationId ?? operation.pointer} ${response.code}`
    const holds = (m: MediaSpec) => Object.hasOwn(m.examples, name)
    const external = (m: MediaSpec) => externalOnly(operation, response, m, name)
    for (const test of [holds, external]) {
      const media = test(negotiated.media) ? negotiated.media : response.media.find(test)
      if (!media) continue
      const answered = media === negotiated.media ? negotiated : { media, type: negotiate([media], null)!.type }
      if (test === holds) return { answered, body: format(media, answered.type, value(media.examples[name]!)) }
      if (!media.schema) {
        throw new AppError('EXAMPLE_NOT_FOUND', `example "${name}" on ${where} ${media.type} is an externalValue, which mockapi does not fetch, and there is no schema to generate a body from`)
      }
      return { answered, body: format(media, answered.type, sampler.json(media.schema), true) }
    }
    const available = [...new Set(response.media.flatMap((m) => Object.keys(m.examples)))].join(', ') || 'none'
    throw new AppError('EXAMPLE_NOT_FOUND', `no example named "${name}" on ${where} ${negotiated.media.type}; available: ${available}`)
  }

  const headersOf = (response: ResponseSpec): Record<string, string> => {
    const headers: Record<string, string> = {}
    for (const header of response.headers) {
      if (/^content-(type|length)$/i.test(header.name)) continue
      const headerValue = header.example ? value(header.example) : header.schema ? sampler.json(header.schema) : undefined
      if (headerValue !== undefined && headerValue !== null) headers[header.name.toLowerCase()] = _headerText(headerValue)
    }
    return headers
  }

  const negotiated = (operation: OpenApiOperation, response: ResponseSpec, choice: ResponseChoice): Negotiated | null => {
    const found = negotiate(response.media, choice.accept)
    if (found || response.media.length === 0) return found
    if (choice.negotiation !== 'strict') return negotiate(response.media, null)
    const offered = response.media.map((m) => m.type)
    throw new AppError('NOT_ACCEPTABLE', `Accept "${choice.accept}" takes none of what ${operation.operationId ?? operation.pointer} answers ${response.code} with: ${offered.join(', ')}`, {
      details: { accept: choice.accept, available: offered },
    })
  }

  const buildResponse = (operation: OpenApiOperation, choice: ResponseChoice): BuiltResponse | null => {
    const picked = _pickResponse(operation.responses, choice)
    if (!picked) return null
    const { response, status } = picked
    const headers = headersOf(response)
    if (status === 204 || status === 304) return { status, headers, body: null }
    const chosen = negotiated(operation, response, choice)
    if (!chosen) return { status, headers, body: null }
    const { preferExample } = choice
    const { answered, body } = preferExample === undefined ? { answered: chosen, body: bodyOf(operation, response, chosen) } : preferredBody(operation, response, chosen, preferExample)
    if (body === null) return { status, headers, body: null }
    headers['content-type'] = answered.type
    return { status, headers, body }
  }

  const buildRejection = (operation: OpenApiOperation, accept: string | null): BuiltResponse | null => {
    for (const code of REJECTION_CODES) {
      const response = operation.responses.find((r) => r.code.toUpperCase() === code)
      // A response that documents no body says nothing mockapi's own 422 would not say better; nor
      // does a generic `4XX` or `default` error shape filled with generated values (petstore's
      // `default: Error`), which would hide which parameter was wrong: those answer only with an example.
      const withExample = response?.media.filter((m) => examplesOf(m).length > 0) ?? []
      const specific = /^\d{3}$/.test(code)
      const candidates = withExample.length > 0 || !specific ? withExample : (response?.media.filter((m) => m.schema) ?? [])
      if (!response || candidates.length === 0) continue
      const chosen = negotiate(candidates, accept) ?? negotiate(candidates, null)!
      const body = bodyOf(operation, response, chosen)
      const status = /^\d{3}$/.test(code) ? Number(code) : 422
      return { status, headers: { ...headersOf(response), ...(body === null ? {} : { 'content-type': chosen.type }) }, body }
    }
    return null
  }

  const negotiateRecords = (operation: OpenApiOperation, status: number, accept: string | null, negotiation: Negotiation): Negotiated | null => {
    const picked = _pickResponse(operation.responses, { status })
    return picked ? negotiated(operation, picked.response, { status, accept, negotiation }) : null
  }

  const callbacks = createCallbackBuilder(spec, sampler)
  return {
    validateRequest: createRequestValidator(spec, requests),
    buildResponse,
    buildRejection,
    negotiateRecords,
    writeRecords: ({ media, type }, records) => format(media, type, records, true),
    callbacks: (operation, runtime) => callbacks(operation.pointer, runtime),
  }
}

function _pickResponse(responses: ResponseSpec[], choice: ResponseChoice): { response: ResponseSpec; status: number } | null {
  const find = (code: string) => responses.find((r) => r.code.toUpperCase() === code)
  const range = (status: number) => find(`${String(status)[0]}XX`)
  if (choice.preferCode !== undefined) {
    const response = find(String(choice.preferCode)) ?? range(choice.preferCode) ?? find('DEFAULT')
    return response ? { response, status: choice.preferCode } : null
  }
  // A 1xx is never a final answer (an endpoint imported before this may still hold one).
  const documented = choice.status >= 200 ? (find(String(choice.status)) ?? range(choice.status)) : undefined
  if (documented) return { response: documented, status: choice.status }
  const success = responses.filter((r) => /^2\d\d$/.test(r.code)).sort((a, b) => Number(a.code) - Number(b.code))[0] ?? find('2XX')
  if (success) return { response: success, status: success.code === '2XX' ? 200 : Number(success.code) }
  const fallback = find('DEFAULT')
  if (fallback) return { response: fallback, status: 200 }
  // The first documented response that is not a 1xx; an operation documenting only 1xx (a WebSocket
  // upgrade's 101) answers what it documents there, as 200.
  const next = responses.find((r) => !r.code.startsWith('1'))
  if (next) return { response: next, status: Number(next.code.replace(/X/gi, '0')) }
  return responses[0] ? { response: responses[0], status: 200 } : null
}

/** JSON media get JSON text; a string for other media is sent as it is. */
function _text(type: string, body: unknown): string | null {
  const json = isJsonish(type)
  // A schema without type (2.0 `type: file`, `format: binary` blobs) samples to null: send no body.
  if (body === undefined || (body === null && !json)) return null
  if (typeof body === 'string' && !json) return body
  return JSON.stringify(body)
}

function _headerText(value: unknown): string {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(',')
  return JSON.stringify(value)
}
