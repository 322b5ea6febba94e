import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import protobuf from 'protobufjs'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { checkGenerator, loadFaker } from '../../src/engine/generators.ts'
import { generateMessage, MAX_MESSAGES } from '../../src/kinds/grpc/generate.ts'
import { createSpecValidators } from '../../src/kinds/openapi/ajv.ts'
import { createSampler } from '../../src/kinds/openapi/sample.ts'
import type { SpecDocument } from '../../src/kinds/openapi/types.ts'
import { loadWsdl } from '../../src/kinds/soap/load.ts'
import { cleanup, cliWorkspace, expectAliveAndIntact, ROOT, send, serve, type CliWorkspace } from '../_helpers.ts'

afterAll(cleanup)

/** Where the bug was a stall of 10 s or more (or forever), an answer within this many ms is the fix. */
const ANSWERS_WITHIN = 5_000

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await work()
  return { value, ms: performance.now() - started }
}

// Ten properties, each the next schema, nine levels deep: a billion values from a kilobyte.
const LAUGHS = Object.fromEntries([
  ['L0', { type: 'string' }],
  ...Array.from({ length: 9 }, (_, i) => [`L${i + 1}`, { type: 'object', properties: Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`p${k}`, { $ref: `#/components/schemas/L${i}` }])) }]),
])
const json = (schema: object) => ({ 200: { description: 'ok', content: { 'application/json': { schema } } } })

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Hostile', version: '1' },
  paths: {
    '/many': { get: { responses: json({ type: 'array', minItems: 100_000_000, items: { type: 'array', minItems: 1000, items: { type: 'string', pattern: '^[a-z]{100000000}$' } } }) } },
    '/items': {
      get: {
        parameters: [
          { name: 'q', in: 'query', schema: { type: 'string', pattern: '^(a+)+$' } },
          { name: 'code', in: 'query', schema: { type: 'string', pattern: '^(?=[A-Z])[A-Z0-9]{3}$' } },
        ],
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string', pattern: '^(?!x)(((a+)+)+)+$' } } } } } } },
      },
    },
  },
}

let cli: CliWorkspace
let url: string

beforeAll(async () => {
  cli = cliWorkspace()
  await cli.ok('init', '--yes', '--slug', 't', '--resource', '/api/orders')
  const spec = join(cli.cwd, 'hostile.json')
  writeFileSync(spec, JSON.stringify(SPEC))
  await cli.ok('import', spec, '--project', 't')
  await cli.ok('import', join(ROOT, 'fixtures', 'graphql', 'swapi', 'schema.graphql'), '--project', 't')
  await cli.ok('add-endpoint', 'POST', '/api/checks', '--body', '{"ok":true}')
  url = (await serve(cli.db)).url
})

async function othersStillAnswer(): Promise<void> {
  expect((await send(`${url}/api/t/orders`)).status).toBe(200)
  expect((await send(`${url}/api/t/items?q=aaa`)).status).toBe(200)
}

describe('ReDoS: user-given patterns run in linear time', () => {
  it('an imported parameter pattern ^(a+)+$ with 36 a\'s and "!" answers 422 at once', async () => {
    const { value: bad, ms } = await timed(() => send(`${url}/api/t/items?q=${'a'.repeat(36)}!`))
    expect(ms).toBeLessThan(ANSWERS_WITHIN)
    expect(bad.status).toBe(422)
    expect(JSON.stringify(bad.json)).toContain('query.q')
    // 10,000 characters (the URL limit allows no more): linear, still quick.
    const long = await send(`${url}/api/t/items?q=${'a'.repeat(10_000)}!`)
    expect(long.status).toBe(422)
    await othersStillAnswer()
  })

  it('an imported lookahead pattern RE2 cannot run is not checked, and the sampler still fills the response', async () => {
    const answer = await send(`${url}/api/t/items?code=whatever`)
    expect(answer.status).toBe(200)
    expect(typeof answer.json.id).toBe('string')
  })

  it('an endpoint --schema with ^(a+)+$ answers 422 for 28 a\'s and "!" at once', async () => {
    const schema = JSON.stringify({ type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } } })
    await cli.ok('endpoint', 'set', 'POST', '/api/checks', '--schema', schema)
    const { value: bad, ms } = await timed(() => send(`${url}/api/t/checks`, { method: 'POST', body: { q: `${'a'.repeat(28)}!` } }))
    expect(ms).toBeLessThan(ANSWERS_WITHIN)
    expect(bad.status).toBe(422)
    expect((await send(`${url}/api/t/checks`, { method: 'POST', body: { q: 'aaaa' } })).status).toBe(200)
    await othersStillAnswer()
  })

  it('an endpoint --schema RE2 cannot run (a backreference, a lookahead) is refused when configured', async () => {
    for (const pattern of ['^(a)\\1$', '^(?=a)a+$']) {
      const refused = await cli.run('endpoint', 'set', 'POST', '/api/checks', '--schema', JSON.stringify({ properties: { q: { pattern } } }))
      expect(refused.code).toBe(1)
      expect(refused.stderr).toMatch(/request schema: pattern .* cannot be used: .*linear-time engine, RE2/)
    }
  })
})

describe('imported OpenAPI responses: sampling is bounded before it runs', () => {
  it('a response of 10^8 arrays of 1,000 strings of 10^8 characters answers at once', async () => {
    const { value: many, ms } = await timed(() => send(`${url}/api/t/many`))
    expect(ms).toBeLessThan(ANSWERS_WITHIN)
    expect(many.status).toBe(200)
    expect(many.text.length).toBeLessThan(20_000_000)
    await othersStillAnswer()
  })

  it('a $ref "billion laughs" response is sampled shallower, at once', async () => {
    // Through the sampler: swagger-parser's validation on import walks the expanded tree itself.
    const spec: SpecDocument = { version: '3.0', title: 'laughs', document: { openapi: '3.0.3', components: { schemas: LAUGHS } } }
    const sampler = createSampler(spec, createSpecValidators(spec, { coerce: false }))
    const { value: sampled, ms } = await timed(async () => sampler.json('/components/schemas/L9'))
    expect(ms).toBeLessThan(ANSWERS_WITHIN)
    expect(Object.keys(sampled as object)).toHaveLength(10)
    expect(JSON.stringify(sampled).length).toBeLessThan(20_000_000)
  })
})

describe('templates and generators: bounded work', () => {
  it('"{{" and 4,000 spaces in a body template answers at once, as text', async () => {
    const body = { text: `{{${' '.repeat(4000)}`, again: `{{ {{ ${'{{('.repeat(2000)}` }
    await cli.ok('endpoint', 'set', 'POST', '/api/checks', '--clear-schema', '--body', JSON.stringify(body))
    const { value: answer, ms } = await timed(() => send(`${url}/api/t/checks`, { method: 'POST', body: {} }))
    expect(ms).toBeLessThan(ANSWERS_WITHIN)
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual(body)
    await othersStillAnswer()
  })

  it('faker.string.alpha({"length":100000000}) is refused at configuration: as a body template and as a seed generator', async () => {
    const started = performance.now()
    const template = await cli.run('endpoint', 'set', 'POST', '/api/checks', '--body', '{"a":"{{faker.string.alpha({\\"length\\":100000000})}}"}')
    expect(template.code).toBe(1)
    expect(template.stderr).toContain('generator "string.alpha": 100000000 is more than the 10000 a count or length may be')
    const added = await cli.run('add-endpoint', 'GET', '/api/big', '--body', '{"a":"{{faker.lorem.words(100000000)}}"}')
    expect(added.code).toBe(1)
    expect(added.stderr).toContain('100000000 is more than the 10000')
    const seeded = await cli.run('add-resource', '/api/things', '--fields', 'name:string.alpha({"length":100000000})', '--seed', '5')
    expect(seeded.code).toBe(1)
    expect(seeded.stderr).toContain('generator "string.alpha": 100000000 is more than the 10000')
    // Patterns handed to faker repeat too: their counts are bounded the same way.
    const pattern = await cli.run('add-resource', '/api/widgets', '--fields', 'code:helpers.fromRegExp("[a-z]{100000000}")')
    expect(pattern.code).toBe(1)
    expect(performance.now() - started).toBeLessThan(30_000)
    // Sizes within the limit are served.
    await cli.ok('add-resource', '/api/gadgets', '--fields', 'name:string.alpha({"length":10000})', '--seed', '3')
  })

  it('{{faker.helpers.constructor}} and other non-methods are refused at configuration, not a 500 on every call', async () => {
    for (const name of ['helpers.constructor', 'helpers.__proto__', 'helpers.faker', 'fakerCore.randomizer', 'constructor.name']) {
      const refused = await cli.run('endpoint', 'set', 'POST', '/api/checks', '--body', `{"a":"{{faker.${name}}}"}`)
      expect(refused.code, name).toBe(1)
      expect(refused.stderr).toContain(`unknown generator "${name}"`)
    }
    const added = await cli.run('add-endpoint', 'GET', '/api/ctor', '--body', '{"a":"{{faker.helpers.constructor}}"}')
    expect(added.code).toBe(1)
    expect(added.stderr).toContain('unknown generator "helpers.constructor"')
    const field = await cli.run('add-resource', '/api/ctors', '--fields', 'a:helpers.constructor')
    expect(field.code).toBe(1)
  })

  it('counts and lengths are bounded wherever faker takes them; values (maxima, dimensions, amounts) are not', async () => {
    const faker = (await loadFaker())()
    const values = ['image.url({"width":20000,"height":20000})', 'finance.amount({"min":1,"max":1000000})', 'number.int(1000000000)', 'helpers.arrayElement(["200000","x"])', 'string.fromCharacters("0123456789")', 'lorem.words({"min":1,"max":5})', 'string.alpha({"length":{"min":1,"max":10000}})']
    for (const generator of values) expect(() => checkGenerator(generator, faker), generator).not.toThrow()
    const sizes = ['string.sample({"min":1,"max":100000})', 'system.fileName({"extensionCount":100000})', 'string.alpha({"length":{"min":1,"max":100000}})', 'string.alpha({"length":"100000"})', 'lorem.paragraphs(100000)', 'lorem.words({"min":1,"max":100000})', 'word.words({"count":100000})', 'date.betweens({"from":"2020-01-01","to":"2030-01-01","count":100000})', 'finance.accountNumber(100000)', 'helpers.fromRegExp("a{100000}")', 'helpers.fake("{{string.alpha(100000)}}")']
    for (const generator of sizes) expect(() => checkGenerator(generator, faker), generator).toThrow(/more than the 10000 a count or length may be/)
  })

  it('arguments faker itself refuses fail at configuration too', async () => {
    const refused = await cli.run('endpoint', 'set', 'POST', '/api/checks', '--body', '{"n":"{{faker.number.int({\\"min\\":9,\\"max\\":1})}}"}')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('generator "number.int({"min":9,"max":1})" fails')
  })

  it('a template repeating request values past 8 MiB answers 413 instead of building gigabytes', async () => {
    await cli.ok('endpoint', 'set', 'POST', '/api/checks', '--body', JSON.stringify({ echo: Array.from({ length: 200 }, () => '{{body.blob}}') }))
    const { value: answer, ms } = await timed(() => send(`${url}/api/t/checks`, { method: 'POST', body: { blob: 'x'.repeat(60_000) } }))
    expect(ms).toBeLessThan(ANSWERS_WITHIN)
    expect(answer.status).toBe(413)
    expect(answer.json.error.message).toMatch(/renders more than 8 MiB/)
    await othersStillAnswer()
  })
})

describe('GraphQL amplification: bounded before anything runs', () => {
  const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: name`).join(' ')
  const nested = (spreads: string) => `{ allFilms { films { characterConnection { characters { ${spreads} filmConnection { films { characterConnection { characters { ...F } } } } } } } } }`
  const graphql = (query: string) => send(`${url}/api/t/graphql`, { method: 'POST', body: { query } })

  it('the 23 KB query (nested lists × a fragment of 2,000 aliases) answers a GraphQL error at once', async () => {
    const query = `${nested('...F')} fragment F on Person { ${aliases(2000)} }`
    expect(query.length).toBeGreaterThan(23_000)
    const { value: answer, ms } = await timed(() => graphql(query))
    expect(ms).toBeLessThan(ANSWERS_WITHIN)
    expect(answer.status).toBe(200)
    expect(answer.json.data).toBeUndefined()
    expect(answer.json.errors[0].message).toBe('the query has 2000 aliases: at most 500 are served')
  })

  it('the 379 KB query answers a GraphQL error at once', async () => {
    const query = `${nested('...F ...F')} fragment F on Person { ${aliases(30_000)} }`
    expect(query.length).toBeGreaterThan(379_000)
    const { value: answer, ms } = await timed(() => graphql(query))
    expect(ms).toBeLessThan(ANSWERS_WITHIN)
    expect(answer.json.errors[0].message).toMatch(/more that 20000 tokens/)
  })

  it('within the alias limit, nested lists are counted: 400 aliases under four lists is refused, naming the count', async () => {
    const { value: answer, ms } = await timed(() => graphql(`${nested('...F')} fragment F on Person { ${aliases(400)} }`))
    expect(ms).toBeLessThan(ANSWERS_WITHIN)
    expect(answer.json.errors[0].message).toMatch(/^the answer could hold [\d,]+ fields \(every list counted at 4 items\): at most 50000 are served/)
  })

  it('deep nesting and repeated introspection are refused; the full introspection query and ordinary queries answer', async () => {
    const deep = `{ ${'allFilms { films { characterConnection { characters { filmConnection { films { '.repeat(5)}title${' } } } } } }'.repeat(5)} }`
    expect((await graphql(deep)).json.errors[0].message).toMatch(/nested \d+ fields deep: at most 25 are served/)
    // Introspection is counted exactly on the schema: 400 aliases of it would be 1.2 million fields.
    const schemaFields = 'types { name description fields { name description args { name description type { name kind } } type { name kind ofType { name kind } } } }'
    const { value: repeated, ms } = await timed(() => graphql(`{ ${Array.from({ length: 400 }, (_, i) => `a${i}: __schema { ${schemaFields} }`).join(' ')} }`))
    expect(ms).toBeLessThan(ANSWERS_WITHIN)
    expect(repeated.json.errors[0].message).toMatch(/^the introspection answer would hold [\d,]+ fields: at most 300000 are served$/)
    expect((await graphql(`{ __schema { ${schemaFields} } }`)).json.data.__schema.types.length).toBeGreaterThan(10)
    const { getIntrospectionQuery } = await import('graphql')
    expect((await graphql(getIntrospectionQuery())).json.data.__schema.queryType.name).toBe('Root')
    const films = await graphql('{ allFilms { films { title characterConnection { characters { name } } } } }')
    expect(films.json.errors).toBeUndefined()
    expect(films.json.data.allFilms.films.length).toBeGreaterThanOrEqual(2)
    await othersStillAnswer()
  })
})

describe('generated answers of imported schemas are bounded', () => {
  it('gRPC: messages referring to each other through many repeated fields stop at MAX_MESSAGES', async () => {
    const names = ['A', 'B', 'C', 'D']
    const fields = Object.fromEntries(names.flatMap((type, i) => [[`x${i}`, { type, id: 2 * i + 1, rule: 'repeated' }], [`y${i}`, { type, id: 2 * i + 2, rule: 'repeated' }]]))
    const root = protobuf.Root.fromJSON({ nested: Object.fromEntries(names.map((name) => [name, { fields: { ...fields, label: { type: 'string', id: 99 } } }])) })
    const count = (value: unknown): number => (Array.isArray(value) ? value.reduce((sum: number, item) => sum + count(item), 0) : value !== null && typeof value === 'object' ? 1 + Object.values(value).reduce((sum: number, item) => sum + count(item), 0) : 0)
    const { value: message, ms } = await timed(async () => generateMessage(root.lookupType('A'), (await loadFaker())(1)))
    expect(ms).toBeLessThan(ANSWERS_WITHIN)
    expect(count(message)).toBeLessThanOrEqual(MAX_MESSAGES)
    expect(count(message)).toBeGreaterThan(100)
  })

  it('SOAP: a WSDL asking for ten million repeated elements imports at once', async () => {
    const wsdl = readFileSync(join(ROOT, 'fixtures', 'soap', 'synthetic', 'shop.wsdl'), 'utf8')
      .replace('<xs:element name="line" type="t:Line" maxOccurs="unbounded"/>', '<xs:element name="line" type="t:Line" minOccurs="10000000" maxOccurs="unbounded"/>')
      .replace('<xs:element name="price" type="t:Money"/>', '<xs:element name="price" type="t:Money"/><xs:element name="again" type="t:Order" minOccurs="1000" maxOccurs="unbounded"/>')
    const { value: definition, ms } = await timed(() => loadWsdl(wsdl, 'hostile.wsdl'))
    expect(ms).toBeLessThan(ANSWERS_WITHIN)
    expect(definition.services.length).toBe(1)
  })
})

describe('after all of it', () => {
  it('serve is alive and the data intact', async () => {
    await othersStillAnswer()
    await expectAliveAndIntact(url, cli.db)
  })
})
