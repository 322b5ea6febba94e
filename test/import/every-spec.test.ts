import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { Ajv, type ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { createSpecValidators } from '../../src/kinds/openapi/ajv.ts'
import { resolvePointer } from '../../src/kinds/openapi/pointer.ts'
import { createSampler } from '../../src/kinds/openapi/sample.ts'
import { operationSecurity } from '../../src/kinds/openapi/security.ts'
import type { SpecDocument } from '../../src/kinds/openapi/types.ts'
import type { Endpoint } from '../../src/model.ts'
import { cleanup, cli, openStore, ROOT, send, serve, tempDir } from '../_helpers.ts'

afterAll(cleanup)

const FIXTURES = join(ROOT, 'fixtures', 'openapi')
const addFormats = ((addFormatsModule as unknown as { default?: (ajv: Ajv) => Ajv }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv

/** Every real-world spec copied from ../shared/fixtures/real/openapi (the broken ones are elsewhere). */
function specFiles(dir = FIXTURES): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === 'broken' ? [] : specFiles(path)
    return /\.(ya?ml|json)$/.test(name) ? [path] : []
  }).sort()
}

/** An ajv of the test's own (not the product's validators) over the whole stored document. */
function responseChecker(spec: SpecDocument) {
  const options = { strict: false, allErrors: true, validateSchema: false, logger: false as const }
  const ajv = spec.version === '3.1' ? (new Ajv2020(options) as unknown as Ajv) : new Ajv(options)
  addFormats(ajv)
  for (const format of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']) ajv.addFormat(format, true)
  ajv.addSchema(spec.document, 'spec')
  // ajv caches by schema object, and each call would make a new `{ $ref }`: compiled once per pointer.
  const compiled = new Map<string, ValidateFunction>()
  return (pointer: string, value: unknown) => {
    let validate = compiled.get(pointer)
    if (!validate) compiled.set(pointer, (validate = ajv.compile({ $ref: `spec#${pointer.split('/').map((s) => encodeURIComponent(s)).join('/')}` })))
    return validate(value) ? null : ajv.errorsText(validate.errors)
  }
}

interface Case {
  file: string
  slug: string
}

const cases: Case[] = specFiles().map((file, i) => ({ file, slug: `spec-${i}` }))
let url: string
let db: string

beforeAll(async () => {
  const cwd = tempDir()
  db = join(cwd, 'm.db')
  for (const { file, slug } of cases) {
    expect((await cli(['--db', db, 'project', 'create', slug, '--slug', slug], { cwd })).code).toBe(0)
    const imported = await cli(['--db', db, 'import', file, '--project', slug], { cwd })
    expect(imported.code, `${relative(FIXTURES, file)}: ${imported.stderr}`).toBe(0)
  }
  url = (await serve(db)).url
}, 120_000)

describe.each(cases.map((c) => [relative(FIXTURES, c.file), c] as const))('%s', (_name, { slug }) => {
  it('imports without error; every operation answers a valid request, and every JSON body validates against its schema', async () => {
    const { context } = openStore(db)
    const project = context.repos.projects.bySlug(slug)!
    const [stored] = context.repos.specs.listByProject(project.id)
    // A spec with no paths (3.1 webhooks only) leaves nothing to serve, so nothing stored.
    if (!stored) return expect(context.repos.endpoints.listByProject(project.id)).toEqual([])
    const spec: SpecDocument = { version: stored!.version as SpecDocument['version'], title: stored!.title, document: JSON.parse(stored!.document) }
    const sampler = createSampler(spec, createSpecValidators(spec, { coerce: false }))
    const check = responseChecker(spec)
    const endpoints: Endpoint[] = context.repos.endpoints.listBySpec(stored!.id)
    const failures: string[] = []
    for (const endpoint of endpoints) {
      const operation = endpoint.operation!
      const scalar = (pointer: string | null) => {
        const value = pointer ? sampler.json(pointer) : 'x'
        return typeof value === 'object' ? JSON.stringify(value) : String(value)
      }
      let path = endpoint.path
      const query = new URLSearchParams()
      const headers: Record<string, string> = {}
      for (const parameter of operation.parameters) {
        if (parameter.in === 'path') path = path.replace(`:${parameter.name}`, encodeURIComponent(scalar(parameter.schema) || 'x'))
        else if (parameter.required && parameter.in === 'query') {
          const value = parameter.schema ? sampler.json(parameter.schema) : 'x'
          for (const item of Array.isArray(value) ? value : [value]) query.append(parameter.name, typeof item === 'object' ? JSON.stringify(item) : String(item))
        } else if (parameter.required && parameter.in === 'header') headers[parameter.name] = scalar(parameter.schema)
      }
      let body: string | undefined
      const media = operation.requestBody?.media.find((m) => /json|x-www-form-urlencoded|multipart/.test(m.type))
      if (media?.schema && media.type.includes('multipart')) {
        const form = new FormData()
        for (const [k, v] of Object.entries(sampler.json(media.schema) as object)) form.append(k, typeof v === 'object' ? JSON.stringify(v) : String(v))
        form.append('attachment', new Blob(['file bytes']), 'photo.png')
        const encoded = new Response(form)
        headers['content-type'] = encoded.headers.get('content-type')!
        body = await encoded.text()
      } else if (!media && operation.requestBody) {
        // multipart and other media pass unchecked; a body must still be there when required.
        headers['content-type'] = operation.requestBody.media[0]?.type ?? 'application/octet-stream'
        body = 'opaque'
      } else if (media?.schema) {
        const value = sampler.json(media.schema)
        if (media.type.includes('x-www-form-urlencoded')) {
          // Form arrays are repeated keys.
          const form = new URLSearchParams()
          for (const [k, v] of Object.entries(value as object)) {
            for (const item of Array.isArray(v) ? v : [v]) form.append(k, typeof item === 'object' ? JSON.stringify(item) : String(item))
          }
          body = form.toString()
          headers['content-type'] = 'application/x-www-form-urlencoded'
        } else {
          body = JSON.stringify(value)
          headers['content-type'] = 'application/json'
        }
      }
      const mounted = path.startsWith('/api/') ? path.slice(4) : path
      const where = `${endpoint.method} ${endpoint.path}`
      // A valid request carries what the operation's security asks for (its first alternative);
      // without it, a secured operation answers 401 before anything else is looked at.
      const [asked] = operationSecurity(spec, operation.pointer) ?? []
      if (asked?.length) {
        const bare = await send(`${url}/api/${slug}${mounted === '/' ? '/' : mounted}${query.size ? `?${query}` : ''}`, { method: endpoint.method, headers, body })
        if (bare.status !== 401 || !bare.headers.get('www-authenticate')) failures.push(`${where} without credentials: ${bare.status}, not 401 with a challenge`)
        for (const requirement of asked) {
          if (requirement.type === 'present' && requirement.in === 'header') headers[requirement.name] = 'test-credential'
          else if (requirement.type === 'present' && requirement.in === 'query') query.set(requirement.name, 'test-credential')
          else if (requirement.type === 'present') headers.cookie = `${headers.cookie ? `${headers.cookie}; ` : ''}${requirement.name}=test-credential`
          else if (requirement.type === 'http') headers.authorization = `${requirement.scheme} ${Buffer.from('test:credential').toString('base64')}`
        }
      }
      const search = query.size ? `?${query}` : ''
      const response = await send(`${url}/api/${slug}${mounted === '/' ? '/' : mounted}${search}`, { method: endpoint.method, headers, body })
      const text = response.text
      if (response.status >= 400) {
        failures.push(`${where}: ${response.status} ${text.slice(0, 300)}`)
        continue
      }
      const answered = operation.responses.find((r) => r.code === String(response.status)) ?? operation.responses.find((r) => r.code === 'default')
      const contentType = response.headers.get('content-type') ?? ''
      const schema = answered?.media.find((m) => /json|\*\/\*/.test(m.type))?.schema
      if (!text || !/json/.test(contentType) || !schema) continue
      const problem = check(schema, JSON.parse(text))
      if (problem) failures.push(`${where}: body does not match ${schema}: ${problem}`)
      expect(resolvePointer(spec.document, schema)).toBeDefined()
    }
    expect(failures).toEqual([])
    expect(endpoints.length).toBeGreaterThanOrEqual(spec.document.paths ? 1 : 0)
  })
})
