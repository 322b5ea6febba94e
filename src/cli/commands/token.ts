import type { Command } from 'commander'
import { mintToken } from '../../domain/auth.ts'
import { parseDuration } from '../../domain/durations.ts'
import { requireProjectBySlug } from '../../domain/projects.ts'
import { withRuntime, type CliContext } from '../context.ts'

export function registerToken(program: Command, ctx: CliContext): void {
  program
    .command('token')
    .description('print a JWT for the management API (alone on stdout: TOKEN=$(mockapi token))')
    .addHelpText('after', '\nExamples:\n  $ TOKEN=$(mockapi token)\n  $ mockapi token --project shop --expires 1h')
    .option('--project <slug>', 'limit the token to one project (default: all projects of this database)')
    .option('--expires <duration>', 'lifetime: 30s, 15m, 1h, 7d', '1h')
    .action((options: { project?: string; expires: string }, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        const expiresInMs = parseDuration(options.expires, '--expires')
        const projectId = options.project ? requireProjectBySlug(context, options.project).id : undefined
        ctx.io.out(await mintToken(context, { expiresInMs, ...(projectId === undefined ? {} : { projectId }) }))
      }))
}
