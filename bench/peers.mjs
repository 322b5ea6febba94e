// The peers of `npm run bench -- --peers`, each installed once into its own folder of
// ~/.cache/mockapi-bench-peers (never into this repository), each given the same posts.
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { postsOpenApi } from './posts.mjs'
import { freePort } from './processes.mjs'

const PEER_CACHE = join(homedir(), '.cache', 'mockapi-bench-peers')

/** Installs `spec` into its own folder of the cache, once; later runs reuse it. */
function install(folder, name, spec, isWanted) {
  const prefix = join(PEER_CACHE, folder)
  const manifest = join(prefix, 'node_modules', name, 'package.json')
  if (!existsSync(manifest) || !isWanted(JSON.parse(readFileSync(manifest, 'utf8')).version)) {
    mkdirSync(prefix, { recursive: true })
    console.error(`  installing ${spec} into ${prefix}`)
    execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--engine-strict=false', spec], { stdio: 'ignore', timeout: 300_000 })
  }
  return { dir: join(prefix, 'node_modules', name), version: JSON.parse(readFileSync(manifest, 'utf8')).version }
}

/**
 * A Mockoon environment built with Mockoon's own builders, so the file matches the installed
 * version's schema and migration number: the posts in a data bucket behind a CRUD route.
 */
function mockoonEnvironment(cliDir, rows) {
  const commons = createRequire(join(cliDir, 'package.json'))('@mockoon/commons')
  const environment = { ...commons.BuildEnvironment({ hasDefaultRoute: false, hasContentTypeHeader: true, hasCorsHeaders: true }), name: 'mockapi bench' }
  const bucket = commons.BuildDatabucket({ name: 'posts', value: JSON.stringify(rows) })
  const route = commons.BuildCRUDRoute(true, { endpoint: 'posts', databucketID: bucket.id })
  environment.data.push(bucket)
  environment.routes.push(route)
  environment.rootChildren.push({ type: 'route', uuid: route.uuid })
  return environment
}

/**
 * Each peer: how to install it, how to lay out its files in a fresh folder (`prepare`, called once
 * per start, so POSTs of an earlier round are gone) and the request each scenario sends.
 * `db` is the json-server database every server starts from.
 */
export const PEERS = [
  {
    name: 'json-server 1.0',
    install: () => install('json-server-1', 'json-server', 'json-server@1.0.0-beta.15', (v) => v === '1.0.0-beta.15'),
    label: (version) => `json-server ${version} (NODE_ENV=production)`,
    async prepare(peer, dir, db) {
      copyFileSync(db, join(dir, 'db.json'))
      // 1.x serves ./public and refuses to start without it.
      mkdirSync(join(dir, 'public'), { recursive: true })
      const port = await freePort()
      return { args: [process.execPath, join(peer.dir, 'lib', 'bin.js'), 'db.json', '--port', String(port), '--host', '127.0.0.1'], cwd: dir, env: { NODE_ENV: 'production' }, url: `http://127.0.0.1:${port}` }
    },
    page: '/posts?_page=3&_per_page=20',
  },
  {
    name: 'json-server 0.17',
    install: () => install('json-server-0.17.4', 'json-server', 'json-server@0.17.4', (v) => v === '0.17.4'),
    label: (version) => `json-server ${version}`,
    async prepare(peer, dir, db) {
      copyFileSync(db, join(dir, 'db.json'))
      const port = await freePort()
      return { args: [process.execPath, join(peer.dir, 'lib', 'cli', 'bin.js'), 'db.json', '--port', String(port), '--host', '127.0.0.1', '--quiet'], cwd: dir, url: `http://127.0.0.1:${port}` }
    },
    page: '/posts?_page=3&_limit=20',
  },
  {
    name: 'Prism 5',
    install: () => install('prism-5', '@stoplight/prism-cli', '@stoplight/prism-cli@5.14', (v) => v.startsWith('5.14.')),
    label: (version) => `Prism ${version} (stateless)`,
    async prepare(peer, dir, db) {
      const count = JSON.parse(readFileSync(db, 'utf8')).posts.length
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(postsOpenApi(count)))
      const port = await freePort()
      return { args: [process.execPath, join(peer.dir, 'dist', 'index.js'), 'mock', 'openapi.json', '--port', String(port), '--host', '127.0.0.1', '--verboseLevel', 'warn'], cwd: dir, url: `http://127.0.0.1:${port}` }
    },
    page: '/posts?page=3&limit=20',
    // Stateless: GET /posts answers its first example (the page); every post is the other one.
    allHeaders: { Prefer: 'example=all' },
  },
  {
    name: 'Mockoon CLI 9',
    install: () => install('mockoon-9', '@mockoon/cli', '@mockoon/cli@9', (v) => v.startsWith('9.')),
    label: (version) => `Mockoon CLI ${version}`,
    async prepare(peer, dir, db) {
      writeFileSync(join(dir, 'mockoon.json'), JSON.stringify(mockoonEnvironment(peer.dir, JSON.parse(readFileSync(db, 'utf8')).posts)))
      const port = await freePort()
      // -X: no log file. HOME: the CLI creates ~/.mockoon-cli/logs on every start; keep it in the temp dir.
      // No admin API: nothing here uses it, and it would print a generated token.
      return { args: [process.execPath, join(peer.dir, 'bin', 'run.js'), 'start', '--data', 'mockoon.json', '--port', String(port), '--hostname', '127.0.0.1', '--disable-log-to-file', '--disable-admin-api'], cwd: dir, env: { HOME: dir }, url: `http://127.0.0.1:${port}` }
    },
    // CRUD routes paginate with page and limit; either one present turns paging on.
    page: '/posts?page=3&limit=20',
  },
]
