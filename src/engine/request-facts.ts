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

/** A body as conditions read it: JSON, form fields, else its text. Never fails a request: what does not parse stays text. */
async function bodyFacts(request: MockRequest): Promise<Pick<RequestFacts, 'body' | 'bodyText' | 'bodyForm'>> {
  const bytes = await request.body()
  if (bytes.byteLength === 0) return { body: undefined, bodyText: null }
  const text = Buffer.from(bytes).toString('utf8')
  const contentType = request.headers.get('content-type')
  const mime = contentType?.split(';', 1)[0]!.trim().toLowerCase()
  if (isJsonContentType(contentType)) {
    try {
      return { body: JSON.parse(text) as unknown, bodyText: text }
    } catch {
      return { body: text, bodyText: text }
    }
  }
  if (mime === FORM_TYPE) return { body: formFields(new URLSearchParams(text)), bodyText: text, bodyForm: true }
  if (mime === MULTIPART_TYPE) {
    const fields = await multipartFields(bytes, contentType!)
    return fields ? { body: fields, bodyText: text, bodyForm: true } : { body: text, bodyText: text }
  }
  return { body: text, bodyText: text }
}

/** What a response's `when` reads of a request; the body only when some `when` tests it. */
export async function requestFacts(request: MockRequest, params: Record<string, string>, needsBody: boolean): Promise<RequestFacts> {
  const query: Record<string, string | string[]> = formFields(request.url.searchParams)
  // Headers joins repeated values with ", " (names lower case already): a rule may name the line or one value.
  // A Map, then fromEntries: a header named __proto__ stays a plain field.
  const lines = new Map<string, string | string[]>()
  for (const [name, line] of request.headers) {
    const values = line.includes(',') ? line.split(',').map((value) => value.trim()) : []
    lines.set(name, values.length > 1 ? [line, ...values] : line)
  }
  const headers = Object.fromEntries(lines)
  return {
    params: Object.fromEntries(Object.entries(params)),
    query,
    headers,
    cookies: parseCookies(request.headers.get('cookie')),
    ...(needsBody ? await bodyFacts(request) : { body: undefined, bodyText: null }),
  }
}
