import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cleanup, exited, ROOT, send, tempDir } from '../_helpers.ts'

/**
 * The package as npm would publish it, installed as a devDependency of an empty project, used the
 * two ways the README shows: `npx mockapi …` and `import { startMockApi } from 'mockapi-cli'`.
 */
let consumer: string
let tarball: string

beforeAll(() => {
  const packed = tempDir()
  // npm test has built dist/ already; --ignore-scripts keeps pack from building again.
  const name = execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', packed, '--silent'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop()!
  tarball = join(packed, name)
  consumer = tempDir()
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  // Dependencies come from npm's cache when they can; better-sqlite3's native build is taken from
  // this checkout (same version, same Node) rather than compiled again for a minute.
  execFileSync('npm', ['install', '--save-dev', tarball, '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', '--silent'], { cwd: consumer, stdio: 'inherit' })
  rmSync(join(consumer, 'node_modules', 'better-sqlite3'), { recursive: true, force: true })
  cpSync(join(ROOT, 'node_modules', 'better-sqlite3'), join(consumer, 'node_modules', 'better-sqlite3'), { recursive: true })
}, 180_000)
afterAll(cleanup)

describe('the published package', { timeout: 60_000 }, () => {
  it('ships only bin, dist (no source maps), the project-file schema, templates, README and LICENSE', () => {
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n').map((path) => path.replace(/^package\//, ''))
    const top = [...new Set(listing.map((path) => path.split('/')[0]))].sort()
    expect(top).toEqual(['LICENSE', 'README.md', 'bin', 'dist', 'package.json', 'schema', 'templates'])
    expect(listing.filter((path) => path.endsWith('.map'))).toEqual([])
    expect(listing).toContain('dist/index.d.ts')
    expect(listing).toContain('dist/bin/main.js')
    expect(listing).toContain('schema/mockapi.schema.json')
  })

  it('npx mockapi init and npx mockapi serve work from the installed package', async () => {
    const init = spawnSync('npx', ['--no-install', 'mockapi', 'init', '--yes', '--name', 'Shop', '--slug', 'shop', '--resource', '/api/products'], { cwd: consumer, encoding: 'utf8' })
    expect(init.status, init.stderr).toBe(0)
    expect(init.stdout).toContain('created project Shop (slug shop)')
    const child = spawn('npx', ['--no-install', 'mockapi', 'serve', '--port', '0', '--quiet'], { cwd: consumer, env: { ...process.env, FORCE_COLOR: '0' }, detached: true })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 30_000)
        child.stdout.on('data', () => {
          const match = /listening on (http:\/\/\S+)/.exec(output)
          if (match && output.includes('Ctrl-C to stop')) {
            clearTimeout(timer)
            resolve(match[1]!)
          }
        })
      })
      const created = await send(`${url}/api/shop/products`, { method: 'POST', body: { name: 'Lamp' } })
      expect(created.status).toBe(201)
      expect((await send(`${url}/api/shop/products`)).json).toEqual([created.json])
    } finally {
      // npx runs serve as its child: the whole group goes.
      process.kill(-child.pid!, 'SIGTERM')
      await exited(child as never)
    }
  })

  it('import { startMockApi } from "mockapi-cli" works, with its types', () => {
    writeFileSync(join(consumer, 'check.mjs'), `
      import { startMockApi } from 'mockapi-cli'
      const api = await startMockApi({ config: { name: 'Shop', slug: 'shop', resources: [{ path: '/api/products', records: [{ id: '1', name: 'Lamp' }] }] } })
      const response = await fetch(api.project('shop').url + '/products/1')
      console.log(response.status, JSON.stringify(await response.json()))
      await api.close()
    `)
    const result = spawnSync(process.execPath, ['check.mjs'], { cwd: consumer, encoding: 'utf8' })
    expect(result.stderr).toBe('')
    expect(result.stdout.trim()).toBe('200 {"id":"1","name":"Lamp"}')
    expect(readdirSync(join(consumer, 'node_modules', 'mockapi-cli', 'dist'))).toContain('index.d.ts')
  })

  it('publishes the project-file schema where exported files point editors, and as mockapi-cli/schema.json', () => {
    const resolved = spawnSync(process.execPath, ['--input-type=module', '-e', "console.log(import.meta.resolve('mockapi-cli/schema.json'))"], { cwd: consumer, encoding: 'utf8' })
    expect(resolved.stderr).toBe('')
    const published = fileURLToPath(resolved.stdout.trim())
    expect(published).toBe(join(consumer, 'node_modules', 'mockapi-cli', 'schema', 'mockapi.schema.json'))
    const exported = spawnSync('npx', ['--no-install', 'mockapi', 'export'], { cwd: consumer, encoding: 'utf8' })
    expect(exported.status, exported.stderr).toBe(0)
    const target = /^# yaml-language-server: \$schema=(\S+)\n/.exec(exported.stdout)![1]!
    expect(JSON.parse(readFileSync(join(consumer, target), 'utf8'))).toEqual(JSON.parse(readFileSync(join(ROOT, 'schema', 'mockapi.schema.json'), 'utf8')))
  })
})
