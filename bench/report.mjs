// Markdown tables from a results file of bench/results/: what `npm run bench` prints at the end,
// and what `npm run bench -- --report [file…]` prints again (by default from the newest files),
// ready to paste into docs/performance.md.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ratioSpread, spread } from './stats.mjs'

const SCENARIO_TITLES = { item: 'GET one item', page: 'GET page of 20', all: 'GET all 1,000', post: 'POST create' }

/** Issue 21's targets, printed beside the measured figures; information, never a test. */
const TARGETS = {
  item: { text: '≥ 0.9× bare h3 + SQLite (or ≥ 0.5× node:http)', meets: (floor, ceiling) => floor >= 0.9 || ceiling >= 0.5 },
  page: { text: '≥ 0.9× bare h3 + SQLite', meets: (floor) => floor >= 0.9 },
  all: { text: '≥ 1.0× bare h3 + SQLite', meets: (floor) => floor >= 1 },
  post: { text: '≥ 0.8× bare h3 + SQLite', meets: (floor) => floor >= 0.8 },
  coldMs: { text: '≤ 1.3× bare h3 + SQLite', meets: (floor) => floor <= 1.3 },
}

const int = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–')
const ms = (n) => (!Number.isFinite(n) ? '–' : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : int(n))
const ratio = (n) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : '–')
const pct = (n) => (Number.isFinite(n) ? `${n.toFixed(1)} %` : '–')
const verdict = (ok) => (ok ? 'meets' : '**misses**')
/** "median (min–max)", or the median alone after a single round. */
function cell({ median, min, max }, format = int) {
  return min === max ? format(median) : `${format(median)} (${format(min)}–${format(max)})`
}
const of = (rounds, pick) => spread(rounds.map(pick))
const row = (cells) => `| ${cells.join(' | ')} |`

function header(results) {
  const m = results.machine
  return [
    `Run of ${results.when}: \`${results.command}\`, ${m.cpus} × ${m.model}, ${m.memGiB} GiB, Node ${m.node}, load average before the run ${m.loadAverage}.`,
    `${results.pinning}; ${results.load}, ${results.seconds} s per window; ${results.rounds} round${results.rounds === 1 ? '' : 's'}: each cell is the median with the lowest and highest round in brackets.`,
  ]
}

function comparison(results) {
  const cells = results.compare
  const names = Object.keys(cells)
  const lines = ['', '#### Requests per second (same 1,000 posts of 311 B in every server)', '',
    row(['server', ...Object.values(SCENARIO_TITLES), 'cold start, ms', 'RSS MB']), row(['---', ...Array(6).fill('---:')])]
  for (const name of names) {
    const rounds = cells[name].rounds
    lines.push(row([cells[name].role === 'mockapi' ? `**${name}**` : name, ...Object.keys(SCENARIO_TITLES).map((key) => cell(of(rounds, (r) => r[key].rps))), cell(of(rounds, (r) => r.coldMs)), cell(of(rounds, (r) => r.rssMb))]))
  }
  lines.push('', '#### p99 latency, ms', '', row(['server', ...Object.values(SCENARIO_TITLES)]), row(['---', ...Array(4).fill('---:')]))
  for (const name of names) lines.push(row([name, ...Object.keys(SCENARIO_TITLES).map((key) => cell(of(cells[name].rounds, (r) => r[key].p99), ms))]))
  const errors = names.flatMap((name) => Object.keys(SCENARIO_TITLES).map((key) => [name, key, cells[name].rounds.reduce((sum, r) => sum + r[key].errors, 0)])).filter(([, , n]) => n > 0)
  if (errors.length) lines.push('', `Errors (non-2xx or socket) counted by the load generator: ${errors.map(([name, key, n]) => `${name} ${SCENARIO_TITLES[key]} ${n}`).join('; ')}.`)

  const floor = names.find((name) => cells[name].role === 'floor')
  const ceiling = names.find((name) => cells[name].role === 'ceiling')
  for (const name of names.filter((n) => cells[n].role === 'mockapi')) {
    lines.push('', `#### ${name}: ratios, taken within each round, then the median (lowest–highest round)`, '',
      row(['scenario', '÷ bare h3 + SQLite', '÷ node:http', 'target (issue 21)', '']), row(['---', '---:', '---:', '---', '---']))
    for (const key of [...Object.keys(SCENARIO_TITLES), 'coldMs']) {
      const pick = (r) => (key === 'coldMs' ? r.coldMs : r[key].rps)
      const values = (n) => cells[n].rounds.map(pick)
      const vsFloor = ratioSpread(values(name), values(floor))
      const vsCeiling = ratioSpread(values(name), values(ceiling))
      lines.push(row([key === 'coldMs' ? 'cold start (time: lower is better)' : SCENARIO_TITLES[key], cell(vsFloor, ratio), cell(vsCeiling, ratio), TARGETS[key].text, verdict(TARGETS[key].meets(vsFloor.median, vsCeiling.median))]))
    }
  }
  const [first, ...others] = names.filter((n) => cells[n].role === 'mockapi')
  for (const other of others) {
    lines.push('', `#### ${first} ÷ ${other} (this checkout ÷ the other build), taken within each round`, '', row(['scenario', 'ratio']), row(['---', '---:']))
    for (const key of [...Object.keys(SCENARIO_TITLES), 'coldMs']) {
      const values = (n) => cells[n].rounds.map((r) => (key === 'coldMs' ? r.coldMs : r[key].rps))
      lines.push(row([key === 'coldMs' ? 'cold start (time: lower is better)' : `${SCENARIO_TITLES[key]} (req/s)`, cell(ratioSpread(values(first), values(other)), ratio)]))
    }
  }
  return lines
}

function scenarios(results) {
  const lines = []
  for (const [name, rounds] of Object.entries(results.scenarios)) {
    const s = (pick, format) => cell(of(rounds, pick), format)
    const filteredP99 = of(rounds, (r) => r.big.filtered.p99).median
    lines.push('', `#### ${name}: the other scenarios`, '', row(['scenario', 'measured', 'target (issue 21)', '']), row(['---', '---:', '---', '---']),
      row(['filtered + sorted page over 100,000 (`' + results.queries.filtered + '`), 50 connections: p99 ms', s((r) => r.big.filtered.p99, ms), '≤ 10 ms', verdict(filteredP99 <= 10)]),
      row(['  the same: req/s', s((r) => r.big.filtered.rps), '', '']),
      row(['  its first request (builds the field indexes), ms', s((r) => r.big.filteredFirstMs), '', '']),
      row(['operators + `q` page over 100,000 (`' + results.queries.operatorsAndQ + '`): req/s', s((r) => r.big.operatorsAndQ.rps), '', '']),
      row(['  the same: p99 ms', s((r) => r.big.operatorsAndQ.p99, ms), '', '']),
      row(['one active subscription: share of GET one item lost', s((r) => r.subscription.costPct, pct), '≤ 25 %', verdict(of(rounds, (r) => r.subscription.costPct).median <= 25)]),
      row(['  GET one item without / with the subscription, req/s', `${s((r) => r.subscription.plain.rps)} / ${s((r) => r.subscription.hooked.rps)}`, '', '']),
      row(['webhook deliveries to a local receiver, per second', s((r) => r.subscription.deliveriesPerSecond), '≥ 2,000/s', verdict(of(rounds, (r) => r.subscription.deliveriesPerSecond).median >= 2000)]),
      row(['request journal: share of GET one item lost', s((r) => r.journal.costPct, pct), '≤ 10 %', verdict(of(rounds, (r) => r.journal.costPct).median <= 10)]),
      row(['  journal: extra CPU per request', s((r) => r.journal.cpuCostPct, pct), '', '']),
      row(['`mockapi reset` of 100,000 records, spawn to exit, ms', s((r) => r.big.resetMs), '≤ 1,000 ms', verdict(of(rounds, (r) => r.big.resetMs).median <= 1000)]),
      row(['  the same once the pages above built their field and text indexes, ms', s((r) => r.big.resetAfterSearchMs), '≤ 1,000 ms', verdict(of(rounds, (r) => r.big.resetAfterSearchMs).median <= 1000)]),
      row(['`mockapi apply` of a project generating 100,000 records, spawn to exit, ms', s((r) => r.applyMs), '≤ 5,000 ms', verdict(of(rounds, (r) => r.applyMs).median <= 5000)]),
    )
  }
  return lines
}

function journal(results) {
  const lines = []
  for (const [name, pairs] of Object.entries(results.journal)) {
    const s = (pick, format) => cell(of(pairs, pick), format)
    lines.push('', `#### ${name}: the request journal, GET one item on and off (\`--journal 0\`), fresh serves, alternating`, '',
      row(['', 'journal on', 'journal off', 'cost']), row(['---', '---:', '---:', '---:']),
      row(['req/s', s((p) => p.on.rps), s((p) => p.off.rps), s((p) => p.costPct, pct)]),
      row(['CPU per request, µs', s((p) => p.on.cpuUs), s((p) => p.off.cpuUs), s((p) => p.cpuCostPct, pct)]))
  }
  return lines
}

function scaleTable(results) {
  const lines = ['', '#### Scale: one collection of n posts (311 B each), mockapi alone', '',
    row(['build', 'records', 'DB MB', 'import, ms', 'GET one item', 'GET page of 20', 'filtered + sorted page', '  its p99, ms', 'POST create', '`reset`, ms', 'RSS MB']),
    row(['---', ...Array(10).fill('---:')])]
  for (const r of results.scale) {
    const s = (pick, format) => cell(of(r.rounds, pick), format)
    lines.push(row([r.build, int(r.records), int(r.dbMb), int(r.importMs), s((x) => x.item.rps), s((x) => x.page.rps), s((x) => x.filtered.rps), s((x) => x.filtered.p99, ms), s((x) => x.post.rps), s((x) => x.resetMs), s((x) => x.rssMb)]))
  }
  const errors = results.scale.flatMap((r) => ['item', 'page', 'filtered', 'post'].map((key) => [r, key, r.rounds.reduce((sum, x) => sum + x[key].errors, 0)])).filter(([, , n]) => n > 0)
  if (errors.length) lines.push('', `Errors (non-2xx or socket) counted by the load generator: ${errors.map(([r, key, n]) => `${r.build} at ${int(r.records)} records, ${key} ${n}`).join('; ')}.`)
  return lines
}

/** The markdown of one results object. */
export function report(results) {
  return [
    ...header(results),
    ...(results.compare ? comparison(results) : []),
    ...(results.scenarios ? scenarios(results) : []),
    ...(results.journal ? journal(results) : []),
    ...(results.scale ? scaleTable(results) : []),
  ].join('\n')
}

/** The newest results file of each kind in `dir` (the names sort by time). */
export function newestResults(dir) {
  const files = readdirSync(dir).filter((f) => /^(bench|scale|journal)-.*\.json$/.test(f)).sort()
  const newest = new Map(files.map((f) => [f.split('-')[0], f]))
  return [...newest.values()].map((f) => join(dir, f))
}

export const readResults = (file) => JSON.parse(readFileSync(file, 'utf8'))
