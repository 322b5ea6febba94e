import { afterAll, describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv } from 'ajv'
import { applyProjectFile } from '../../src/domain/apply.ts'
import { exportProject, PROJECT_FILE_SCHEMA_REF, toYaml } from '../../src/domain/export.ts'
import { parseProjectFile } from '../../src/domain/project-file.ts'
import { closestName, PROJECT_FILE_SCHEMA_PATH } from '../../src/domain/project-file-schema.ts'
import { startMockApi } from '../../src/index.ts'
import { loadFaker } from '../../src/engine/generators.ts'
import { EVENT_TYPES, HTTP_METHODS, SPEC_FORMATS } from '../../src/model.ts'
import { listTemplates } from '../../src/domain/templates.ts'
import { cleanup, cliWorkspace, openStore, ROOT, tempDb } from '../_helpers.ts'

afterAll(cleanup)

type JsonSchema = Record<string, any>
const schema = JSON.parse(readFileSync(join(ROOT, 'schema', 'mockapi.schema.json'), 'utf8')) as JsonSchema

const FILE = `# a project
name: Shop
slug: shop
resources:
  - path: /api/products
    fields: { name: commerce.productName }
    count: 3
endpoints:
  - method: GET
    path: /api/products
    status: 203
webhooks:
  - name: ci
    targetUrl: http://127.0.0.1:9/hook
imports:
  - format: graphql
    title: swapi
    version: SDL
    source: schema.graphql
    document: "type Query { a: Int }"
`

/** `mockapi export` of test/config/apply-export.test.ts's rich project, as written before the schema. */
const EXPORTED_BEFORE_THE_SCHEMA = `# mockapi project file: mockapi apply <this file>
name: Rich
slug: rich
resources:
  - path: /api/products
    fields:
      name: commerce.productName
      price: number.float
      active: boolean
    count: 12
    seed: 5
  - path: /api/users
    without:
      - DELETE /api/users/:id
  - path: /api/users/:userId/orders
endpoints:
  - method: GET
    path: /api/products
    status: 203
    headers:
      X-Env: mock
    delay: 5
  - method: POST
    path: /api/products
    schema:
      type: object
      required:
        - name
    errorRate: 10
    errorStatus: 503
  - method: PATCH
    path: /api/products/:id
  - method: GET
    path: /api/stats
    body:
      visits: "{{faker.number.int}}"
      at: "{{now}}"
webhooks:
  - name: ci
    targetUrl: http://127.0.0.1:9999/hook
    events:
      - mock.error
    enabled: true
`

/** The refusal `parseProjectFile` gives, or 'accepted'. */
function refusal(text: string): string {
  try {
    parseProjectFile(text, 'mockapi.yaml')
    return 'accepted'
  } catch (error) {
    expect((error as { code?: string }).code).toBe('INVALID_INPUT')
    return (error as Error).message
  }
}

describe('the project file schema', () => {
  it('is a valid draft-07 JSON Schema, the one the loader reads and the package publishes', () => {
    const ajv = new Ajv({ strict: false })
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true)
    expect(PROJECT_FILE_SCHEMA_PATH).toBe(join(ROOT, 'schema', 'mockapi.schema.json'))
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[]; exports: Record<string, unknown> }
    expect(pkg.files).toContain('schema')
    expect(pkg.exports['./schema.json']).toBe('./schema/mockapi.schema.json')
    expect(PROJECT_FILE_SCHEMA_REF).toBe('./node_modules/mockapi-cli/schema/mockapi.schema.json')
  })

  it("lists the model's methods, event types and import formats", () => {
    const { endpoint, webhook, import: entry } = schema.definitions as JsonSchema
    expect(endpoint.properties.method.examples).toEqual([...HTTP_METHODS])
    const method = new RegExp(endpoint.properties.method.pattern as string)
    for (const name of HTTP_METHODS) {
      expect(method.test(name)).toBe(true)
      expect(method.test(name.toLowerCase())).toBe(true)
    }
    for (const other of ['TRACE', 'CONNECT', 'FETCH', 'GETS', 'HEADS', '']) expect(method.test(other)).toBe(false)
    expect(webhook.properties.events.items.enum).toEqual([...EVENT_TYPES])
    expect(entry.properties.format.enum).toEqual([...SPEC_FORMATS, null])
  })

  it('accepts every template, and a file whose optional lists are left empty', () => {
    for (const { name } of listTemplates()) expect(refusal(readFileSync(join(ROOT, 'templates', `${name}.yaml`), 'utf8'))).toBe('accepted')
    expect(refusal('name: Bare\nresources:\nendpoints:\nwebhooks:\nimports:\n')).toBe('accepted')
    expect(refusal(FILE)).toBe('accepted')
  })

  it('applies a file exported before the schema unchanged, and exports it back with the editor line added and its PATCH implied', async () => {
    const { context } = openStore(tempDb())
    const { project } = applyProjectFile(context, parseProjectFile(EXPORTED_BEFORE_THE_SCHEMA, 'old.yaml'), await loadFaker(), { prune: true })
    // Resources had five endpoints then, so the file listed the PATCH it added; every resource has it now.
    const implied = EXPORTED_BEFORE_THE_SCHEMA.replace('  - method: PATCH\n    path: /api/products/:id\n', '')
    expect(implied).not.toBe(EXPORTED_BEFORE_THE_SCHEMA)
    expect(toYaml(exportProject(context, project))).toBe(`# yaml-language-server: $schema=${PROJECT_FILE_SCHEMA_REF}\n${implied}`)
  })

  it.each([
    ['an endpoint', FILE.replace('status: 203', 'statsu: 201'), 'mockapi.yaml, line 11, column 5: unknown key "statsu" in endpoints[0]; did you mean "status"?'],
    ['an endpoint, with nothing close', FILE.replace('status: 203', 'answers: 3'), 'mockapi.yaml, line 11, column 5: unknown key "answers" in endpoints[0]; expected one of method, path, status, headers, delay, fault, auth, pick, responses, body, text, file, contentType, schema, errorRate, errorStatus, proxy, import, operation'],
    ['an endpoint, instead of a required key', FILE.replace('  - method: GET', '  - methd: GET'), 'mockapi.yaml, line 9, column 5: unknown key "methd" in endpoints[0]; did you mean "method"?'],
    ['the top level', FILE.replace('slug: shop', 'slg: shop'), 'mockapi.yaml, line 3, column 1: unknown key "slg" at the top level; did you mean "slug"?'],
    ['a resource', FILE.replace('fields:', 'feilds:'), 'mockapi.yaml, line 6, column 5: unknown key "feilds" in resources[0]; did you mean "fields"?'],
    ['a webhook', FILE.replace('targetUrl:', 'targetURL:'), 'mockapi.yaml, line 14, column 5: unknown key "targetURL" in webhooks[0]; did you mean "targetUrl"?'],
    ['an import', FILE.replace('    source:', '    sources:'), 'mockapi.yaml, line 19, column 5: unknown key "sources" in imports[0]; did you mean "source"?'],
  ])('refuses an unknown key in %s with its line, column and a "did you mean"', (_where, text, message) => {
    expect(refusal(text)).toBe(message)
  })

  it.each([
    ['a status that is not a number', FILE.replace('status: 203', 'status: ok'), 'mockapi.yaml, line 11: endpoints[0].status must be a whole number'],
    ['an error rate over 100', FILE.replace('status: 203', 'errorRate: 150'), 'mockapi.yaml, line 11: endpoints[0].errorRate must be a number from 0 to 100'],
    ['an unknown event type', `${FILE.replace('    targetUrl: http://127.0.0.1:9/hook', '    targetUrl: http://127.0.0.1:9/hook\n    events: [mock.nope]')}`, 'mockapi.yaml, line 15: webhooks[0].events[0] must be one of mock.request, mock.error'],
    ['a GraphQL import whose document is a mapping', FILE.replace('document: "type Query { a: Int }"', 'document: { a: 1 }'), 'mockapi.yaml, line 20: imports[0].document must be the GraphQL SDL (text)'],
    ['an OpenAPI import without its version', FILE.replace('format: graphql', 'format: openapi').replace('    version: SDL\n', ''), 'mockapi.yaml, line 16: imports[0].version must be "2.0", "3.0" or "3.1"'],
    ['a file that is a list', '- name: Shop\n', 'mockapi.yaml, line 1: the file must be a mapping with name, resources and endpoints'],
    // Checked after the schema, by the loader: references between entries.
    ['an endpoint naming an import that is not there', FILE.replace('status: 203', 'import: nope'), 'mockapi.yaml, line 11: endpoints[0].import must be the title of an entry under imports'],
  ])('refuses %s in one line naming the file, the line and the reason', (_name, text, message) => {
    expect(refusal(text)).toBe(message)
  })

  it('reports the first problem in the file when there are several', () => {
    const text = FILE.replace('count: 3', 'count: -1').replace('status: 203', 'statsu: 203')
    expect(refusal(text)).toBe('mockapi.yaml, line 7: resources[0].count must be a whole number of records to generate')
  })

  it('suggests a known name only for a slip: a swapped pair, a letter or two, another case', () => {
    const known = ['method', 'path', 'status', 'errorRate', 'errorStatus']
    expect(closestName('statsu', known)).toBe('status')
    expect(closestName('errorrate', known)).toBe('errorRate')
    expect(closestName('pth', known)).toBe('path')
    expect(closestName('errorStats', known)).toBe('errorStatus')
    expect(closestName('respnses', known)).toBeUndefined()
    expect(closestName('x', known)).toBeUndefined()
  })

  it('mockapi apply refuses a misspelt key, exit 1 and one line, and changes nothing; the same file without it applies', async () => {
    const { cwd, ok, run } = cliWorkspace()
    await ok('init', '--yes', '--name', 'Shop', '--slug', 'shop', '--resource', '/api/products')
    const before = await ok('export')
    // The example: these two applied as "2 changes" that did nothing.
    const typo = before.replace('endpoints: []', 'endpoints:\n  - method: POST\n    path: /api/products\n    answers: 3\n    statsu: 201')
    expect(typo).not.toBe(before)
    writeFileSync(join(cwd, 'mockapi.yaml'), typo)
    const refused = await run('apply', 'mockapi.yaml')
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim().split('\n')).toHaveLength(1)
    expect(refused.stderr).toMatch(/mockapi\.yaml, line \d+, column 5: unknown key "answers" in endpoints\[0\]; expected one of method, path, status/)
    expect(await ok('export')).toBe(before)
    writeFileSync(join(cwd, 'mockapi.yaml'), typo.replace(/\n {4}answers: 3\n {4}statsu: 201/, '\n    status: 201'))
    expect(await ok('apply', 'mockapi.yaml')).toContain('already matches')
  })

  it('startMockApi refuses a config object with an unknown key', async () => {
    await expect(startMockApi({ config: { name: 'Shop', resourcse: [] } })).rejects.toThrow('config object, line 2, column 1: unknown key "resourcse" at the top level; did you mean "resources"?')
  })
})
