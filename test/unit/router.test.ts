import { describe, expect, it } from 'vitest'
import { createRouter, splitPath } from '../../src/engine/router.ts'

const route = (method: string, path: string) => ({ method, segments: splitPath(path), value: `${method} ${path}` })

describe('router', () => {
  const router = createRouter([
    route('GET', '/users'),
    route('GET', '/users/:id'),
    route('DELETE', '/users/:id'),
    route('GET', '/users/me'),
    route('GET', '/users/:userId/posts'),
  ])

  it('prefers literal segments over parameters', () => {
    expect(router.match('GET', ['users', 'me'])).toEqual({ kind: 'found', value: 'GET /users/me', params: {} })
    expect(router.match('GET', ['users', '7'])).toEqual({ kind: 'found', value: 'GET /users/:id', params: { id: '7' } })
  })

  it('falls back to a parameter route that has the method', () => {
    expect(router.match('DELETE', ['users', 'me'])).toMatchObject({ kind: 'found', value: 'DELETE /users/:id', params: { id: 'me' } })
  })

  it('answers 405 data with the methods of every matching path, 404 otherwise', () => {
    expect(router.match('PUT', ['users', '7'])).toEqual({ kind: 'method-not-allowed', allow: ['DELETE', 'GET', 'HEAD'] })
    expect(router.match('PUT', ['users', 'me'])).toEqual({ kind: 'method-not-allowed', allow: ['DELETE', 'GET', 'HEAD'] })
    expect(router.match('GET', ['users', '7', 'comments'])).toEqual({ kind: 'not-found' })
    expect(router.match('GET', [])).toEqual({ kind: 'not-found' })
  })

  it('captures every parameter by name', () => {
    expect(router.match('GET', ['users', '3', 'posts'])).toEqual({ kind: 'found', value: 'GET /users/:userId/posts', params: { userId: '3' } })
  })
})
