import type { Command } from 'commander'
import { listEndpoints } from '../../domain/endpoints.ts'
import { endpointView } from '../../views.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, printTable } from '../output.ts'

export function registerEndpoints(program: Command, ctx: CliContext): void {
  program
    .command('endpoints')
    .description('list endpoints: method, path, kind, status')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--json', 'machine-readable JSON on stdout')
    .action((options: { project?: string; json?: boolean }, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        const endpoints = listEndpoints(context, options.project).map(endpointView)
        if (options.json) return printJson(ctx.io, endpoints)
        printTable(ctx.io, ['METHOD', 'PATH', 'KIND', 'STATUS', 'DELAY'],
          endpoints.map((e) => [e.method, e.path, e.kind, e.status, e.delay ? `${e.delay}ms` : '']), 'no endpoints yet')
      }))
}
