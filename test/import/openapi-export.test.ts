import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import SwaggerParser from '@apidevtools/swagger-parser'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { cleanup, cliWorkspace, ROOT, send, serve, type CliWorkspace } from '../_helpers.ts'

afterAll(cleanup)

type Doc = Record<string, any>

/**
 * A project with every part the export writes: resources (one nested, one singular) with records,
 * custom endpoints with JSON, text and file bodies, responses chosen by rules, project and
 * endpoint auth.
 */
const SHOP = `
name: Shop
slug: shop
auth: { type: bearer }
resources:
  - path: /api/users
    records:
      - { id: 1, name: Ada, email: ada@example.com, joined: "2024-03-01T10:00:00Z", site: "https://ada.example.com", tags: [admin], address: { city: London } }
      - { id: 2, name: Bob, email: bob@example.com, joined: "2024-04-02T11:30:00Z", site: "https://bob.example.com", tags: [], score: 2.5 }
  - path: /api/users/:userId/orders
    records:
      - { id: 1, userId: 1, total: 30, placed: "2024-05-01" }
  - path: /api/profile
    object: { name: Ada, theme: dark }
endpoints:
  - method: GET
    path: /api/health
    body: { ok: true }
    headers: { X-Env: mock }
    auth: none
  - method: GET
    path: /api/motd
    text: hello there
  - method: GET
    path: /api/logo
    file: ./logo.png
  - method: GET
    path: /api/keyed
    body: { secret: false }
    auth: [{ type: apiKey, in: header, name: X-API-Key, keys: [k-1] }]
  - method: POST
    path: /api/sessions
    status: 201
    responses:
      - name: locked
        when: { body: { username: locked } }
        status: 423
        body: { error: locked }
      - name: admin
        when: { body: { username: admin } }
        status: 201
        body: { token: admin-token }
      - name: welcome
        status: 201
        body: { token: t-1 }
`

async function buildShop(shop: CliWorkspace): Promise<void> {
  writeFileSync(join(shop.cwd, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]))
  writeFileSync(join(shop.cwd, 'shop.yaml'), SHOP)
  await shop.ok('apply', 'shop.yaml')
}

let shop: CliWorkspace
let exported: Doc
let stderr: string

beforeAll(async () => {
  shop = cliWorkspace()
  await buildShop(shop)
  const run = await shop.run('export', '--format', 'openapi')
  expect(run.code, run.stderr).toBe(0)
  exported = JSON.parse(run.stdout) as Doc
  stderr = run.stderr
})

describe('export --format openapi', () => {
  it('writes an OpenAPI 3.1 document that swagger-parser validates', async () => {
    expect(exported.openapi).toBe('3.1.0')
    expect(exported.info.title).toBe('Shop')
    await SwaggerParser.validate(structuredClone(exported) as never)
    expect(stderr).toBe('')
  })

  it('describes resources with schemas inferred from their records', () => {
    const user = exported.components.schemas.User
    expect(user.properties.id).toEqual({ type: 'integer' })
    expect(user.properties.email).toEqual({ type: 'string', format: 'email' })
    expect(user.properties.joined).toEqual({ type: 'string', format: 'date-time' })
    expect(user.properties.site).toEqual({ type: 'string', format: 'uri' })
    expect(user.properties.score).toEqual({ type: 'number' })
    expect(user.properties.tags).toEqual({ type: 'array', items: { type: 'string' } })
    expect(user.properties.address).toEqual({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] })
    // Only what every record has is required.
    expect(user.required).toEqual(['id', 'name', 'email', 'joined', 'site', 'tags'])
    expect(user.example.name).toBe('Ada')
    expect(exported.components.schemas.Order.properties.placed).toEqual({ type: 'string', format: 'date' })
    expect(Object.keys(exported.paths['/api/users'])).toEqual(['get', 'post'])
    expect(Object.keys(exported.paths['/api/users/{id}'])).toEqual(['get', 'put', 'patch', 'delete'])
    expect(exported.paths['/api/users/{userId}/orders/{id}'].get.parameters.map((p: Doc) => p.name)).toEqual(['userId', 'id'])
    expect(exported.paths['/api/users'].get.parameters.map((p: Doc) => p.name)).toEqual(['page', 'limit', 'sort', 'order', 'q'])
    expect(exported.paths['/api/users'].get.responses['200'].content['application/json'].schema).toEqual({ type: 'array', items: { $ref: '#/components/schemas/User' } })
    expect(exported.paths['/api/users'].post.responses['201']).toBeDefined()
    expect(Object.keys(exported.paths['/api/profile'])).toEqual(['get', 'put', 'patch'])
  })

  it('writes custom endpoints with their bodies, headers and rules as named examples', () => {
    const health = exported.paths['/api/health'].get
    expect(health.responses['200'].headers['X-Env']).toEqual({ schema: { type: 'string' }, example: 'mock' })
    expect(health.responses['200'].content['application/json'].example).toEqual({ ok: true })
    expect(exported.paths['/api/motd'].get.responses['200'].content['text/plain; charset=utf-8'].example).toBe('hello there')
    expect(exported.paths['/api/logo'].get.responses['200'].content['image/png'].schema).toEqual({ type: 'string', format: 'binary' })
    const sessions = exported.paths['/api/sessions'].post.responses
    expect(Object.keys(sessions).sort()).toEqual(['201', '423'])
    // The fallback first: an import answers the first example to a plain request, as the rules do.
    const examples = sessions['201'].content['application/json'].examples
    expect(Object.keys(examples)).toEqual(['welcome', 'admin'])
    expect(examples.admin).toEqual({ description: 'answered when body.username = admin', value: { token: 'admin-token' } })
    expect(sessions['423'].content['application/json'].examples.locked.value).toEqual({ error: 'locked' })
  })

  it('writes auth as security schemes, without their secrets', () => {
    expect(exported.security).toEqual([{ bearerAuth: [] }])
    expect(exported.components.securitySchemes).toEqual({ bearerAuth: { type: 'http', scheme: 'bearer' }, 'apiKey_header_X-API-Key': { type: 'apiKey', in: 'header', name: 'X-API-Key' } })
    expect(exported.paths['/api/health'].get.security).toEqual([])
    expect(exported.paths['/api/keyed'].get.security).toEqual([{ 'apiKey_header_X-API-Key': [] }])
    expect(JSON.stringify(exported)).not.toContain('k-1')
  })
})
