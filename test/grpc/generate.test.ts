import protobuf from 'protobufjs'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Faker } from '@faker-js/faker'
import { loadFaker } from '../../src/engine/generators.ts'
import { AppError } from '../../src/errors.ts'
import { generateMessage, messageFromJson } from '../../src/kinds/grpc/generate.ts'
import type { ProtoSpec } from '../../src/kinds/grpc/load.ts'
import { expectFilled, loadFixture, typeOf } from './_helpers.ts'

let catalog: ProtoSpec
let faker: Faker

beforeAll(async () => {
  catalog = await loadFixture('catalog')
  faker = (await loadFaker())()
})

/** Encoded and decoded the way a client would see it. */
function roundTrip(type: protobuf.Type, message: Record<string, unknown>): Record<string, unknown> {
  const decoded = type.decode(type.encode(type.fromObject(message)).finish())
  return type.toObject(decoded, { longs: String, enums: String, bytes: Buffer, defaults: true, oneofs: true }) as Record<string, unknown>
}

describe('generateMessage', () => {
  it('fills every kind of field of a message, in proto-loader conventions', () => {
    const product = typeOf(catalog, 'mockapi.catalog.v1.Product')
    const message = generateMessage(product, faker)
    expect(message.stock_count).toMatch(/^\d+$/)
    expect(Buffer.isBuffer(message.thumbnail)).toBe(true)
    expect(['IN_STOCK', 'BACKORDER', 'DISCONTINUED']).toContain(message.availability)
    expect((message.tags as string[]).length).toBeGreaterThanOrEqual(2)
    expect((message.tags as string[]).length).toBeLessThanOrEqual(3)
    expect(Object.keys(message.labels as object)).toHaveLength(2)
    expect(Object.keys(message.variants_by_size as object).every((key) => /^\d+$/.test(key))).toBe(true)
    expect(('percent_off' in message) !== ('amount_off' in message)).toBe(true)
    expect(message.sku).toBeTypeOf('string')
    expect(message.metadata).toEqual({})
    expect(message.subtitle).toEqual({ value: expect.any(String) })
    expect(message.sold).toEqual({ value: expect.stringMatching(/^\d+$/) })
    expect(message.id).toMatch(/^[0-9a-f-]{36}$/)
    const created = message.created_at as { seconds: string; nanos: number }
    expect(Math.abs(Date.now() / 1000 - Number(created.seconds))).toBeLessThan(31 * 86_400)
    expectFilled(product, roundTrip(product, message))
  })

  it('bounds recursion: a recursive message nests once', () => {
    const category = typeOf(catalog, 'mockapi.catalog.v1.Category')
    const message = generateMessage(category, faker) as { parent: { parent?: unknown; children?: unknown }; children: unknown[] }
    expect(message.parent).toBeTypeOf('object')
    expect(message.parent.parent).toBeUndefined()
    expect(message.parent.children).toBeUndefined()
    expect(message.children.length).toBeGreaterThanOrEqual(2)
  })

  it('picks realistic values by field name', () => {
    const root = protobuf.Root.fromJSON({ nested: { Person: { fields: { email: { type: 'string', id: 1 }, created_at: { type: 'string', id: 2 }, age: { type: 'int32', id: 3 }, user_id: { type: 'string', id: 4 } } } } })
    const person = generateMessage(root.lookupType('Person'), faker)
    expect(person.email).toMatch(/@/)
    expect(Number.isNaN(Date.parse(person.created_at as string))).toBe(false)
    expect(person.age).toBeGreaterThanOrEqual(18)
    expect(person.user_id).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('gives the same message for the same seed', async () => {
    const product = typeOf(catalog, 'mockapi.catalog.v1.Product')
    const makeFaker = await loadFaker()
    expect(generateMessage(product, makeFaker(42))).toEqual(generateMessage(product, makeFaker(42)))
  })
})

describe('messageFromJson', () => {
  const product = () => typeOf(catalog, 'mockapi.catalog.v1.Product')

  it('takes .proto or lowerCamelCase names, enum numbers and proto3 JSON forms of well-known types', () => {
    const message = messageFromJson(product(), {
      stockCount: 5, views: '18446744073709551615', availability: 2, rating: 'Infinity', price: { currency_code: 'EUR', units: '-3' },
      shipping_time: '-0.250s', created_at: '2024-05-01T14:00:00+02:00', extra: [1, 'a', true, null], featured: true, sku: null,
    })
    const decoded = roundTrip(product(), message)
    expect(decoded).toMatchObject({
      stock_count: '5', views: '18446744073709551615', availability: 'BACKORDER', rating: Infinity, price: { currency_code: 'EUR', units: '-3' },
      shipping_time: { seconds: '0', nanos: -250_000_000 }, created_at: { seconds: '1714564800', nanos: 0 }, featured: { value: true },
      extra: { listValue: { values: [{ numberValue: 1 }, { stringValue: 'a' }, { boolValue: true }, { nullValue: 'NULL_VALUE' }] } },
    })
    expect(decoded.sku).toBeUndefined()
  })

  it.each([
    [{ nope: 1 }, 'body: mockapi.catalog.v1.Product has no field "nope" (fields: id, name,'],
    [{ stock_count: 1.5 }, 'body.stock_count: expected an integer (int64), got 1.5'],
    [{ views: '-1' }, 'body.views: out of range for uint64'],
    [{ price: { nanos: 2 ** 31 } }, 'body.price.nanos: out of range for int32'],
    [{ availability: 'SOLD_OUT' }, 'body.availability: expected one of AVAILABILITY_UNSPECIFIED, IN_STOCK, BACKORDER, DISCONTINUED, got "SOLD_OUT"'],
    [{ tags: 'one' }, 'body.tags: expected an array (a repeated field), got "one"'],
    [{ variants_by_size: { big: {} } }, 'body.variants_by_size key: expected an integer (int32), got "big"'],
    [{ percent_off: 1, amount_off: {} }, '"percent_off" and "amount_off" are both members of oneof discount'],
    [{ created_at: 'yesterday' }, 'body.created_at: expected an RFC 3339 timestamp'],
    [{ shipping_time: '5m' }, 'body.shipping_time: expected a duration like "1.5s"'],
    [{ thumbnail: 'not base64!' }, 'body.thumbnail: expected base64 text'],
    [{ metadata: { '@type': 'type.googleapis.com/acme.Nope' } }, 'body.metadata["@type"]: expected the URL of a message type'],
    [{ category: { children: [{ parent: { name: 3 } }] } }, 'body.category.children[0].parent.name: expected a string, got 3'],
  ])('refuses %j', (json, message) => {
    let error: unknown
    try {
      messageFromJson(product(), json)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).code).toBe('INVALID_INPUT')
    expect((error as AppError).message).toContain(message)
  })
})
