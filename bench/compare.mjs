// The fair comparison: the same posts in every server, each server started fresh on the server
// core for every round, loaded from the other core: GET one item, a page of 20, every post, then
// POST create (last, so the GETs read the same 1,000 posts); and its cold start before that.
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mkdirSync, rmSync } from 'node:fs'
import { ITEM_ID, NEW_POST, PAGE } from './posts.mjs'
import { freshCopy, serveArgs } from './mockapi.mjs'
import { SERVER_CORE, onCore } from './pinning.mjs'
import { coldStart, rssMb, start, verify } from './processes.mjs'
import { measure } from './load.mjs'
import { median } from './stats.mjs'

const BENCH = fileURLToPath(new URL('.', import.meta.url))
const COLD_STARTS_PER_ROUND = 3
const listening = /listening on (http:\/\/\S+)/

/** The floor's work a layer lower (`--layers`): what h3, then srvx, cost under mockapi. */
const LAYERS = [
  { layer: 'srvx', name: 'bare srvx + better-sqlite3 (no h3)' },
  { layer: 'node', name: 'bare node:http + better-sqlite3 (no h3, no srvx)' },
]

/** The ceiling, the floor (and its layers), each mockapi build, then the peers: how to start each on fresh data. */
export function contenders({ dir, dbJson, builds, mockapiDb, peers, layers = false }) {
  const bareDb = join(dir, 'bare-h3.db')
  const node = [process.execPath]
  seedBare(bareDb, dbJson)
  const list = [
    { name: 'bare node:http, posts in memory', role: 'ceiling', page: '/posts?page=3&limit=20', launch: async () => ({ args: onCore(SERVER_CORE, [...node, join(BENCH, 'servers/bare-http.mjs'), dbJson]), match: listening }) },
    { name: 'bare h3 v2 + better-sqlite3', role: 'floor', page: '/posts?page=3&limit=20', launch: async (run) => ({ args: onCore(SERVER_CORE, [...node, join(BENCH, 'servers/bare-h3-sqlite.mjs'), freshCopy(bareDb, join(run, 'bare-h3.db'))]), match: listening }) },
    ...(layers ? LAYERS : []).map(({ layer, name }) => ({
      name, role: 'layer', page: '/posts?page=3&limit=20',
      launch: async (run) => ({ args: onCore(SERVER_CORE, [...node, join(BENCH, 'servers/layer-sqlite.mjs'), layer, freshCopy(bareDb, join(run, `layer-${layer}.db`))]), match: listening }),
    })),
    ...builds.map((build, index) => ({
      name: build.name, role: 'mockapi', build, page: '/posts?page=3&limit=20',
      launch: async (run) => serveArgs(build, freshCopy(mockapiDb[index], join(run, 'mockapi.db'))),
    })),
  ]
  for (const peer of peers) {
    const installed = peer.install()
    list.push({
      name: peer.label(installed.version), role: 'peer', page: peer.page, allHeaders: peer.allHeaders,
      launch: async (run) => {
        const how = await peer.prepare(installed, run, dbJson)
        return { ...how, args: onCore(SERVER_CORE, how.args), probe: `/posts/${ITEM_ID}` }
      },
    })
  }
  return list
}

function seedBare(db, dbJson) {
  for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true })
  execFileSync(process.execPath, [join(BENCH, 'servers/bare-h3-sqlite.mjs'), db, dbJson], { stdio: ['ignore', 'ignore', 'pipe'] })
}

const idIs = (body, id) => String(body?.id) === String(id)
const listOf = (body) => (Array.isArray(body) ? body : body?.data)

/** The checks each scenario's first request must pass, so no server is measured answering errors. */
function checks(url, contender, count) {
  return {
    gets: [
      { url: `${url}/posts/${ITEM_ID}`, ok: (status, body) => status === 200 && idIs(body, ITEM_ID) },
      { url: `${url}${contender.page}`, ok: (status, body) => status === 200 && listOf(body)?.length === PAGE.limit && idIs(listOf(body)[0], PAGE.firstId) },
      { url: `${url}/posts`, init: { headers: contender.allHeaders }, ok: (status, body) => status === 200 && listOf(body)?.length === count },
    ],
    post: [{ url: `${url}/posts`, init: { method: 'POST', body: NEW_POST, headers: { 'content-type': 'application/json' } }, ok: (status, body) => status >= 200 && status < 300 && body?.id !== undefined }],
  }
}

/** One round of one contender: its cold start (median of 3), then the four scenarios on a fresh start. */
async function round(contender, runDir, { seconds, count, log }) {
  mkdirSync(runDir, { recursive: true })
  const how = await contender.launch(runDir)
  const cold = []
  for (let i = 0; i < COLD_STARTS_PER_ROUND; i += 1) cold.push(await coldStart(how.args, `/posts/${ITEM_ID}`, how))
  const fresh = await contender.launch(runDir)
  const server = await start(fresh.args, fresh)
  const out = { coldMs: median(cold) }
  try {
    const check = checks(server.url, contender, count)
    await verify(contender.name, check.gets)
    out.item = await measure(`${server.url}/posts/${ITEM_ID}`, { seconds })
    out.page = await measure(`${server.url}${contender.page}`, { seconds })
    out.all = await measure(`${server.url}/posts`, { seconds, headers: contender.allHeaders })
    await verify(contender.name, check.post)
    out.post = await measure(`${server.url}/posts`, { seconds, method: 'POST', body: NEW_POST })
    out.rssMb = rssMb(server.pid)
  } finally {
    await server.stop()
    rmSync(runDir, { recursive: true, force: true })
  }
  log(`  ${contender.name}: item ${out.item.rps}, page ${out.page.rps}, all ${out.all.rps}, POST ${out.post.rps} req/s, cold start ${out.coldMs} ms, RSS ${out.rssMb} MB`)
  return out
}

/** Every contender once per round, in the same order, so a slow spell of the machine hits them all. */
export async function compare(list, { dir, rounds, seconds, count, log }) {
  const cells = Object.fromEntries(list.map((c) => [c.name, { role: c.role, commit: c.build?.commit, rounds: [] }]))
  for (let r = 0; r < rounds; r += 1) {
    log(`round ${r + 1} of ${rounds}`)
    for (const contender of list) cells[contender.name].rounds.push(await round(contender, join(dir, 'run'), { seconds, count, log }))
  }
  return cells
}
