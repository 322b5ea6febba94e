import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProject } from '../../src/domain/projects.ts'
import { createResource } from '../../src/domain/resources.ts'
import { insertRecord } from '../../src/domain/records.ts'
import { cleanup, openStore, send, serve, tempDb } from '../_helpers.ts'

let base: string

const PRODUCTS = [
  { id: '1', name: 'banana', price: 5, active: true, meta: { color: 'yellow' } },
  { id: '2', name: 'Apple', price: 12.5, active: false, meta: { color: 'red' } },
  { id: '3', name: 'cherry', price: 5, active: true },
  { id: '4', name: 'apple', active: true },
  { id: '5', name: '10', price: '5' },
  { id: '6', name: 'éclair', price: 100 },
]
const SCORES = [
  { id: '1', score: 10, name: 'b' },
  { id: '2', score: 9, name: 'a' },
  { id: '3', score: 100, name: 'C' },
  { id: '4', name: 'd' },
  { id: '5', score: -1, name: 'é' },
  { id: '6', score: null },
]

beforeAll(async () => {
  const dbPath = tempDb()
  const { context } = openStore(dbPath)
  createProject(context, { name: 'Lists', slug: 'lists' })
  for (const [path, records] of [['/api/products', PRODUCTS], ['/api/scores', SCORES]] as const) {
    const { resource } = createResource(context, { path })
    for (const record of records) insertRecord(context, resource.collectionId, record)
  }
  base = `${(await serve(dbPath)).url}/api/lists`
})
afterAll(cleanup)

const ids = async (query: string, resource = 'products') => {
  const response = await send(`${base}/${resource}${query}`)
  expect(response.status, response.text).toBe(200)
  return (response.json as { id: string }[]).map((item) => item.id)
}

describe('filters', () => {
  it.each([
    ['?name=apple', ['4']],
    ['?name=Apple', ['2']],
    ['?price=5', ['1', '3', '5']],
    ['?price=5.0', ['1', '3']], // the string "5" compares exactly
    ['?price=12.5', ['2']],
    ['?active=true', ['1', '3', '4']],
    ['?active=false', ['2']],
    ['?name=apple&name=banana', ['1', '4']],
    ['?price=5&active=true', ['1', '3']],
    ['?price=5&price=100&active=true', ['1', '3']],
    ['?meta.color=red', ['2']],
    ['?name=10', ['5']],
    ['?nothing=1', []],
    ['?name=', []],
  ])('%s', async (query, expected) => {
    expect(await ids(query)).toEqual(expected)
  })

  it('counts matches before pagination in X-Total-Count', async () => {
    const response = await send(`${base}/products?active=true&limit=1`)
    expect(response.headers.get('x-total-count')).toBe('3')
    expect(response.json).toHaveLength(1)
  })
})

describe('sort and order', () => {
  it.each([
    ['?sort=score', ['5', '2', '1', '3', '4', '6']],
    ['?sort=score&order=asc', ['5', '2', '1', '3', '4', '6']],
    ['?sort=score&order=desc', ['3', '1', '2', '5', '4', '6']],
    ['?sort=name', ['3', '2', '1', '4', '5', '6']],
    ['?sort=name&order=desc', ['5', '4', '1', '2', '3', '6']],
    ['?sort=missing', ['1', '2', '3', '4', '5', '6']],
  ])('%s (numbers numerically, strings by code point, missing last)', async (query, expected) => {
    expect(await ids(query, 'scores')).toEqual(expected)
  })

  it('combines filter, sort and pagination', async () => {
    expect(await ids('?active=true&sort=name&order=desc&page=1&limit=2')).toEqual(['3', '1'])
  })
})

describe('pagination', () => {
  it.each([
    ['?limit=2', ['1', '2']],
    ['?page=2&limit=2', ['3', '4']],
    ['?page=3&limit=4', []],
    ['?page=1', ['1', '2', '3', '4', '5', '6']],
    ['?page=2', []],
    ['?page=99&limit=2', []],
    ['?limit=100', ['1', '2', '3', '4', '5', '6']],
  ])('%s', async (query, expected) => {
    expect(await ids(query)).toEqual(expected)
  })

  it('sends Link with first, prev, next and last when paginated', async () => {
    const response = await send(`${base}/products?page=2&limit=2`)
    const link = response.headers.get('link')!
    expect(link).toContain('page=1&limit=2>; rel="first"')
    expect(link).toContain('page=1&limit=2>; rel="prev"')
    expect(link).toContain('page=3&limit=2>; rel="next"')
    expect(link).toContain('page=3&limit=2>; rel="last"')
    expect(response.headers.get('x-total-count')).toBe('6')
    expect((await send(`${base}/products`)).headers.get('link')).toBeNull()
  })

  it.each([
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=1.5', 'page'],
    ['page=abc', 'page'],
    ['limit=abc', 'limit'],
    ['limit=0', 'limit'],
    ['limit=1e9', 'limit'],
    ['limit=99999999999999999999', 'limit'],
    ['page=1&page=2', 'page'],
    ['order=up', 'order'],
    ['sort=name&order=DESC', 'order'],
    ['sort=', 'sort'],
    ['sort=a"b', 'sort'],
    ['a"b=1', 'a"b'],
  ])('refuses %s with 400 naming "%s"', async (query, parameter) => {
    const response = await send(`${base}/products?${query}`)
    expect(response.status).toBe(400)
    expect(response.json.error.code).toBe('INVALID_QUERY')
    expect(response.json.error.message).toContain(`"${parameter}"`)
    expect(response.json.error.details[0].parameter).toBe(parameter)
  })
})

describe('CORS and health', () => {
  it('sends Access-Control-Allow-Origin and exposes X-Total-Count and Link', async () => {
    const response = await send(`${base}/products?limit=1`, { headers: { Origin: 'http://localhost:5173' } })
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-expose-headers')).toContain('X-Total-Count')
    expect(response.headers.get('access-control-expose-headers')).toContain('Link')
    const error = await send(`${base}/products?page=0`)
    expect(error.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('answers a preflight with 204 and the allowed methods and headers', async () => {
    const response = await send(`${base}/products/1`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'content-type,x-custom' },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-methods')).toContain('PUT')
    expect(response.headers.get('access-control-allow-headers')).toBe('content-type,x-custom')
  })

  it('answers GET /api/health', async () => {
    const response = await send(`${base.replace('/api/lists', '')}/api/health`)
    expect(response.status).toBe(200)
    expect(response.json).toEqual({ status: 'ok' })
  })
})
