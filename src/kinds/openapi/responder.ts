import { AppError } from '../../errors.ts'
import { createSpecValidators } from './ajv.ts'
import { createCallbackBuilder, type CallbackRequests, type CallbackRuntime } from './callbacks.ts'
import { isJsonish, isXml, mediaForAccept } from './media.ts'
import { resolvePointer } from './pointer.ts'
import { createRequestValidator, type MockRequestParts, type RequestProblem } from './request.ts'
import { createSampler } from './sample.ts'
import type { MediaSpec, OpenApiOperation, ResponseSpec, SpecDocument } from './types.ts'

export type { MockRequestParts, RequestProblem } from './request.ts'

export interface ResponseChoice {
  /** The status mockapi would answer with by default (e.g. 201 for POST). */
  status: number
  preferCode?: number
  preferExample?: string
  accept?: string | null
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
  /** The operation's OpenAPI callbacks for one answered request: what to send, and what cannot be. */
  callbacks(operation: OpenApiOperation, runtime: CallbackRuntime): CallbackRequests
}

/** Validators and generated bodies for one spec; both are built lazily and cached. */
export function createResponder(spec: SpecDocument): Responder {
  const validators = { strict: createSpecValidators(spec, { coerce: false }), coercing: createSpecValidators(spec, { coerce: true }) }
  const sampler = createSampler(spec, validators.strict)
  // Sampling is deterministic, so each (operation, code, media) body is generated once.
  const generated = new Map<string, string | null>()

  const value = (pointer: string): unknown => resolvePointer(spec.document, pointer)

  /** An example that breaks its own schema (real specs have them) is passed over for a generated body. */
  const fitsSchema = (media: MediaSpec, example: unknown): boolean => {
    if (!media.schema || !isJsonish(media.type)) return true
    const validate = validators.strict.at(media.schema)
    return validate === null || validate(example) === true
  }

  const bodyOf = (operation: OpenApiOperation, response: ResponseSpec, media: MediaSpec): string | null => {
    const key = `${operation.pointer}|${response.code}|${media.type}`
    if (!generated.has(key)) {
      const examples = [media.example, ...Object.values(media.examples)].filter((pointer) => pointer !== null).map(value)
      const example = examples.find((candidate) => fitsSchema(media, candidate))
      let body: string | null = null
      if (example !== undefined) body = _text(media, example)
      else if (media.schema) body = isXml(media.type) ? sampler.xml(media.schema) : _text(media, sampler.json(media.schema))
      else if (examples.length > 0) body = _text(media, examples[0])
      generated.set(key, body)
    }
    return generated.get(key) ?? null
  }

  /** The media holding the named example: the negotiated one if it does, else any of the response's. */
  const exampleOwner = (operation: OpenApiOperation, response: ResponseSpec, negotiated: MediaSpec, name: string): MediaSpec => {
    const owner = [negotiated, ...response.media].find((m) => Object.hasOwn(m.examples, name))
    if (owner) return owner
    const available = [...new Set(response.media.flatMap((m) => Object.keys(m.examples)))].join(', ') || 'none'
    const where = `${operation.operationId ?? operation.pointer} ${response.code} ${negotiated.type}`
    throw new AppError('EXAMPLE_NOT_FOUND', `no example named "${name}" on ${where}; available: ${available}`)
  }

  const buildResponse = (operation: OpenApiOperation, choice: ResponseChoice): BuiltResponse | null => {
    const picked = _pickResponse(operation.responses, choice)
    if (!picked) return null
    const { response, status } = picked
    const headers: Record<string, string> = {}
    for (const header of response.headers) {
      if (/^content-(type|length)$/i.test(header.name)) continue
      const headerValue = header.example ? value(header.example) : header.schema ? sampler.json(header.schema) : undefined
      if (headerValue !== undefined && headerValue !== null) headers[header.name.toLowerCase()] = _headerText(headerValue)
    }
    const negotiated = mediaForAccept(response.media, choice.accept)
    if (status === 204 || status === 304 || !negotiated) return { status, headers, body: null }
    const { preferExample } = choice
    const media = preferExample === undefined ? negotiated : exampleOwner(operation, response, negotiated, preferExample)
    const body = preferExample === undefined ? bodyOf(operation, response, media) : _text(media, value(media.examples[preferExample] as string))
    if (body === null) return { status, headers, body: null }
    headers['content-type'] = media.type === '*/*' ? 'application/json' : media.type
    return { status, headers, body }
  }

  const callbacks = createCallbackBuilder(spec, sampler)
  return { validateRequest: createRequestValidator(spec, validators), buildResponse, callbacks: (operation, runtime) => callbacks(operation.pointer, runtime) }
}

function _pickResponse(responses: ResponseSpec[], choice: ResponseChoice): { response: ResponseSpec; status: number } | null {
  const find = (code: string) => responses.find((r) => r.code.toUpperCase() === code)
  const range = (status: number) => find(`${String(status)[0]}XX`)
  if (choice.preferCode !== undefined) {
    const response = find(String(choice.preferCode)) ?? range(choice.preferCode) ?? find('DEFAULT')
    return response ? { response, status: choice.preferCode } : null
  }
  const documented = find(String(choice.status)) ?? range(choice.status)
  if (documented) return { response: documented, status: choice.status }
  const success = responses.filter((r) => /^2\d\d$/.test(r.code)).sort((a, b) => Number(a.code) - Number(b.code))[0] ?? find('2XX')
  if (success) return { response: success, status: success.code === '2XX' ? 200 : Number(success.code) }
  const fallback = find('DEFAULT')
  if (fallback) return { response: fallback, status: 200 }
  const first = responses[0]
  return first ? { response: first, status: Number(first.code.replace(/X/gi, '0')) } : null
}

/** JSON media get JSON text; a string for text or XML media is sent as it is. */
function _text(media: MediaSpec, body: unknown): string | null {
  const json = isJsonish(media.type)
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
