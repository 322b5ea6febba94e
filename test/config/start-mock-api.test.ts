// Written exactly as the README shows it: the package imported by its own name.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startMockApi, type MockApi } from 'mockapi-cli'

describe('my front end against mockapi', () => {
  let api: MockApi

  beforeAll(async () => {
    api = await startMockApi({
      config: {
        name: 'Shop',
        slug: 'shop',
        resources: [{ path: '/api/products', records: [{ id: '1', name: 'Lamp', price: 30 }] }],
        endpoints: [{ method: 'GET', path: '/api/health-checks', body: { ok: true } }],
      },
    })
  })
  beforeEach(() => api.reset())
  afterAll(() => api.close())

  it('lists the seeded products', async () => {
    const response = await fetch(`${api.project('shop').url}/products`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual([{ id: '1', name: 'Lamp', price: 30 }])
  })

  it('creates a product (reset puts the seed back before the next test)', async () => {
    const response = await fetch(`${api.url}/api/products`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Desk' }),
    })
    expect(response.status).toBe(201)
    expect((await (await fetch(`${api.url}/api/shop/products`)).json()) as unknown[]).toHaveLength(2)
  })

  it('starts again from the seed', async () => {
    expect((await (await fetch(`${api.url}/api/shop/products`)).json()) as unknown[]).toHaveLength(1)
    expect(api.project()).toMatchObject({ slug: 'shop', name: 'Shop' })
  })
})

describe('startMockApi options', () => {
  it('starts from a YAML file path, and refuses a broken config', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const dir = mkdtempSync(join(tmpdir(), 'mockapi-sma-'))
    try {
      writeFileSync(join(dir, 'mockapi.yaml'), 'name: Todo\nslug: todo\nresources:\n  - path: /api/todos\n    fields: { title: lorem.sentence }\n    count: 3\n')
      const api = await startMockApi({ config: join(dir, 'mockapi.yaml'), db: join(dir, 'x.db') })
      expect(((await (await fetch(`${api.url}/api/todo/todos`)).json()) as unknown[])).toHaveLength(3)
      await api.close()
      await expect(startMockApi({ config: { name: '' } })).rejects.toThrow(/name must be a non-empty string/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
