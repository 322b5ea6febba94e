import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { main } from '../../src/cli/main.ts'
import { startServer } from '../../src/server/start.ts'
import { cleanup, send, tempDir } from '../_helpers.ts'

afterEach(cleanup)

/** The real CLI in-process: its exit code and what it printed (colour off). */
async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await main(argv, { out: (text) => void (out += `${text}\n`), err: (text) => void (err += `${text}\n`), isInteractive: false })
  return { code, out, err }
}

describe('a database only comes into being when something is made in it', () => {
  it('read-only commands on a missing file say what to do, and leave no folder or file behind', async () => {
    const db = join(tempDir(), 'no', 'such', 'dir', 'm.db')
    for (const argv of [['projects'], ['endpoints'], ['inbox'], ['export'], ['token'], ['webhooks', 'list'], ['reset'], ['project', 'default']]) {
      const result = await run('--db', db, ...argv)
      expect(result.code, argv.join(' ')).toBe(1)
      expect(result.err).toContain(`✖ no database at ${db}; run "mockapi init" to make one, or pass --db with the right file`)
    }
    expect(existsSync(join(db, '..', '..', '..'))).toBe(false)
  })

  it('a path that cannot hold a database says so in one line, suggesting --db', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'a-file'), '')
    const underFile = await run('--db', join(dir, 'a-file', 'm.db'), 'init', '--yes')
    expect(underFile.code).toBe(1)
    expect(underFile.err).toMatch(/^✖ cannot create the database .*: part of that path is a file, not a folder; pass --db with a file in a folder you can write/)
    // Writing under /sys is refused even to root: the permission message.
    const denied = await run('--db', '/sys/mockapi-test/m.db', 'init', '--yes')
    expect(denied.code).toBe(1)
    expect(denied.err).toMatch(/^✖ cannot create or write the database \/sys\/mockapi-test\/m.db \(E\w+: permission denied or read-only\); pass --db/)
    expect(denied.err).not.toContain('unexpected error')
  })
})

describe('messages that say what to do', () => {
  it('an import of a file in no known format names the formats it tried', async () => {
    const dir = tempDir()
    const db = join(dir, 'm.db')
    writeFileSync(join(dir, 'README.md'), '# A readme\n\nNothing to import here.\n')
    const result = await run('--db', db, 'import', join(dir, 'README.md'))
    expect(result.code).toBe(1)
    expect(result.err).toContain('README.md is none of the formats mockapi imports; tried OpenAPI 3.x or Swagger 2.0')
    expect(result.err).toContain('GraphQL (SDL or introspection JSON), gRPC (.proto), SOAP (WSDL 1.1), json-server database (a JSON object of arrays of records, db.json), HAR 1.2 (browser devtools, "Save all as HAR"), Postman collection v2.1 (with example responses). If it is one of them, say which with --format')
  })

  it('an unknown --project lists the slugs there are and how to make it', async () => {
    const db = join(tempDir(), 'm.db')
    expect((await run('--db', db, 'init', '--yes', '--name', 'Shop', '--slug', 'shop')).code).toBe(0)
    expect((await run('--db', db, 'init', '--yes', '--name', 'Blog', '--slug', 'blog')).code).toBe(0)
    const result = await run('--db', db, 'endpoints', '--project', 'pets')
    expect(result.code).toBe(1)
    expect(result.err).toContain('no project with slug "pets" (the projects are: shop, blog); create it with "mockapi init --slug pets"')
  })

  it('the main commands show examples in --help', async () => {
    for (const command of ['init', 'add-resource', 'add-endpoint', 'import', 'serve', 'webhooks', 'token']) {
      const result = await run(command, '--help')
      expect(result.out, command).toMatch(/\nExamples:\n {2}\$ (TOKEN=\$\()?mockapi /)
    }
  })

  it('a MOCKAPI_PORT that is no port is refused before anything starts; the variable is read through the CLI\'s environment', async () => {
    const dir = tempDir()
    let err = ''
    const code = await main(['--db', join(dir, 'm.db'), 'serve', '--quiet'], { out: () => {}, err: (text) => void (err += `${text}\n`), isInteractive: false }, { cwd: dir, env: { MOCKAPI_PORT: 'three thousand' } })
    expect(code).toBe(1)
    expect(err).toContain('✖ MOCKAPI_PORT="three thousand" is not a whole number')
    expect(existsSync(join(dir, 'm.db'))).toBe(false)
  })

  it('a template names the project after itself', async () => {
    const db = join(tempDir(), 'm.db')
    const result = await run('--db', db, 'init', '--template', 'ecommerce', '--yes')
    expect(result.code).toBe(0)
    expect(result.out).toContain('(slug ecommerce)')
  })
})

describe('the default project', () => {
  it('init takes over from the demo serve made; project default changes it, and serve follows it without a restart', async () => {
    const db = join(tempDir(), 'm.db')
    const server = await startServer({ dbPath: db, port: 0, host: '127.0.0.1' })
    try {
      expect(server.createdDemo).toBe(true)
      const init = await run('--db', db, 'init', '--name', 'Shop', '--slug', 'shop', '--yes')
      expect(init.out).toContain('now the default project (instead of demo, the demo serve made); change it with "mockapi project default <slug>"')
      expect((await run('--db', db, 'add-resource', '/api/products')).out).toContain('project shop')
      expect((await run('--db', db, 'project', 'default')).out).toMatch(/^shop {2}\(Shop, id 2\)/)
      // serve answers the default project at its own paths, following the change.
      await expect.poll(async () => (await send(`${server.url}/api/products`)).status, { timeout: 5000 }).toBe(200)

      // A third project does not take over: init says which one stays the default and how to change it.
      const third = await run('--db', db, 'init', '--name', 'Blog', '--slug', 'blog', '--yes')
      expect(third.out).toContain('the default project stays shop')
      expect(third.out).toContain('make this one the default with "mockapi project default blog", or pass --project blog')
      const changed = await run('--db', db, 'project', 'default', 'blog')
      expect(changed.out).toContain('✔ blog is now the default project')
      expect((await run('--db', db, 'projects')).out).toMatch(/blog/)
      const missing = await run('--db', db, 'project', 'default', 'nope')
      expect(missing.code).toBe(1)
      expect(missing.err).toContain('no project with slug "nope" (the projects are: demo, shop, blog)')
    } finally {
      await server.close()
    }
  })
})
