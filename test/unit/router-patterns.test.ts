import { describe, expect, it } from 'vitest'
import { matchMixed, parseRoutePath, routeShape } from '../../src/engine/path-pattern.ts'
import { createRouter, splitPath } from '../../src/engine/router.ts'

const route = (method: string, path: string) => ({ method, segments: splitPath(path), value: `${method} ${path}` })
const routerOf = (...paths: string[]) => createRouter(paths.map((path) => route('GET', path)))
const found = (router: ReturnType<typeof routerOf>, path: string) => router.match('GET', splitPath(path))

describe('route patterns', () => {
  it('reads parameters inside a segment as a user expects', () => {
    expect(parseRoutePath('/files/:name.json')).toEqual([
      { kind: 'literal', text: 'files' },
      { kind: 'mixed', parts: [{ kind: 'param', name: 'name' }, { kind: 'literal', text: '.json' }] },
    ])
    expect(parseRoutePath('/v1/users/:id:activate').at(-1)).toEqual({ kind: 'mixed', parts: [{ kind: 'param', name: 'id' }, { kind: 'literal', text: ':activate' }] })
    expect(parseRoutePath('/v1/things:batchGet').at(-1)).toEqual({ kind: 'literal', text: 'things:batchGet' })
    expect(parseRoutePath('/flights/:from-:to').at(-1)).toEqual({ kind: 'mixed', parts: [{ kind: 'param', name: 'from' }, { kind: 'literal', text: '-' }, { kind: 'param', name: 'to' }] })
    expect(parseRoutePath('/users/:user-id').at(-1)).toEqual({ kind: 'param', name: 'user-id' })
    expect(parseRoutePath('/a/\\:b').at(-1)).toEqual({ kind: 'literal', text: ':b' })
    expect(parseRoutePath('/img/*.png/*/**')).toEqual([
      { kind: 'literal', text: 'img' },
      { kind: 'mixed', parts: [{ kind: 'param', name: '0' }, { kind: 'literal', text: '.png' }] },
      { kind: 'wildcard', name: '1' },
      { kind: 'rest', name: '2' },
    ])
  })

  it('reads {name} as a parameter and literal text percent-decoded, as requests are', () => {
    expect(parseRoutePath('/files/{id}/{name}.json')).toEqual([
      { kind: 'literal', text: 'files' },
      { kind: 'param', name: 'id' },
      { kind: 'mixed', parts: [{ kind: 'param', name: 'name' }, { kind: 'literal', text: '.json' }] },
    ])
    expect(parseRoutePath('/v{n}/{a-}').map((p) => p)).toEqual([
      { kind: 'mixed', parts: [{ kind: 'literal', text: 'v' }, { kind: 'param', name: 'n' }] },
      { kind: 'literal', text: '{a-}' },
    ])
    expect(parseRoutePath('/search/a%20b/%3Ax/%2F').map((p) => p.kind === 'literal' && p.text)).toEqual(['search', 'a b', ':x', '/'])
    // Stored before the path rules refused them: a `%` that starts no escape stays text.
    expect(parseRoutePath('/pct/100%/%FF/%41%').map((p) => p.kind === 'literal' && p.text)).toEqual(['pct', '100%', '%FF', 'A%'])
  })

  it('gives one shape to routes that answer the same requests, and different shapes otherwise', () => {
    expect(routeShape('/files/{id}')).toBe(routeShape('/files/:id'))
    expect(routeShape('/x/%41')).toBe(routeShape('/x/A'))
    expect(routeShape('/x/a%2Fb')).not.toBe(routeShape('/x/a/b'))
    expect(routeShape('/x/%3Ab')).toBe(routeShape('/x/\\:b'))
    expect(routeShape('/x/%3Ab')).not.toBe(routeShape('/x/:b'))
    expect(routeShape('/files/:name')).toBe(routeShape('/files/*'))
    expect(routeShape('/files/:name.json')).not.toBe(routeShape('/files/:id'))
    expect(routeShape('/files/:a.json')).toBe(routeShape('/files/*.json'))
    expect(routeShape('/files/**')).not.toBe(routeShape('/files/*'))
    expect(routeShape('/a/\\:b')).not.toBe(routeShape('/a/:b'))
    expect(routeShape('/api/users/:id')).toBe('/api/users/:')
  })

  it('matches a mixed segment without backtracking, each parameter non-empty', () => {
    const parts = parseRoutePath('/:a.:b.json')[0]
    if (parts?.kind !== 'mixed') throw new Error('mixed expected')
    expect(matchMixed(parts.parts, 'x.y.z.json')).toEqual(['x', 'y.z'])
    expect(matchMixed(parts.parts, '.y.json')).toBeNull()
    expect(matchMixed(parts.parts, 'x..json')).toBeNull()
    expect(matchMixed(parts.parts, 'x.y.txt')).toBeNull()
  })
})

describe('router with wildcards and mixed segments', () => {
  const router = routerOf('/files/:name.json', '/files/:id', '/files/report.json', '/assets/*', '/docs/**', '/docs', '/a/b/*', '/a/*/c', '/v1/users/:id:activate', '/v1/users/:id', '/img/*.png', '/img/:name.:ext')

  it('answers the most specific route first, segment by segment from the left', () => {
    expect(found(router, '/files/report.json')).toMatchObject({ value: 'GET /files/report.json', params: {} })
    expect(found(router, '/files/data.json')).toMatchObject({ value: 'GET /files/:name.json', params: { name: 'data' } })
    expect(found(router, '/files/data.csv')).toMatchObject({ value: 'GET /files/:id', params: { id: 'data.csv' } })
    expect(found(router, '/a/b/c')).toMatchObject({ value: 'GET /a/b/*', params: { 0: 'c' } })
    expect(found(router, '/a/x/c')).toMatchObject({ value: 'GET /a/*/c', params: { 0: 'x' } })
    expect(found(router, '/v1/users/42:activate')).toMatchObject({ value: 'GET /v1/users/:id:activate', params: { id: '42' } })
    expect(found(router, '/v1/users/42')).toMatchObject({ value: 'GET /v1/users/:id', params: { id: '42' } })
    expect(found(router, '/img/cat.png')).toMatchObject({ value: 'GET /img/*.png', params: { 0: 'cat' } })
    expect(found(router, '/img/cat.gif')).toMatchObject({ value: 'GET /img/:name.:ext', params: { name: 'cat', ext: 'gif' } })
  })

  it('lets * take one segment and ** the rest, a route of its own winning over **', () => {
    expect(found(router, '/assets/app.js')).toMatchObject({ value: 'GET /assets/*', params: { 0: 'app.js' } })
    expect(found(router, '/assets/js/app.js')).toEqual({ kind: 'not-found' })
    expect(found(router, '/docs/guide/intro.md')).toMatchObject({ value: 'GET /docs/**', params: { 0: 'guide/intro.md' } })
    expect(found(router, '/docs')).toMatchObject({ value: 'GET /docs' })
    expect(found(routerOf('/docs/**'), '/docs')).toMatchObject({ value: 'GET /docs/**', params: { 0: '' } })
  })

  it('answers 405 with the methods of a wildcard route', () => {
    const methods = createRouter([route('GET', '/files/**'), route('PUT', '/files/**')])
    expect(methods.match('DELETE', ['files', 'a', 'b'])).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'HEAD', 'PUT'] })
    expect(methods.match('HEAD', ['files', 'a'])).toMatchObject({ kind: 'found', value: 'GET /files/**' })
  })

  it('lists in a 405 the methods of every route matching the path, HEAD wherever GET is', () => {
    const routes = createRouter([route('GET', '/files/:id'), route('DELETE', '/files/**'), route('GET', '/a/:x/c'), route('POST', '/a/b/:y'), route('HEAD', '/h/*'), route('PUT', '/h/x')])
    expect(routes.match('POST', splitPath('/files/x'))).toEqual({ kind: 'method-not-allowed', allow: ['DELETE', 'GET', 'HEAD'] })
    expect(routes.match('PUT', splitPath('/a/b/c'))).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'HEAD', 'POST'] })
    expect(routes.match('GET', splitPath('/a/b/c'))).toMatchObject({ kind: 'found', value: 'GET /a/:x/c', params: { x: 'b' } })
    expect(routes.match('DELETE', splitPath('/files/x'))).toMatchObject({ kind: 'found', value: 'DELETE /files/**' })
    // Only the paths that match count: /a/b/d matches POST /a/b/:y alone.
    expect(routes.match('PUT', splitPath('/a/b/d'))).toEqual({ kind: 'method-not-allowed', allow: ['POST'] })
    expect(routes.match('GET', splitPath('/h/x'))).toEqual({ kind: 'method-not-allowed', allow: ['HEAD', 'PUT'] })
  })

  it('matches literal text by its decoded reading, as the server decodes request segments', () => {
    const decoded = routerOf('/search/a%20b', '/pct/100%25', '/legacy/100%', '/t/%5C', '/s/a%2Fb', '/files/{id}', '/m/:name%2Ejson')
    expect(found(decoded, '/search/a b')).toMatchObject({ value: 'GET /search/a%20b' })
    expect(found(decoded, '/search/a%20b')).toEqual({ kind: 'not-found' })
    expect(found(decoded, '/pct/100%')).toMatchObject({ value: 'GET /pct/100%25' })
    expect(found(decoded, '/legacy/100%')).toMatchObject({ value: 'GET /legacy/100%' })
    expect(found(decoded, '/t/\\')).toMatchObject({ value: 'GET /t/%5C' })
    expect(decoded.match('GET', ['s', 'a/b'])).toMatchObject({ value: 'GET /s/a%2Fb' })
    expect(found(decoded, '/files/7')).toMatchObject({ value: 'GET /files/{id}', params: { id: '7' } })
    expect(found(decoded, '/m/x.json')).toMatchObject({ params: { name: 'x' } })
  })

  it('keeps a parameter named __proto__ an own value', () => {
    const match = found(routerOf('/x/:__proto__'), '/x/1')
    expect(match.kind === 'found' && Object.hasOwn(match.params, '__proto__')).toBe(true)
  })

  it('stays linear on a hostile route set: 200 nested * routes against 8,000 segments', () => {
    // Literal and parameter branches at every level, and nothing matches: the walk visits each
    // node of the tree once, not each way through it.
    const paths = Array.from({ length: 200 }, (_, i) => `/${Array.from({ length: i + 1 }, (_, j) => (j % 2 ? '*' : 'x')).join('/')}/end`)
    const hostile = routerOf(...paths, ...paths.map((p) => p.replace(/x/g, '*')))
    const segments = Array.from({ length: 8000 }, () => 'x')
    const started = performance.now()
    expect(hostile.match('GET', segments)).toEqual({ kind: 'not-found' })
    expect(hostile.match('GET', Array.from({ length: 60 }, () => 'x'))).toEqual({ kind: 'not-found' })
    // A hang is the bug; the bound is generous.
    expect(performance.now() - started).toBeLessThan(5000)
  })

  it('stays linear on mixed segments over a long segment', () => {
    const mixed = routerOf('/f/:a-:b-:c-:d.json', '/f/:a.:b.:c.:d.txt')
    const long = `${'-'.repeat(100_000)}x`
    const started = performance.now()
    expect(found(mixed, `/f/${long}`)).toEqual({ kind: 'not-found' })
    expect(found(mixed, '/f/1-2-3-4.json')).toMatchObject({ params: { a: '1', b: '2', c: '3', d: '4' } })
    expect(performance.now() - started).toBeLessThan(5000)
  })
})
