import { describe, expect, test } from 'vitest'
import { loadSpec } from '../../src/kinds/openapi/load.ts'
import { escapePointer, listOperations, resolvePointer } from '../../src/kinds/openapi/operations.ts'
import { fixture } from './_helpers.ts'

describe('pointer helpers', () => {
  test('escapePointer and resolvePointer follow RFC 6901', () => {
    expect(escapePointer('/pets/{id}')).toBe('~1pets~1{id}')
    expect(escapePointer('a~/b')).toBe('a~0~1b')
    const document = { paths: { '/a~b': { get: 1 } }, list: [{ x: 2 }] }
    expect(resolvePointer(document, '')).toBe(document)
    expect(resolvePointer(document, '/paths/~1a~0b/get')).toBe(1)
    expect(resolvePointer(document, '/list/0/x')).toBe(2)
    expect(resolvePointer(document, '/paths/missing')).toBeUndefined()
    expect(resolvePointer(document, '/list/0/x/deeper')).toBeUndefined()
  })
})

describe('listOperations', () => {
  test('Swagger 2.0 petstore, by hand', async () => {
    const operations = listOperations(await loadSpec(fixture('oai-v2.0/petstore.yaml')))
    expect(operations.map((o) => `${o.method} ${o.path} ${o.operation.operationId}`)).toEqual(['GET /pets listPets', 'POST /pets createPets', 'GET /pets/:petId showPetById'])
    const [list, , show] = operations
    expect(list!.operation.parameters).toEqual([{ name: 'limit', in: 'query', required: false, schema: '/paths/~1pets/get/parameters/0/schema' }])
    expect(show!.operation.parameters).toEqual([{ name: 'petId', in: 'path', required: true, schema: '/paths/~1pets~1{petId}/get/parameters/0/schema' }])
    expect(list!.operation.responses.map((r) => r.code)).toEqual(['200', 'default'])
    expect(list!.operation.responses[0]).toEqual({
      code: '200',
      description: 'A paged array of pets',
      headers: [{ name: 'x-next', required: false, schema: '/paths/~1pets/get/responses/200/headers/x-next', example: null }],
      media: [{ type: 'application/json', schema: '/paths/~1pets/get/responses/200/schema', example: null, examples: {} }],
    })
  })

  test('OpenAPI 3.0: merged parameters, $refs resolved to their targets, examples, HEAD imported', async () => {
    const operations = listOperations(await loadSpec(fixture('synthetic/things-3.0.yaml')))
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(['GET /things/:thingId', 'DELETE /things/:thingId', 'HEAD /things/:thingId', 'POST /things', 'POST /forms', 'GET /tricky'])
    const get = operations[0]!.operation
    expect(get.pointer).toBe('/paths/~1things~1{thingId}/get')
    expect(get.parameters.map((p) => `${p.in}.${p.name}`)).toEqual(['path.thingId', 'query.verbose', 'query.limit', 'query.sort', 'query.tags', 'query.ids', 'header.X-Api-Key', 'cookie.session'])
    expect(get.parameters[0]).toEqual({ name: 'thingId', in: 'path', required: true, schema: '/components/parameters/ThingId/schema' })
    expect(get.parameters[1]!.schema).toBe('/paths/~1things~1{thingId}/get/parameters/4/schema') // the operation's verbose wins
    const [ok, notFound] = get.responses
    expect(ok!.headers).toEqual([
      { name: 'X-Rate-Limit', required: false, schema: '/paths/~1things~1{thingId}/get/responses/200/headers/X-Rate-Limit/schema', example: null },
      { name: 'X-Request-Id', required: false, schema: '/components/headers/RequestId/schema', example: null },
    ])
    expect(ok!.media[0]!.examples).toEqual({
      small: '/paths/~1things~1{thingId}/get/responses/200/content/application~1json/examples/small/value',
      big: '/components/examples/Big/value',
    }) // externalValue examples are not fetched
    expect(notFound).toMatchObject({ code: '404', description: 'Not found', media: [{ example: '/components/responses/NotFound/content/application~1json/example' }] })
    expect(get.responses.map((r) => r.code)).toEqual(['200', '404', '4XX', 'default'])
    expect(operations[3]!.operation.requestBody).toEqual({
      required: true,
      media: [{ type: 'application/json', schema: '/components/requestBodies/NewThing/content/application~1json/schema', example: null, examples: {} }],
    })
  })

  test('Swagger 2.0: body and formData parameters become request bodies; produces and examples become media', async () => {
    const operations = listOperations(await loadSpec(fixture('synthetic/legacy-2.0.yaml')))
    const find = (method: string, path: string) => operations.find((o) => o.method === method && o.path === path)!.operation
    expect(find('PUT', '/items').requestBody).toEqual({
      required: true,
      media: [{ type: 'application/json', schema: '/paths/~1items/put/parameters/0/schema', example: null, examples: {} }],
    })
    expect(find('POST', '/items').requestBody).toEqual({
      required: true,
      media: [{ type: 'multipart/form-data', schema: '/x-mockapi/formData/~1paths~1~01items~1post', example: null, examples: {} }],
    })
    const get = find('GET', '/items/:itemId')
    expect(get.parameters.map((p) => `${p.in}.${p.name} ${p.schema}`)).toEqual([
      'path.itemId /paths/~1items~1{itemId}/parameters/0/schema',
      'query.limit /paths/~1items~1{itemId}/get/parameters/0/schema',
      'query.fields /paths/~1items~1{itemId}/get/parameters/1/schema',
      'header.X-Trace /paths/~1items~1{itemId}/get/parameters/2/schema',
    ])
    expect(get.responses[0]!.media).toEqual([
      { type: 'application/json', schema: '/paths/~1items~1{itemId}/get/responses/200/schema', example: '/paths/~1items~1{itemId}/get/responses/200/examples/application~1json', examples: {} },
      { type: 'application/xml', schema: '/paths/~1items~1{itemId}/get/responses/200/schema', example: null, examples: {} },
    ])
  })

  test('Slack: form parameters also accept the JSON that its consumes lists', async () => {
    const operations = listOperations(await loadSpec(fixture('slack/slack_web_openapi_v2.json')))
    const post = operations.find((o) => o.path === '/chat.postMessage')!.operation
    expect(post.requestBody!.media.map((m) => m.type)).toEqual(['application/x-www-form-urlencoded', 'application/json'])
    expect(post.parameters).toEqual([{ name: 'token', in: 'header', required: true, schema: '/paths/~1chat.postMessage/post/parameters/0/schema' }])
  })

  test('a path parameter name with other characters maps as it is', async () => {
    const spec = await loadSpec(fixture('synthetic/things-3.0.yaml'))
    const document = structuredClone(spec.document) as { paths: Record<string, unknown> }
    document.paths = { '/a/{pet-id}.json': { get: { responses: { 200: { description: 'ok' } } } } }
    expect(listOperations({ ...spec, document }).map((o) => o.path)).toEqual(['/a/:pet-id.json'])
  })

  test('3.1 webhooks are not operations', async () => {
    expect(listOperations(await loadSpec(fixture('oai-v3.1/webhook-example.yaml')))).toEqual([])
  })
})
