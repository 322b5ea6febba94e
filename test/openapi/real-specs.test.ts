/**
 * Every real-world spec under fixtures/openapi (see fixtures/openapi/SOURCES.md): it loads, lists the
 * operations counted by hand, and every documented response builds a body that parses and validates
 * against its schema. Bodies are checked with the test's own plain ajv (./_helpers.ts), not the
 * responder's validator, so the check does not share the code that repaired them.
 */
import type { ValidateFunction } from 'ajv'
import { describe, expect, test } from 'vitest'
import { loadSpec } from '../../src/kinds/openapi/load.ts'
import { isJsonish } from '../../src/kinds/openapi/media.ts'
import { listOperations } from '../../src/kinds/openapi/operations.ts'
import { createResponder, type Responder } from '../../src/kinds/openapi/responder.ts'
import type { OpenApiOperation, ResponseSpec } from '../../src/kinds/openapi/types.ts'
import { fixture, plainValidator } from './_helpers.ts'

// Operation counts checked against the files (GET/POST/PUT/PATCH/DELETE; none of them has HEAD/OPTIONS/TRACE).
// Invalid examples: examples written in the spec that break the spec's own schema. They are served as
// written (they are what the spec documents); the count pins them so a change in either direction shows.
const SPECS = [
  { file: 'oai-v2.0/petstore.yaml', version: '2.0', operations: 3 },
  { file: 'oai-v2.0/petstore.json', version: '2.0', operations: 3 },
  { file: 'oai-v2.0/petstore-expanded.yaml', version: '2.0', operations: 4 },
  { file: 'oai-v2.0/uber.json', version: '2.0', operations: 5 },
  { file: 'oai-v3.0/api-with-examples.yaml', version: '3.0', operations: 2 },
  { file: 'oai-v3.0/callback-example.yaml', version: '3.0', operations: 1 },
  { file: 'oai-v3.0/link-example.yaml', version: '3.0', operations: 6 },
  { file: 'oai-v3.0/petstore-expanded.yaml', version: '3.0', operations: 4 },
  { file: 'oai-v3.0/petstore.yaml', version: '3.0', operations: 3 },
  { file: 'oai-v3.0/uspto.yaml', version: '3.0', operations: 3 },
  { file: 'oai-v3.1/non-oauth-scopes.yaml', version: '3.1', operations: 1 },
  { file: 'oai-v3.1/tictactoe.yaml', version: '3.1', operations: 3 },
  { file: 'oai-v3.1/webhook-example.yaml', version: '3.1', operations: 0 },
  { file: 'redocly-museum/openapi.yaml', version: '3.1', operations: 8 },
  { file: 'swagger-petstore-v3/openapi.yaml', version: '3.0', operations: 19 },
  // 4 of its examples break their own schemas (brand_vetting_sid too short): those are passed over
  { file: 'twilio/twilio_messaging_v1.yaml', version: '3.0', operations: 58 },
  // 48 of its examples break their own schemas (enum values, required fields, extra properties)
  { file: 'slack/slack_web_openapi_v2.json', version: '2.0', operations: 174 },
] as const

/** A status that `preferCode` resolves to exactly this response (for ranges and `default`, one no other code claims). */
function statusFor(response: ResponseSpec, responses: ResponseSpec[]): number {
  const taken = (status: number) => responses.some((r) => r !== response && (r.code === String(status) || r.code.toUpperCase() === `${String(status)[0]}XX`))
  const pool = response.code.toUpperCase() === 'DEFAULT' ? [418, 599, 299, 399] : /X/i.test(response.code) ? Array.from({ length: 100 }, (_, i) => Number(response.code[0]) * 100 + i) : [Number(response.code)]
  return pool.find((status) => !taken(status)) ?? Number.NaN
}

function withoutExamples(operation: OpenApiOperation): OpenApiOperation {
  const responses = operation.responses.map((r) => ({ ...r, media: r.media.map((m) => ({ ...m, example: null, examples: {} })) }))
  return { ...operation, responses }
}

interface Checked { checked: number; invalid: string[] }

function checkAll(responder: Responder, validator: (pointer: string) => ValidateFunction, operation: OpenApiOperation, result: Checked): void {
  const choices = [undefined, ...operation.responses].map((response) => ({ response, preferCode: response ? statusFor(response, operation.responses) : undefined }))
  for (const { response, preferCode } of choices) {
    const built = responder.buildResponse(operation, { status: 200, preferCode })
    if (!built) {
      expect(operation.responses, operation.pointer).toEqual([]) // only an operation without responses has nothing to build
      continue
    }
    const chosen = response ?? operation.responses.find((r) => r.code === String(built.status)) ?? operation.responses.find((r) => /^2/.test(r.code)) ?? operation.responses.find((r) => r.code === 'default')!
    const contentType = built.headers['content-type']
    if (built.body === null || !contentType || !isJsonish(contentType)) continue
    const media = chosen.media.find((m) => m.type === contentType || (m.type === '*/*' && contentType === 'application/json'))
    expect(media, `${operation.pointer} ${chosen.code} ${contentType}`).toBeDefined()
    const value: unknown = JSON.parse(built.body)
    if (!media?.schema) continue
    result.checked++
    const validate = validator(media.schema)
    if (validate(value)) continue
    result.invalid.push(`${operation.pointer} ${chosen.code} ${media.type}: ${JSON.stringify(validate.errors?.slice(0, 3))}`)
  }
}

describe.each(SPECS)('$file', (entry) => {
  test('loads, lists its operations, and answers every documented response', { timeout: 60_000 }, async () => {
    const spec = await loadSpec(fixture(entry.file))
    expect(spec.version).toBe(entry.version)
    const operations = listOperations(spec)
    expect(operations).toHaveLength(entry.operations)
    const responder = createResponder(spec)
    const validator = plainValidator(spec)
    const withExamples: Checked = { checked: 0, invalid: [] }
    const generated: Checked = { checked: 0, invalid: [] }
    for (const { operation } of operations) {
      checkAll(responder, validator, operation, withExamples)
      checkAll(responder, validator, withoutExamples(operation), generated)
    }
    // A spec's own example that breaks its schema is passed over for a generated body.
    expect(withExamples.invalid).toEqual([])
    expect(generated.invalid).toEqual([])
    if (entry.operations > 0 && entry.file !== 'oai-v3.0/api-with-examples.yaml' && entry.file !== 'oai-v3.1/non-oauth-scopes.yaml') expect(generated.checked).toBeGreaterThan(0)
  })
})
