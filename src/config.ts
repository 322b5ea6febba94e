import { isAbsolute, join } from 'node:path'
import { parseDuration, parseDurationList } from './domain/durations.ts'
import { parseDelay, type DelaySpec } from './engine/delay.ts'
import { AppError } from './errors.ts'

/** The only reader of process.env: flags beat environment beats defaults. */
export interface Environment {
  cwd: string
  env: Record<string, string | undefined>
}

export const DEFAULT_PORT = 3000
export const DEFAULT_HOST = '127.0.0.1'
/** gRPC's customary port; only listened on once a project has gRPC methods. */
export const DEFAULT_GRPC_PORT = 50051

export function resolveDbPath(flag: string | undefined, environment: Environment): string {
  const chosen = flag ?? environment.env.MOCKAPI_DB
  if (!chosen) return join(environment.cwd, '.mockapi', 'mockapi.db')
  if (chosen === ':memory:' || isAbsolute(chosen)) return chosen
  return join(environment.cwd, chosen)
}

export function currentEnvironment(): Environment {
  return { cwd: process.cwd(), env: process.env }
}

/**
 * A port from its flag, else its environment variable (`MOCKAPI_PORT`, `MOCKAPI_GRPC_PORT`), else
 * the default. `asked` is false only for the default, which may give way to a free port.
 */
export function resolvePort(flag: number | undefined, variable: string, fallback: number, environment: Environment): { port: number; asked: boolean } {
  if (flag !== undefined) return { port: flag, asked: true }
  const chosen = environment.env[variable]?.trim()
  if (!chosen) return { port: fallback, asked: false }
  if (!/^\d+$/.test(chosen)) throw new AppError('INVALID_INPUT', `${variable}="${chosen}" is not a whole number`)
  return { port: Number(chosen), asked: true }
}

/** `serve --webhook-retry-delays` beats `MOCKAPI_WEBHOOK_RETRY_DELAYS`; undefined means the default. */
export function resolveRetryDelays(flag: string | undefined, environment: Environment): number[] | undefined {
  const chosen = flag ?? environment.env.MOCKAPI_WEBHOOK_RETRY_DELAYS
  return chosen ? parseDurationList(chosen, 'webhook retry delays') : undefined
}

/**
 * `MOCKAPI_LOCK_WAIT`: how long a write waits for another process's write lock (a command's, and a
 * request's while serving); undefined means each one's default (10 s, 5 s).
 */
export function resolveLockWait(environment: Environment): number | undefined {
  const chosen = environment.env.MOCKAPI_LOCK_WAIT?.trim()
  if (!chosen) return undefined
  const ms = parseDuration(chosen, 'MOCKAPI_LOCK_WAIT')
  if (ms > LONGEST_LOCK_WAIT_MS) throw new AppError('INVALID_INPUT', `MOCKAPI_LOCK_WAIT "${chosen}" is longer than a lock wait can be (1d)`)
  return ms
}

/** A day: longer is a mistake, and SQLite's own wait cannot count past about 24 days. */
const LONGEST_LOCK_WAIT_MS = 86_400_000

/** `serve --delay` beats `MOCKAPI_DELAY` (`250` or `100-300`); undefined: no floor. */
export function resolveDelayFloor(flag: string | undefined, environment: Environment): DelaySpec | undefined {
  const [chosen, source] = flag !== undefined ? [flag, '--delay'] : [environment.env.MOCKAPI_DELAY?.trim(), 'MOCKAPI_DELAY']
  if (!chosen) return undefined
  try {
    return parseDelay(chosen)
  } catch (error) {
    throw new AppError('INVALID_INPUT', `${source}: ${(error as Error).message}`)
  }
}
