import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { applyProjectFile } from '../../src/domain/apply.ts'
import { exportProject, toYaml } from '../../src/domain/export.ts'
import { parseProjectFile, type ProjectFile } from '../../src/domain/project-file.ts'
import { selectProject } from '../../src/domain/projects.ts'
import { loadFaker, type FakerFactory } from '../../src/engine/generators.ts'
import { listTemplates, loadTemplate } from '../../src/domain/templates.ts'
import { cleanup, cliWorkspace, openStore, ROOT, tempDb } from '../_helpers.ts'

afterAll(cleanup)

let makeFaker: FakerFactory
beforeAll(async () => {
  makeFaker = await loadFaker()
})

/** Applies the file (as `mockapi apply` does) to a new database and exports the project back. */
function applyToFreshDatabase(file: ProjectFile): string {
  const { context } = openStore(tempDb())
  // Templates name no slug (`init --template` gives one).
  const { project } = applyProjectFile(context, file, makeFaker, { prune: true, project: 'from-file' })
  return toYaml(exportProject(context, project))
}

/** The same entries in another order: reversed, then each pair swapped, so no entry keeps its place. */
function shuffled<T>(items: T[]): T[] {
  const reversed = [...items].reverse()
  for (let i = 0; i + 1 < reversed.length; i += 2) [reversed[i], reversed[i + 1]] = [reversed[i + 1]!, reversed[i]!]
  return reversed
}

function shuffledFile(file: ProjectFile): ProjectFile {
  return { ...file, resources: shuffled(file.resources), endpoints: shuffled(file.endpoints), webhooks: shuffled(file.webhooks), imports: shuffled(file.imports) }
}

describe('export is deterministic', () => {
  it.each(listTemplates().map((t) => t.name))('template %s: export → apply into a fresh database → export gives the same bytes, whatever the order entries were created in', (name) => {
    const template = loadTemplate(name)
    const exported = applyToFreshDatabase(template)
    expect(applyToFreshDatabase(parseProjectFile(exported, `${name} export`))).toBe(exported)
    expect(applyToFreshDatabase(shuffledFile(template))).toBe(exported)
    expect(applyToFreshDatabase(shuffledFile(parseProjectFile(exported, `${name} export`)))).toBe(exported)
  })

  it('a project with OpenAPI, GraphQL, gRPC and SOAP imports and custom endpoints exports the same bytes however it was built, and after export → apply → export', { timeout: 60_000 }, async () => {
    const fixture = (...parts: string[]) => join(ROOT, 'fixtures', ...parts)
    const steps: string[][] = [
      ['import', fixture('openapi', 'swagger-petstore-v3', 'openapi.yaml')],
      ['import', fixture('graphql', 'swapi', 'schema.graphql')],
      ['import', fixture('grpc', 'helloworld.proto')],
      ['import', fixture('soap', 'synthetic', 'shop.wsdl')],
      ['add-resource', '/api/notes', '--fields', 'text:lorem.sentence', '--seed', '3', '--seed-value', '9'],
      ['add-endpoint', 'GET', '/api/status', '--body', '{"ok":true}'],
      ['add-endpoint', 'POST', '/api/echo'],
      ['add-endpoint', 'GET', '/api/zebra'],
      ['add-endpoint', 'DELETE', '/api/echo'],
      ['endpoint', 'set', 'GET', '/api/notes', '--status', '203'],
      ['webhooks', 'add', 'http://127.0.0.1:9/b', '--name', 'second'],
      ['webhooks', 'add', 'http://127.0.0.1:9/a', '--name', 'first'],
    ]
    const build = async (order: string[][]) => {
      const workspace = cliWorkspace()
      await workspace.ok('init', '--yes', '--name', 'Everything', '--slug', 'everything')
      for (const step of order) await workspace.ok(...step)
      return workspace
    }
    // The resource's endpoint is configured after the resource exists, in either order.
    const resourceFirst = (order: string[][]) => [...order.filter((s) => s[0] === 'add-resource'), ...order.filter((s) => s[0] !== 'add-resource')]
    const first = await build(steps)
    const exported = await first.ok('export')
    expect(exported).toMatch(/^# yaml-language-server: \$schema=\S+\n/)
    for (const format of ['openapi', 'graphql', 'grpc', 'soap']) expect(exported).toContain(`format: ${format}`)

    const second = await build(resourceFirst(shuffled(steps)))
    expect(await second.ok('export')).toBe(exported)

    const third = cliWorkspace()
    writeFileSync(join(third.cwd, 'mockapi.yaml'), exported)
    expect(await third.ok('apply', 'mockapi.yaml')).toContain('applied mockapi.yaml to project everything')
    expect(await third.ok('export')).toBe(exported)

    // In a file whose entries were reordered by hand, too.
    const { context } = openStore(first.db)
    const file = exportProject(context, selectProject(context, 'everything'))
    expect(applyToFreshDatabase(shuffledFile(file))).toBe(exported)
  })
})
