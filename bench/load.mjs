// One load run against a URL: wrk when installed (two threads, so the load generator is not the
// bottleneck), autocannon otherwise. 50 connections, a warm-up, then a bounded window.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const CONNECTIONS = 50
export const hasWrk = spawnSync('wrk', ['--version']).error === undefined

function toMs(text) {
  const match = /([\d.]+)(us|ms|s)/.exec(text)
  if (!match) return NaN
  const value = Number(match[1])
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value
}

function wrk(url, { method = 'GET', body, seconds }) {
  const args = ['-t2', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency']
  if (method !== 'GET') {
    const script = join(mkdtempSync(join(tmpdir(), 'mockapi-wrk-')), 'post.lua')
    writeFileSync(script, `wrk.method = "${method}"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n`)
    args.push('-s', script)
  }
  const out = execFileSync('wrk', [...args, url], { encoding: 'utf8' })
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0)
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  return {
    rps: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1])),
    p50: toMs(/^\s+50%\s+(\S+)/m.exec(out)[1]),
    p99: toMs(/^\s+99%\s+(\S+)/m.exec(out)[1]),
    errors: non2xx + (socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0),
  }
}

async function autocannon(url, { method = 'GET', body, seconds }) {
  const { default: run } = await import('autocannon')
  const result = await run({ url, method, body, headers: body ? { 'content-type': 'application/json' } : {}, connections: CONNECTIONS, duration: seconds })
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx }
}

export async function measure(url, options = {}) {
  const seconds = options.seconds ?? 6
  const run = hasWrk ? wrk : autocannon
  await run(url, { ...options, seconds: 2 }) // warm-up
  options.afterWarmUp?.()
  return run(url, { ...options, seconds })
}
