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
