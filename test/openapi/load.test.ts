import { describe, expect, test } from 'vitest'
import { AppError } from '../../src/errors.ts'
import { loadSpec } from '../../src/kinds/openapi/load.ts'
import { resolvePointer } from '../../src/kinds/openapi/pointer.ts'
import { fixture } from './_helpers.ts'

async function refusal(file: string): Promise<AppError> {
  const error = await loadSpec(fixture(file)).then(() => null, (e: unknown) => e)
  expect(error).toBeInstanceOf(AppError)
  return error as AppError
}

describe('loadSpec refuses invalid specs with INVALID_SPEC', () => {
  test.each([
    ['broken/bad-ref.yaml', /^bad-ref\.yaml: Missing \$ref pointer "#\/components\/schemas\/Missing".* \(at #\/paths\/~1things\/get\/responses\/200\/content\/application~1json\/schema\)$/],
    ['broken/no-paths.yaml', /^no-paths\.yaml: #\/paths: missing: the document describes no operation to serve$/],
    ['broken/yaml-syntax.yaml', /^yaml-syntax\.yaml: Flow map in block collection must be sufficiently indented and end with a } \(10:1\)$/],
    ['broken/version.yaml', /^version\.yaml: unsupported version "4\.0\.0" \(expected swagger "2\.0" or openapi 3\.0\.x \/ 3\.1\.x\)$/],
    ['broken/does-not-exist.yaml', /^Error opening file does-not-exist\.yaml: ENOENT/],
  ])('%s', async (file, message) => {
    const error = await refusal(file)
    expect(error.code).toBe('INVALID_SPEC')
    expect(error.status).toBe(400)
    expect(error.message).toMatch(message)
    expect(error.message).not.toContain('\n')
  })
})

describe('loadSpec: what validation finds is a warning, or a refusal with strict', () => {
  test('a response without a description', async () => {
    const spec = await loadSpec(fixture('broken/schema-invalid.yaml'))
    expect(spec.warnings).toEqual(['#/paths/~1things/get/responses/200: no "description" (required)'])
    const error = await loadSpec(fixture('broken/schema-invalid.yaml'), { strict: true }).then(() => null, (e: unknown) => e)
    expect(error).toMatchObject({ code: 'INVALID_SPEC', message: expect.stringMatching(/^schema-invalid\.yaml: Swagger schema validation failed\. #\/paths\/~1things\/get\/responses\/200 must have required property 'description'; /) })
  })
})

describe('loadSpec', () => {
  test('reads YAML and JSON (the twins differ upstream only in wording)', async () => {
    const yaml = await loadSpec(fixture('oai-v2.0/petstore.yaml'))
    const json = await loadSpec(fixture('oai-v2.0/petstore.json'))
    expect(yaml).toMatchObject({ version: '2.0', title: 'Swagger Petstore' })
    expect(Object.keys(yaml.document.paths as object)).toEqual(Object.keys(json.document.paths as object))
  })

  test('a 3.1 spec with only webhooks is valid', async () => {
    const spec = await loadSpec(fixture('oai-v3.1/webhook-example.yaml'))
    expect(spec).toMatchObject({ version: '3.1', title: 'Webhook Example' })
    expect(spec.document.paths).toBeUndefined()
  })

  test('keeps internal $refs, so recursive schemas stay JSON-serializable', async () => {
    const spec = await loadSpec(fixture('synthetic/recursive-3.1.yaml'))
    expect(resolvePointer(spec.document, '/components/schemas/Node/properties/children/items')).toEqual({ $ref: '#/components/schemas/Node' })
    expect(JSON.parse(JSON.stringify(spec.document))).toEqual(spec.document)
  })

  test('accepts an http scheme written "Bearer" (the 3.1 schema swagger-parser ships wants lowercase)', async () => {
    const spec = await loadSpec(fixture('oai-v3.1/tictactoe.yaml'))
    expect(resolvePointer(spec.document, '/components/securitySchemes/bearerHttpAuthentication/scheme')).toBe('Bearer')
  })
})

describe('normalization for ajv and openapi-sampler', () => {
  test('Swagger 2.0: boolean exclusiveMinimum, x-nullable, type file, parameter schemas, formData schema', async () => {
    const { document } = await loadSpec(fixture('synthetic/legacy-2.0.yaml'))
    const at = (pointer: string) => resolvePointer(document, pointer)
    expect(at('/definitions/Item/properties/price')).toEqual({ type: 'number', exclusiveMinimum: 0 })
    expect(at('/definitions/Item/properties/note')).toMatchObject({ type: 'string', nullable: true })
    expect(at('/paths/~1download/get/responses/200/schema')).toEqual({})
    expect(at('/parameters/Limit/schema')).toEqual({ type: 'integer', exclusiveMinimum: 0, maximum: 50 })
    expect(at('/parameters/Limit/exclusiveMinimum')).toBe(true) // the parameter itself stays as written
    expect(at('/paths/~1items~1{itemId}/get/parameters/1/schema')).toEqual({ type: 'array', items: { type: 'string', enum: ['id', 'name', 'price'] } })
    expect(at('/paths/~1items/post/parameters/2/schema')).toEqual({})
    expect(at('/x-mockapi/formData/~1paths~1~01items~1post')).toEqual({
      type: 'object',
      properties: {
        name: { $ref: '#/paths/~1items/post/parameters/0/schema' },
        price: { $ref: '#/paths/~1items/post/parameters/1/schema' },
        photo: { $ref: '#/paths/~1items/post/parameters/2/schema' },
      },
      required: ['name'],
    })
  })

  test('OpenAPI 3.0: nullable without type is dropped, a nullable enum admits null, boolean exclusiveMinimum', async () => {
    const { document } = await loadSpec(fixture('synthetic/things-3.0.yaml'))
    const tricky = resolvePointer(document, '/components/schemas/Tricky/properties') as Record<string, unknown>
    expect(tricky.wrapped).toEqual({ allOf: [{ $ref: '#/components/schemas/Error' }] })
    expect(tricky.nullableEnum).toEqual({ type: 'string', nullable: true, enum: ['x', 'y', null] })
    expect(tricky.positive).toEqual({ type: 'number', exclusiveMinimum: 0 })
  })
})

describe('loadSpec from http(s)', () => {
  test('fetches a spec by URL (a local server, so no network; internal addresses need allowInternalUrls)', async () => {
    const { createServer } = await import('node:http')
    const { readFile } = await import('node:fs/promises')
    const text = await readFile(fixture('oai-v3.0/petstore.yaml'), 'utf8')
    const server = createServer((req, res) => (req.url === '/petstore.yaml' ? res.writeHead(200, { 'content-type': 'application/yaml' }).end(text) : res.writeHead(404).end()))
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    try {
      const { port } = server.address() as { port: number }
      const url = `http://127.0.0.1:${port}/petstore.yaml`
      const refused = await loadSpec(url).catch((e: unknown) => e)
      expect(refused).toMatchObject({ code: 'INVALID_SPEC', message: `${url}: local and internal addresses are not fetched` })
      const spec = await loadSpec(url, { allowInternalUrls: true })
      expect(spec).toMatchObject({ version: '3.0', title: 'Swagger Petstore' })
      const missing = await loadSpec(`http://127.0.0.1:${port}/nothing.yaml`, { allowInternalUrls: true }).catch((e: unknown) => e)
      expect(missing).toMatchObject({ code: 'INVALID_SPEC' })
      expect((missing as AppError).message).toMatch(/^Error downloading http:\/\/127\.0\.0\.1:\d+\/nothing\.yaml: HTTP ERROR 404$/)
    } finally {
      server.close()
    }
  })
})
