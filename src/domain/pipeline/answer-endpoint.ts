import type { Faker } from '@faker-js/faker'
import { AppError } from '../../errors.ts'
import { finalStatus, WITH_BODY, type MockAnswer, type MockRequest } from '../../engine/exchange.ts'
import { loadFaker } from '../../engine/generators.ts'
import { isJsonContentType } from '../../engine/media-type.ts'
import { hasPlaceholders, renderTemplate, usesFaker } from '../../engine/template.ts'
import type { Endpoint } from '../../model.ts'
import type { RoutedEndpoint } from '../catalog.ts'
import type { Context } from '../context.ts'
import { MAX_RECORD_DEPTH, deeperThan, runRecordAction } from '../records.ts'
import { whenStoreFree } from '../transaction.ts'

/*
 * The answer of a resource or custom endpoint (records, a fixed body, a template). It is in the
 * domain, not in src/kinds, because records are the domain's: reading and writing them is a
 * transaction here, which a kind may not run.
 */

const WRITES = new Set(['create', 'replace', 'patch'])

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
  if (endpoint.body === null && endpoint.action && WRITES.has(endpoint.action)) return readJsonBody(request)
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

async function renderFixedBody({ context, request, route, params, body }: EndpointAnswerInput): Promise<string> {
  const text = route.endpoint.body!
  if (!hasPlaceholders(text)) return text
  if (usesFaker(text)) templateFaker ??= loadFaker().then((make) => make())
  return renderTemplate(text, {
    params,
    query: Object.fromEntries(request.url.searchParams),
    body,
    headers: Object.fromEntries(request.headers),
    faker: usesFaker(text) ? await templateFaker : null,
    now: context.clock.now(),
  })
}

/** A configured fixed body, the resource's records, or `{}`. */
export async function answerEndpoint(input: EndpointAnswerInput): Promise<MockAnswer> {
  const { context, request, route, params, body } = input
  const status = finalStatus(input.status)
  const { endpoint, collectionId, parentFields, idParam } = route
  if (endpoint.body !== null) return { status, headers: endpoint.headers, body: await renderFixedBody(input) }
  if (endpoint.action && collectionId !== null) {
    const result = await whenStoreFree(context.db, () => runRecordAction(context, {
      action: endpoint.action!,
      collectionId,
      parents: parentFields.map((field) => ({ field, values: [params[field]!] })),
      id: params[idParam],
      query: request.url.searchParams,
      body,
      url: request.url,
      status,
    }))
    return { status: result.status, headers: { ...result.headers, ...endpoint.headers }, body: result.body }
  }
  return { status, headers: endpoint.headers, body: '{}' }
}
