import { beforeAll, describe, expect, test } from 'vitest'
import { AppError } from '../../src/errors.ts'
import { loadSpec } from '../../src/kinds/openapi/load.ts'
import { listOperations } from '../../src/kinds/openapi/operations.ts'
import { createResponder, type Responder } from '../../src/kinds/openapi/responder.ts'
import type { ImportedOperation, OpenApiOperation, SpecDocument } from '../../src/kinds/openapi/types.ts'
import { fixture, plainValidator } from './_helpers.ts'

interface Loaded { spec: SpecDocument; responder: Responder; op: (method: string, path: string) => OpenApiOperation }

async function load(file: string): Promise<Loaded> {
  const spec = await loadSpec(fixture(file))
  const operations: ImportedOperation[] = listOperations(spec)
  return { spec, responder: createResponder(spec), op: (method, path) => operations.find((o) => o.method === method && o.path === path)!.operation }
}

describe('buildResponse (OpenAPI 3.0)', () => {
  let things: Loaded
  let getThing: OpenApiOperation
  beforeAll(async () => {
    things = await load('synthetic/things-3.0.yaml')
    getThing = things.op('GET', '/things/:thingId')
  })

  test('default: the first named example, documented headers sampled', () => {
    expect(things.responder.buildResponse(getThing, { status: 200 })).toEqual({
      status: 200,
      headers: { 'x-rate-limit': '10', 'x-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/), 'content-type': 'application/json' },
      body: '{"id":1,"name":"small"}',
    })
  })

  test('an example that breaks its own schema is passed over for the next one (or a generated body); asked for by name, it is sent as written', () => {
    const spec = structuredClone(things.spec)
    const examples = (spec.document as any).paths['/things/{thingId}'].get.responses['200'].content['application/json'].examples
    examples.small.value = { id: 'one' }
    const responder = createResponder(spec)
    expect(responder.buildResponse(getThing, { status: 200 })!.body).toBe('{"id":1000,"name":"big"}')
    expect(responder.buildResponse(getThing, { status: 200, preferExample: 'small' })!.body).toBe('{"id":"one"}')
    ;(spec.document as any).components.examples.Big.value = { name: 7 }
    const generatedOnly = createResponder(spec)
    const body = JSON.parse(generatedOnly.buildResponse(getThing, { status: 200 })!.body!)
    expect(plainValidator(spec)(getThing.responses[0]!.media[0]!.schema!)(body)).toBe(true)
  })

  test('Prefer code=404 (documented, with its example)', () => {
    expect(things.responder.buildResponse(getThing, { status: 200, preferCode: 404 })).toEqual({
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: '{"code":404,"message":"no such thing"}',
    })
  })

  test('Prefer code falls back to the NXX range, then to default, answered with the preferred code', () => {
    const teapot = things.responder.buildResponse(getThing, { status: 200, preferCode: 418 })!
    expect(teapot.status).toBe(418)
    expect(teapot.headers['content-type']).toBe('application/problem+json')
    expect(JSON.parse(teapot.body!)).toEqual({ code: 0, message: 'string' })
    expect(things.responder.buildResponse(getThing, { status: 200, preferCode: 503 })).toMatchObject({ status: 503, headers: { 'content-type': 'application/json' } })
  })

  test('Prefer code that is not documented → null (the caller falls back)', () => {
    expect(things.responder.buildResponse(things.op('GET', '/tricky'), { status: 200, preferCode: 404 })).toBeNull()
  })

  test('Prefer example=name: found, and not found', () => {
    expect(things.responder.buildResponse(getThing, { status: 200, preferExample: 'big' })!.body).toBe('{"id":1000,"name":"big"}')
    const error = (() => {
      try {
        things.responder.buildResponse(getThing, { status: 200, preferExample: 'huge' })
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(AppError)
    expect(error).toMatchObject({ code: 'EXAMPLE_NOT_FOUND', status: 404, message: 'no example named "huge" on getThing 200 application/json; available: small, big' })
  })

  test('Prefer example=name switches to the media that has it', () => {
    const [ok] = getThing.responses
    const textFirst = { ...getThing, responses: [{ ...ok!, media: [{ type: 'text/plain', schema: null, example: null, examples: {} }, ...ok!.media] }] }
    expect(things.responder.buildResponse(textFirst, { status: 200, accept: 'text/plain', preferExample: 'big' })).toMatchObject({
      headers: { 'content-type': 'application/json' },
      body: '{"id":1000,"name":"big"}',
    })
  })

  test('204 and responses without media have no body', () => {
    expect(things.responder.buildResponse(things.op('DELETE', '/things/:thingId'), { status: 200 })).toEqual({ status: 204, headers: {}, body: null })
    expect(things.responder.buildResponse(things.op('GET', '/tricky'), { status: 200, preferCode: 500 })).toEqual({ status: 500, headers: {}, body: null })
  })

  test('without Prefer: the status asked for, its range, the first 2xx, default as 200, else the first response', () => {
    const tricky = things.op('GET', '/tricky')
    expect(things.responder.buildResponse(tricky, { status: 202 })).toEqual({ status: 202, headers: {}, body: null }) // 2XX
    const create = things.op('POST', '/things')
    expect(things.responder.buildResponse(create, { status: 200 })!.status).toBe(201)
    const only = (...codes: string[]) => ({ ...getThing, responses: getThing.responses.filter((r) => codes.includes(r.code)) })
    expect(things.responder.buildResponse(only('404', 'default'), { status: 200 })!.status).toBe(200)
    expect(things.responder.buildResponse(only('404', '4XX'), { status: 200 })!.status).toBe(404)
    expect(things.responder.buildResponse(only('4XX'), { status: 200 })!.status).toBe(400)
    expect(things.responder.buildResponse(only(), { status: 200 })).toBeNull()
  })

  test('Accept picks the media: XML is generated, a text example is sent as it is, no match falls back to JSON unless negotiation is strict', () => {
    const create = things.op('POST', '/things')
    const build = (accept: string | null) => things.responder.buildResponse(create, { status: 201, accept })!
    expect(() => things.responder.buildResponse(create, { status: 201, accept: 'text/html', negotiation: 'strict' })).toThrow(/Accept "text\/html" takes none of/)
    expect(build('application/xml')).toEqual({ status: 201, headers: { 'content-type': 'application/xml' }, body: expect.stringContaining('<name>string</name>') })
    expect(build('text/plain')).toEqual({ status: 201, headers: { 'content-type': 'text/plain' }, body: 'seven' })
    expect(build('text/html, application/xml;q=0.5')).toMatchObject({ headers: { 'content-type': 'application/xml' } })
    for (const accept of ['text/html', '*/*', null]) expect(build(accept)).toMatchObject({ headers: { 'content-type': 'application/json' }, body: '{"id":7,"name":"seven"}' })
  })

  test('*/* media is answered as application/json', () => {
    const create = things.op('POST', '/things')
    const [json] = create.responses[0]!.media
    const anyMedia = { ...create, responses: [{ ...create.responses[0]!, media: [{ ...json!, type: '*/*', example: null }] }] }
    const built = things.responder.buildResponse(anyMedia, { status: 201 })!
    expect(built.headers['content-type']).toBe('application/json')
    expect(plainValidator(things.spec)(json!.schema!)(JSON.parse(built.body!))).toBe(true)
  })

  test('generated values are repaired until they validate (what openapi-sampler alone gets wrong)', () => {
    const tricky = things.op('GET', '/tricky')
    const built = things.responder.buildResponse(tricky, { status: 200 })!
    const value = JSON.parse(built.body!)
    expect(plainValidator(things.spec)(tricky.responses[0]!.media[0]!.schema!)(value)).toBe(true)
    expect(value).toMatchObject({
      badExample: 10, // the schema's example (5) is below its minimum
      enumExample: 'a', // the example (c) is not in the enum
      id: 'CAAAAAAAA', // openapi-sampler writes "CA{8,}" for ^[C][A-Z0-9]{8,}$
      unique: ['string', 'string1'],
      multiple: 5,
      positive: 1,
      homepage: 'http://example.com',
      secret: 'string', // writeOnly properties are skipped, unless required
    })
    // sampling is deterministic and cached: the same text every time
    expect(things.responder.buildResponse(tricky, { status: 200 })!.body).toBe(built.body)
  })
})

describe('buildResponse (Swagger 2.0 and 3.1)', () => {
  test('2.0: examples keyed by mime type; no named examples; header from its own type', async () => {
    const legacy = await load('synthetic/legacy-2.0.yaml')
    const get = legacy.op('GET', '/items/:itemId')
    expect(legacy.responder.buildResponse(get, { status: 200 })).toEqual({
      status: 200,
      headers: { 'x-rate-limit': '1', 'content-type': 'application/json' },
      body: '{"id":1,"name":"spoon","price":2.5,"note":null}',
    })
    expect(() => legacy.responder.buildResponse(get, { status: 200, preferExample: 'spoon' })).toThrow('no example named "spoon" on /paths/~1items~1{itemId}/get 200 application/json; available: none')
    expect(legacy.responder.buildResponse(legacy.op('GET', '/download'), { status: 200 })).toEqual({ status: 200, headers: {}, body: null })
  })

  test('recursive schemas generate without hanging and validate', async () => {
    const trees = await load('synthetic/recursive-3.1.yaml')
    const validator = plainValidator(trees.spec)
    for (const path of ['/tree', '/list', '/family']) {
      const operation = trees.op('GET', path)
      const started = performance.now()
      const built = trees.responder.buildResponse(operation, { status: 200 })!
      expect(performance.now() - started).toBeLessThan(1000)
      expect(validator(operation.responses[0]!.media[0]!.schema!)(JSON.parse(built.body!))).toBe(true)
    }
    expect(JSON.parse(trees.responder.buildResponse(trees.op('GET', '/tree'), { status: 200 })!.body!)).toEqual({
      value: 'string',
      children: [{ value: 'string', children: [{ value: 'string', children: [] }] }],
    })
  })
})
