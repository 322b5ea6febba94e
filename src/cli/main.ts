import chalk from 'chalk'
import { Command, CommanderError } from 'commander'
import { AppError } from '../errors.ts'
import { defaultContext, type CliContext } from './context.ts'
import { processIo, type Io } from './output.ts'
import { registerInit } from './commands/init.ts'
import { registerProjects } from './commands/projects.ts'
import { registerProject } from './commands/project.ts'
import { registerAddResource } from './commands/add-resource.ts'
import { registerAddEndpoint } from './commands/add-endpoint.ts'
import { registerEndpoints } from './commands/endpoints.ts'
import { registerRemoveEndpoint } from './commands/remove-endpoint.ts'
import { registerTemplates } from './commands/templates.ts'
import { registerServe } from './commands/serve.ts'
import { registerEndpoint } from './commands/endpoint.ts'
import { registerConfigAsCode } from './commands/config-as-code.ts'
import { registerToken } from './commands/token.ts'
import { registerInbox } from './commands/inbox.ts'
import { registerWebhooks } from './commands/webhooks.ts'

export function createProgram(ctx: CliContext): Command {
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
  for (const register of [
    registerInit, registerProjects, registerProject, registerAddResource, registerAddEndpoint,
    registerEndpoints, registerEndpoint, registerRemoveEndpoint, registerTemplates, registerConfigAsCode, registerToken, registerInbox, registerWebhooks,
    registerServe,
  ]) register(program, ctx)
  // Subcommands inherit the error handling and output of the program.
  for (const command of program.commands) inherit(command, program)
  return program
}

function inherit(command: Command, parent: Command): void {
  command.exitOverride().configureOutput(parent.configureOutput()).showHelpAfterError('(run with --help for usage)')
  for (const sub of command.commands) inherit(sub, command)
}

/** Runs the CLI and returns the exit code: 0 success, 1 a user error (one red line), 1 anything else. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const ctx = defaultContext(io)
  const program = createProgram(ctx)
  try {
    await program.parseAsync(argv, { from: 'user' })
    return 0
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 1
    if (error instanceof AppError) {
      io.err(chalk.red(`✖ ${error.message}`))
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
