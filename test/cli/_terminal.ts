import { spawn } from 'node:child_process'
import { BIN, expectFreshBuild } from '../_helpers.ts'

/**
 * The progress line is drawn only on a terminal, so its tests run the built CLI under a real
 * pseudo-terminal: util-linux's `script`, whose output is everything the terminal was sent.
 */

export const ERASE = '\x1b[K'

/** The variables of a person's terminal: none of those that silence the line. */
export function terminalEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && name !== 'CI' && name !== 'NO_COLOR') env[name] = value
  return { ...env, TERM: 'xterm-256color', FORCE_COLOR: '0', ...extra }
}

const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`

/** The built CLI on a pseudo-terminal: its exit code and all it wrote there (stdout and stderr, in order). */
export function onTerminal(args: string[], env: Record<string, string>, cwd: string): Promise<{ code: number | null; screen: string }> {
  expectFreshBuild()
  const command = [process.execPath, BIN, ...args].map(quote).join(' ')
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let screen = ''
  child.stdout.on('data', (chunk) => (screen += chunk))
  child.stderr.on('data', (chunk) => (screen += chunk))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, screen })))
}
