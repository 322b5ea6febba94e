import type { RequestFacts } from './conditions.ts'
import type { MockRequest } from './exchange.ts'
import { FORM_TYPE, formFields, MULTIPART_TYPE, multipartFields } from './form-fields.ts'
import { isJsonContentType } from './media-type.ts'

/** `a=1; b=x%20y`: the first `=` splits, a value that cannot be decoded stays as sent, the first of a repeated name wins. */
export function parseCookies(header: string | null): Record<string, string> {
  const cookies = new Map<string, string>()
  for (const part of (header ?? '').split(';')) {
    const equals = part.indexOf('=')
    if (equals <= 0) continue
    const name = part.slice(0, equals).trim()
    const raw = part.slice(equals + 1).trim().replace(/^"(.*)"$/, '$1')
    let value = raw
    try {
      value = decodeURIComponent(raw)
    } catch {
      // A malformed % sequence: the raw text is what the client sent.
    }
    if (name && !cookies.has(name)) cookies.set(name, value)
  }
  return Object.fromEntries(cookies)
}

export type BodyFacts = Pick<RequestFacts, 'body' | 'bodyText' | 'bodyForm'>
export const NO_BODY: BodyFacts = { body: undefined, bodyText: null }

export const isMultipart = (contentType: string | null): contentType is string => contentType?.split(';', 1)[0]!.trim().toLowerCase() === MULTIPART_TYPE

/**
 * A body as conditions read it: JSON, form fields, else its text. Never fails a request: what does
 * not parse stays text. `multipart` holds a multipart body's fields (null: they did not parse).
 */
export function readBody(bytes: Uint8Array, contentType: string | null, multipart: Record<string, string | string[]> | null): BodyFacts {
  if (bytes.byteLength === 0) return NO_BODY
  const text = Buffer.from(bytes).toString('utf8')
  const mime = contentType?.split(';', 1)[0]!.trim().toLowerCase()
  if (isJsonContentType(contentType)) {
    try {
      return { body: JSON.parse(text) as unknown, bodyText: text }
    } catch {
      return { body: text, bodyText: text }
    }
  }
  if (mime === FORM_TYPE) return { body: formFields(new URLSearchParams(text)), bodyText: text, bodyForm: true }
  if (mime === MULTIPART_TYPE && multipart) return { body: multipart, bodyText: text, bodyForm: true }
  return { body: text, bodyText: text }
}

/** Query, headers and cookies as conditions read them, with the body's facts. */
export function factsOf(search: URLSearchParams, headers: Headers, params: Record<string, string>, body: BodyFacts): RequestFacts {
  const query: Record<string, string | string[]> = formFields(search)
  // Headers joins repeated values with ", " (names lower case already): a rule may name the line or one value.
  // A Map, then fromEntries: a header named __proto__ stays a plain field.
  const lines = new Map<string, string | string[]>()
  for (const [name, line] of headers) {
    const values = line.includes(',') ? line.split(',').map((value) => value.trim()) : []
    lines.set(name, values.length > 1 ? [line, ...values] : line)
  }
  return {
    params: Object.fromEntries(Object.entries(params)),
    query,
    headers: Object.fromEntries(lines),
    cookies: parseCookies(headers.get('cookie')),
    ...body,
  }
}

/** What a response's `when` reads of a request; the body only when some `when` tests it. */
export async function requestFacts(request: MockRequest, params: Record<string, string>, needsBody: boolean): Promise<RequestFacts> {
  let body = NO_BODY
  if (needsBody) {
    const bytes = await request.body()
    const contentType = request.headers.get('content-type')
    body = readBody(bytes, contentType, bytes.byteLength > 0 && isMultipart(contentType) ? await multipartFields(bytes, contentType) : null)
  }
  return factsOf(request.url.searchParams, request.headers, params, body)
}
