// The scenarios beyond the comparison, per mockapi build and per round, measured the same way
// (server core, load core, warm-up, window): a filtered + sorted page over 100,000 posts, what one
// active subscription costs and how fast its deliveries drain, what the request journal costs,
// `reset` of 100,000 records and `apply` of a project that generates 100,000.
import { join } from 'node:path'
import { rmSync, writeFileSync } from 'node:fs'
import { FILTERED, ITEM_ID, OPERATORS_AND_Q } from './posts.mjs'
import { cli, freshCopy, serveArgs, timedCli } from './mockapi.mjs'
import { cpuMs, rssMb, start, verify } from './processes.mjs'
import { measure } from './load.mjs'

const DRAIN_SECONDS = 5
export const BIG = 100_000

/** Seeds what the scenarios read: 100,000 posts, and two projects of 1,000 (one subscribed to the receiver). */
export function seedScenarios(build, dir, { dbJson, bigDbJson, receiverUrl }) {
  const big = join(dir, `big-${build.key}.db`)
  cli(build, big, ['init', '--yes', '--name', 'Big', '--slug', 'big', '--path-rules', 'off'])
  cli(build, big, ['import', bigDbJson, '--project', 'big'])
  const hooked = join(dir, `hooked-${build.key}.db`)
  cli(build, hooked, ['init', '--yes', '--name', 'Plain', '--slug', 'plain', '--path-rules', 'off'])
  cli(build, hooked, ['import', dbJson, '--project', 'plain'])
  cli(build, hooked, ['project', 'create', 'Hooked', '--slug', 'hooked'])
  cli(build, hooked, ['project', 'set', 'hooked', '--path-rules', 'off'])
  cli(build, hooked, ['import', dbJson, '--project', 'hooked'])
  cli(build, hooked, ['webhooks', 'add', `${receiverUrl}/hook`, '--events', 'mock.request', '--project', 'hooked'])
  const generated = join(dir, 'generated.yaml')
  writeFileSync(generated, [
    'name: Generated', 'slug: generated', 'pathRules: off', 'resources:', '  - path: /posts',
    `    fields: { userId: 'number.int({"min":1,"max":100})', title: lorem.sentence, body: lorem.paragraph, status: 'helpers.arrayElement(["published","draft","archived"])', views: 'number.int({"max":999})', createdAt: date.past }`,
    `    count: ${BIG}`, '    seed: 1', '',
  ].join('\n'))
  return { big, hooked, generated }
}

const received = (receiverUrl) => fetch(`${receiverUrl}/count`).then((r) => r.text()).then(Number)

/** GET one item on a project without and with an active subscription, in one serve; then how fast the backlog drains. */
async function subscription(build, seeded, run, { seconds, receiverUrl }) {
  const serve = serveArgs(build, freshCopy(seeded.hooked, join(run, 'hooked.db')))
  const server = await start(serve.args, serve)
  try {
    const plainUrl = `${server.url}/api/plain/posts/${ITEM_ID}`
    const hookedUrl = `${server.url}/api/hooked/posts/${ITEM_ID}`
    await verify(build.name, [plainUrl, hookedUrl].map((url) => ({ url, ok: (status) => status === 200 })))
    const plain = await measure(plainUrl, { seconds })
    const hooked = await measure(hookedUrl, { seconds })
    // The load left a backlog of events; with nothing else running, count what reaches the receiver.
    const before = await received(receiverUrl)
    const started = performance.now()
    await new Promise((resolve) => setTimeout(resolve, DRAIN_SECONDS * 1000))
    const deliveriesPerSecond = Math.round(((await received(receiverUrl)) - before) / ((performance.now() - started) / 1000))
    return { plain, hooked, costPct: 100 * (1 - hooked.rps / plain.rps), deliveriesPerSecond }
  } finally {
    await server.stop()
  }
}

/**
 * GET one item with the journal on (the default) and off (`--journal 0`), each in a fresh serve;
 * which goes first alternates with the round, so neither always meets the machine first.
 */
export async function journalPair(build, db, run, { seconds, log, round = 0 }) {
  const out = {}
  for (const mode of round % 2 ? ['off', 'on'] : ['on', 'off']) {
    const serve = serveArgs(build, freshCopy(db, join(run, 'journal.db')), mode === 'off' ? ['--journal', '0'] : [])
    const server = await start(serve.args, serve)
    try {
      let cpuBefore = 0
      const result = await measure(`${server.url}/posts/${ITEM_ID}`, { seconds, afterWarmUp: () => (cpuBefore = cpuMs(server.pid)) })
      out[mode] = { ...result, cpuUs: Math.round((1000 * (cpuMs(server.pid) - cpuBefore)) / (result.rps * seconds)) }
    } finally {
      await server.stop()
    }
  }
  log(`  ${build.short} journal on ${out.on.rps} req/s ${out.on.cpuUs} µs CPU, off ${out.off.rps} req/s ${out.off.cpuUs} µs CPU`)
  return { ...out, costPct: 100 * (1 - out.on.rps / out.off.rps), cpuCostPct: 100 * (out.on.cpuUs / out.off.cpuUs - 1) }
}

/**
 * `reset` of 100,000 records as seeded, then the filtered + sorted page and the operators + q page
 * over them, then `reset` again: the pages' first requests built field and text indexes, which a
 * reset rebuilds too.
 */
async function bigPages(build, seeded, run, { seconds }) {
  const db = freshCopy(seeded.big, join(run, 'big.db'))
  const out = { resetMs: timedCli(build, db, ['reset', '--project', 'big']) }
  const serve = serveArgs(build, db)
  const server = await start(serve.args, serve)
  try {
    // The first filtered request of a large collection builds its field indexes (once): timed alone.
    for (const [key, query] of [['filtered', FILTERED], ['operatorsAndQ', OPERATORS_AND_Q]]) {
      const first = performance.now()
      const response = await fetch(`${server.url}/posts?${query}`)
      await response.arrayBuffer()
      if (response.status !== 200) throw new Error(`${build.name}: ${response.status} from /posts?${query}`)
      out[`${key}FirstMs`] = Math.round(performance.now() - first)
      out[key] = await measure(`${server.url}/posts?${query}`, { seconds })
    }
    out.rssMb = rssMb(server.pid)
  } finally {
    await server.stop()
  }
  out.resetAfterSearchMs = timedCli(build, db, ['reset', '--project', 'big'])
  return out
}

/** One round of every scenario for one build. */
export async function scenarioRound(build, seeded, run, options) {
  const subscribed = await subscription(build, seeded, run, options)
  const journal = await journalPair(build, seeded.plain, run, options)
  const big = await bigPages(build, seeded, run, options)
  const applyDb = join(run, 'apply.db')
  for (const suffix of ['', '-wal', '-shm']) rmSync(applyDb + suffix, { force: true })
  const applyMs = timedCli(build, applyDb, ['apply', seeded.generated])
  options.log(`  ${build.short}: subscription costs ${subscribed.costPct.toFixed(0)} %, ${subscribed.deliveriesPerSecond} deliveries/s, journal ${journal.costPct.toFixed(1)} %, filtered p99 ${big.filtered.p99} ms (${big.filtered.rps} req/s), reset ${big.resetMs} ms (${big.resetAfterSearchMs} ms once searched), apply ${applyMs} ms`)
  return { subscription: subscribed, journal, big, applyMs }
}
