import type { Command } from 'commander'
import { currentEnvironment, resolveDbPath, resolveLockWait, type Environment } from '../config.ts'
import type { Runtime } from '../runtime.ts'
import type { Io } from './output.ts'

export interface CliContext {
  io: Io
  environment: Environment
  /** Given when the CLI runs inside another program: stops `serve` in place of the process's signals. */
  signal?: AbortSignal | undefined
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

/**
 * Opens the database for one command and always closes it. Only commands that make a project
 * pass `create`: the rest refuse a missing file rather than leave an empty one behind.
 */
export async function withRuntime<T>(command: Command, ctx: CliContext, work: (runtime: Runtime) => T | Promise<T>, options: { create?: boolean } = {}): Promise<T> {
  const { openRuntime } = await import('../runtime.ts')
  const runtime = openRuntime(dbPathOf(command, ctx), { create: options.create ?? false, lockWaitMs: resolveLockWait(ctx.environment) })
  try {
    return await work(runtime)
  } finally {
    runtime.close()
  }
}

export function defaultContext(io: Io, environment: Environment = currentEnvironment(), signal?: AbortSignal): CliContext {
  return { io, environment, signal }
}
