import type { Command } from 'commander'
import { removeEndpoint } from '../../domain/endpoints.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { success } from '../output.ts'

export function registerRemoveEndpoint(program: Command, ctx: CliContext): void {
  program
    .command('remove-endpoint <method> <path>')
    .description('delete one endpoint; the others of its resource stay')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .action((method: string, path: string, options: { project?: string }, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        const removed = removeEndpoint(context, { project: options.project, method, path })
        ctx.io.out(success(`removed ${removed.method} ${removed.path}`))
      }))
}
