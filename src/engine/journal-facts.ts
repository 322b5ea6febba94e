import type { RequestFacts } from './conditions.ts'
import { multipartFieldsNow } from './form-fields.ts'
import { factsOf, isMultipart, NO_BODY, readBody, type BodyFacts } from './request-facts.ts'

/** A request the journal kept: enough of it to test a `when` against after it was answered. */
export interface JournalRequest {
  method: string
  /** As sent, without the query. */
  path: string
  /** The raw query, with its `?`, or empty. */
  search: string
  headers: Iterable<[string, string]>
  /** The kept bytes (cut at the journal's limit); null without a body. */
  body: Uint8Array | null
  contentType: string | null
  /** The endpoint's path parameters; null when no endpoint matched. */
  params: Record<string, string> | null
}

/**
 * What a `when` reads of a journalled request, read as the response rules read a live one (the
 * same query, header, cookie and body reading), without waiting: a test's `verify` is synchronous.
 * A multipart body is parsed by multipartFieldsNow, the rules' parser being asynchronous.
 */
export function journalFacts(request: JournalRequest, needsBody: boolean): RequestFacts {
  const headers = new Headers()
  for (const [name, value] of request.headers) {
    try {
      headers.append(name, value)
    } catch {
      // Node accepted a value that Headers refuses: no condition can read it, as no rule could.
    }
  }
  let body: BodyFacts = NO_BODY
  if (needsBody && request.body !== null && request.body.byteLength > 0) {
    const contentType = request.contentType ?? headers.get('content-type')
    body = readBody(request.body, contentType, isMultipart(contentType) ? multipartFieldsNow(request.body, contentType) : null)
  }
  return factsOf(new URLSearchParams(request.search), headers, request.params ?? {}, body)
}
