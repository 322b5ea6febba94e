import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { cleanup, cliWorkspace, ROOT, send, serve } from '../_helpers.ts'

afterAll(cleanup)

const FIXTURES = join(ROOT, 'test', 'fixtures', 'openapi', 'params')

/** A spec imported into an empty database (served at its own paths) and a server over a real socket. */
async function served(file: string): Promise<(path: string, init?: { method?: string; headers?: Record<string, string>; body?: string }) => Promise<{ status: number; details: unknown }>> {
  const ws = cliWorkspace()
  await ws.ok('import', join(FIXTURES, file))
  const { url } = await serve(ws.db)
  return async (path, init = {}) => {
    const answer = await send(`${url}${path}`, { ...init, overSocket: true })
    if (answer.status === 422) expect(answer.json.error.code).toBe('VALIDATION_FAILED')
    return { status: answer.status, details: answer.status === 422 ? answer.json.error.details : answer.json }
  }
}

const OK = { status: 200, details: { ok: true } }
const invalid = (...details: { path: string; message: string }[]) => ({ status: 422, details })

describe('OpenAPI 3.0 parameter styles', () => {
  let request: Awaited<ReturnType<typeof served>>
  beforeAll(async () => {
    request = await served('styles-3.0.yaml')
  })

  test('path simple: a primitive, an array 1,2,3, an object role,admin,firstName,Alex and exploded role=admin,firstName=Alex', async () => {
    expect(await request('/simple/5')).toEqual(OK)
    expect(await request('/simple/x')).toEqual(invalid({ path: 'path.id', message: 'must be integer' }))
    expect(await request('/simple-array/1,2,3')).toEqual(OK)
    expect(await request('/simple-array/1,x')).toEqual(invalid({ path: 'path.ids/1', message: 'must be integer' }))
    expect(await request('/simple-object/role,admin,firstName,Alex')).toEqual(OK)
    expect(await request('/simple-object/role,boss')).toEqual(invalid({ path: 'path.user/role', message: 'must be one of: "admin", "user"' }))
    expect(await request('/simple-object/role,admin,firstName')).toEqual(invalid({ path: 'path.user', message: 'must be an object written as name,value pairs' }))
    expect(await request('/simple-exploded/role=admin,firstName=Alex')).toEqual(OK)
    expect(await request('/simple-exploded/firstName=Alex')).toEqual(invalid({ path: 'path.user/role', message: 'is required' }))
  })

  test('path label: .5, .1.2.3 (and .1,2,3), exploded .role=admin.firstName=Alex', async () => {
    expect(await request('/label/.5')).toEqual(OK)
    expect(await request('/label/5')).toEqual(invalid({ path: 'path.id', message: 'must start with "." (label style)' }))
    expect(await request('/label-array/.1.2.3')).toEqual(OK)
    expect(await request('/label-array/.1,2,3')).toEqual(OK)
    expect(await request('/label-array/.1.two')).toEqual(invalid({ path: 'path.ids/1', message: 'must be integer' }))
    expect(await request('/label-exploded/.role=admin.firstName=Alex')).toEqual(OK)
    expect(await request('/label-exploded/.role=root')).toEqual(invalid({ path: 'path.user/role', message: 'must be one of: "admin", "user"' }))
  })

  test('path matrix: ;id=5, ;id=1,2,3, exploded ;id=1;id=2, objects', async () => {
    expect(await request('/matrix/;id=5')).toEqual(OK)
    expect(await request('/matrix/;id=five')).toEqual(invalid({ path: 'path.id', message: 'must be integer' }))
    expect(await request('/matrix/5')).toEqual(invalid({ path: 'path.id', message: 'must start with ";" (matrix style: ;id=…)' }))
    expect(await request('/matrix/;other=5')).toEqual(invalid({ path: 'path.id', message: 'must read ;id=… (matrix style)' }))
    expect(await request('/matrix-array/;ids=1,2,3')).toEqual(OK)
    expect(await request('/matrix-exploded/;ids=1;ids=2')).toEqual(OK)
    expect(await request('/matrix-exploded/;ids=1;ids=x')).toEqual(invalid({ path: 'path.ids/1', message: 'must be integer' }))
    expect(await request('/matrix-object/;user=role,admin,firstName,Alex')).toEqual(OK)
    expect(await request('/matrix-object-exploded/;role=admin;firstName=Alex')).toEqual(OK)
    expect(await request('/matrix-object-exploded/;firstName=Alex')).toEqual(invalid({ path: 'path.user/role', message: 'is required' }))
  })

  test('query form (explode off for an object: ?pagination=offset,0,limit,123), arrays exploded and not, spaceDelimited, pipeDelimited, deepObject', async () => {
    expect(await request('/query?pagination=offset,0,limit,100&tags=a&tags=b&ids=1,2&spaced=1%202&piped=1|2&filter[status]=active&filter[tag]=a')).toEqual(OK)
    expect(await request('/query?pagination=offset,0,limit,123')).toEqual(invalid({ path: 'query.pagination/limit', message: 'must be <= 100' }))
    expect(await request('/query?tags=a&tags=b&tags=c')).toEqual(invalid({ path: 'query.tags', message: 'must NOT have more than 2 items' }))
    expect(await request('/query?ids=1,x')).toEqual(invalid({ path: 'query.ids/1', message: 'must be integer' }))
    expect(await request('/query?spaced=1+x')).toEqual(invalid({ path: 'query.spaced/1', message: 'must be integer' }))
    expect(await request('/query?piped=1|x')).toEqual(invalid({ path: 'query.piped/1', message: 'must be integer' }))
    expect(await request('/query?filter[status]=gone')).toEqual(invalid({ path: 'query.filter/status', message: 'must be one of: "active", "archived"' }))
    expect(await request('/query?filter[colour]=red')).toEqual(invalid({ path: 'query.filter/colour', message: 'is not allowed' }))
    expect(await request('/query?filter[]=x')).toEqual(invalid({ path: 'query.filter', message: 'must be written filter[property]=value (deepObject style)' }))
    // Sent plainly, alone or beside a deepObject entry: refused, not ignored.
    for (const query of ['filter=5', 'filter[status]=active&filter=5']) {
      expect([query, await request(`/query?${query}`)]).toEqual([query, invalid({ path: 'query.filter', message: 'must be written filter[property]=value (deepObject style)' })])
    }
    expect(await request('/query?filter[range][min]=1')).toEqual(OK)
    expect(await request('/query?filter[range][min]=x')).toEqual(invalid({ path: 'query.filter/range/min', message: 'must be integer' }))
    expect(await request('/query?filter[__proto__][polluted]=1')).toEqual(invalid({ path: 'query.filter/__proto__', message: 'is not allowed' }))
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  test('query form exploded object: its properties are parameters of their own (?role=admin&firstName=Alex)', async () => {
    expect(await request('/query-exploded?role=admin&firstName=Alex&page=2')).toEqual(OK)
    expect(await request('/query-exploded?role=boss')).toEqual(invalid({ path: 'query.who/role', message: 'must be one of: "admin", "user"' }))
    expect(await request('/query-exploded?page=2')).toEqual(invalid({ path: 'query.who', message: 'is required' }))
  })

  test('a query parameter with JSON content is parsed before validation', async () => {
    expect(await request(`/query-json?where=${encodeURIComponent('{"age":3}')}`)).toEqual(OK)
    expect(await request(`/query-json?where=${encodeURIComponent('{"age":"old"}')}`)).toEqual(invalid({ path: 'query.where/age', message: 'must be integer' }))
    expect(await request('/query-json?where=age')).toEqual(invalid({ path: 'query.where', message: 'must be JSON (its content is application/json)' }))
  })

  test('header simple: an array, an exploded object', async () => {
    expect(await request('/header', { headers: { 'X-Ids': '1, 2,3', 'X-User': 'role=user,firstName=Alex' } })).toEqual(OK)
    expect(await request('/header', { headers: { 'X-Ids': '1,x' } })).toEqual(invalid({ path: 'header.x-ids/1', message: 'must be integer' }))
    expect(await request('/header', { headers: { 'X-User': 'role,user' } })).toEqual(invalid({ path: 'header.x-user', message: 'must be an object written as name=value items' }))
  })

  test('cookie form: a primitive, an array not exploded', async () => {
    expect(await request('/cookie', { headers: { cookie: 'session=abc; ids=1,2,3' } })).toEqual(OK)
    expect(await request('/cookie', { headers: { cookie: 'session=abc; ids=1,x' } })).toEqual(invalid({ path: 'cookie.ids/1', message: 'must be integer' }))
    expect(await request('/cookie', { headers: { cookie: 'ids=1' } })).toEqual(invalid({ path: 'cookie.session', message: 'is required' }))
    expect(await request('/cookie', { headers: { cookie: 'session=ab' } })).toEqual(invalid({ path: 'cookie.session', message: 'must NOT have fewer than 3 characters' }))
  })

  test('allowReserved: true reads a + sent as is; allowReserved: false refuses reserved characters sent unencoded; allowEmptyValue: false refuses ?q=', async () => {
    expect(await request('/reserved?expr=a+b')).toEqual(OK)
    expect(await request('/reserved?expr=a%2Bb')).toEqual(OK)
    expect(await request('/reserved?plain=a/b&strict=a%2Fb&q=x')).toEqual(OK)
    expect(await request('/reserved?strict=a/b')).toEqual(invalid({ path: 'query.strict', message: 'has a reserved character not percent-encoded (allowReserved is false)' }))
    expect(await request('/reserved?q=')).toEqual(invalid({ path: 'query.q', message: 'must not be empty (allowEmptyValue is false)' }))
    expect(await request('/reserved?q')).toEqual(invalid({ path: 'query.q', message: 'must not be empty (allowEmptyValue is false)' }))
  })

  test('form bodies: format byte is base64, encoding allowReserved keeps a + (and, false, refuses a reserved character sent as is), encoding style splits an array', async () => {
    const post = (body: string) => request('/forms', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })
    expect(await post('token=aGVsbG8%3D&key=ab+/cd==&ids=1,2')).toEqual(OK)
    expect(await post('token=not%20base64!')).toEqual(invalid({ path: 'body/token', message: 'must match format "byte"' }))
    // Without allowReserved a + is a space, so the same base64 text is not base64 any more.
    expect(await post('token=ab+/cd==')).toEqual(invalid({ path: 'body/token', message: 'must match format "byte"' }))
    expect(await post('ids=1,x')).toEqual(invalid({ path: 'body/ids/1', message: 'must be integer' }))
    expect(await post('path=a%2Fb')).toEqual(OK)
    expect(await post('path=a/b')).toEqual(invalid({ path: 'body/path', message: 'has a reserved character not percent-encoded (allowReserved is false)' }))
  })
})

describe('Swagger 2.0 collectionFormat and formData checks', () => {
  let request: Awaited<ReturnType<typeof served>>
  beforeAll(async () => {
    request = await served('collection-2.0.yaml')
  })

  test('csv (the default, also in path and header), ssv, tsv, pipes and multi arrays are split, then coerced', async () => {
    expect(await request('/items/1,2?csv=1,2&ssv=1%202&tsv=1%092&pipes=1|2&multi=1&multi=2', { headers: { 'X-Flags': 'true,false' } })).toEqual(OK)
    expect(await request('/items/1,x')).toEqual(invalid({ path: 'path.ids/1', message: 'must be integer' }))
    expect(await request('/items/1?csv=1,x&ssv=1%20x&tsv=1%09x&pipes=1|x')).toEqual(invalid(
      { path: 'query.csv/1', message: 'must be integer' },
      { path: 'query.ssv/1', message: 'must be integer' },
      { path: 'query.tsv/1', message: 'must be integer' },
      { path: 'query.pipes/1', message: 'must be integer' },
    ))
    expect(await request('/items/1?multi=1&multi=2&multi=3')).toEqual(invalid({ path: 'query.multi', message: 'must NOT have more than 2 items' }))
    expect(await request('/items/1', { headers: { 'X-Flags': 'true,maybe' } })).toEqual(invalid({ path: 'header.x-flags/1', message: 'must be boolean' }))
    expect(await request('/items/1?q=')).toEqual(invalid({ path: 'query.q', message: 'must not be empty (allowEmptyValue is false)' }))
  })

  test('formData: format byte is base64, allowEmptyValue: false refuses an empty field, collectionFormat splits', async () => {
    const post = (body: string) => request('/uploads', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })
    expect(await post('data=aGVsbG8%3D&sizes=1|2&note=hi')).toEqual(OK)
    expect(await post('data=hello')).toEqual(invalid({ path: 'body/data', message: 'must match format "byte"' }))
    expect(await post('note=')).toEqual(invalid({ path: 'body/note', message: 'must not be empty (allowEmptyValue is false)' }))
    expect(await post('sizes=1|x')).toEqual(invalid({ path: 'body/sizes/1', message: 'must be integer' }))
  })
})
