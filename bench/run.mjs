#!/usr/bin/env node
// npm run bench [-- options]: mockapi against the bare stack it stands on, and against its peers,
// measured fairly (docs/performance.md, "Method"). Options:
//   --peers                 add json-server 1.0 and 0.17, Prism 5 and Mockoon CLI 9 to the comparison
//   --peer NAME             only the peers whose name contains NAME (repeatable; implies --peers)
//   --mockapi DIR           also measure the mockapi build in DIR (its bin/ and dist/; repeatable)
//   --compare | --scenarios only the comparison, or only the other scenarios (default: both)
//   --scale [--million]     only the scale axis: 1k, 10k, 100k (and 1M) records in one collection
//   --journal               only what the request journal costs
//   --layers                add the floor's work without h3, and without h3 and srvx, to the comparison
//   --rounds N              rounds (default 3, or BENCH_ROUNDS); BENCH_SECONDS shortens each window (default 6)
//   --report [FILE…]        print the markdown tables of results files again (default: the newest of each kind)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { LOAD_CORE, onCore, pinNote, pinSelf } from './pinning.mjs'
import { loadNote } from './load.mjs'
import { FILTERED, OPERATORS_AND_Q, writeDbJson } from './posts.mjs'
import { builds as mockapiBuilds, seedMockapi } from './mockapi.mjs'
import { compare, contenders } from './compare.mjs'
import { PEERS } from './peers.mjs'
import { BIG, journalPair, scenarioRound, seedScenarios } from './scenarios.mjs'
import { scale } from './scale.mjs'
import { start } from './processes.mjs'
import { newestResults, readResults, report } from './report.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const RESULTS = join(ROOT, 'bench/results')
const POSTS = 1_000

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    peers: { type: 'boolean' }, peer: { type: 'string', multiple: true }, mockapi: { type: 'string', multiple: true },
    compare: { type: 'boolean' }, scenarios: { type: 'boolean' }, scale: { type: 'boolean' }, million: { type: 'boolean' },
    journal: { type: 'boolean' }, layers: { type: 'boolean' }, rounds: { type: 'string' }, report: { type: 'boolean' },
  },
})

if (flags.report) {
  for (const file of positionals.length ? positionals : newestResults(RESULTS)) console.log(`<!-- ${file} -->\n${report(readResults(file))}\n`)
  process.exit(0)
}

const rounds = Number(flags.rounds ?? process.env.BENCH_ROUNDS ?? 3)
const seconds = Number(process.env.BENCH_SECONDS ?? 6)
if (!(rounds >= 1) || !(seconds >= 1)) throw new Error('--rounds and BENCH_SECONDS must be at least 1')
const log = (line) => console.error(line)

pinSelf()
const builds = mockapiBuilds(ROOT, flags.mockapi ?? [])
const wantedPeers = flags.peer?.length ? PEERS.filter((p) => flags.peer.some((name) => p.name.toLowerCase().includes(name.toLowerCase()))) : flags.peers ? PEERS : []
const kind = flags.scale ? 'scale' : flags.journal ? 'journal' : 'bench'
const when = new Date().toISOString()
const results = {
  kind, when, command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim().replace(/ --$/, ''),
  machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'cpu', memGiB: Math.round(totalmem() / 2 ** 30), node: process.version, loadAverage: loadavg().map((n) => n.toFixed(2)).join(' ') },
  pinning: pinNote, load: loadNote, seconds, rounds, posts: POSTS, queries: { filtered: FILTERED, operatorsAndQ: OPERATORS_AND_Q },
  builds: builds.map(({ name, commit, root }) => ({ name, commit, root })),
}
log(`mockapi bench: ${pinNote}; ${loadNote}, ${seconds} s windows, ${rounds} rounds; builds: ${builds.map((b) => b.name).join(', ')}`)

const dir = mkdtempSync(join(tmpdir(), 'mockapi-bench-'))
mkdirSync(join(dir, 'run'))
const stops = []
try {
  const dbJson = join(dir, 'posts.json')
  await writeDbJson(dbJson, POSTS)
  const plainDb = builds.map((build) => {
    const db = join(dir, `posts-${build.key}.db`)
    seedMockapi(build, db, dbJson)
    return db
  })

  if (kind === 'scale') {
    results.scale = await scale(builds, { dir, rounds, seconds, million: flags.million, log })
  } else if (kind === 'journal') {
    results.journal = Object.fromEntries(builds.map((b) => [b.name, []]))
    for (let r = 0; r < rounds; r += 1) {
      for (const [index, build] of builds.entries()) results.journal[build.name].push(await journalPair(build, plainDb[index], join(dir, 'run'), { seconds, log, round: r }))
    }
  } else {
    const both = !flags.compare && !flags.scenarios
    if (flags.compare || both) {
      const list = contenders({ dir, dbJson, builds, mockapiDb: plainDb, peers: wantedPeers, layers: flags.layers })
      results.compare = await compare(list, { dir, rounds, seconds, count: POSTS, log })
    }
    if (flags.scenarios || both) {
      // The comparison removes its run folder when it ends; the scenarios copy their databases into it.
      mkdirSync(join(dir, 'run'), { recursive: true })
      log(`seeding ${BIG.toLocaleString('en-US')} posts and the subscribed project for each build`)
      const receiver = await start(onCore(LOAD_CORE, [process.execPath, join(ROOT, 'bench/servers/receiver.mjs')]), { match: /listening on (http:\/\/\S+)/ })
      stops.push(receiver.stop)
      const bigDbJson = join(dir, `posts-${BIG}.json`)
      await writeDbJson(bigDbJson, BIG)
      const seeded = builds.map((build, index) => ({ ...seedScenarios(build, dir, { dbJson, bigDbJson, receiverUrl: receiver.url }), plain: plainDb[index] }))
      results.scenarios = Object.fromEntries(builds.map((b) => [b.name, []]))
      for (let r = 0; r < rounds; r += 1) {
        log(`scenarios, round ${r + 1} of ${rounds}`)
        for (const [index, build] of builds.entries()) {
          results.scenarios[build.name].push(await scenarioRound(build, seeded[index], join(dir, 'run'), { seconds, receiverUrl: receiver.url, log, round: r }))
        }
      }
    }
  }

  mkdirSync(RESULTS, { recursive: true })
  const file = join(RESULTS, `${kind}-${when.replace(/[:.]/g, '-')}.json`)
  writeFileSync(file, JSON.stringify(results, null, 2))
  console.log(`${report(results)}\n\n(written to ${file}; \`npm run bench -- --report\` prints these tables again)`)
} finally {
  for (const stop of stops) await stop()
  rmSync(dir, { recursive: true, force: true })
}
