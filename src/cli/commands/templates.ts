import type { Command } from 'commander'
import { applyProjectFile } from '../../domain/apply.ts'
import { loadFaker } from '../../engine/generators.ts'
import { selectProject } from '../../domain/projects.ts'
import { listTemplates, loadTemplate } from '../../domain/templates.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, printTable, success } from '../output.ts'

export function registerTemplates(program: Command, ctx: CliContext): void {
  program
    .command('templates')
    .description('list the project templates shipped in templates/')
    .option('--json', 'machine-readable JSON on stdout')
    .action((options: { json?: boolean }) => {
      const templates = listTemplates()
      if (options.json) return printJson(ctx.io, templates)
      printTable(ctx.io, ['NAME', 'DESCRIPTION'], templates.map((t) => [t.name, t.description]))
    })

  program
    .command('apply-template <name>')
    .description("add a template's resources, records and endpoints to a project")
    .option('--project <slug>', 'project (default: the only or the default one)')
    .action((name: string, options: { project?: string }, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        const template = loadTemplate(name)
        const makeFaker = await loadFaker()
        const project = selectProject(context, options.project)
        const { changes } = applyProjectFile(context, { ...template, slug: project.slug }, makeFaker, { prune: false })
        ctx.io.out(success(`applied template ${name} to project ${project.slug}: ${changes.length} changes`))
      }))
}
