import type { Command } from 'commander'
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { applyProjectFile } from '../../domain/apply.ts'
import { exportProject, toYaml } from '../../domain/export.ts'
import { EXPORT_FORMATS, exportOpenApi, openApiText, parseExportFormat } from '../../domain/export-openapi.ts'
import { selectProject } from '../../domain/projects.ts'
import { resetProject } from '../../domain/seeding.ts'
import { loadFaker } from '../../engine/generators.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printWarnings, success } from '../output.ts'
import { QUIET_OPTION, withProgress } from '../progress.ts'

export function registerConfigAsCode(program: Command, ctx: CliContext): void {
  program
    .command('export')
    .description('write the project as YAML (resources, endpoints and settings, generators, subscriptions without secrets), or as an OpenAPI 3.1 document')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--format <format>', `${EXPORT_FORMATS.join(' | ')} (default: project)`)
    .option('-o, --output <file>', 'write to a file instead of stdout (openapi: YAML when it ends in .yaml or .yml, else JSON)')
    .option(...QUIET_OPTION)
    .action((options: { project?: string; format?: string; output?: string; quiet?: boolean }, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        const format = parseExportFormat(options.format ?? 'project')
        const project = selectProject(context, options.project)
        let text: string
        if (format === 'openapi') {
          const exported = await withProgress(ctx, options, (onProgress) => {
            const { document, warnings } = exportOpenApi(context, project, { onProgress })
            return { warnings, text: openApiText(document, options.output ?? null, { onProgress }) }
          })
          printWarnings(ctx.io, exported.warnings)
          text = exported.text
        } else {
          text = await withProgress(ctx, options, (onProgress) => {
            onProgress?.({ label: `reading project ${project.slug}`, done: 0, total: null })
            return toYaml(exportProject(context, project), { onProgress })
          })
        }
        if (options.output) {
          writeFileSync(resolve(ctx.environment.cwd, options.output), text)
          ctx.io.err(success(`wrote ${options.output}`))
        } else {
          ctx.io.out(text.trimEnd())
        }
      }))

  program
    .command('apply <file>')
    .description('create or update the project to match a YAML file; idempotent, all or nothing')
    .option('--project <slug>', 'project to fill when the file has no slug')
    .option(...QUIET_OPTION)
    .action((file: string, options: { project?: string; quiet?: boolean }, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        // Only apply reads files: export and reset do without the schema's validator (ajv).
        const { readProjectFile } = await import('../../domain/project-file.ts')
        const makeFaker = await loadFaker()
        const result = await withProgress(ctx, options, (onProgress) => {
          const parsed = readProjectFile(resolve(ctx.environment.cwd, file), makeFaker, { onProgress })
          return applyProjectFile(context, parsed, makeFaker, { project: options.project, prune: true, onProgress })
        })
        printWarnings(ctx.io, result.warnings)
        if (result.changes.length === 0) return ctx.io.out(success(`project ${result.project.slug} already matches ${file}`))
        ctx.io.out(success(`applied ${file} to project ${result.project.slug}: ${result.changes.length} changes`))
        for (const change of result.changes) ctx.io.out(`  ${change}`)
      }, { create: true }))

  program
    .command('reset')
    .description("put the project's records back to their seeded state")
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option(...QUIET_OPTION)
    .action((options: { project?: string; quiet?: boolean }, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        const project = selectProject(context, options.project)
        const { collections, records } = await withProgress(ctx, options, (onProgress) => resetProject(context, project.id, { onProgress }))
        ctx.io.out(success(`reset ${project.slug}: ${records} records in ${collections} collections`))
      }))
}
