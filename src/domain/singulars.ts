import { AppError } from '../errors.ts'
import { parseKeepingNumbers, stringifyKeepingNumbers } from '../engine/exact-numbers.ts'
import type { Context } from './context.ts'
import { requireObject, type JsonObject, type RecordRequest, type RecordResponse } from './records.ts'
import { writeTransaction } from './transaction.ts'

/**
 * A singular resource (json-server's `"profile": {…}`) keeps its object as the one record of its
 * collection, under a key no path can name (an id is never empty), so the object is stored as it
 * is: an `id` in it is one more field, as json-server keeps it.
 */
export const SINGULAR_KEY = ''

/** Its object as stored, from its seed (the imported object): what `reset` restores. */
export function storeSingular(context: Context, collectionId: number, value: JsonObject): void {
  context.repos.records.insert(collectionId, SINGULAR_KEY, stringifyKeepingNumbers(value))
}

function current(context: Context, collectionId: number): string {
  const stored = context.repos.records.get(collectionId, SINGULAR_KEY)
  // Only a resource deleted after the request was routed has none.
  if (stored === undefined) throw new AppError('NOT_FOUND', 'the resource this endpoint answered has been deleted')
  return stored
}

/** GET answers the object, PUT replaces it with the body, PATCH merges the body's top-level keys into it. */
export function runSingularAction(context: Context, request: RecordRequest): RecordResponse {
  const headers = { 'Content-Type': 'application/json; charset=utf-8' }
  if (request.action === 'read') return { status: request.status, headers, body: current(context, request.collectionId) }
  if (request.action !== 'replace' && request.action !== 'patch') {
    throw new AppError('METHOD_NOT_ALLOWED', `a singular resource answers GET, PUT and PATCH, not ${request.action}`)
  }
  const body = requireObject(request.body)
  const updated = writeTransaction(context.db, () => {
    const stored = current(context, request.collectionId)
    const next = stringifyKeepingNumbers(request.action === 'patch' ? { ...(parseKeepingNumbers(stored) as JsonObject), ...body } : body)
    context.repos.records.replace(request.collectionId, SINGULAR_KEY, next)
    return next
  })
  return { status: request.status, headers, body: updated }
}
