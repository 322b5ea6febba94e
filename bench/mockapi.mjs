// The mockapi builds a run measures: this checkout, and any other given with `--mockapi DIR`
// (its bin/ and dist/, built there), each seeded through its own CLI so schema changes between
// them do not matter.
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, rmSync, statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { SERVER_CORE, onCore } from './pinning.mjs'

function commitOf(root) {
  try {
    const sha = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    // Only what the build is made of: a changed bench/ or docs/ does not change what is measured.
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no', '--', 'src', 'package.json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    return dirty ? `${sha}+changes` : sha
  } catch {
    return null
  }
}

/** This checkout first, then each `--mockapi DIR`, labelled by commit. */
export function builds(root, others) {
  return [root, ...others.map((dir) => resolve(dir))].map((dir, index) => {
    const bin = join(dir, 'bin', 'mockapi.js')
    if (!existsSync(bin) || !existsSync(join(dir, 'dist'))) throw new Error(`${dir}: no bin/mockapi.js or dist/ (run npm run build there)`)
    // Not a git checkout (an unpacked archive): named after its folder.
    const commit = commitOf(dir) ?? basename(dir)
    return { key: `build${index}`, name: index === 0 ? `mockapi ${commit}` : `mockapi ${commit} (${dir})`, short: `mockapi ${commit}`, root: dir, bin, commit }
  })
}

/** Runs the build's CLI to completion (unpinned: seeding is not measured). */
export const cli = (build, db, args) => execFileSync(process.execPath, [build.bin, '--db', db, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })

/** Seeds a build's database with the posts, as a json-server user would: `mockapi import db.json` (project `bench`). */
export function seedMockapi(build, db, dbJson) {
  for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true })
  cli(build, db, ['init', '--yes', '--name', 'Bench', '--slug', 'bench', '--path-rules', 'off'])
  cli(build, db, ['import', dbJson, '--project', 'bench'])
}

/** Runs the build's CLI on the server core and returns how long it took, spawn to exit, in ms. */
export function timedCli(build, db, args) {
  const [file, ...rest] = onCore(SERVER_CORE, [process.execPath, build.bin, '--db', db, ...args])
  const started = performance.now()
  execFileSync(file, rest, { stdio: ['ignore', 'ignore', 'pipe'] })
  return Math.round(performance.now() - started)
}

/** The `serve` command line on the server core and how start() recognises it is listening. */
export const serveArgs = (build, db, extra = []) => ({
  args: onCore(SERVER_CORE, [process.execPath, build.bin, '--db', db, 'serve', '--port', '0', '--quiet', ...extra]),
  match: /listening on (http:\/\/\S+)/,
})

/** A fresh copy of a seeded database (without the writes of an earlier round). */
export function freshCopy(from, to) {
  for (const suffix of ['', '-wal', '-shm']) rmSync(to + suffix, { force: true })
  for (const suffix of ['', '-wal']) if (existsSync(from + suffix)) copyFileSync(from + suffix, to + suffix)
  return to
}

/** The database's size on disk, with its write-ahead log, in MB. */
export function dbSizeMb(db) {
  const size = ['', '-wal'].reduce((sum, suffix) => sum + (existsSync(db + suffix) ? statSync(db + suffix).size : 0), 0)
  return Math.round(size / 2 ** 20)
}
