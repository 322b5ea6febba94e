import { copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/domain/auth.ts'
import { writeXml } from '../../src/kinds/openapi/xml.ts'
import { cleanup, cliWorkspace, openStore, send, serve, type CliWorkspace } from '../_helpers.ts'

afterAll(cleanup)

const FIXTURES = fileURLToPath(new URL('../fixtures/openapi/answer/', import.meta.url))

/** Over a socket, as any client would send it: the Accept header exactly as given. */
const get = (url: string, headers: Record<string, string> = {}) => send(url, { headers, overSocket: true })

describe('OpenAPI answers: content negotiation, XML, text, 406, 1xx, documented rejections (served over HTTP)', () => {
  let ws: CliWorkspace
  let url: string
  let warnings: string
  beforeAll(async () => {
    ws = cliWorkspace()
    for (const file of ['negotiation-3.0.yaml', 'produces-2.0.yaml']) copyFileSync(join(FIXTURES, file), join(ws.cwd, file))
    await ws.ok('project', 'create', 'Negotiation', '--slug', 'neg')
    const imported = await ws.run('import', 'negotiation-3.0.yaml', '--project', 'neg')
    expect(imported.code, imported.stderr).toBe(0)
    warnings = imported.stderr
    await ws.ok('project', 'create', 'Produces', '--slug', 'old')
    await ws.ok('import', 'produces-2.0.yaml', '--project', 'old')
    url = (await serve(ws.db)).url
  })

  it('negotiates Accept by q-value and specificity among the documented types; no Accept or */* answers JSON', async () => {
    const pet = `${url}/api/neg/pets/7`
    const typeFor = async (accept?: string) => (await get(pet, accept === undefined ? {} : { accept })).headers.get('content-type')
    expect(await typeFor()).toBe('application/json')
    expect(await typeFor('*/*')).toBe('application/json')
    expect(await typeFor('application/xml')).toBe('application/xml')
    expect(await typeFor('application/json;q=0.5, application/xml')).toBe('application/xml')
    expect(await typeFor('text/*')).toBe('text/plain')
    // The most specific range sets a type's quality: JSON refused outright, whatever */* says.
    expect(await typeFor('application/json;q=0, */*;q=0.1')).toBe('application/xml')
    // Equal qualities: the client's order.
    expect(await typeFor('text/plain, application/xml')).toBe('text/plain')
    expect(await typeFor('image/png, application/*;q=0.2')).toBe('application/json')
  })

  it('XML is written from the schema: xml name, prefix and namespace on the root, attribute, wrapped and unwrapped arrays, escaped text', async () => {
    const answer = await get(`${url}/api/neg/pets/7`, { accept: 'application/xml' })
    expect(answer.status).toBe(200)
    expect(answer.text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        '<p:pet xmlns:p="https://example.com/pets" id="7"><name>Rex</name><tagList><tag>good</tag></tagList>' +
        '<photoUrl>http://example.com/rex.png</photoUrl><owner><name>Ann &amp; Bob</name></owner></p:pet>',
    )
  })

  it('XML for a root array (always wrapped) and for a generated string (an element, not bare text)', async () => {
    expect((await get(`${url}/api/neg/names`, { accept: 'application/xml' })).text).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<names><name>Ann</name></names>')
    expect((await get(`${url}/api/neg/names`, { accept: 'text/xml' })).text).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<root>just text</root>')
  })

  it('a documented */* answers the concrete type asked for when it can be written, else JSON', async () => {
    const answer = async (accept: string) => {
      const sent = await get(`${url}/api/neg/anything`, { accept })
      return [sent.status, sent.headers.get('content-type'), sent.text]
    }
    expect(await answer('application/xml')).toEqual([200, 'application/xml', '<?xml version="1.0" encoding="UTF-8"?>\n<root><ok>true</ok></root>'])
    expect(await answer('image/png')).toEqual([200, 'application/json', '{"ok":true}'])
    expect(await answer('*/*')).toEqual([200, 'application/json', '{"ok":true}'])
  })

  it('an XML example given as a string is sent as it is', async () => {
    const answer = await get(`${url}/api/neg/raw`, { accept: 'application/xml' })
    expect(answer.headers.get('content-type')).toBe('application/xml')
    expect(answer.text).toBe('<raw kept="as is"/>')
  })

  it('text types answer text: a string example as it is, else a string generated from the schema, never JSON-quoted', async () => {
    const notes = await get(`${url}/api/neg/notes`)
    expect([notes.headers.get('content-type'), notes.text]).toEqual(['text/plain', 'remember the milk'])
    const pet = await get(`${url}/api/neg/pets/7`, { accept: 'text/plain' })
    expect([pet.headers.get('content-type'), pet.text]).toEqual(['text/plain', 'a pet called Rex'])
  })

  it('text/csv answers objects as CSV rows; a format: binary blob answers no body, not the word "string"', async () => {
    const report = await get(`${url}/api/neg/report`)
    expect([report.headers.get('content-type'), report.text]).toEqual(['text/csv', 'name,age\r\n"Rex, ""the dog""",3'])
    const photo = await get(`${url}/api/neg/photo`)
    expect([photo.status, photo.text]).toEqual([200, ''])
  })

  it('an Accept nothing documented fits: 406 NOT_ACCEPTABLE in the error shape naming what there is; lenient answers the default type', async () => {
    const refused = await get(`${url}/api/neg/pets/7`, { accept: 'image/png' })
    expect(refused.status).toBe(406)
    expect(refused.json.error).toEqual({
      code: 'NOT_ACCEPTABLE',
      message: 'Accept "image/png" takes none of what getPet answers 200 with: application/json, application/xml, text/plain',
      details: { accept: 'image/png', available: ['application/json', 'application/xml', 'text/plain'] },
    })
    expect((await get(`${url}/api/neg/notes`, { accept: 'application/json' })).status).toBe(406)
    expect(await ws.ok('project', 'set', 'neg', '--negotiation', 'lenient')).toMatch(/negotiation lenient/)
    try {
      const lenient = await get(`${url}/api/neg/pets/7`, { accept: 'image/png' })
      expect([lenient.status, lenient.headers.get('content-type')]).toEqual([200, 'application/json'])
      expect(lenient.json).toMatchObject({ id: 7, name: 'Rex' })
    } finally {
      await ws.ok('project', 'set', 'neg', '--negotiation', 'strict')
    }
    expect((await get(`${url}/api/neg/pets/7`, { accept: 'image/png' })).status).toBe(406)
  })

  it('Swagger 2.0: produces [text/plain] answers text; examples keyed by media type follow the negotiated type; a key that is no type never becomes the Content-Type', async () => {
    const ping = await get(`${url}/api/old/ping`)
    expect([ping.headers.get('content-type'), ping.text]).toEqual(['text/plain', 'pong'])
    const greeting = async (accept: string) => {
      const answer = await get(`${url}/api/old/greeting`, { accept })
      return [answer.headers.get('content-type'), answer.text]
    }
    expect(await greeting('application/json')).toEqual(['application/json', '{"text":"hello in json"}'])
    expect(await greeting('application/xml')).toEqual(['application/xml', '<Greeting><text>hello in xml</text></Greeting>'])
    expect(await greeting('text/plain')).toEqual(['text/plain', 'hello in text'])
    // An empty produces clears the root's XML: the answer is JSON.
    const cleared = await get(`${url}/api/old/cleared`)
    expect([cleared.status, cleared.headers.get('content-type'), cleared.json]).toEqual([200, 'application/json', { cleared: true }])
    const failure = await get(`${url}/api/old/failure`)
    expect([failure.status, failure.headers.get('content-type'), failure.text]).toEqual([200, 'application/json', '{"message":"keyed by name"}'])
    const named = await get(`${url}/api/old/failure`, { prefer: 'example=error' })
    expect(named.json).toEqual({ message: 'keyed by name' })
  })

  it('an operation documenting only a 1xx answers what it documents there as 200; with other statuses documented, the lowest, with a warning either way', async () => {
    // The 101 documents no content: 200 with no body.
    const upgrade = await get(`${url}/api/neg/upgrade`)
    expect([upgrade.status, upgrade.text]).toEqual([200, ''])
    const orFail = await get(`${url}/api/neg/upgrade-or-fail`)
    expect([orFail.status, orFail.json]).toEqual([426, { upgrade: 'websocket' }])
    const { endpoints } = JSON.parse(await ws.ok('project', 'show', 'neg', '--json')) as { endpoints: { path: string; status: number }[] }
    expect(endpoints.filter((e) => e.path.includes('upgrade')).map((e) => e.status)).toEqual([200, 426])
    expect(warnings).toMatch(/GET \/upgrade documents only 101: no client can read a 1xx as the answer, so it answers what it documents there as 200/)
    // The lowest other code answers (426 before the 500 listed first), and the import says so.
    expect(warnings).toMatch(/GET \/upgrade-or-fail documents 101 and no success: no client can read a 1xx as the answer, so it answers 426 instead/)
  })

  it('an invalid request answers the documented 422, else 400, else 4XX or default (as 422), with its example and headers, else a body generated from its schema; with no body documented, mockapi\'s own 422', async () => {
    const pet = await get(`${url}/api/neg/pets/seven`)
    expect([pet.status, pet.headers.get('content-type'), pet.json]).toEqual([422, 'application/json', { problem: 'id must be an integer' }])
    const search = await get(`${url}/api/neg/search`)
    expect([search.status, search.headers.get('x-problem'), search.json]).toEqual([400, 'limit', { error: 'limit is required' }])
    expect((await get(`${url}/api/neg/search?limit=3`)).json).toEqual({ found: 1 })
    const plain = await get(`${url}/api/neg/plain-invalid`)
    expect(plain.status).toBe(422)
    expect(plain.json.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'query.limit', message: expect.any(String) }] })
    const invalid = async (path: string) => {
      const answer = await send(`${url}/api/neg/${path}`, { method: 'POST', body: {} })
      return [answer.status, answer.json]
    }
    expect(await invalid('val422')).toEqual([422, { e: 'unproc' }])
    expect(await invalid('val4xx')).toEqual([422, { range: 1 }])
    expect(await invalid('valdef')).toEqual([422, { dflt: 1 }])
    expect((await send(`${url}/api/neg/val422`, { method: 'POST', body: { a: 1 } })).json).toEqual({ ok: 1 })
  })

  it('Prefer: example= naming an externalValue example answers the body generated from its media\'s schema (never fetched); with no schema, a 404 saying so', async () => {
    const prefer = (example: string) => get(`${url}/api/neg/external`, { prefer: `example=${example}` })
    expect((await prefer('kept')).json).toEqual({ ext: 'kept' })
    const far = await prefer('far')
    expect([far.status, far.headers.get('content-type'), far.json]).toEqual([200, 'application/json', { ext: 'generated' }])
    const farText = await prefer('farText')
    expect([farText.status, farText.json.error.code, farText.json.error.message]).toEqual([
      404,
      'EXAMPLE_NOT_FOUND',
      'example "farText" on /paths/~1external/get 200 text/plain is an externalValue, which mockapi does not fetch, and there is no schema to generate a body from',
    ])
    expect((await prefer('nope')).json.error.message).toBe('no example named "nope" on /paths/~1external/get 200 application/json; available: kept')
  })

  it('negotiation is a project setting: PATCH /api/projects/{id}, project show, export and apply; a wrong value changes nothing', async () => {
    const authorization = `Bearer ${await mintToken(openStore(ws.db).context, { expiresInMs: 60_000 })}`
    const projects = (await send(`${url}/api/projects`, { headers: { authorization } })).json as { id: number; slug: string; negotiation: string }[]
    const neg = projects.find((p) => p.slug === 'neg')!
    expect(neg.negotiation).toBe('strict')
    const refused = await send(`${url}/api/projects/${neg.id}`, { method: 'PATCH', headers: { authorization }, body: { negotiation: 'loose' } })
    expect([refused.status, refused.json.error.details]).toEqual([400, [{ field: 'negotiation', message: 'must be one of strict, lenient' }]])
    expect((await ws.run('project', 'set', 'neg', '--negotiation', 'loose')).stderr).toMatch(/negotiation "loose" must be one of strict, lenient/)
    const patched = await send(`${url}/api/projects/${neg.id}`, { method: 'PATCH', headers: { authorization }, body: { negotiation: 'lenient' } })
    expect([patched.status, patched.json.negotiation]).toEqual([200, 'lenient'])
    expect(await ws.ok('project', 'show', 'neg')).toMatch(/^negotiation {2}lenient/m)
    expect((await get(`${url}/api/neg/pets/7`, { accept: 'image/png' })).status).toBe(200)
    const exported = await ws.ok('export', '--project', 'neg')
    expect(exported).toMatch(/^negotiation: lenient$/m)
    // apply without the key puts the default back; with it, lenient again.
    writeFileSync(join(ws.cwd, 'neg.yaml'), exported.replace(/^negotiation: lenient\n/m, ''))
    expect(await ws.ok('apply', 'neg.yaml')).toMatch(/negotiation: strict/)
    expect((await get(`${url}/api/neg/pets/7`, { accept: 'image/png' })).status).toBe(406)
    writeFileSync(join(ws.cwd, 'neg.yaml'), exported)
    expect(await ws.ok('apply', 'neg.yaml')).toMatch(/negotiation: lenient/)
    writeFileSync(join(ws.cwd, 'bad.yaml'), 'name: Negotiation\nslug: neg\nnegotiation: loose\n')
    expect((await ws.run('apply', 'bad.yaml')).stderr).toMatch(/negotiation must be one of strict, lenient/)
    await ws.ok('project', 'set', 'neg', '--negotiation', 'strict')
  })
})

describe('writeXml', () => {
  const document = {
    components: {
      schemas: {
        Order: {
          allOf: [{ $ref: '#/components/schemas/Base' }],
          properties: {
            lines: { type: 'array', xml: { wrapped: true }, items: { $ref: '#/components/schemas/Line' } },
            note: { type: 'string' },
          },
        },
        Base: { properties: { id: { type: 'integer', xml: { attribute: true, prefix: 'o' } } }, xml: { namespace: 'urn:orders' } },
        Line: { type: 'object', properties: { sku: { type: 'string', xml: { attribute: true } } } },
        Renamed: { $ref: '#/components/schemas/Line', xml: { name: 'entry' } },
      },
    },
  }

  it('merges allOf hints, declares a namespace without a prefix, names wrapped items by the property, escapes attributes, writes null as an empty element and odd keys as XML names', () => {
    const order = { id: 1, lines: [{ sku: 'a"b' }, { sku: 'c' }], note: null, '2nd key': 'x < y' }
    expect(writeXml(document, '/components/schemas/Order', order)).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Order xmlns="urn:orders" o:id="1"><lines><lines sku="a&quot;b"/><lines sku="c"/></lines><note/><_2nd_key>x &lt; y</_2nd_key></Order>',
    )
  })

  it('an xml name beside a $ref (3.1) wins over the component\'s name; no schema names elements after the keys', () => {
    expect(writeXml(document, '/components/schemas/Renamed', { sku: 's' })).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<entry sku="s"/>')
    expect(writeXml(document, null, { a: [1, 2], b: { c: true } })).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<root><a>1</a><a>2</a><b><c>true</c></b></root>')
  })
})

describe('a stateful import negotiates Accept too (served over HTTP)', () => {
  it('records answer JSON, XML written from the schema when XML is chosen, 406 when nothing fits (nothing stored), the default type when lenient', async () => {
    const ws = cliWorkspace()
    copyFileSync(join(FIXTURES, 'stateful-negotiation.yaml'), join(ws.cwd, 'pets.yaml'))
    await ws.ok('project', 'create', 'Pets', '--slug', 'pets')
    await ws.ok('import', 'pets.yaml', '--project', 'pets', '--stateful', '--seed', '0')
    const { url } = await serve(ws.db)
    const stored = await send(`${url}/api/pets/pets`, { method: 'POST', body: { name: 'Rex & Co' } })
    expect(stored.status).toBe(201)
    // The schema's ids are strings: so is the one generated.
    expect(stored.json.id).toBe('1')
    const id = String(stored.json.id)
    const one = async (accept: string) => {
      const answer = await get(`${url}/api/pets/pets/${id}`, { accept })
      return [answer.status, answer.headers.get('content-type'), answer.text]
    }
    expect(await one('application/json')).toEqual([200, 'application/json; charset=utf-8', JSON.stringify({ id, name: 'Rex & Co' })])
    expect(await one('application/xml')).toEqual([200, 'application/xml', `<?xml version="1.0" encoding="UTF-8"?>\n<pet id="${id}"><name>Rex &amp; Co</name></pet>`])
    const list = await get(`${url}/api/pets/pets`, { accept: 'application/xml' })
    expect([list.headers.get('content-type'), list.text]).toEqual(['application/xml', `<?xml version="1.0" encoding="UTF-8"?>\n<pets><pet id="${id}"><name>Rex &amp; Co</name></pet></pets>`])
    const refused = await get(`${url}/api/pets/pets/${id}`, { accept: 'text/html' })
    expect([refused.status, refused.json.error.code]).toEqual([406, 'NOT_ACCEPTABLE'])
    // The POST documents only JSON: an XML Accept is refused before anything is stored.
    const notStored = await send(`${url}/api/pets/pets`, { method: 'POST', headers: { accept: 'application/xml' }, body: { name: 'Ghost' } })
    expect(notStored.status).toBe(406)
    expect((await get(`${url}/api/pets/pets`)).json).toEqual([{ id, name: 'Rex & Co' }])
    // A record not found stays mockapi's JSON error, whatever was asked for.
    expect((await get(`${url}/api/pets/pets/nope`, { accept: 'application/xml' })).status).toBe(404)
    await ws.ok('project', 'set', 'pets', '--negotiation', 'lenient')
    expect((await one('text/html')).slice(0, 2)).toEqual([200, 'application/json; charset=utf-8'])
  })
})
