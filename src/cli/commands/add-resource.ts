import type { Command } from 'commander'
import { checkOnDelete, createResource } from '../../domain/resources.ts'
import { selectProject } from '../../domain/projects.ts'
import { checkSeed, seedNewResource, type NewResourceSeeding } from '../../domain/seeding.ts'
import { writeTransaction } from '../../domain/transaction.ts'
import { loadFaker, parseFieldSpec } from '../../engine/generators.ts'
import { endpointView } from '../../views.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, printTable, printWarnings, success } from '../output.ts'
import { parseInteger } from '../parse.ts'
import { QUIET_OPTION, withProgress } from '../progress.ts'

interface AddResourceOptions {
  project?: string
  fields?: string
  seed?: number
  seedValue?: number
  onDelete?: string
  json?: boolean
  quiet?: boolean
}

export function registerAddResource(program: Command, ctx: CliContext): void {
  program
    .command('add-resource <path>')
    .description('create a resource: list, create, read, replace and delete endpoints over its records')
    .addHelpText('after', '\nExamples:\n  $ mockapi add-resource /api/products --fields "name:commerce.productName,price:number.float" --seed 25\n  $ mockapi add-resource /api/users/:userId/orders --project shop\n  $ mockapi add-resource /api/users --on-delete cascade')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--fields <spec>', 'field generators: "title:lorem.sentence,views:number.int,author:person.fullName" (any faker method, or string, int, number, boolean, uuid, date)')
    .option('--seed <n>', 'seed N generated records', parseInteger)
    .option('--seed-value <n>', 'make generation reproducible (the same records every time)', parseInteger)
    .option('--on-delete <mode>', 'what deleting a record does to the records that belong to it (postId, nested resources): keep (default) or cascade')
    .option('--json', 'print the created endpoints as JSON')
    .option(...QUIET_OPTION)
    .action((path: string, options: AddResourceOptions, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        const makeFaker = await loadFaker()
        const seed = checkSeed({
          fields: options.fields ? parseFieldSpec(options.fields) : {},
          seedCount: options.seed ?? 0,
          seedValue: options.seedValue ?? null,
          seedRecords: [],
        }, makeFaker)
        const onDelete = options.onDelete === undefined ? 'keep' : checkOnDelete(options.onDelete)
        const project = selectProject(context, options.project)
        const { resource, endpoints, warnings, seeded } = await withProgress(ctx, options, (onProgress) => writeTransaction(context.db, () => {
          const created = createResource(context, { project: project.slug, path, onDelete })
          return { ...created, seeded: seedNewResource(context, created.resource, seed, makeFaker, { onProgress }) }
        }))
        printWarnings(ctx.io, warnings)
        if (options.json) return printJson(ctx.io, endpoints.map(endpointView))
        ctx.io.out(success(`added resource ${resource.path} to project ${project.slug}${seedingNote(seeded, seed.seedCount)}${onDelete === 'cascade' ? ', deleting its records cascades' : ''}`))
        printTable(ctx.io, ['METHOD', 'PATH', 'STATUS'], endpoints.map((e) => [e.method, e.path, e.status]))
      }))
}

/** What the resource's records are: generated ones, those of the resource whose collection it shares (kept), or both. */
function seedingNote(seeded: NewResourceSeeding, seedCount: number): string {
  const generated = seedCount > 0 ? ` with ${seeded.added} generated records` : ''
  if (seeded.sharedWith === null) return generated
  return `${generated}, sharing the ${seeded.kept} records of ${seeded.sharedWith} (kept${seedCount > 0 ? `; the generated ones are added after them` : ''})`
}
