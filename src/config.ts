import { isAbsolute, join } from 'node:path'

/** The only reader of process.env: flags beat environment beats defaults. */
export interface Environment {
  cwd: string
  env: Record<string, string | undefined>
}

export const DEFAULT_PORT = 3000
export const DEFAULT_HOST = '127.0.0.1'

export function resolveDbPath(flag: string | undefined, environment: Environment): string {
  const chosen = flag ?? environment.env.MOCKAPI_DB
  if (!chosen) return join(environment.cwd, '.mockapi', 'mockapi.db')
  if (chosen === ':memory:' || isAbsolute(chosen)) return chosen
  return join(environment.cwd, chosen)
}

export function currentEnvironment(): Environment {
  return { cwd: process.cwd(), env: process.env }
}
