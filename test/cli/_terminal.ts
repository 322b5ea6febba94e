import { spawn } from 'node:child_process'
import { BIN, expectFreshBuild } from '../_helpers.ts'

/**
 * The progress line is drawn only on a terminal, so its tests run the built CLI under a real
 * pseudo-terminal: util-linux's `script`, whose output is everything the terminal was sent.
 */

export const ERASE = '\x1b[K'
/** Any colour chalk writes (`\x1b[32m`, `\x1b[39m`...). */
export const COLOUR = /\x1b\[\d+m/

/** The variables of a person's terminal: none of those that silence the line or set colour, less `without`. */
export function terminalEnv(extra: Record<string, string> = {}, without: string[] = []): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !['CI', 'NO_COLOR', 'FORCE_COLOR'].includes(name)) env[name] = value
  const all: Record<string, string> = { ...env, TERM: 'xterm-256color', FORCE_COLOR: '0', ...extra }
  for (const name of without) delete all[name]
  return all
}

const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`

/**
 * The built CLI on a pseudo-terminal: its exit code and all it wrote there (stdout and stderr, in
 * order). `when` acts once the screen shows what it waits for: types keys (a Ctrl-C) into the
 * terminal, or does something of the test's own (frees a lock it held).
 */
export function onTerminal(args: string[], env: Record<string, string>, cwd: string, when?: { shows: string; keys?: string; then?: () => void }): Promise<{ code: number | null; screen: string }> {
  expectFreshBuild()
  const command = [process.execPath, BIN, ...args].map(quote).join(' ')
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] })
  let screen = ''
  let acted = false
  const seen = (chunk: Buffer) => {
    screen += chunk
    if (when && !acted && screen.includes(when.shows)) {
      acted = true
      if (when.keys !== undefined) child.stdin.write(when.keys)
      when.then?.()
    }
  }
  child.stdout.on('data', seen)
  child.stderr.on('data', seen)
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, screen })))
}
