import type { Command } from 'commander'
import { currentEnvironment, resolveDbPath, type Environment } from '../config.ts'
import type { Runtime } from '../runtime.ts'
import type { Io } from './output.ts'

export interface CliContext {
  io: Io
  environment: Environment
}

export interface GlobalOptions {
  db?: string
  debug?: boolean
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>()
}

export function dbPathOf(command: Command, ctx: CliContext): string {
  return resolveDbPath(globalOptions(command).db, ctx.environment)
}

/** Opens the database for one command and always closes it. */
export async function withRuntime<T>(command: Command, ctx: CliContext, work: (runtime: Runtime) => T | Promise<T>): Promise<T> {
  const { openRuntime } = await import('../runtime.ts')
  const runtime = openRuntime(dbPathOf(command, ctx))
  try {
    return await work(runtime)
  } finally {
    runtime.close()
  }
}

export function defaultContext(io: Io): CliContext {
  return { io, environment: currentEnvironment() }
}
