// The scale axis (`npm run bench -- --scale`, `--million` adds 1,000,000): how GET one item, a page,
// the filtered + sorted page, POST and `reset` cost as one collection grows, with the serve's RSS
// and the database's size, per mockapi build, measured like the comparison.
import { join } from 'node:path'
import { FILTERED, ITEM_ID, NEW_POST, writeDbJson } from './posts.mjs'
import { dbSizeMb, freshCopy, seedMockapi, serveArgs, timedCli } from './mockapi.mjs'
import { rssMb, start, verify } from './processes.mjs'
import { measure } from './load.mjs'

const scaleSizes = (million) => [1_000, 10_000, 100_000, ...(million ? [1_000_000] : [])]

async function scaleRound(build, seededDb, run, count, { seconds }) {
  const db = freshCopy(seededDb, join(run, 'scale.db'))
  const serve = serveArgs(build, db)
  const server = await start(serve.args, serve)
  const item = Math.min(ITEM_ID, count)
  const out = {}
  try {
    await verify(build.name, [{ url: `${server.url}/posts/${item}`, ok: (status) => status === 200 }])
    out.item = await measure(`${server.url}/posts/${item}`, { seconds })
    out.page = await measure(`${server.url}/posts?page=3&limit=20`, { seconds })
    const first = performance.now()
    await fetch(`${server.url}/posts?${FILTERED}`).then((r) => r.arrayBuffer())
    out.filteredFirstMs = Math.round(performance.now() - first)
    out.filtered = await measure(`${server.url}/posts?${FILTERED}`, { seconds })
    out.post = await measure(`${server.url}/posts`, { seconds, method: 'POST', body: NEW_POST })
    out.rssMb = rssMb(server.pid)
  } finally {
    await server.stop()
  }
  // Reset puts back the seeded posts, dropping the POSTed ones.
  out.resetMs = timedCli(build, db, ['reset', '--project', 'bench'])
  return out
}

/** Every size, every build, `rounds` rounds each; the seeded databases are made once per size. */
export async function scale(builds, { dir, rounds, seconds, million, log }) {
  const rows = []
  for (const count of scaleSizes(million)) {
    const dbJson = join(dir, `posts-${count}.json`)
    await writeDbJson(dbJson, count)
    for (const build of builds) {
      const seeded = join(dir, `scale-${count}-${build.key}.db`)
      const importStarted = performance.now()
      seedMockapi(build, seeded, dbJson)
      const row = { build: build.name, commit: build.commit, records: count, importMs: Math.round(performance.now() - importStarted), dbMb: dbSizeMb(seeded), rounds: [] }
      for (let r = 0; r < rounds; r += 1) {
        const result = await scaleRound(build, seeded, join(dir, 'run'), count, { seconds })
        log(`  ${build.short}, ${count} records, round ${r + 1}: item ${result.item.rps}, page ${result.page.rps}, filtered ${result.filtered.rps} (p99 ${result.filtered.p99} ms), POST ${result.post.rps} req/s, reset ${result.resetMs} ms, RSS ${result.rssMb} MB`)
        row.rounds.push(result)
      }
      rows.push(row)
    }
  }
  return rows
}
