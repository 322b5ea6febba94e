import type { Command } from 'commander'
import { AppError } from '../../errors.ts'
import { createResource } from '../../domain/resources.ts'
import { selectProject } from '../../domain/projects.ts'
import { endpointView } from '../../views.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, printTable, printWarnings, success } from '../output.ts'

export function registerAddResource(program: Command, ctx: CliContext): void {
  program
    .command('add-resource <path>')
    .description('create a resource: list, create, read, replace and delete endpoints over its records')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--fields <spec>', 'field generators, e.g. "title:string,views:int" (not available yet)')
    .option('--seed <n>', 'seed N generated records (not available yet)')
    .option('--json', 'print the created endpoints as JSON')
    .action((path: string, options: { project?: string; fields?: string; seed?: string; json?: boolean }, command: Command) =>
      withRuntime(command, ctx, ({ store }) => {
        if (options.fields !== undefined || options.seed !== undefined) {
          throw new AppError('INVALID_INPUT', '--fields and --seed are not available in this version yet; add records with POST for now')
        }
        const project = selectProject(store, options.project)
        const { resource, endpoints, warnings } = createResource(store, { project: project.slug, path })
        printWarnings(ctx.io, warnings)
        if (options.json) return printJson(ctx.io, endpoints.map(endpointView))
        ctx.io.out(success(`added resource ${resource.path} to project ${project.slug}`))
        printTable(ctx.io, ['METHOD', 'PATH', 'STATUS'], endpoints.map((e) => [e.method, e.path, e.status]))
      }))
}
