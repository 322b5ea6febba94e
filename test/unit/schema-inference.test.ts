import { describe, expect, it } from 'vitest'
import { createSpecValidators } from '../../src/kinds/openapi/ajv.ts'
import { inferSchema } from '../../src/engine/schema-inference.ts'

/** Whether every one of `values` passes the schema inferred from `from`, as an import checks examples (ajv 2020 with ajv-formats). */
function allValid(values: unknown[], from = values): boolean {
  const schema = inferSchema(from)
  const validators = createSpecValidators({ version: '3.1', title: 't', document: { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} } }, { coerce: false })
  const validate = validators.compile('inferred', () => schema)!
  return values.every((value) => validate(value) === true)
}

describe('inferSchema', () => {
  it('tells integers from numbers, and combines plain types', () => {
    expect(inferSchema([1, 2])).toEqual({ type: 'integer' })
    expect(inferSchema([1, 2.5])).toEqual({ type: 'number' })
    expect(inferSchema(['a', null])).toEqual({ type: ['string', 'null'] })
    expect(inferSchema([true, 1])).toEqual({ type: ['boolean', 'integer'] })
    expect(inferSchema([])).toEqual({})
  })

  it('gives a format only when every string fits it', () => {
    expect(inferSchema(['2024-03-01T10:00:00Z', '2024-03-01T10:00:00.5+02:00'])).toEqual({ type: 'string', format: 'date-time' })
    expect(inferSchema(['2024-02-29'])).toEqual({ type: 'string', format: 'date' })
    expect(inferSchema(['2023-02-29'])).toEqual({ type: 'string' })
    expect(inferSchema(['2024-03-01', '2024-03-01T10:00:00Z'])).toEqual({ type: 'string' })
    expect(inferSchema(['a@example.com'])).toEqual({ type: 'string', format: 'email' })
    expect(inferSchema(['https://example.com/a?b=1'])).toEqual({ type: 'string', format: 'uri' })
    expect(inferSchema(['123e4567-e89b-12d3-a456-426614174000'])).toEqual({ type: 'string', format: 'uuid' })
    expect(inferSchema(['a@example.com', 'not an email'])).toEqual({ type: 'string' })
    // Narrower than ajv-formats where its reading surprises: a time without zone, any URI scheme, a urn.
    expect(inferSchema(['2024-03-01T10:00:00'])).toEqual({ type: 'string' })
    expect(inferSchema(['mailto:a@example.com'])).toEqual({ type: 'string' })
    expect(inferSchema(['urn:uuid:123e4567-e89b-12d3-a456-426614174000'])).toEqual({ type: 'string' })
  })

  it('describes nested objects and arrays, requiring the keys every object has', () => {
    expect(inferSchema([{ a: 1, b: { c: 'x' }, tags: ['t'] }, { a: 2, tags: [] }])).toEqual({
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'object', properties: { c: { type: 'string' } }, required: ['c'] }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['a', 'tags'],
    })
    expect(inferSchema([[]])).toEqual({ type: 'array' })
    expect(inferSchema([{ a: 1 }, null])).toEqual({ type: ['object', 'null'], properties: { a: { type: 'integer' } }, required: ['a'] })
    expect(inferSchema([{ a: 1 }, 'x'])).toEqual({ anyOf: [{ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] }, { type: 'string' }] })
  })

  it('is satisfied by the values it was inferred from, as an import checks them', () => {
    expect(allValid([{ id: 1, email: 'a@b.co', at: '2024-01-01T00:00:00Z', day: '2024-01-31', site: 'http://x.io', key: '123e4567-e89b-12d3-a456-426614174000', n: null }, { id: 'x', n: 1.5, list: [1, 'a', { b: [] }] }])).toBe(true)
    expect(allValid(['2024-03-01T23:59:59.123-05:30', 'https://user:pw@example.com:8080/p#f'])).toBe(true)
    // The check is real: what the values do not fit fails it.
    expect(allValid(['not an email'], ['a@b.co'])).toBe(false)
  })
})
