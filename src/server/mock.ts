import type { H3Event } from 'h3'
import { setTimeout as sleep } from 'node:timers/promises'
import { AppError } from '../errors.ts'
import type { Catalog, Resolution } from '../domain/catalog.ts'
import type { Store } from '../domain/context.ts'
import { runRecordAction } from '../domain/records.ts'
import type { MockEvents } from '../events.ts'
import { readJsonBody, readRawBody, isJsonContentType, parseJson } from './body.ts'
import { errorResponse, textResponse } from './respond.ts'
import { DELIVERY_HEADER } from '../queue/worker.ts'

export interface MockDeps {
  store: Store
  catalog: Catalog
  events: MockEvents
  bodyLimit: number
  debug: boolean
}

function decodeSegments(pathname: string): string[] {
  try {
    return pathname.split('/').filter(Boolean).map(decodeURIComponent)
  } catch {
    throw new AppError('BAD_REQUEST', `path "${pathname}" has a malformed percent-encoding`)
  }
}

const WRITES = new Set(['create', 'replace', 'patch'])

async function answer(event: H3Event, deps: MockDeps, resolution: Resolution): Promise<Response> {
  if (resolution.kind === 'not-found') {
    throw new AppError('ROUTE_NOT_MATCHED', `no mock endpoint matches ${event.req.method} ${event.url.pathname}`)
  }
  if (resolution.kind === 'method-not-allowed') {
    throw new AppError('METHOD_NOT_ALLOWED', `${event.req.method} is not allowed on ${event.url.pathname}; allowed: ${resolution.allow.join(', ')}`, {
      headers: { Allow: resolution.allow.join(', ') },
    })
  }
  const { endpoint, collectionId, parentFields } = resolution.route
  if (endpoint.delayMs > 0) await sleep(endpoint.delayMs)
  if (endpoint.action && collectionId !== null) {
    const body = WRITES.has(endpoint.action) ? await readJsonBody(event, deps.bodyLimit) : undefined
    const result = runRecordAction(deps.store, {
      action: endpoint.action,
      collectionId,
      parents: parentFields.map((field) => ({ field, values: [resolution.params[field]!] })),
      id: resolution.params.id,
      query: event.url.searchParams,
      body,
      url: event.url,
      status: endpoint.status,
    })
    return textResponse(result.status, result.body, { ...result.headers, ...endpoint.headers })
  }
  // A fixed answer still refuses a malformed JSON body, so client bugs show up against the mock.
  const bytes = await readRawBody(event, deps.bodyLimit)
  if (bytes.byteLength > 0 && isJsonContentType(event.req.headers.get('content-type'))) parseJson(bytes)
  return textResponse(endpoint.status, endpoint.body ?? '{}', endpoint.headers)
}

/** The catch-all handler: resolve, answer, and report every request (success or error) once. */
export function createMockHandler(deps: MockDeps) {
  return async (event: H3Event): Promise<Response> => {
    const started = performance.now()
    let resolution: Resolution = { kind: 'not-found', project: null }
    let response: Response
    try {
      resolution = deps.catalog.resolve(event.req.method, decodeSegments(event.url.pathname))
      response = await answer(event, deps, resolution)
    } catch (error) {
      response = errorResponse(error, { debug: deps.debug })
    }
    if (deps.events.listenerCount('request.served') > 0) {
      deps.events.emit('request.served', {
        projectId: resolution.project?.id ?? null,
        endpointId: resolution.kind === 'found' ? resolution.route.endpoint.id : null,
        method: event.req.method,
        path: event.url.pathname,
        query: event.url.searchParams,
        status: response.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        fromDelivery: event.req.headers.has(DELIVERY_HEADER),
      })
    }
    return response
  }
}
