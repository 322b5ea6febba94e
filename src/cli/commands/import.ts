import { basename, dirname, extname, resolve } from 'node:path'
import type { Command } from 'commander'
import { AppError } from '../../errors.ts'
import type { DefinitionInput } from '../../domain/definition-import.ts'
import { createProject, RESERVED_SLUGS, selectProject, slugify } from '../../domain/projects.ts'
import type { Context } from '../../domain/context.ts'
import { writeTransaction } from '../../domain/transaction.ts'
import { SPEC_FORMATS as FORMATS, type Project, type SpecFormat as Format } from '../../model.ts'
import { endpointView } from '../../views.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, printTable, printWarnings, success } from '../output.ts'
import { collect, parseInteger } from '../parse.ts'

interface ImportOptions {
  project?: string
  format?: string
  protoPath?: string[]
  replace?: boolean
  stateful?: boolean
  seed?: number
  json?: boolean
  allowRefsOutside?: boolean
}

/** What each format looks like, tried in this order when the file's extension does not say. */
const SNIFFERS: { format: Format; looksLike: RegExp }[] = [
  { format: 'openapi', looksLike: /(?:^|[{,\s])["']?(?:openapi|swagger)["']?\s*:\s*["']?[23]\./m },
  { format: 'graphql', looksLike: /"__schema"\s*:|\btype\s+(?:Query|Mutation|Subscription)\b|^\s*schema\s*\{/m },
  { format: 'grpc', looksLike: /^\s*syntax\s*=\s*["']proto[23]["']|^\s*service\s+\w+\s*\{/m },
  { format: 'soap', looksLike: /<(?:\w+:)?definitions[\s>]/ },
]

const TRIED = 'OpenAPI 3.x or Swagger 2.0 (YAML or JSON with an "openapi" or "swagger" key), GraphQL (SDL or introspection JSON), gRPC (.proto), SOAP (WSDL 1.1)'

/** What an import is, and the text already read to tell (so a URL is not fetched twice for it). */
interface Detected {
  format: Format
  text?: string
}

/** By extension (.graphql, .proto, .wsdl), else by what the document looks like. */
async function detectFormat(source: string, cwd: string): Promise<Detected> {
  const extension = extname(new URL(source, 'file:///').pathname).toLowerCase()
  if (extension === '.graphql' || extension === '.gql' || extension === '.graphqls') return { format: 'graphql' }
  if (extension === '.proto') return { format: 'grpc' }
  if (extension === '.wsdl') return { format: 'soap' }
  const text = await readSource(source, cwd)
  const found = SNIFFERS.find(({ looksLike }) => looksLike.test(text))
  // A YAML or JSON file naming OpenAPI or Swagger at all gets the spec loader's own, exact complaint.
  if (!found && /^\.(?:ya?ml|json)$/.test(extension) && /\b(?:openapi|swagger)\b/.test(text)) return { format: 'openapi', text }
  if (!found) throw new AppError('INVALID_INPUT', `${basename(source)} is none of the formats mockapi imports; tried ${TRIED}. If it is one of them, say which with --format`)
  return { format: found.format, text }
}

/** The spec's title as a slug, unless it is reserved or has no latin letters or digits. */
function firstSlug(title: string): string {
  const slug = slugify(title)
  if (!slug) return 'api'
  return RESERVED_SLUGS.has(slug) ? `${slug}-api` : slug
}

const isUrl = (source: string) => /^https?:\/\//i.test(source)

/** A file's text, or a URL's (a local tool: definitions served on localhost are the common case). */
async function readSource(source: string, cwd: string): Promise<string> {
  if (isUrl(source)) {
    const response = await fetch(source).catch((error: Error) => {
      throw new AppError('INVALID_INPUT', `cannot fetch ${source}: ${(error.cause as Error | undefined)?.message ?? error.message}`)
    })
    if (!response.ok) throw new AppError('INVALID_INPUT', `cannot fetch ${source}: HTTP ${response.status}`)
    return response.text()
  }
  const { readFile } = await import('node:fs/promises')
  return readFile(resolve(cwd, source), 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new AppError('INVALID_INPUT', error.code === 'ENOENT' ? `no such file: ${source}` : `cannot read ${source}: ${error.message}`)
  })
}

const GENERIC_NAMES = new Set(['schema', 'service', 'services', 'api', 'index', 'main', 'definition'])

/** `route_guide.proto` → `route_guide`; `swapi/schema.graphql` → `swapi` (the folder says more than "schema"). */
function titleFromSource(source: string, cwd: string): string {
  const path = isUrl(source) ? new URL(source).pathname : resolve(cwd, source)
  const name = basename(path, extname(path))
  const folder = basename(dirname(path))
  return GENERIC_NAMES.has(name.toLowerCase()) && folder ? folder : name || 'api'
}

/** Parses the definition with its format's parser (loaded only when needed) into what gets stored. */
async function readDefinition(format: Exclude<Format, 'openapi'>, source: string, cwd: string, options: ImportOptions, known?: string): Promise<DefinitionInput> {
  if (format === 'grpc') {
    if (isUrl(source)) throw new AppError('INVALID_INPUT', 'a .proto is imported from a file (its imports are resolved next to it); download it first')
    const { loadProto } = await import('../../kinds/grpc/load.ts')
    const proto = await loadProto(source, { protoPaths: options.protoPath ?? [], cwd })
    return { format, title: titleFromSource(source, cwd), version: 'proto', source, document: JSON.stringify(proto.descriptor), operations: proto.methods.map((m) => m.path) }
  }
  const text = known ?? await readSource(source, cwd)
  if (format === 'graphql') {
    const [{ loadGraphqlSchema }, { graphqlOperationPath }] = await Promise.all([import('../../kinds/graphql/load.ts'), import('../../domain/protocol-paths.ts')])
    const schema = loadGraphqlSchema(text, source)
    return { format, title: titleFromSource(source, cwd), version: 'SDL', source, document: schema.sdl, operations: schema.operations.map((op) => graphqlOperationPath(op.type, op.field)) }
  }
  const [{ loadWsdl }, { soapOperationPath }] = await Promise.all([import('../../kinds/soap/load.ts'), import('../../domain/protocol-paths.ts')])
  const wsdl = await loadWsdl(text, source)
  return {
    format,
    title: wsdl.title || titleFromSource(source, cwd),
    version: 'WSDL 1.1',
    source,
    document: text,
    operations: wsdl.services.flatMap((service) => service.operations.map((op) => soapOperationPath(service.name, op.name))),
  }
}

const FORMAT_LABELS = { graphql: 'GraphQL schema', grpc: 'proto', soap: 'WSDL' } as const

/** In an empty database the import makes the first project, so `import x && serve` serves it. */
function targetProject(context: Context, title: string, slug: string | undefined): Project {
  return context.repos.projects.list().length === 0
    ? createProject(context, { name: title, slug: slug ?? firstSlug(title) })
    : selectProject(context, slug)
}

async function checkFormat(format: string | undefined, source: string, cwd: string): Promise<Detected> {
  if (format === undefined) return detectFormat(source, cwd)
  if (!(FORMATS as readonly string[]).includes(format)) throw new AppError('INVALID_INPUT', `format "${format}" must be one of ${FORMATS.join(', ')}`)
  return { format: format as Format }
}

export function registerImport(program: Command, ctx: CliContext): void {
  program
    .command('import <file>')
    .description('create endpoints from a schema file or URL: OpenAPI 3.0/3.1 or Swagger 2.0 (YAML or JSON), GraphQL (SDL or introspection JSON), gRPC (.proto), SOAP (WSDL 1.1)')
    .addHelpText('after', '\nExamples:\n  $ mockapi import petstore.yaml\n  $ mockapi import https://petstore3.swagger.io/api/v3/openapi.json --project pets --stateful\n  $ mockapi import schema.graphql --project shop')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--format <format>', `${FORMATS.join(' | ')} (default: detected from the file)`)
    .option('--proto-path <dir>', 'gRPC: another folder to resolve imports from (repeatable)', collect)
    .option('--replace', 'OpenAPI: remove endpoints of an earlier import of this spec that it no longer has')
    .option('--stateful', 'collection + item paths (/pets, /pets/{id}) store what is POSTed, like a resource')
    .option('--seed <n>', 'with --stateful: generated items each collection starts with (default 5)', parseInteger)
    .option('--allow-refs-outside', "OpenAPI: let a local spec $ref files outside its own folder (a spec from a URL only ever $refs http(s) URLs)")
    .option('--json', 'print the result as JSON')
    .action((source: string, options: ImportOptions, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        // An OpenAPI spec is read again by its loader, which resolves its $refs from the source itself.
        const { format, text } = await checkFormat(options.format, source, ctx.environment.cwd)
        if (format !== 'openapi') return importDefinitionFile(ctx, context, format, source, options, text)
        const seedCount = options.seed ?? 5
        if (seedCount < 0 || seedCount > 10_000) throw new AppError('INVALID_INPUT', `--seed ${seedCount} must be from 0 to 10000`)
        const started = performance.now()
        const [{ loadSpec }, { listOperations }, { createResponder }, { importOpenApi }, { loadFaker }] = await Promise.all([
          import('../../kinds/openapi/load.ts'),
          import('../../kinds/openapi/operations.ts'),
          import('../../kinds/openapi/responder.ts'),
          import('../../domain/openapi-import.ts'),
          import('../../engine/generators.ts'),
        ])
        // A local tool: specs served by a back end on localhost are the common case.
        // Resolved here, not by the loader: the working directory is the CLI's environment's.
        const spec = await loadSpec(isUrl(source) ? source : resolve(ctx.environment.cwd, source), { allowInternalUrls: true, allowRefsOutside: options.allowRefsOutside ?? false })
        const operations = listOperations(spec)
        const makeFaker = await loadFaker()
        const result = writeTransaction(context.db, () => {
          const project = targetProject(context, spec.title, options.project)
          return importOpenApi(context, project, { source, spec, operations }, {
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
      }, { create: true }))
}

async function importDefinitionFile(ctx: CliContext, context: Context, format: Exclude<Format, 'openapi'>, source: string, options: ImportOptions, text?: string): Promise<void> {
  const started = performance.now()
  const input = await readDefinition(format, source, ctx.environment.cwd, options, text)
  const { importDefinition } = await import('../../domain/definition-import.ts')
  const result = writeTransaction(context.db, () => importDefinition(context, targetProject(context, input.title, options.project), input))
  if (options.json) {
    return printJson(ctx.io, {
      project: result.project.slug,
      spec: { id: result.specId, title: input.title, format, version: input.version },
      created: result.created.map(endpointView),
      kept: result.kept.map(endpointView),
      removed: result.removed.map(endpointView),
    })
  }
  const counts = [`${result.created.length} created`, `${result.kept.length} kept`]
  if (result.removed.length > 0) counts.push(`${result.removed.length} removed`)
  const elapsedMs = Math.round(performance.now() - started)
  ctx.io.out(success(`imported ${FORMAT_LABELS[format]} "${input.title}" into project ${result.project.slug} in ${elapsedMs} ms: ${counts.join(', ')}`))
  if (input.operations.length === 0) printWarnings(ctx.io, [`the ${FORMAT_LABELS[format]} defines no operations: nothing to serve`])
  const rows = [...result.created, ...result.kept].sort((a, b) => a.path.localeCompare(b.path))
  printTable(ctx.io, ['METHOD', 'PATH', 'KIND'], rows.map((e) => [e.method, e.path, e.kind]))
}
