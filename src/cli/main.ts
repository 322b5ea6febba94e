import chalk from 'chalk'
import { Command, CommanderError } from 'commander'
import type { Environment } from '../config.ts'
import { AppError } from '../errors.ts'
import { defaultContext, type CliContext } from './context.ts'
import { processIo, type Io } from './output.ts'

type Register = (program: Command, ctx: CliContext) => void

/**
 * Each command's module, loaded only when that command runs (or for --help): loading them all
 * up front pulled yaml, ajv, jose and faker into every start and cost over 100 ms.
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  init: () => import('./commands/init.ts').then((m) => m.registerInit),
  projects: () => import('./commands/projects.ts').then((m) => m.registerProjects),
  project: () => import('./commands/project.ts').then((m) => m.registerProject),
  'add-resource': () => import('./commands/add-resource.ts').then((m) => m.registerAddResource),
  'add-endpoint': () => import('./commands/add-endpoint.ts').then((m) => m.registerAddEndpoint),
  endpoints: () => import('./commands/endpoints.ts').then((m) => m.registerEndpoints),
  endpoint: () => import('./commands/endpoint.ts').then((m) => m.registerEndpoint),
  response: () => import('./commands/response.ts').then((m) => m.registerResponse),
  'remove-endpoint': () => import('./commands/remove-endpoint.ts').then((m) => m.registerRemoveEndpoint),
  templates: () => import('./commands/templates.ts').then((m) => m.registerTemplates),
  'apply-template': () => import('./commands/templates.ts').then((m) => m.registerTemplates),
  import: () => import('./commands/import.ts').then((m) => m.registerImport),
  export: () => import('./commands/config-as-code.ts').then((m) => m.registerConfigAsCode),
  apply: () => import('./commands/config-as-code.ts').then((m) => m.registerConfigAsCode),
  reset: () => import('./commands/config-as-code.ts').then((m) => m.registerConfigAsCode),
  token: () => import('./commands/token.ts').then((m) => m.registerToken),
  inbox: () => import('./commands/inbox.ts').then((m) => m.registerInbox),
  requests: () => import('./commands/requests.ts').then((m) => m.registerRequests),
  webhooks: () => import('./commands/webhooks.ts').then((m) => m.registerWebhooks),
  serve: () => import('./commands/serve.ts').then((m) => m.registerServe),
  record: () => import('./commands/record.ts').then((m) => m.registerRecord),
}

/** The command named in argv, skipping global options (`--db <file>` takes a value). */
function commandName(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!
    if (arg === '--db') i += 1
    else if (!arg.startsWith('-')) return arg
  }
  return undefined
}

export async function createProgram(ctx: CliContext, argv: string[] = []): Promise<Command> {
  const program = new Command('mockapi')
    .description('A local mock API server: REST resources from SQLite, a webhook inbox and webhook deliveries.')
    .version('0.1.0')
    .option('--db <file>', 'SQLite database file (env MOCKAPI_DB; default .mockapi/mockapi.db)')
    .option('--debug', 'print stack traces of unexpected errors')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.out(text.trimEnd()),
      writeErr: (text) => ctx.io.err(text.trimEnd()),
      outputError: (text, write) => write(chalk.red(text.trimEnd())),
    })
  const named = commandName(argv)
  const loaders = named && Object.hasOwn(COMMANDS, named) ? [COMMANDS[named]!] : [...new Set(Object.values(COMMANDS))]
  const registers = new Set(await Promise.all(loaders.map((load) => load())))
  for (const register of registers) register(program, ctx)
  // Subcommands inherit the error handling and output of the program.
  for (const command of program.commands) inherit(command, program)
  return program
}

function inherit(command: Command, parent: Command): void {
  command.exitOverride().configureOutput(parent.configureOutput()).showHelpAfterError('(run with --help for usage)')
  for (const sub of command.commands) inherit(sub, command)
}

export interface MainOptions {
  /**
   * Stops a `serve` the way SIGINT or SIGTERM does, which it then leaves to the caller: a process
   * that runs the CLI inside it (a test suite) keeps its own signals and error handlers.
   */
  signal?: AbortSignal
}

/**
 * NO_COLOR set to anything but empty (no-color.org), unless FORCE_COLOR asks for colour anyway,
 * as Node's own output decides.
 */
export function asksForNoColour(env: Record<string, string | undefined>): boolean {
  return env.NO_COLOR !== undefined && env.NO_COLOR !== '' && env.FORCE_COLOR === undefined
}

/**
 * Runs the CLI and returns the exit code: 0 success, 1 a user error (one red line) or anything else.
 * `environment` (working directory and variables) defaults to this process's, so tests can run
 * several CLIs in one process, each in its own folder.
 */
export async function main(argv: string[], io: Io = processIo, environment?: Environment, options: MainOptions = {}): Promise<number> {
  const ctx = defaultContext(io, environment, options.signal)
  // chalk reads FORCE_COLOR but not NO_COLOR; chalk is one for the whole process, so only the process's own variables set it.
  if (environment === undefined && asksForNoColour(process.env)) chalk.level = 0
  try {
    const program = await createProgram(ctx, argv)
    await program.parseAsync(argv, { from: 'user' })
    return 0
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 1
    // Loaded here, not up front: the store (and SQLite) loads only with a command that opens it.
    const known = error instanceof AppError ? error : (await import('../store/db.ts')).storeFaultError(error)
    if (known) {
      io.err(chalk.red(`✖ ${known.message}`))
      return 1
    }
    // Ctrl-C at an @inquirer prompt.
    if ((error as Error)?.name === 'ExitPromptError') {
      io.err(chalk.red('✖ cancelled'))
      return 1
    }
    const debug = argv.includes('--debug')
    io.err(chalk.red(`✖ unexpected error: ${(error as Error)?.message ?? String(error)}`))
    if (debug) io.err(String((error as Error)?.stack ?? error))
    else io.err(chalk.dim('  run again with --debug for the stack trace'))
    return 1
  }
}
