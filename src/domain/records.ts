import { AppError } from '../errors.ts'
import type { FieldCondition, FieldFilter, Resource, ResourceAction } from '../model.ts'
import { parseItemParams, parseListParams, refuseUnknownParameters, resolveSuffixes } from '../engine/list-query.ts'
import { clampToLastPage, envelopeJson, linkHeader } from '../engine/links.ts'
import { selectFieldsOfList, selectFieldsOfRecord } from '../engine/field-selection.ts'
import { exactNumbers, keptNumber, parseKeepingNumbers, stringifyKeepingNumbers } from '../engine/exact-numbers.ts'
import type { IdType } from '../store/collections.ts'
import type { Context } from './context.ts'
import { dependentsOf, withParentIds, withRelations } from './relations.ts'
import { writeTransaction } from './transaction.ts'

export const MAX_ID_LENGTH = 1024
const JSON_TYPE = 'application/json; charset=utf-8'
const INTEGER_ID = /^[1-9][0-9]{0,14}$/

export type JsonObject = Record<string, unknown>

/** What a resource action needs from the request, independent of any HTTP library. */
export interface RecordRequest {
  action: ResourceAction
  /** The resource whose endpoint this is: its project, path and onDelete setting. */
  resource: Resource
  collectionId: number
  /** Fields tying records to their parent, with the values from the path. */
  parents: FieldFilter[]
  id: string | undefined
  query: URLSearchParams
  body: unknown
  url: URL
  /** The status configured on the endpoint for a success. */
  status: number
}

export interface RecordResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/** Deeper records could not be written back out (JSON.stringify recurses); the inbox keeps any depth. */
export const MAX_RECORD_DEPTH = 512

/** Nesting depth without recursion, stopping as soon as it passes `limit`. */
export function deeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (current === null || typeof current !== 'object') continue
    if (depth > limit) return true
    for (const child of Object.values(current)) stack.push([child, depth + 1])
  }
  return false
}

/** The body as an object to store, numbers past a double's precision kept as sent. */
export function requireObject(sent: unknown): JsonObject {
  const body = exactNumbers(sent)
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError('INVALID_BODY', 'request body must be a JSON object')
  }
  if (deeperThan(body, MAX_RECORD_DEPTH)) throw new AppError('INVALID_BODY', `request body is nested deeper than ${MAX_RECORD_DEPTH} levels`)
  return body as JsonObject
}

/** A record's id twice: as the store keys it (and paths name it), and as its JSON holds it. */
export interface RecordId {
  /** The text of the `records.id` column: a string id itself, a number's JSON text. */
  key: string
  /** The id's JSON value: the client's string, or a number (a marked one keeps digits past a double's). */
  json: unknown
}

/** The id a client gave, keeping its JSON type: `100` stays a number, `"100"` a string. */
export function normalizeId(value: unknown): RecordId {
  const key = typeof value === 'number' && Number.isFinite(value) ? String(value) : (keptNumber(value) ?? value)
  if (typeof key !== 'string' || key === '') throw new AppError('INVALID_ID', 'id must be a non-empty string or a number')
  if (key.length > MAX_ID_LENGTH) throw new AppError('INVALID_ID', `id must be at most ${MAX_ID_LENGTH} characters`)
  // URLs resolve these as dot-segments, so no client could ever address such a record.
  if (key === '.' || key === '..') throw new AppError('INVALID_ID', `id "${key}" cannot be used in a URL path`)
  return { key, json: value }
}

/** A generated id: the next integer, a JSON number unless the collection's ids are strings. */
function generatedId(next: number, type: IdType): RecordId {
  return { key: String(next), json: type === 'string' ? String(next) : next }
}

/** The record as stored: `id` first (as its JSON value), the parent fields set from the path. */
function toRecordJson(id: unknown, body: JsonObject, parents: FieldFilter[]): string {
  const { id: _ignored, ...fields } = body
  let record: JsonObject = { id, ...fields }
  for (const parent of parents) {
    const value = parent.values[0]!
    // Keep the client's own type when it says the same (`userId: 1` under /users/1/…).
    const given = record[parent.field]
    if ((keptNumber(given) ?? String(given)) !== value) record = { ...record, [parent.field]: value }
  }
  return stringifyKeepingNumbers(record)
}

/** A POST routed before its resource was deleted (by the CLI, the dashboard, `apply`) reaches here after. */
function requireCollection(context: Context, collectionId: number): void {
  if (!context.repos.collections.inUse(collectionId)) {
    throw new AppError('NOT_FOUND', 'the resource this endpoint stored records in has been deleted')
  }
}

function notFound(id: string): never {
  throw new AppError('NOT_FOUND', `no record with id "${id}"`)
}

export function nextRecordId(context: Context, collectionId: number): number {
  let next = context.repos.collections.peekNextId(collectionId)
  while (context.repos.records.exists(collectionId, String(next))) next += 1
  context.repos.collections.setNextId(collectionId, next + 1)
  return next
}

/** Inserts one record (a given id or the next integer); runs inside the caller's transaction. */
export function insertRecord(context: Context, collectionId: number, body: JsonObject, parents: FieldFilter[] = []): string {
  const { collections, records } = context.repos
  let id: RecordId
  if (body.id === undefined) {
    // nextRecordId has skipped the ids taken and moved the counter past this one.
    id = generatedId(nextRecordId(context, collectionId), collections.idType(collectionId))
  } else {
    id = normalizeId(body.id)
    if (records.exists(collectionId, id.key)) throw new AppError('CONFLICT', `a record with id "${id.key}" already exists`)
    if (INTEGER_ID.test(id.key)) collections.raiseNextIdPast(collectionId, Number(id.key))
  }
  const json = toRecordJson(id.json, body, parents)
  context.repos.records.insert(collectionId, id.key, json)
  return json
}

/**
 * Inserts many records as `insertRecord` inserts each (given ids kept, the others numbered next,
 * a repeated id a CONFLICT), a few hundred to a statement; runs inside the caller's transaction.
 */
export function insertRecords(context: Context, collectionId: number, bodies: Iterable<JsonObject>): void {
  const { records, collections } = context.repos
  let next = collections.peekNextId(collectionId)
  const idType = collections.idType(collectionId)
  const pending: [string, string][] = []
  const taken = new Set<string>()
  // Into an empty collection (a seed, an apply) every id taken is one of these: no lookup per record.
  const startedEmpty = records.count(collectionId) === 0
  const flush = () => {
    records.insertMany(collectionId, pending)
    pending.length = 0
    if (!startedEmpty) taken.clear()
  }
  const exists = (key: string) => taken.has(key) || (!startedEmpty && records.exists(collectionId, key))
  for (const body of bodies) {
    let id: RecordId
    if (body.id === undefined) {
      while (exists(String(next))) next += 1
      id = generatedId(next, idType)
      next += 1
    } else {
      id = normalizeId(body.id)
      if (exists(id.key)) throw new AppError('CONFLICT', `a record with id "${id.key}" already exists`)
      if (INTEGER_ID.test(id.key)) next = Math.max(next, Number(id.key) + 1)
    }
    taken.add(id.key)
    pending.push([id.key, toRecordJson(id.json, body, [])])
    if (pending.length >= 1000) flush()
  }
  flush()
  collections.setNextId(collectionId, next)
}

export function runRecordAction(context: Context, request: RecordRequest): RecordResponse {
  const { records } = context.repos
  const json = { 'Content-Type': JSON_TYPE }
  // Before anything is read or written: a mistyped `_dependant` must not delete without its children.
  refuseUnknownParameters(request.action, request.query)
  switch (request.action) {
    case 'list': {
      const params = parseListParams(request.query)
      const query = {
        filters: [
          ...request.parents.map(({ field, values }): FieldCondition => ({ field, op: 'eq', values })),
          ...resolveSuffixes(params.conditions, (field) => records.hasField(request.collectionId, field)),
        ],
        q: params.q,
        sort: params.sort,
        limit: params.limit,
        offset: params.offset,
      }
      let page = records.page(request.collectionId, query)
      let paging = params.paging
      // json-server 1.x's envelope answers a page past the end with the last one; a plain list answers [] there.
      const clamped = params.envelope && paging !== null ? clampToLastPage(paging, page.total) : null
      if (clamped !== null) {
        paging = clamped
        page = records.page(request.collectionId, { ...query, offset: (clamped.page - 1) * clamped.limit })
      }
      // Written out, not spread from `json`: V8 takes a slow path for a spread followed by a field.
      const headers: Record<string, string> = { 'Content-Type': JSON_TYPE, 'X-Total-Count': String(page.total) }
      if (paging !== null) headers.Link = linkHeader(request.url, paging, page.total)
      const related = withRelations(context, request, page.json)
      const body = params.fields === null ? related : selectFieldsOfList(related, params.fields)
      return { status: request.status, headers, body: params.envelope && paging !== null ? envelopeJson(paging, page.total, body) : body }
    }
    case 'create': {
      const body = requireObject(request.body)
      const created = writeTransaction(context.db, () => {
        requireCollection(context, request.collectionId)
        return insertRecord(context, request.collectionId, withParentIds(context, request, body), request.parents)
      })
      return { status: request.status, headers: json, body: created }
    }
    case 'read': {
      const id = request.id!
      const { fields } = parseItemParams(request.query)
      const found = records.get(request.collectionId, id, request.parents) ?? notFound(id)
      const related = withRelations(context, request, found)
      return { status: request.status, headers: json, body: fields === null ? related : selectFieldsOfRecord(related, fields) }
    }
    case 'replace':
    case 'patch': {
      const id = request.id!
      const body = requireObject(request.body)
      const updated = writeTransaction(context.db, () => {
        const stored = parseKeepingNumbers(records.get(request.collectionId, id, request.parents) ?? notFound(id)) as JsonObject
        const fields = request.action === 'patch' ? { ...stored, ...body } : body
        // The id keeps the type it was stored with, whatever the body says.
        const next = toRecordJson(stored.id, fields, request.parents)
        records.replace(request.collectionId, id, next)
        return next
      })
      return { status: request.status, headers: json, body: updated }
    }
    case 'delete': {
      const id = request.id!
      const { removed, cascaded } = writeTransaction(context.db, () => {
        const dependents = dependentsOf(context, request)
        const current = records.get(request.collectionId, id, request.parents) ?? notFound(id)
        records.remove(request.collectionId, id)
        return { removed: current, cascaded: dependents.remove(id) }
      })
      return { status: request.status, headers: { ...json, ...cascaded }, body: removed }
    }
  }
}
