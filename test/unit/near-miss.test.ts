import { afterAll, describe, expect, it } from 'vitest'
import { createCatalog } from '../../src/domain/catalog.ts'
import { nearMissRoute, nearMisses, type NearMissRoute } from '../../src/engine/near-miss.ts'
import { splitPath } from '../../src/engine/router.ts'
import { cleanup, cliWorkspace, openStore } from '../_helpers.ts'

afterAll(cleanup)

let nextId = 1
/** A route of project `slug` as the catalog lists it: under `/api/{slug}`, the endpoint path's own `/api` not repeated. */
const underSlug = (slug: string, method: string, path: string, endpointId: number | null = nextId++): NearMissRoute =>
  nearMissRoute({ endpointId, method, base: ['api', slug], slug, path })
const atOwnPath = (method: string, path: string): NearMissRoute => nearMissRoute({ endpointId: nextId++, method, base: [], slug: null, path })

const shop = [
  underSlug('shop', 'GET', '/orders'),
  underSlug('shop', 'POST', '/orders'),
  underSlug('shop', 'GET', '/orders/:id'),
  underSlug('shop', 'GET', '/orders/:id/items'),
  underSlug('shop', 'GET', '/customers'),
  underSlug('shop', 'POST', '/graphql', null),
  underSlug('shop', 'GET', '/graphql', null),
]
const missesOf = (routes: readonly NearMissRoute[], method: string, path: string) =>
  nearMisses(routes, method, splitPath(path)).map((miss) => `${miss.method} ${miss.path}: ${miss.differences.map((d) => d.text).join('; ')}`)

describe('near misses', () => {
  it('a typo in a segment: the route it was meant for first, with the segment named', () => {
    const [first] = nearMisses(shop, 'POST', splitPath('/api/shop/order'))
    expect(first).toEqual({
      endpointId: shop[1]!.endpointId,
      method: 'POST',
      path: '/api/shop/orders',
      differences: [{ what: 'segment', at: 2, expected: 'orders', received: 'order', text: 'segment 2 is "order", expected "orders"' }],
    })
    // `at` counts as the text does, from the path's start, under a slug and at own paths alike.
    expect(nearMisses([atOwnPath('POST', '/api/orders')], 'POST', splitPath('/api/order'))[0]!.differences).toMatchObject([{ at: 1, text: 'segment 1 is "order", expected "orders"' }])
    expect(nearMisses([underSlug('shop', 'GET', '/orders')], 'GET', splitPath('/api/shop/v2/orders'))[0]!.differences).toMatchObject([{ at: 2, text: 'extra segment "v2"' }])
  })

  it('a wrong method: the same path with another method', () => {
    expect(missesOf(shop, 'DELETE', '/api/shop/orders')).toEqual([
      'GET /api/shop/orders: method DELETE, expected GET',
      'POST /api/shop/orders: method DELETE, expected POST',
      'GET /api/shop/orders/:id: method DELETE, expected GET; missing segment ":id"',
    ])
    // HEAD is answered by GET: no difference there.
    expect(nearMisses([underSlug('shop', 'GET', '/orders/:id/lines')], 'HEAD', splitPath('/api/shop/orders/1/line'))[0]!.differences.map((d) => d.what)).toEqual(['segment'])
  })

  it('a missing or an extra segment, aligned rather than shifted', () => {
    expect(missesOf([underSlug('shop', 'GET', '/orders/:id/items')], 'GET', '/api/shop/orders/items')).toEqual(['GET /api/shop/orders/:id/items: missing segment ":id"'])
    expect(missesOf([underSlug('shop', 'GET', '/orders')], 'GET', '/api/shop/v2/orders')).toEqual(['GET /api/shop/orders: extra segment "v2"'])
    expect(missesOf([underSlug('shop', 'GET', '/orders/:id')], 'GET', '/api/shop/orders/1/x')).toEqual(['GET /api/shop/orders/:id: extra segment "x"'])
    // `**` takes what is left, none included.
    expect(missesOf([underSlug('shop', 'POST', '/files/**')], 'GET', '/api/shop/files/a/b/c')).toEqual(['POST /api/shop/files/**: method GET, expected POST'])
  })

  it('a mistyped project slug, but never another project\'s routes for a slug that exists', () => {
    const routes = [...shop, underSlug('blog', 'GET', '/posts'), atOwnPath('GET', '/health')]
    expect(missesOf(routes, 'GET', '/api/shpo/orders')[0]).toBe('GET /api/shop/orders: project "shpo", expected "shop"')
    expect(nearMisses(routes, 'GET', splitPath('/api/shpo/orders'))[0]!.differences[0]).toMatchObject({ what: 'project', expected: 'shop', received: 'shpo' })
    expect(missesOf(routes, 'GET', '/api/blog/orders')).toEqual([])
    expect(missesOf(routes, 'GET', '/api/zzzzzz/orders')).toEqual([])
  })

  it('a GraphQL or SOAP mount is a route: its URL with another method is close', () => {
    expect(nearMisses(shop, 'PUT', splitPath('/api/shop/graphql')).map((miss) => [miss.endpointId, miss.method, miss.path])).toEqual([
      [null, 'POST', '/api/shop/graphql'],
      [null, 'GET', '/api/shop/graphql'],
    ])
    expect(missesOf(shop, 'POST', '/api/shop/grapql')[0]).toBe('POST /api/shop/graphql: segment 2 is "grapql", expected "graphql"')
  })

  it('ranks by differences, then equal segments, then how close a typo is; at most 3', () => {
    const routes = [underSlug('shop', 'GET', '/orders/:id/notes'), underSlug('shop', 'GET', '/orders/:id/items'), underSlug('shop', 'GET', '/orders/:id/itemz'), underSlug('shop', 'GET', '/ordres/:id/item'), underSlug('shop', 'GET', '/orders/:id/lines')]
    const misses = nearMisses(routes, 'GET', splitPath('/api/shop/orders/1/item'))
    expect(misses).toHaveLength(3)
    // Typos (a letter changed, added or swapped) before other words.
    expect(misses.map((miss) => miss.path)).toEqual(['/api/shop/orders/:id/items', '/api/shop/orders/:id/itemz', '/api/shop/ordres/:id/item'])
    expect(misses.map((miss) => miss.differences.length)).toEqual([1, 1, 1])
    // A route at the project's own paths too.
    expect(missesOf([atOwnPath('GET', '/api/posts')], 'GET', '/api/post')).toEqual(['GET /api/posts: segment 1 is "post", expected "posts"'])
  })

  it('at own paths: a typo is explained as a typo first, and the shared leading api is nothing in common', () => {
    // The default project of `init --slug shop --resource /api/orders`: its routes under its slug, then at its own paths.
    const served: [string, string][] = [['GET', '/orders'], ['POST', '/orders'], ['GET', '/orders/:id'], ['PUT', '/orders/:id'], ['DELETE', '/orders/:id'], ['POST', '/login'], ['GET', '/flaky'], ['POST', '/checks']]
    const routes = [...served.map(([method, path]) => underSlug('shop', method, path)), ...served.map(([method, path]) => atOwnPath(method, `/api${path}`))]
    const ordrs = missesOf(routes, 'GET', '/api/ordrs')
    expect(ordrs[0]).toBe('GET /api/orders: segment 1 is "ordrs", expected "orders"')
    // "ordrs" is never the :id with "orders" missing; "flaky" shares only the leading api, so it is not close.
    expect(ordrs).toContain('GET /api/orders/:id: segment 1 is "ordrs", expected "orders"; missing segment ":id"')
    expect(ordrs.join('\n')).not.toMatch(/missing segment "orders"|flaky/)
    expect(missesOf(routes, 'GET', '/api/shpo/orders')[0]).toBe('GET /api/shop/orders: project "shpo", expected "shop"')
    expect(missesOf(routes, 'GET', '/api/shpo/orders')[1]).toBe('GET /api/orders: extra segment "shpo"')
    // Under the slug too: the typo first; the route wanting an :id more is close, read the same way.
    const underTheSlug = missesOf(routes, 'GET', '/api/shop/ordrs')
    expect(underTheSlug[0]).toBe('GET /api/shop/orders: segment 2 is "ordrs", expected "orders"')
    expect(underTheSlug).toContain('GET /api/shop/orders/:id: segment 2 is "ordrs", expected "orders"; missing segment ":id"')
  })

  it('none when nothing is close', () => {
    expect(missesOf(shop, 'GET', '/favicon.ico')).toEqual([])
    expect(missesOf(shop, 'GET', '/api/shop/a/b/c/d/e')).toEqual([])
    expect(missesOf([atOwnPath('GET', '/api/posts')], 'GET', '/health')).toEqual([])
    expect(missesOf(shop, 'GET', `/${'x/'.repeat(40)}`)).toEqual([])
    expect(nearMisses([], 'GET', ['api'])).toEqual([])
  })

  it('5,000 routes and a long path finish (bounded work)', () => {
    const routes = Array.from({ length: 6_000 }, (_, i) => underSlug('big', i % 2 ? 'GET' : 'POST', `/things/${i}/parts/:part/items/*/x${i}`))
    const misses = nearMisses(routes, 'GET', splitPath('/api/big/things/11/parts/3/items/4/x12'))
    expect(misses[0]!.path).toBe('/api/big/things/11/parts/:part/items/*/x11')
    expect(nearMisses(routes, 'GET', splitPath(`/api/big/${'a'.repeat(5_000)}/${'b/'.repeat(30)}`))).toEqual([])
  })
})

describe('the catalog\'s routes for near misses', () => {
  it('a project\'s routes under its slug; the own-paths project\'s at its own paths too, then every other project\'s; fallback on not-found', async () => {
    const workspace = cliWorkspace()
    await workspace.ok('init', '--yes', '--slug', 'main')
    await workspace.ok('add-endpoint', 'GET', '/api/health', '--body', '{}')
    await workspace.ok('project', 'create', 'Shop', '--slug', 'shop')
    await workspace.ok('add-endpoint', 'POST', '/api/orders', '--body', '{}', '--project', 'shop')
    await workspace.ok('add-endpoint', 'GET', '/api/orders/:id', '--body', '{}', '--project', 'shop')
    const { context } = openStore(workspace.db)
    const catalog = createCatalog(context)
    const shop = context.repos.projects.bySlug('shop')!
    const main = context.repos.projects.bySlug('main')!
    const listed = (projectId: number) => catalog.routesOf(projectId).map((route) => `${route.method} ${route.base.map((s) => `/${s}`).join('')}${route.path}`)
    expect(listed(shop.id)).toEqual(['POST /api/shop/orders', 'GET /api/shop/orders/:id'])
    expect(listed(main.id)).toEqual(['GET /api/main/health', 'GET /api/health', 'POST /api/shop/orders', 'GET /api/shop/orders/:id'])
    expect(catalog.routesOf(shop.id)).toBe(catalog.routesOf(shop.id))
    expect(catalog.routesOf(9_999)).toEqual([])

    const unknownSlug = catalog.resolve('GET', splitPath('/api/shpo/orders'))
    expect(unknownSlug).toMatchObject({ kind: 'not-found', project: null, fallback: { id: main.id } })
    expect(catalog.resolve('GET', splitPath('/api/shop/order'))).toMatchObject({ kind: 'not-found', project: { id: shop.id }, fallback: { id: main.id } })
    expect(nearMisses(catalog.routesOf(main.id), 'POST', splitPath('/api/shpo/orders')).map((miss) => [miss.path, miss.differences.map((d) => d.text)])).toEqual([
      ['/api/shop/orders', ['project "shpo", expected "shop"']],
    ])
    expect(nearMisses(catalog.routesOf(shop.id), 'POST', splitPath('/api/shop/order'))[0]).toMatchObject({ path: '/api/shop/orders', endpointId: expect.any(Number) })

    // A change rebuilds the catalog: the routes follow it.
    await workspace.ok('add-endpoint', 'DELETE', '/api/orders/:id', '--body', '{}', '--project', 'shop')
    expect(listed(shop.id)).toContain('DELETE /api/shop/orders/:id')
  })
})
