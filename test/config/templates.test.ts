import { afterAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { listTemplates } from '../../src/domain/templates.ts'
import { cleanup, cli, send, serve, tempDir } from '../_helpers.ts'

afterAll(cleanup)

describe('templates', () => {
  it('lists at least blog, ecommerce, todo, crm and webhooks, each with a description', async () => {
    const listed = JSON.parse((await cli(['templates', '--json'])).stdout) as { name: string; description: string }[]
    expect(listed.map((t) => t.name)).toEqual(expect.arrayContaining(['blog', 'ecommerce', 'todo', 'crm', 'webhooks']))
    for (const template of listed) expect(template.description.length).toBeGreaterThan(10)
  })

  it.each(listTemplates().map((t) => t.name))('%s applies and every GET endpoint answers', async (name) => {
    const cwd = tempDir()
    const db = join(cwd, 't.db')
    const init = await cli(['--db', db, 'init', '--template', name, '--yes', '--slug', `t-${name}`], { cwd })
    expect(init.code, init.stderr).toBe(0)
    const endpoints = JSON.parse((await cli(['--db', db, 'endpoints', '--json'], { cwd })).stdout) as { method: string; path: string }[]
    expect(endpoints.length).toBeGreaterThan(0)
    const server = await serve(db)
    const { url } = server
    for (const endpoint of endpoints.filter((e) => e.method === 'GET')) {
      let path = endpoint.path.replace(/^\/api/, '').replace(/:(?!id$)[^/]+/g, '1')
      if (path.endsWith('/:id')) {
        // An item that exists under this parent: the first of the list.
        const list = await send(`${url}/api/t-${name}${path.slice(0, -4)}`)
        path = path.replace(/:id$/, list.json[0]?.id ?? '1')
      }
      const response = await send(`${url}/api/t-${name}${path}`)
      expect(response.status, `${endpoint.path}: ${response.text}`).toBe(200)
      expect(response.json).toBeDefined()
    }
    await server.close()
  })

  it('blog records have number ids and foreign keys, and a new post continues them', async () => {
    const cwd = tempDir()
    expect((await cli(['init', '--template', 'blog', '--yes'], { cwd })).code).toBe(0)
    const server = await serve(join(cwd, '.mockapi', 'mockapi.db'))
    const { url } = server
    const posts = (await send(`${url}/api/users/1/posts`)).json
    expect(posts.map((p: { id: number; userId: number }) => [p.id, p.userId])).toEqual([[1, 1], [3, 1]])
    expect((await send(`${url}/api/posts/1/comments`)).json.map((c: { id: number }) => c.id)).toEqual([1, 2])
    expect((await send(`${url}/api/posts`, { method: 'POST', body: { title: 'new', userId: 2 } })).json).toEqual({ id: 9, title: 'new', userId: 2 })
    await server.close()
  })

  it('ecommerce products and orders have realistic generated data', async () => {
    const cwd = tempDir()
    expect((await cli(['init', '--template', 'ecommerce', '--yes'], { cwd })).code).toBe(0)
    const server = await serve(join(cwd, '.mockapi', 'mockapi.db'))
    const { url } = server
    const products = (await send(`${url}/api/products?limit=5`)).json
    expect(products).toHaveLength(5)
    for (const product of products) {
      expect(product).toMatchObject({ name: expect.any(String), price: expect.any(Number), sku: expect.stringMatching(/^[A-Z0-9]{10}$/) })
    }
    const orders = await send(`${url}/api/customers/3/orders`)
    expect(orders.json.length).toBeGreaterThan(0)
    expect(orders.json.every((o: { customerId: number }) => o.customerId === 3)).toBe(true)
    const invalid = await send(`${url}/api/orders`, { method: 'POST', body: { customerId: '1' } })
    expect(invalid.status).toBe(422)
    await server.close()
  })

  it('webhooks template answers every sample event in its shape, fresh on every call', async () => {
    const cwd = tempDir()
    expect((await cli(['init', '--template', 'webhooks', '--yes', '--slug', 'hooks'], { cwd })).code).toBe(0)
    const server = await serve(join(cwd, '.mockapi', 'mockapi.db'))
    const { url } = server
    const payment = ['payment.succeeded', 'payment.failed', 'payment.refunded', 'subscription.created', 'subscription.canceled']
    for (const event of payment) {
      const a = (await send(`${url}/api/hooks/webhook-events/${event.replace('.', '-')}`)).json
      const b = (await send(`${url}/api/hooks/webhook-events/${event.replace('.', '-')}`)).json
      expect(a).toMatchObject({ event, id: expect.stringMatching(/^evt_/), created: expect.any(Number), data: { object: { id: expect.any(String), amount: expect.any(Number), currency: expect.any(String), status: expect.any(String), customer: { id: expect.any(String), email: expect.stringMatching(/@/) } } } })
      expect(a.id).not.toBe(b.id)
    }
    for (const event of ['user.created', 'user.updated', 'user.deleted', 'notification.sent']) {
      const body = (await send(`${url}/api/hooks/webhook-events/${event.replace('.', '-')}`)).json
      expect(body).toMatchObject({ event, timestamp: expect.any(String), webhook_id: expect.any(String), data: { id: expect.any(String), name: expect.any(String), email: expect.stringMatching(/@/), created_at: expect.any(String) } })
    }
    await server.close()
  })
})
