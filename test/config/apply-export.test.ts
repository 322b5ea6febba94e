import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanup, openStore, ROOT, send, serve, cliWorkspace } from '../_helpers.ts'

afterAll(cleanup)

const workspace = cliWorkspace

/** A project that uses every kind of setting the file format carries. */
async function buildRichProject(ok: (...args: string[]) => Promise<string>, cwd: string) {
  await ok('init', '--yes', '--name', 'Rich', '--slug', 'rich')
  await ok('add-resource', '/api/products', '--fields', 'name:commerce.productName,price:number.float,active:boolean', '--seed', '12', '--seed-value', '5')
  await ok('add-resource', '/api/users')
  await ok('add-resource', '/api/users/:userId/orders')
  await ok('add-resource', '/api/teams', '--on-delete', 'cascade')
  await ok('add-resource', '/api/teams/:teamId/members')
  await ok('endpoint', 'set', 'GET', '/api/products', '--status', '203', '--header', 'X-Env: mock', '--delay', '5')
  writeFileSync(join(cwd, 'schema.json'), JSON.stringify({ type: 'object', required: ['name'] }))
  await ok('endpoint', 'set', 'POST', '/api/products', '--schema', '@schema.json', '--error-rate', '10', '--error-status', '503')
  await ok('endpoint', 'set', 'PATCH', '/api/products/:id', '--status', '202')
  await ok('add-endpoint', 'GET', '/api/stats', '--body', '{"visits":"{{faker.number.int}}","at":"{{now}}"}')
  await ok('remove-endpoint', 'DELETE', '/api/users/:id')
  await ok('webhooks', 'add', 'http://127.0.0.1:9999/hook', '--name', 'ci', '--events', 'mock.error')
}

let rich: ReturnType<typeof workspace>
let richYaml: string

beforeAll(async () => {
  rich = workspace()
  await buildRichProject(rich.ok, rich.cwd)
  richYaml = await rich.ok('export')
})

/** A new workspace holding a copy of the rich project's database. */
function copyOfRich() {
  const copy = workspace()
  copyFileSync(rich.db, copy.db)
  return copy
}

describe('export and apply', () => {
  it('export → apply into a fresh database → export gives the same YAML', async () => {
    const first = rich
    const exported = richYaml
    expect(exported).toContain('name: Rich')
    expect(exported).toContain('without:')
    expect(exported).toContain('schema:')
    expect(exported).toContain('  - path: /api/teams\n    onDelete: cascade\n')
    expect(exported.match(/onDelete/g)).toHaveLength(1)
    expect(exported).not.toContain('whsec_')
    writeFileSync(join(first.cwd, 'mockapi.yaml'), exported)

    const second = workspace()
    const applied = await second.run('apply', join(first.cwd, 'mockapi.yaml'))
    expect(applied.code, applied.stderr).toBe(0)
    expect(applied.stdout).toContain('applied')
    expect(await second.ok('export')).toBe(exported)
    // The generated records are the same too: the seed value makes them reproducible.
    const products = (db: string) => openStore(db).context.repos.records.allJson(1)
    expect(products(second.db)).toHaveLength(12)
    expect(products(second.db)).toEqual(products(first.db))
  })

  it('applying the same file twice changes nothing; an edit changes only what was edited', async () => {
    const { cwd, db, run, ok } = copyOfRich()
    const file = join(cwd, 'mockapi.yaml')
    await ok('export', '-o', 'mockapi.yaml')
    expect(await ok('apply', 'mockapi.yaml')).toContain('already matches')

    const server = await serve(db)
    const { url } = server
    const created = await send(`${url}/api/rich/users`, { method: 'POST', body: { name: 'kept' } })
    const productsBefore = (await send(`${url}/api/rich/products`)).json
    expect(productsBefore).toHaveLength(12)

    expect(await ok('apply', 'mockapi.yaml')).toContain('already matches')
    expect((await send(`${url}/api/rich/users/${created.json.id}`)).json.name).toBe('kept')

    writeFileSync(file, readFileSync(file, 'utf8').replace('status: 203', 'status: 206'))
    const edited = await ok('apply', 'mockapi.yaml')
    expect(edited).toContain('1 changes')
    expect(edited).toContain('~ endpoint GET /api/products')
    const after = await send(`${url}/api/rich/products`)
    expect(after.status).toBe(206)
    expect(after.json).toEqual(productsBefore)
    expect((await send(`${url}/api/rich/users/${created.json.id}`)).json.name).toBe('kept')

    writeFileSync(file, readFileSync(file, 'utf8').replace('count: 12', 'count: 3'))
    expect(await ok('apply', 'mockapi.yaml')).toContain('~ seed /api/products')
    expect((await send(`${url}/api/rich/products`)).json).toHaveLength(3)
    expect((await send(`${url}/api/rich/users/${created.json.id}`)).status).toBe(200)
    await server.close()
    expect((await run('apply', 'mockapi.yaml')).stdout).toContain('already matches')
  })

  it('applies an edited onDelete to the resource in place, its records kept, and the deletes follow it', async () => {
    const { cwd, db, ok } = copyOfRich()
    const file = join(cwd, 'mockapi.yaml')
    await ok('export', '-o', 'mockapi.yaml')
    const { url } = await serve(db)
    const team = (await send(`${url}/api/rich/teams`, { method: 'POST', body: { name: 'a' } })).json
    await send(`${url}/api/rich/teams/${team.id}/members`, { method: 'POST', body: { name: 'x' } })
    const other = (await send(`${url}/api/rich/teams`, { method: 'POST', body: { name: 'b' } })).json
    await send(`${url}/api/rich/teams/${other.id}/members`, { method: 'POST', body: { name: 'y' } })
    expect((await send(`${url}/api/rich/teams/${team.id}`, { method: 'DELETE' })).headers.get('x-deleted-dependents')).toBe('1')
    expect((await send(`${url}/api/rich/teams/${other.id}/members`)).json).toHaveLength(1)

    writeFileSync(file, readFileSync(file, 'utf8').replace('    onDelete: cascade\n', ''))
    const edited = await ok('apply', 'mockapi.yaml')
    expect(edited).toContain('~ onDelete /api/teams: keep')
    expect(edited).toContain('1 changes')
    expect((await send(`${url}/api/rich/teams/${other.id}`, { method: 'DELETE' })).headers.get('x-deleted-dependents')).toBeNull()
    const { repos } = openStore(db).context
    expect(repos.records.allJson(repos.relations.collectionByName(1, 'members')!)).toEqual([expect.stringContaining('"name":"y"')])
    expect(await ok('export')).not.toContain('onDelete')
  })

  it('reseeds resources without their own seed when the project seed changes, not when the name does', async () => {
    const { cwd, ok, db } = workspace()
    const file = join(cwd, 'p.yaml')
    const yaml = (name: string, seed: number | null) => `name: ${name}\nslug: p\n${seed === null ? '' : `seed: ${seed}\n`}resources:\n  - path: /api/notes\n    fields: { text: lorem.sentence }\n    count: 3\n`
    const notes = () => openStore(db).context.repos.records.allJson(1)
    // No seed value: a reseed would draw fresh records, so keeping them shows nothing was reseeded.
    writeFileSync(file, yaml('P', null))
    await ok('apply', 'p.yaml')
    const first = notes()
    writeFileSync(file, yaml('Renamed', null))
    expect(await ok('apply', 'p.yaml')).toContain('~ project p')
    expect(notes()).toEqual(first)
    writeFileSync(file, yaml('Renamed', 2))
    await ok('apply', 'p.yaml')
    expect(notes()).toHaveLength(3)
    expect(notes()).not.toEqual(first)
  })

  it.each([
    ['a YAML syntax error', (y: string) => y.replace('name: Rich', 'name: [Rich'), /line \d+/],
    ['a negative count', (y: string) => y.replace('count: 12', 'count: -1'), /line \d+: resources\[\d\]\.count must be a whole number/],
    ['an unknown generator', (y: string) => y.replace('commerce.productName', 'commerce.nothing'), /unknown generator "commerce\.nothing"/],
    ['a bad resource path', (y: string) => y.replace('- path: /api/users\n', '- path: /api/getUsers\n'), /no-verbs/],
    ['a bad method', (y: string) => y.replace('method: PATCH', 'method: FETCH'), /line \d+: endpoints\[\d\]\.method must be one of/],
    ['a bad webhook URL', (y: string) => y.replace('http://127.0.0.1:9999/hook', 'ftp://x'), /targetUrl/],
    ['a template with an unknown name', (y: string) => y.replace('{{now}}', '{{later}}'), /unknown name "later"/],
    ['duplicate keys', (y: string) => y.replace('name: Rich', 'name: Rich\nname: Again'), /line \d+/],
  ])('refuses a file with %s, with the reason, and changes nothing', async (_name, edit, reason) => {
    const { cwd, ok, run } = copyOfRich()
    const exported = richYaml
    writeFileSync(join(cwd, 'mockapi.yaml'), edit(exported).replace('status: 203', 'status: 207'))
    const result = await run('apply', 'mockapi.yaml')
    expect(result.code).toBe(1)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).toMatch(reason)
    expect(await ok('export')).toBe(exported)
  })

  it.each([
    ['its format edited to another with a text document', (y: string) => y.replace('format: graphql', 'format: soap'), /line \d+: endpoints\[0\]\.path must name an operation of the soap import "swapi", e\.g\. \/soap\/Calculator#Add/],
    ['an operation without its import', (y: string) => y.replace(/(path: \/graphql#Query\.film)\n\s+import: swapi\n/, '$1\n'), /line \d+: endpoints\[\d+\]\.path names an operation/],
  ])('refuses a file with an import with %s, with the line and reason, and changes nothing', async (_name, edit, reason) => {
    const { cwd, ok, run } = workspace()
    await ok('import', join(ROOT, 'fixtures', 'graphql', 'swapi', 'schema.graphql'))
    const exported = await ok('export')
    writeFileSync(join(cwd, 'mockapi.yaml'), edit(exported))
    const result = await run('apply', 'mockapi.yaml')
    expect(result.code).toBe(1)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).toMatch(reason)
    expect(await ok('export')).toBe(exported)
  })

  it('refuses a file that cannot be read', async () => {
    const { run } = workspace()
    expect((await run('apply', 'missing.yaml')).stderr).toMatch(/cannot read .*missing\.yaml: ENOENT/)
  })
})
