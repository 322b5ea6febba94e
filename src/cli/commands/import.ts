import { extname } from 'node:path'
import type { Command } from 'commander'
import { AppError } from '../../errors.ts'
import { createProject, RESERVED_SLUGS, selectProject, slugify } from '../../domain/projects.ts'
import { writeTransaction } from '../../domain/transaction.ts'
import { endpointView } from '../../views.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, printTable, printWarnings, success } from '../output.ts'
import { parseInteger } from '../parse.ts'

const FORMATS = ['openapi', 'graphql', 'grpc', 'soap'] as const
type Format = (typeof FORMATS)[number]

interface ImportOptions {
  project?: string
  format?: string
  replace?: boolean
  stateful?: boolean
  seed?: number
  json?: boolean
}

/** By extension; YAML and JSON files are OpenAPI/Swagger. */
function detectFormat(source: string): Format {
  const extension = extname(new URL(source, 'file:///').pathname).toLowerCase()
  if (extension === '.graphql' || extension === '.gql' || extension === '.graphqls') return 'graphql'
  if (extension === '.proto') return 'grpc'
  if (extension === '.wsdl') return 'soap'
  return 'openapi'
}

/** The spec's title as a slug, unless it is reserved or has no latin letters or digits. */
function firstSlug(title: string): string {
  const slug = slugify(title)
  if (!slug) return 'api'
  return RESERVED_SLUGS.has(slug) ? `${slug}-api` : slug
}

function checkFormat(format: string | undefined, source: string): Format {
  if (format === undefined) return detectFormat(source)
  if (!(FORMATS as readonly string[]).includes(format)) throw new AppError('INVALID_INPUT', `format "${format}" must be one of ${FORMATS.join(', ')}`)
  return format as Format
}

export function registerImport(program: Command, ctx: CliContext): void {
  program
    .command('import <file>')
    .description('create endpoints from a schema file or URL (OpenAPI 3.0/3.1 or Swagger 2.0, YAML or JSON)')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--format <format>', `${FORMATS.join(' | ')} (default: detected from the file)`)
    .option('--replace', 'remove endpoints of an earlier import of this spec that it no longer has')
    .option('--stateful', 'collection + item paths (/pets, /pets/{id}) store what is POSTed, like a resource')
    .option('--seed <n>', 'with --stateful: generated items each collection starts with (default 5)', parseInteger)
    .option('--json', 'print the result as JSON')
    .action((source: string, options: ImportOptions, command: Command) =>
      withRuntime(command, ctx, async ({ store }) => {
        const format = checkFormat(options.format, source)
        if (format !== 'openapi') throw new AppError('INVALID_INPUT', `importing ${format} schemas is not available yet; this version imports OpenAPI and Swagger`)
        const seedCount = options.seed ?? 5
        if (seedCount < 0 || seedCount > 10_000) throw new AppError('INVALID_INPUT', `--seed ${seedCount} must be from 0 to 10000`)
        const started = performance.now()
        const [{ loadSpec }, { listOperations }, { createResponder }, { importOpenApi }, { loadFaker }] = await Promise.all([
          import('../../openapi/load.ts'),
          import('../../openapi/operations.ts'),
          import('../../openapi/respond.ts'),
          import('../../domain/openapi-import.ts'),
          import('../../engine/generators.ts'),
        ])
        // A local tool: specs served by a back end on localhost are the common case.
        const spec = await loadSpec(source, { allowInternalUrls: true })
        const operations = listOperations(spec)
        const makeFaker = await loadFaker()
        const result = writeTransaction(store.db, () => {
          // `mockapi import spec.yaml && mockapi serve` in an empty folder: the spec makes the first project.
          const project = store.repos.projects.list().length === 0
            ? createProject(store, { name: spec.title, slug: options.project ?? firstSlug(spec.title) })
            : selectProject(store, options.project)
          return importOpenApi(store, project, { source, spec, operations }, {
            replace: options.replace ?? false,
            stateful: options.stateful ?? false,
            seedCount,
          }, { responderFor: createResponder, makeFaker })
        })
        const { project } = result
        const elapsedMs = Math.round(performance.now() - started)
        if (options.json) {
          return printJson(ctx.io, {
            project: result.project.slug,
            spec: { id: result.specId, title: spec.title, version: spec.version },
            created: result.created.map(endpointView),
            updated: result.updated.map(endpointView),
            removed: result.removed.map(endpointView),
            kept: result.kept.map(endpointView),
            resources: result.resources.map((r) => r.path),
          })
        }
        const counts = [`${result.created.length} created`, `${result.updated.length} updated`]
        if (result.removed.length > 0) counts.push(`${result.removed.length} removed`)
        ctx.io.out(success(`imported "${spec.title}" (${spec.version === '2.0' ? 'Swagger 2.0' : `OpenAPI ${spec.version}`}) into project ${project.slug} in ${elapsedMs} ms: ${counts.join(', ')}`))
        const warnings = result.kept.length > 0
          ? [`${result.kept.length} endpoint(s) from an earlier import are no longer in the spec: kept as custom endpoints answering their last example (--replace removes them): ${result.kept.map((e) => `${e.method} ${e.path}`).join(', ')}`]
          : []
        if (operations.length === 0) warnings.push('the spec describes no paths (only webhooks or components): nothing to serve')
        printWarnings(ctx.io, warnings)
        const rows = [...result.created, ...result.updated].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))
        printTable(ctx.io, ['METHOD', 'PATH', 'STATUS', 'STATEFUL'], rows.map((e) => [e.method, e.path, e.status, e.action ?? '']))
      }))
}
