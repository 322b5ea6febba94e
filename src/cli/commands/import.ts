import type { Command } from 'commander'
import { AppError } from '../../errors.ts'
import { DATA_FORMATS, EXCHANGE_FORMATS, SPEC_FORMATS } from '../../model.ts'
import { endpointView } from '../../views.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, printTable, printWarnings, success } from '../output.ts'
import { collect, parseInteger } from '../parse.ts'
import { QUIET_OPTION, withProgress } from '../progress.ts'

interface ImportFlags {
  project?: string
  format?: string
  protoPath?: string[]
  replace?: boolean
  stateful?: boolean
  seed?: number
  json?: boolean
  allowRefsOutside?: boolean
  strict?: boolean
  prefix?: string
  quiet?: boolean
}

export function registerImport(program: Command, ctx: CliContext): void {
  program
    .command('import <file>')
    .description('create endpoints from a spec file or URL: OpenAPI 3.0/3.1 or Swagger 2.0 (YAML or JSON), GraphQL (SDL or introspection JSON), gRPC (.proto), SOAP (WSDL 1.1); or resources with their records from a json-server db.json; or the answers recorded in a HAR file or a Postman collection v2.1')
    .addHelpText('after', '\nExamples:\n  $ mockapi import petstore.yaml\n  $ mockapi import https://petstore3.swagger.io/api/v3/openapi.json --project pets --stateful\n  $ mockapi import schema.graphql --project shop\n  $ mockapi import db.json --prefix /api\n  $ mockapi import session.har --project shop')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--format <format>', `${[...SPEC_FORMATS, ...DATA_FORMATS, ...EXCHANGE_FORMATS].join(' | ')} (default: detected from the file)`)
    .option('--proto-path <dir>', 'gRPC: another folder to resolve imports from (repeatable)', collect)
    .option('--replace', 'OpenAPI: remove endpoints of an earlier import of this spec that it no longer has; db.json: remove resources under the prefix it no longer names')
    .option('--prefix <path>', 'db.json: serve its resources under this path (/api → /api/posts; default /posts, as json-server)')
    .option('--stateful', 'collection + item paths (/pets, /pets/{id}) store what is POSTed, like a resource')
    .option('--seed <n>', 'with --stateful: generated items each collection starts with, after the records its list example gives (default: none after such records, else 5)', parseInteger)
    .option('--allow-refs-outside', "OpenAPI: let a local spec $ref files outside its own folder (a spec from a URL only ever $refs http(s) URLs)")
    .option('--strict', 'OpenAPI: refuse a spec the validator calls invalid (by default it is imported, each problem printed as a warning)')
    .option('--json', 'print the result as JSON')
    .option(...QUIET_OPTION)
    .action((source: string, flags: ImportFlags, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        if (flags.seed !== undefined && (flags.seed < 0 || flags.seed > 10_000)) throw new AppError('INVALID_INPUT', `--seed ${flags.seed} must be from 0 to 10000`)
        const started = performance.now()
        const { importSpec, importTarget } = await import('../../domain/import.ts')
        const result = await withProgress(ctx, flags, (onProgress) => importSpec(context, importTarget(context, flags.project), {
          source,
          cwd: ctx.environment.cwd,
          format: flags.format,
          replace: flags.replace,
          stateful: flags.stateful,
          seed: flags.seed,
          protoPaths: flags.protoPath,
          allowRefsOutside: flags.allowRefsOutside,
          strict: flags.strict,
          prefix: flags.prefix,
        }, { onProgress }))
        const elapsedMs = Math.round(performance.now() - started)
        const { project, spec } = result
        if (result.naming === 'records') {
          if (flags.json) {
            return printJson(ctx.io, {
              project: project.slug,
              import: { title: spec.title, format: spec.format },
              resources: result.resources.map((r) => r.path),
              records: result.records,
              created: result.created.map(endpointView),
              updated: result.updated.map(endpointView),
              removed: result.removed.map(endpointView),
              kept: result.kept.map(endpointView),
              warnings: result.warnings,
            })
          }
          const counts = [`${result.records} records`, `${result.created.length} endpoints created`, `${result.updated.length} updated`]
          if (result.removed.length > 0) counts.push(`${result.removed.length} removed`)
          ctx.io.out(success(`imported ${spec.description} into project ${project.slug} in ${elapsedMs} ms: ${counts.join(', ')}`))
          printWarnings(ctx.io, result.warnings)
          const rows = [...result.created, ...result.updated].filter((e) => e.method === 'GET' && !e.path.endsWith('/:id')).sort((a, b) => a.path.localeCompare(b.path))
          return printTable(ctx.io, ['PATH', 'ANSWERS'], rows.map((e) => [e.path, e.action === 'read' ? 'its object: GET, PUT, PATCH' : 'records: GET, POST; /:id GET, PUT, PATCH, DELETE']))
        }
        if (result.naming === 'recorded') {
          if (flags.json) {
            return printJson(ctx.io, {
              project: project.slug,
              import: { title: spec.title, format: spec.format, version: spec.version },
              resources: result.resources.map((r) => r.path),
              records: result.records,
              created: result.created.map(endpointView),
              updated: result.updated.map(endpointView),
              skipped: result.skipped,
              warnings: result.warnings,
            })
          }
          const counts = [`${result.resources.length} resource${result.resources.length === 1 ? '' : 's'} with ${result.records} record${result.records === 1 ? '' : 's'}`, `${result.created.length} endpoints created`, `${result.updated.length} updated`]
          ctx.io.out(success(`imported ${spec.description} into project ${project.slug} in ${elapsedMs} ms: ${counts.join(', ')}`))
          printWarnings(ctx.io, result.warnings)
          const rows = [...result.created.filter((e) => e.kind === 'custom'), ...result.updated].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))
          const resourceRows = result.resources.map((r) => ['*', r.path, 'resource', 'records: GET, POST; /:id GET, PUT, PATCH, DELETE'])
          return printTable(ctx.io, ['METHOD', 'PATH', 'KIND', 'ANSWERS'], [...resourceRows, ...rows.map((e) => [e.method, e.path, e.kind, `${e.status}${e.contentType ? ` ${e.contentType}` : ''}${e.bodyType === 'file' ? ` (${e.file?.size ?? 0} bytes)` : ''}`])])
        }
        // Route imports (OpenAPI) update their endpoints in place; named operations are kept or removed.
        if (result.naming === 'routes') {
          if (flags.json) {
            return printJson(ctx.io, {
              project: project.slug,
              spec: { id: spec.id, title: spec.title, version: spec.version },
              created: result.created.map(endpointView),
              updated: result.updated.map(endpointView),
              removed: result.removed.map(endpointView),
              kept: result.kept.map(endpointView),
              resources: result.resources.map((r) => r.path),
              warnings: result.warnings,
            })
          }
          const counts = [`${result.created.length} created`, `${result.updated.length} updated`]
          if (result.removed.length > 0) counts.push(`${result.removed.length} removed`)
          ctx.io.out(success(`imported ${spec.description} into project ${project.slug} in ${elapsedMs} ms: ${counts.join(', ')}`))
          printWarnings(ctx.io, result.warnings)
          const rows = [...result.created, ...result.updated].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))
          return printTable(ctx.io, ['METHOD', 'PATH', 'STATUS', 'STATEFUL'], rows.map((e) => [e.method, e.path, e.status, e.action ?? '']))
        }
        if (flags.json) {
          return printJson(ctx.io, {
            project: project.slug,
            spec: { id: spec.id, title: spec.title, format: spec.format, version: spec.version },
            created: result.created.map(endpointView),
            kept: result.kept.map(endpointView),
            removed: result.removed.map(endpointView),
            warnings: result.warnings,
          })
        }
        const counts = [`${result.created.length} created`, `${result.kept.length} kept`]
        if (result.removed.length > 0) counts.push(`${result.removed.length} removed`)
        ctx.io.out(success(`imported ${spec.description} into project ${project.slug} in ${elapsedMs} ms: ${counts.join(', ')}`))
        printWarnings(ctx.io, result.warnings)
        const rows = [...result.created, ...result.kept].sort((a, b) => a.path.localeCompare(b.path))
        printTable(ctx.io, ['METHOD', 'PATH', 'KIND'], rows.map((e) => [e.method, e.path, e.kind]))
      }, { create: true }))
}
