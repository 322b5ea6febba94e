import type { Command } from 'commander'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, printTable } from '../output.ts'
import { projectView } from '../../views.ts'

export function registerProjects(program: Command, ctx: CliContext): void {
  program
    .command('projects')
    .description('list projects: id, name, slug, share token')
    .option('--json', 'machine-readable JSON on stdout')
    .action((options: { json?: boolean }, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        const projects = context.repos.projects.list().map(projectView)
        if (options.json) return printJson(ctx.io, projects)
        printTable(ctx.io, ['ID', 'NAME', 'SLUG', 'SHARE TOKEN', ''],
          projects.map((p) => [p.id, p.name, p.slug, p.shareToken, p.isDefault ? 'default' : '']),
          'no projects yet: run "mockapi init"')
      }))
}
