import { describe, expect, it } from 'vitest'
import { checkEndpointPath, checkResourcePath, isPlural } from '../../src/domain/path-rules.ts'
import { AppError } from '../../src/errors.ts'

function ruleOf(check: () => unknown): string | undefined {
  try {
    check()
    return undefined
  } catch (error) {
    return ((error as AppError).details as { rule: string }[])[0]!.rule
  }
}

describe('path rules', () => {
  it.each([
    ['/api/blog-posts', undefined],
    ['/api/users/:userId/posts', undefined],
    ['/api/v1/people', undefined],
    ['/api/blog-posts/', undefined],
    ['/api/BlogPosts', 'lowercase-hyphens'],
    ['/api/blog_posts', 'lowercase-hyphens'],
    ['/api/getPosts', 'no-verbs'],
    ['/api/list', 'no-verbs'],
    ['/api/post', 'plural-nouns'],
    ['/api/status', 'plural-nouns'],
    ['/blog-posts', 'starts-with-api'],
    ['api/posts', 'starts-with-api'],
    ['/api//posts', 'no-empty-segments'],
    ['/api/posts?x=1', 'plain-path'],
    ['/api/posts/:postId', 'ends-with-resource'],
    ['/api/:x/posts', 'param-after-resource'],
    ['/api/users/:1/posts', 'param-names'],
  ])('resource %s → %s', (path, rule) => {
    expect(ruleOf(() => checkResourcePath(path))).toBe(rule)
  })

  it('normalises a trailing slash and warns past three levels', () => {
    expect(checkResourcePath('/api/blog-posts/').path).toBe('/api/blog-posts')
    expect(checkResourcePath('/api/as/:a/bs/:b/cs/:c/ds').warnings[0]).toMatch(/4 resource levels/)
  })

  it('lets custom endpoints be singular with a warning, but still refuses verbs and case', () => {
    expect(checkEndpointPath('/api/me')).toEqual({ path: '/api/me', warnings: ['segment "me" is not a plural noun (rule: plural-nouns)'] })
    expect(ruleOf(() => checkEndpointPath('/api/createUser'))).toBe('no-verbs')
    expect(ruleOf(() => checkEndpointPath('/api/Users'))).toBe('lowercase-hyphens')
  })

  it('knows common plurals', () => {
    for (const word of ['posts', 'people', 'categories', 'data', 'news']) expect(isPlural(word)).toBe(true)
    for (const word of ['post', 'status', 'address', 'person']) expect(isPlural(word)).toBe(false)
  })
})

describe('path rules by mode', () => {
  const FREE = ['/v1/charges', '/api/user_profiles', '/avatar.png', '/api/files/*', '/a/**', '/files/:name.json', '/v1/users/:id:activate', '/v1/things:batchGet', '/a/\\:b']

  it.each(FREE)('off takes %s as written, without a warning', (path) => {
    expect(checkEndpointPath(path, 'off')).toEqual({ path, warnings: [] })
  })

  it('warn takes the same paths, each broken rule a warning worded as strict words its refusal', () => {
    expect(ruleOf(() => checkEndpointPath('/v1/charges'))).toBe('starts-with-api')
    expect(checkEndpointPath('/v1/charges', 'warn').warnings).toEqual(['path "/v1/charges" must start with /api (rule: starts-with-api)'])
    expect(checkEndpointPath('/api/user_profiles', 'warn')).toEqual({
      path: '/api/user_profiles',
      warnings: ['segment "user_profiles" must be lowercase letters and digits separated by hyphens, e.g. "blog-posts" (rule: lowercase-hyphens)'],
    })
    expect(checkEndpointPath('/files/:name.json', 'warn').warnings).toEqual([
      'path "/files/:name.json" must start with /api (rule: starts-with-api)',
      'parameter ":name.json" must be ":" followed by a name of letters, digits or _ (rule: param-names)',
    ])
    expect(checkResourcePath('/v1/user_profiles', 'warn').warnings).toHaveLength(2)
  })

  it('strict refuses what it refused, and takes wildcards under /api', () => {
    expect(ruleOf(() => checkEndpointPath('/api/user_profiles'))).toBe('lowercase-hyphens')
    expect(ruleOf(() => checkEndpointPath('/api/files/:name.json'))).toBe('param-names')
    expect(checkEndpointPath('/api/files/*')).toEqual({ path: '/api/files/*', warnings: [] })
    expect(checkEndpointPath('/api/files/**').path).toBe('/api/files/**')
  })

  it.each([
    ['/a/**/b', 'wildcards'],
    ['/a**b', 'wildcards'],
    ['/a//b', 'no-empty-segments'],
    ['/a?b=1', 'plain-path'],
    ['/a\u0001b', 'plain-path'],
    ['a/b', 'starts-with-slash'],
    ['/a/:x*', 'param-names'],
    ['/a/:1', 'param-names'],
    [`/${'a'.repeat(2048)}`, 'path-length'],
    [`/${'a'.repeat(257)}`, 'path-length'],
    ['/pct/100%', 'percent-encoding'],
    ['/pct/%4', 'percent-encoding'],
    ['/pct/%zz', 'percent-encoding'],
    ['/pct/%FF', 'percent-encoding'],
    ['/d/..', 'dot-segments'],
    ['/d2/.', 'dot-segments'],
    ['/d/%2e%2E/x', 'dot-segments'],
    ['/t/\\', 'plain-path'],
    ['/t/a\\b', 'plain-path'],
    ['/f/{', 'param-names'],
    ['/f/{1}', 'param-names'],
    ['/f/{a}{b}', 'param-names'],
  ])('off still refuses the structure of %s (%s)', (path, rule) => {
    expect(ruleOf(() => checkEndpointPath(path, 'off'))).toBe(rule)
    expect(ruleOf(() => checkEndpointPath(path, 'warn'))).toBe(rule)
  })

  it('says why a path no request could reach is refused, and how to write it', () => {
    expect(() => checkEndpointPath('/pct/100%', 'off')).toThrow('"%" must start an escape of two hex digits; write %25 for a percent sign (rule: percent-encoding)')
    expect(() => checkEndpointPath('/d/..', 'off')).toThrow('clients resolve a ".." segment before sending, so no request could match it (rule: dot-segments)')
    expect(() => checkEndpointPath('/t/\\', 'off')).toThrow('write %5C for one (rule: plain-path)')
    expect(() => checkEndpointPath('/f/{', 'off')).toThrow('write %7B and %7D for braces (rule: param-names)')
  })

  it('keeps percent escapes as written: the router reads them decoded', () => {
    for (const path of ['/search/a%20b', '/pct/100%25', '/t/%5C', '/f/%7Bid%7D', '/d/%2e.x']) {
      expect(checkEndpointPath(path, 'off')).toEqual({ path, warnings: [] })
    }
  })

  it('writes {name} as :name, as OpenAPI imports do, where that reads the same', () => {
    expect(checkEndpointPath('/files/{id}', 'off').path).toBe('/files/:id')
    expect(checkEndpointPath('/files/{name}.json', 'off').path).toBe('/files/:name.json')
    expect(checkEndpointPath('/users/{user-id}/orders/{orderId}', 'off').path).toBe('/users/:user-id/orders/:orderId')
    expect(checkEndpointPath('/api/users/{id}', 'strict').path).toBe('/api/users/:id')
    expect(checkResourcePath('/api/users/{userId}/posts').path).toBe('/api/users/:userId/posts')
    // `v:n` and `:idx` would read as text and as another name: these keep their braces.
    expect(checkEndpointPath('/v{n}', 'off').path).toBe('/v{n}')
    expect(checkEndpointPath('/f/{id}x', 'off').path).toBe('/f/{id}x')
  })

  it('a resource path needs names in every mode: its records need a collection', () => {
    expect(checkResourcePath('/v1/user_profiles', 'off')).toEqual({ path: '/v1/user_profiles', warnings: [] })
    expect(ruleOf(() => checkResourcePath('/files/*', 'off'))).toBe('resource-segments')
    expect(ruleOf(() => checkResourcePath('/files/:name.json', 'off'))).toBe('param-names')
    expect(ruleOf(() => checkResourcePath('/v1/users/:userId', 'off'))).toBe('ends-with-resource')
    expect(ruleOf(() => checkResourcePath('/users/:id/posts', 'off'))).toBe('param-names')
    expect(ruleOf(() => checkResourcePath('/', 'off'))).toBe('names-a-resource')
  })
})
