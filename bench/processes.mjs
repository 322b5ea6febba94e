// Starting, probing and stopping the measured servers, and what /proc says about them.
import { spawn } from 'node:child_process'
import { createServer as createNetServer } from 'node:net'
import { readFileSync } from 'node:fs'

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const answers = (url, headers) => fetch(url, { headers, signal: AbortSignal.timeout(2000) }).then(async (r) => (await r.arrayBuffer(), r.ok), () => false)

/**
 * Spawns a server and resolves once it is ready: when its output matches `match` (the URL is the
 * first group unless `url` is given), or else when `probe` (a path under `url`) answers 2xx.
 */
export function start(args, { match, url, probe, headers, cwd, env = {} }) {
  const child = spawn(args[0], args.slice(1), { cwd, env: { ...process.env, ...env }, stdio: ['ignore', match ? 'pipe' : 'ignore', match ? 'pipe' : 'ignore'] })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const server = (found) => ({
    url: found, pid: child.pid,
    stop: async () => {
      child.kill('SIGTERM')
      if (await Promise.race([exited.then(() => true), sleep(5000)]) !== true) {
        child.kill('SIGKILL')
        await exited
      }
    },
  })
  return new Promise((resolve, reject) => {
    let out = ''
    let done = false
    child.on('exit', (code) => !done && reject(new Error(`${args.join(' ')} exited (${code}):\n${out.slice(-2000)}`)))
    if (match) {
      const onData = (chunk) => {
        out += chunk
        const found = match.exec(out)
        if (!found || done) return
        done = true
        // Keep draining: a server that logs would otherwise block on a full pipe.
        child.stdout.on('data', () => {})
        resolve(server(url ?? found[1]))
      }
      child.stdout.on('data', onData)
      child.stderr.on('data', (chunk) => (out += chunk))
      return
    }
    const deadline = Date.now() + 60_000
    const poll = async () => {
      while (!done && !(await answers(`${url}${probe}`, headers))) {
        if (Date.now() > deadline) {
          child.kill('SIGKILL')
          return reject(new Error(`${args.join(' ')} did not answer ${url}${probe} within 60 s`))
        }
        await sleep(20)
      }
      if (!done) {
        done = true
        resolve(server(url))
      }
    }
    poll()
  })
}

/** Spawn to the first 2xx answer of `path`, in ms. */
export async function coldStart(args, path, options) {
  const started = performance.now()
  const server = await start(args, options)
  const response = await fetch(`${server.url}${path}`, { headers: options.headers })
  await response.arrayBuffer()
  const ms = performance.now() - started
  await server.stop()
  if (!response.ok) throw new Error(`cold start of ${args.join(' ')} answered ${response.status}`)
  return Math.round(ms)
}

export function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024)
}

/** CPU time (user + system) a process has used, in ms: a cost the other loads of a shared machine disturb less than throughput. */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  // utime and stime, fields 14 and 15 of stat, in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10
}

export function freePort() {
  return new Promise((resolve) => {
    const probe = createNetServer()
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
}

/** One request per scenario before loading it, so a misconfigured server cannot post fast 404s. */
export async function verify(label, checks) {
  for (const { url, init, ok } of checks) {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) })
    const body = await response.json().catch(() => null)
    if (!ok(response.status, body)) throw new Error(`${label}: unexpected ${response.status} from ${init?.method ?? 'GET'} ${url}: ${JSON.stringify(body)?.slice(0, 200)}`)
  }
}
