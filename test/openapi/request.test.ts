import { beforeAll, describe, expect, test } from 'vitest'
import { loadSpec } from '../../src/kinds/openapi/load.ts'
import { listOperations } from '../../src/kinds/openapi/operations.ts'
import { createResponder, type MockRequestParts, type Responder } from '../../src/kinds/openapi/responder.ts'
import type { ImportedOperation } from '../../src/kinds/openapi/types.ts'
import { fixture } from './_helpers.ts'

function request(parts: Partial<Omit<MockRequestParts, 'headers' | 'query'>> & { query?: string; headers?: Record<string, string> } = {}): MockRequestParts {
  const headers = new Headers(parts.headers ?? {})
  return {
    params: parts.params ?? {},
    query: new URLSearchParams(parts.query ?? ''),
    raw: { query: parts.query ?? '', form: null },
    headers: { get: (name) => headers.get(name) },
    contentType: parts.contentType ?? null,
    body: parts.body,
  }
}

describe('validateRequest (OpenAPI 3.0)', () => {
  let responder: Responder
  let operations: ImportedOperation[]
  const op = (method: string, path: string) => operations.find((o) => o.method === method && o.path === path)!.operation
  const getThing = (parts: Parameters<typeof request>[0]) => responder.validateRequest(op('GET', '/things/:thingId'), request(parts))
  const valid = { params: { thingId: '42' }, query: 'limit=10', headers: { 'x-api-key': 'k' } }

  beforeAll(async () => {
    const spec = await loadSpec(fixture('synthetic/things-3.0.yaml'))
    operations = listOperations(spec)
    responder = createResponder(spec)
  })

  test('a valid request has no problems', () => {
    expect(getThing(valid)).toEqual([])
    expect(getThing({ ...valid, query: 'limit=100&sort=desc&tags=a,b&ids=1&ids=2&verbose=true' })).toEqual([])
  })

  test('missing required query parameter', () => {
    expect(getThing({ ...valid, query: '' })).toEqual([{ path: 'query.limit', message: 'is required' }])
  })

  test('query values are coerced to their schema types and checked', () => {
    expect(getThing({ ...valid, query: 'limit=abc' })).toEqual([{ path: 'query.limit', message: 'must be integer' }])
    expect(getThing({ ...valid, query: 'limit=500' })).toEqual([{ path: 'query.limit', message: 'must be <= 100' }])
    // the operation's boolean `verbose` overrides the path item's string one
    expect(getThing({ ...valid, query: 'limit=1&verbose=maybe' })).toEqual([{ path: 'query.verbose', message: 'must be boolean' }])
  })

  test('wrong enum value', () => {
    expect(getThing({ ...valid, query: 'limit=1&sort=up' })).toEqual([{ path: 'query.sort', message: 'must be one of: "asc", "desc"' }])
  })

  test('arrays: repeated keys, and explode: false splits one value', () => {
    expect(getThing({ ...valid, query: 'limit=1&ids=1&ids=x' })).toEqual([{ path: 'query.ids/1', message: 'must be integer' }])
    expect(getThing({ ...valid, query: 'limit=1&tags=a,b,c,d' })).toEqual([{ path: 'query.tags', message: 'must NOT have more than 3 items' }])
  })

  test('integer path parameter "abc"', () => {
    expect(getThing({ ...valid, params: { thingId: 'abc' } })).toEqual([{ path: 'path.thingId', message: 'must be integer' }])
  })

  test('required header, matched case-insensitively', () => {
    expect(getThing({ ...valid, headers: {} })).toEqual([{ path: 'header.x-api-key', message: 'is required' }])
    expect(getThing({ ...valid, headers: { 'X-API-KEY': 'k' } })).toEqual([])
  })

  test('JSON body: missing required field, wrong type, missing body', () => {
    const create = (body: unknown) => responder.validateRequest(op('POST', '/things'), request({ contentType: 'application/json', body }))
    expect(create({ name: 'x', count: 2 })).toEqual([])
    expect(create({ count: 2 })).toEqual([{ path: 'body/name', message: 'is required' }])
    expect(create({ name: 'x', count: '2' })).toEqual([{ path: 'body/count', message: 'must be integer' }])
    expect(create([1, 2])).toEqual([{ path: 'body', message: 'must be object' }])
    expect(create(undefined)).toEqual([{ path: 'body', message: 'request body is required' }])
  })

  test('a content type the operation does not accept', () => {
    const problems = responder.validateRequest(op('POST', '/things'), request({ contentType: 'text/csv', body: 'a,b' }))
    expect(problems).toEqual([{ path: 'body', message: 'content type text/csv is not accepted (expected application/json)' }])
  })

  test('form-encoded body is coerced from strings', () => {
    const form = (body: Record<string, string>) => responder.validateRequest(op('POST', '/forms'), request({ contentType: 'application/x-www-form-urlencoded; charset=utf-8', body }))
    const body = { name: 'n', count: '3', flag: 'true' }
    expect(form(body)).toEqual([])
    expect(body).toEqual({ name: 'n', count: '3', flag: 'true' }) // the caller's object is left alone
    expect(form({ name: 'n', count: 'three' })).toEqual([{ path: 'body/count', message: 'must be integer' }])
    expect(form({ count: '3' })).toEqual([{ path: 'body/name', message: 'is required' }])
  })
})

describe('validateRequest (Swagger 2.0)', () => {
  let responder: Responder
  let operations: ImportedOperation[]
  const op = (method: string, path: string) => operations.find((o) => o.method === method && o.path === path)!.operation

  beforeAll(async () => {
    const spec = await loadSpec(fixture('synthetic/legacy-2.0.yaml'))
    operations = listOperations(spec)
    responder = createResponder(spec)
  })

  test('parameters carry their schema; csv arrays are split', () => {
    const get = (query: string, headers: Record<string, string> = { 'x-trace': 't' }) => responder.validateRequest(op('GET', '/items/:itemId'), request({ params: { itemId: '1' }, query, headers }))
    expect(get('limit=10&fields=id,name')).toEqual([])
    expect(get('limit=11')).toEqual([{ path: 'query.limit', message: 'must be <= 10' }])
    expect(get('fields=id,colour')).toEqual([{ path: 'query.fields/1', message: 'must be one of: "id", "name", "price"' }])
    expect(get('', {})).toEqual([{ path: 'header.x-trace', message: 'is required' }])
  })

  test('formData parameters validate a multipart body; exclusiveMinimum: true is honoured', () => {
    const post = (body: Record<string, string>) => responder.validateRequest(op('POST', '/items'), request({ contentType: 'multipart/form-data; boundary=x', body }))
    expect(post({ name: 'spoon', price: '2.5' })).toEqual([])
    expect(post({ name: 'spoon', price: '0' })).toEqual([{ path: 'body/price', message: 'must be > 0' }])
    expect(post({ price: '1' })).toEqual([{ path: 'body/name', message: 'is required' }])
  })

  test('body parameter; x-nullable', () => {
    const put = (body: unknown) => responder.validateRequest(op('PUT', '/items'), request({ contentType: 'application/json', body }))
    expect(put({ id: 1, name: 'spoon', price: 1, note: null })).toEqual([])
    expect(put({ id: 1, name: 'spoon', price: 0 })).toEqual([{ path: 'body/price', message: 'must be > 0' }])
  })
})
