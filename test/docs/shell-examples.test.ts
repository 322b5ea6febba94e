import { afterAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, symlinkSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { BIN, ROOT, tempDir } from '../_helpers.ts'

/**
 * Every ```sh block of README.md, then CONTRIBUTING.md, then docs/*.md in alphabetical order, run as
 * written as one session against one fresh database, the way a newcomer would: a block may rely on
 * what an earlier one made (the tour's project `shop`). In a new folder (with the clone's `fixtures/`
 * beside it), `npx mockapi` and `mockapi` meaning this checkout's CLI, `serve` kept running in the
 * background until the next `serve` (as a second terminal would), and curl's answers checked: a 4xx
 * or 5xx must be one the line's own comment announces. What the docs test does not run, and why:
 * - `npm install`, `npm ci`, `npm link`, `npm i`, `npm test`, `npm run …` and `.ci/run`: the install
 *   and the test suite are what runs this test; benchmarks take minutes.
 * - `docker`: no Docker engine on every machine (`.ci/run` builds the image where there is one).
 * Ports: 3000 and 50051 when free, else free ones, written into the commands in their place.
 * After each command it waits the 50 ms a change takes to reach a running serve, as typing would.
 */

const DOC_FILES = ['README.md', 'CONTRIBUTING.md', ...(existsSync(join(ROOT, 'docs')) ? readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`) : [])]
  .filter((file) => existsSync(join(ROOT, file)))

interface Block {
  file: string
  line: number
  text: string
}

function shellBlocks(file: string): Block[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n')
  const blocks: Block[] = []
  let open: { line: number; body: string[] } | null = null
  lines.forEach((line, index) => {
    if (open === null && /^```sh\s*$/.test(line)) open = { line: index + 2, body: [] }
    else if (open !== null && /^```\s*$/.test(line)) {
      blocks.push({ file, line: open.line, text: open.body.join('\n') })
      open = null
    } else open?.body.push(line)
  })
  return blocks
}

function freePort(preferred: number): Promise<number> {
  const listen = (port: number) => new Promise<number | null>((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(null))
    // The port is read before closing: a closed server has no address.
    server.listen(port, '127.0.0.1', () => {
      const bound = (server.address() as { port: number }).port
      server.close(() => resolve(bound))
    })
  })
  return listen(preferred).then((port) => port ?? listen(0).then((any) => any!))
}

const PRELUDE = String.raw`
set -o pipefail
mockapi() {
  local command=""
  for arg in "$@"; do case "$arg" in --db|--project) ;; -*) ;; *) command="$arg"; break ;; esac; done
  if [ "$command" = serve ]; then start_serve "$@"; return; fi
  local status=0
  node "$BIN" "$@" || status=$?
  # A change reaches a running serve within 50 ms (as documented); a person typing the next line takes longer.
  if [ -f "$STATE/serve.pid" ]; then sleep 0.06; fi
  return $status
}
npx() { if [ "$1" = mockapi ]; then shift; mockapi "$@"; else command npx "$@"; fi; }
npm() { case "$1" in install|ci|link|i|test|run) echo "(docs test: npm $* is not run here)" ;; *) command npm "$@" ;; esac; }
.ci/run() { echo "(docs test: .ci/run is not run here)"; }
docker() { echo "(docs test: docker $1 is not run here)"; }
curl() {
  local streaming=0 status=0
  for arg in "$@"; do [ "$arg" = -N ] && streaming=1; done
  if [ $streaming = 1 ]; then
    # A stream does not end by itself: once its headers are in, it has answered, and it is stopped
    # as Ctrl-C would stop it. One that sends no headers within 10 s fails.
    local headers="$STATE/stream.headers" code=""
    : > "$headers"
    command curl -sS -D "$headers" "$@" &
    local pid=$!
    for _ in $(seq 1 400); do grep -q $'^\r$' "$headers" && break; kill -0 $pid 2>/dev/null || break; sleep 0.025; done
    if kill -0 $pid 2>/dev/null; then kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; else wait $pid || status=$?; fi
    code=$(head -n 1 "$headers" | cut -d ' ' -f 2)
    [ -n "$code" ] || { echo "(docs test: the stream sent no headers)"; code=000; status=1; }
    printf '\n[docs-test curl %s %s]\n' "$code" "$*"
    return $status
  fi
  command curl -sS --max-time 20 -w "\n[docs-test curl %{http_code} $*]\n" "$@"
}
start_serve() {
  if [ -f "$STATE/serve.pid" ]; then kill "$(cat "$STATE/serve.pid")" 2>/dev/null || true; while kill -0 "$(cat "$STATE/serve.pid")" 2>/dev/null; do sleep 0.05; done; fi
  local log="$STATE/serve.log"
  : > "$log"
  node "$BIN" "$@" >> "$log" 2>&1 &
  echo $! > "$STATE/serve.pid"
  for _ in $(seq 1 300); do
    grep -q "Ctrl-C to stop" "$log" && { echo "(docs test: serve running in the background)"; return 0; }
    kill -0 "$(cat "$STATE/serve.pid")" 2>/dev/null || { cat "$log"; return 1; }
    sleep 0.05
  done
  cat "$log"; return 1
}
set -e
`

const work = tempDir()
const state = tempDir()
symlinkSync(join(ROOT, 'fixtures'), join(work, 'fixtures'))

afterAll(() => {
  const pid = existsSync(join(state, 'serve.pid')) ? Number(readFileSync(join(state, 'serve.pid'), 'utf8')) : null
  if (pid) {
    try {
      process.kill(pid, 'SIGTERM')
    } catch {
      // already gone
    }
  }
})

describe('the shell examples of the docs', { timeout: 120_000 }, () => {
  it('run in order, as written, on a fresh database, and answer what their comments say', async () => {
    const port = await freePort(3000)
    const grpcPort = await freePort(50051)
    const blocks = DOC_FILES.flatMap(shellBlocks)
    expect(blocks.length).toBeGreaterThan(5)
    for (const block of blocks) {
      const text = block.text.replaceAll(':3000', `:${port}`).replaceAll(':50051', `:${grpcPort}`)
      const result = spawnSync('bash', ['-c', `${PRELUDE}\n${text}`], {
        cwd: work,
        encoding: 'utf8',
        timeout: 90_000,
        env: { ...process.env, BIN, STATE: state, FORCE_COLOR: '0', NO_COLOR: '1', MOCKAPI_PORT: String(port), MOCKAPI_GRPC_PORT: String(grpcPort) },
      })
      const where = `${block.file}:${block.line}\n${text}\n--- output ---\n${result.stdout}\n${result.stderr}`
      expect(result.status, where).toBe(0)
      for (const [, status, args] of result.stdout.matchAll(/\[docs-test curl (\d+) (.*)\]/g)) {
        if (Number(status) < 400) continue
        const url = args!.split(' ').find((arg) => /localhost|127\.0\.0\.1/.test(arg))!
        const line = text.split('\n').find((candidate) => candidate.includes(url.replace(/^'|'$/g, ''))) ?? ''
        expect(line.includes('#') && line.slice(line.indexOf('#')).includes(status!), `curl ${args} answered ${status}, which its comment does not announce\n${where}`).toBe(true)
      }
    }
  })
})
