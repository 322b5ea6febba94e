import type { Faker } from '@faker-js/faker'
import { AppError } from '../../errors.ts'
import { finalStatus, hasConfiguredBody, WITH_BODY, type MockAnswer, type MockRequest } from '../../engine/exchange.ts'
import { loadFaker } from '../../engine/generators.ts'
import { isJsonContentType } from '../../engine/media-type.ts'
import { hasPlaceholders, renderTemplate, renderText, usesFaker, type TemplateContext } from '../../engine/template.ts'
import { parseCookies } from '../../engine/request-facts.ts'
import { bodyContentType, fileContent, setsContentType } from '../bodies.ts'
import type { Endpoint } from '../../model.ts'
import type { RoutedEndpoint } from '../catalog.ts'
import type { Context } from '../context.ts'
import { MAX_RECORD_DEPTH, deeperThan, runRecordAction } from '../records.ts'
import { runSingularAction } from '../singulars.ts'
import { batchedWriteTransaction, whenStoreFree } from '../transaction.ts'
import { storeFault } from '../../store/db.ts'

/*
 * The answer of a resource or custom endpoint (records, a fixed body, a template). It is in the
 * domain, not in src/kinds, because records are the domain's: reading and writing them is a
 * transaction here, which a kind may not run.
 */

const WRITES = new Set(['create', 'replace', 'patch'])
const READS = new Set(['list', 'read'])

// One unseeded faker for response templates, made on first use.
let templateFaker: Promise<Faker> | null = null

/** Records keep JSON only, nested at most as deep as a record may be. */
export function checkBodyDepth(body: unknown): void {
  if (deeperThan(body, MAX_RECORD_DEPTH)) throw new AppError('INVALID_BODY', `request body is nested deeper than ${MAX_RECORD_DEPTH} levels`)
}

/** A body that must be JSON: empty → undefined, another content type → 415, malformed → 400. */
async function readJsonBody(request: MockRequest): Promise<unknown> {
  const bytes = await request.body()
  if (bytes.byteLength === 0) return undefined
  if (!isJsonContentType(request.headers.get('content-type'))) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'request body must be JSON (Content-Type: application/json)')
  }
  return request.json()
}

/** A body that must be JSON for record writes; elsewhere parsed when it is JSON, else ignored. */
export async function readEndpointBody(request: MockRequest, endpoint: Endpoint): Promise<unknown> {
  if (!hasConfiguredBody(endpoint) && endpoint.action && WRITES.has(endpoint.action)) return readJsonBody(request)
  if (!WITH_BODY.has(request.method)) return undefined
  if (endpoint.schema !== null) return readJsonBody(request)
  // A fixed answer still refuses a malformed JSON body, so client bugs show up against the mock.
  const bytes = await request.body()
  return bytes.byteLength > 0 && isJsonContentType(request.headers.get('content-type')) ? request.json() : undefined
}

/** 422 when the body breaks the JSON Schema configured on the endpoint (if any). */
export async function checkEndpointSchema(endpoint: Endpoint, body: unknown): Promise<void> {
  if (endpoint.schema === null) return
  // ajv recurses like JSON.stringify: the same depth limit as records.
  checkBodyDepth(body)
  // ajv loads with the first endpoint that has a schema.
  const { schemaProblems } = await import('../../engine/validate.ts')
  const problems = schemaProblems(endpoint.schema, body)
  if (problems.length > 0) throw new AppError('VALIDATION_FAILED', 'request body does not match the endpoint schema', { details: problems })
}

export interface EndpointAnswerInput {
  context: Context
  request: MockRequest
  route: RoutedEndpoint
  params: Record<string, string>
  /** The status the policy chose. */
  status: number
  /** The request body, as validated. */
  body: unknown
}

/** What `{{…}}` reads of this request; faker is loaded only when the text uses it. */
async function templateContext({ context, request, params, body }: EndpointAnswerInput, text: string): Promise<TemplateContext> {
  if (usesFaker(text)) templateFaker ??= loadFaker().then((make) => make())
  return {
    params,
    query: Object.fromEntries(request.url.searchParams),
    body,
    headers: Object.fromEntries(request.headers),
    cookies: parseCookies(request.headers.get('cookie')),
    faker: usesFaker(text) ? await templateFaker : null,
    now: context.clock.now(),
  }
}

// What the Headers API refuses in a value once CR, LF and NUL are gone (other controls, characters past U+00FF).
const UNSENDABLE = /[^\t\x20-\x7e\x80-\xff]/

/**
 * The longest rendered header value sent (one byte per character once sendable): clients refuse a
 * response whose header block is larger than theirs (Node's is 16 KiB) rather than skip a header.
 */
const MAX_RENDERED_HEADER = 8 * 1024

/**
 * The configured headers, each value rendered as a template for this request. A rendered value
 * loses CR, LF and NUL, so `{{body.x}}` cannot add a header of its own; one that still cannot be
 * sent, or is longer than MAX_RENDERED_HEADER, is left out rather than failing the answer.
 */
export async function renderHeaders(input: EndpointAnswerInput): Promise<Record<string, string>> {
  const configured = input.route.endpoint.headers
  const templated = Object.values(configured).filter(hasPlaceholders)
  if (templated.length === 0) return configured
  const context = await templateContext(input, templated.join(' '))
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(configured)) {
    if (!hasPlaceholders(value)) {
      headers[name] = value
      continue
    }
    const rendered = renderText(value, context).replace(/[\r\n\0]/g, '')
    if (rendered.length <= MAX_RENDERED_HEADER && !UNSENDABLE.test(rendered)) headers[name] = rendered
  }
  return headers
}

/** The configured body as sent: JSON or text rendered for this request, a file's bytes as they are. */
async function configuredBody(input: EndpointAnswerInput): Promise<{ body: string | Uint8Array; contentType: string | null }> {
  const { endpoint } = input.route
  if (endpoint.bodyType === 'file') {
    // Read when the request was matched (catalog.ts), so a change made since (during a delay) answers the bytes matched.
    const file = input.route.files?.get(endpoint.fileId!) ?? fileContent(input.context, endpoint.fileId!)
    // Only files too large together to read when matched are read here, and one changed since then is gone:
    // the endpoint exists, so not a 404, but ask again.
    if (!file) throw new AppError('STORE_BUSY', `${endpoint.method} ${endpoint.path} was changed while answering: ask again`, { headers: { 'Retry-After': '1' } })
    return { body: file.bytes, contentType: bodyContentType(endpoint) }
  }
  const text = endpoint.body!
  if (!hasPlaceholders(text)) return { body: text, contentType: bodyContentType(endpoint) }
  const context = await templateContext(input, text)
  return { body: endpoint.bodyType === 'text' ? renderText(text, context) : renderTemplate(text, context), contentType: bodyContentType(endpoint) }
}

/** The headers with this Content-Type, unless they set one themselves; null: the answer's own (JSON). */
function typed(contentType: string | null, headers: Record<string, string>): Record<string, string> {
  return contentType === null || setsContentType(headers) ? headers : { 'Content-Type': contentType, ...headers }
}

/** The configured headers rendered for this request, with the configured Content-Type (for a kind's own answer: a documented one). */
export async function configuredHeaders(input: EndpointAnswerInput): Promise<Record<string, string>> {
  return typed(input.route.endpoint.contentType, await renderHeaders(input))
}

/**
 * The headers the answer would have had, rendered for this request, with its body's Content-Type:
 * what a `malformed` fault writes before it breaks. A request body the answer would refuse reads as none.
 */
export async function faultHeaders(input: Omit<EndpointAnswerInput, 'status' | 'body'>): Promise<Record<string, string>> {
  const { endpoint } = input.route
  const body = await readEndpointBody(input.request, endpoint).catch(() => undefined)
  const headers = await renderHeaders({ ...input, status: endpoint.status, body })
  return typed(hasConfiguredBody(endpoint) ? bodyContentType(endpoint) : endpoint.contentType, headers)
}

/** A configured fixed body, the resource's records, or `{}`. */
export async function answerEndpoint(input: EndpointAnswerInput): Promise<MockAnswer> {
  const { context, route } = input
  const status = finalStatus(input.status)
  const { endpoint } = route
  const headers = await renderHeaders(input)
  if (hasConfiguredBody(endpoint)) {
    const answer = await configuredBody(input)
    return { status, headers: typed(answer.contentType, headers), body: answer.body }
  }
  if (endpoint.action && route.collectionId !== null && route.resource !== null) {
    // Writes of concurrent requests share a commit; a read needs no transaction.
    const action = () => recordAnswer(input, input.body, status, headers)
    return whenStoreFree(context.db, () => (READS.has(endpoint.action!) ? action() : batchedWriteTransaction(context.db, action)))
  }
  return { status, headers: typed(endpoint.contentType, headers), body: '{}' }
}

/** The resource's records: the endpoint's action run on its collection, the endpoint's headers laid over the action's. */
function recordAnswer({ context, request, route, params }: PlainReadInput, body: unknown, status: number, headers: Record<string, string>): MockAnswer {
  const { endpoint, collectionId, resource, parentFields, idParam } = route
  const run = resource!.singular ? runSingularAction : runRecordAction
  const result = run(context, {
    action: endpoint.action!,
    resource: resource!,
    collectionId: collectionId!,
    parents: parentFields.map((field) => ({ field, values: [params[field]!] })),
    id: params[idParam],
    query: request.url.searchParams,
    body,
    url: request.url,
    status,
  })
  return { status: result.status, headers: { ...result.headers, ...typed(endpoint.contentType, headers) }, body: result.body }
}

/** What a plain read is answered from: the request as matched. */
export type PlainReadInput = Pick<EndpointAnswerInput, 'context' | 'request' | 'route' | 'params'>

const plainReads = new WeakMap<Endpoint, boolean>()

/**
 * Whether the route reads records and nothing of its endpoint is left to decide per request: no
 * chosen responses, delay, fault, error rate, proxy, configured body or schema, and headers without
 * placeholders. Kept per endpoint object: a configuration change makes new ones.
 */
export function readsPlainly(route: RoutedEndpoint): boolean {
  const { endpoint } = route
  let plain = plainReads.get(endpoint)
  if (plain === undefined) {
    plain = route.collectionId !== null && route.resource !== null && endpoint.action !== null && READS.has(endpoint.action)
      && endpoint.responses.length === 0 && endpoint.delayMs === 0 && endpoint.delayMaxMs === null && endpoint.fault === null
      && endpoint.errorRate === 0 && !endpoint.proxy && !hasConfiguredBody(endpoint) && endpoint.schema === null
      && !Object.values(endpoint.headers).some(hasPlaceholders)
    plainReads.set(endpoint, plain)
  }
  return plain
}

/**
 * The answer of a GET or HEAD of a route that reads plainly, which the stages would pass through
 * untouched once auth, `Prefer` and the delay floor have nothing to say (the caller's checks), given
 * without them: a list or an item is most of a mock's traffic, and the stages' awaits cost about a
 * tenth of GET one item. Null: the stages answer it, as they do when the store is busy (they wait).
 */
export function answerPlainRead(input: PlainReadInput): MockAnswer | null {
  const { method } = input.request
  if (method !== 'GET' && method !== 'HEAD') return null
  const { endpoint } = input.route
  try {
    return recordAnswer(input, undefined, finalStatus(endpoint.status), endpoint.headers)
  } catch (error) {
    if (storeFault(error) === 'busy') return null
    throw error
  }
}
