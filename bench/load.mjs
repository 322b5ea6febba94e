// One load run against a URL: wrk on the load generator's core (one thread, which one core can
// hold), autocannon when wrk is not installed. 50 connections, a 2 s warm-up, then the window.
import { execFile, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { LOAD_CORE, onCore } from './pinning.mjs'

const CONNECTIONS = 50
const WARM_UP_SECONDS = 2
const hasWrk = spawnSync('wrk', ['--version']).error === undefined
export const loadNote = `${hasWrk ? 'wrk, 1 thread' : 'autocannon (wrk not found)'}, ${CONNECTIONS} connections, ${WARM_UP_SECONDS} s warm-up`
const run = promisify(execFile)

function toMs(text) {
  const match = /([\d.]+)(us|ms|s)/.exec(text)
  if (!match) return NaN
  const value = Number(match[1])
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value
}

async function wrk(url, { method = 'GET', body, headers = {}, seconds }) {
  // A 10 s timeout (wrk's default is 2 s): a server slower than that under 50 connections is measured, not counted as 0 req/s.
  const args = ['wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--timeout', '10s', '--latency']
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`)
  let scriptDir
  if (method !== 'GET') {
    scriptDir = mkdtempSync(join(tmpdir(), 'mockapi-wrk-'))
    const script = join(scriptDir, 'request.lua')
    writeFileSync(script, `wrk.method = "${method}"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n`)
    args.push('-s', script)
  }
  try {
    const [file, ...rest] = onCore(LOAD_CORE, [...args, url])
    const { stdout: out } = await run(file, rest, { encoding: 'utf8', maxBuffer: 1 << 20 })
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0)
    const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
    return {
      rps: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1])),
      p50: toMs(/^\s+50%\s+(\S+)/m.exec(out)[1]),
      p99: toMs(/^\s+99%\s+(\S+)/m.exec(out)[1]),
      errors: non2xx + (socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
    }
  } finally {
    if (scriptDir) rmSync(scriptDir, { recursive: true, force: true })
  }
}

async function autocannon(url, { method = 'GET', body, headers = {}, seconds }) {
  const { default: load } = await import('autocannon')
  const result = await load({ url, method, body, headers: body ? { ...headers, 'content-type': 'application/json' } : headers, connections: CONNECTIONS, duration: seconds })
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx }
}

/** Warm-up, then `seconds` of load; `afterWarmUp` runs between the two (to read a counter). */
export async function measure(url, options) {
  const load = hasWrk ? wrk : autocannon
  await load(url, { ...options, seconds: WARM_UP_SECONDS })
  options.afterWarmUp?.()
  return load(url, options)
}
