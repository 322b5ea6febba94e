import type { Command } from 'commander'
import { parseAuthFlags } from '../../domain/auth-settings.ts'
import { addEndpointWithBody } from '../../domain/endpoint-config.ts'
import { checkJsonBody } from '../../domain/endpoints.ts'
import { parseDelay } from '../../engine/delay.ts'
import { loadFaker } from '../../engine/generators.ts'
import { checkTemplate, hasPlaceholders } from '../../engine/template.ts'
import { endpointView } from '../../views.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, printWarnings, success } from '../output.ts'
import { collect, parseHeaders, parseInteger, readFileArgument, readJsonArgument, readJsonBodyArgument } from '../parse.ts'

interface AddEndpointOptions {
  project?: string
  status?: number
  body?: string
  text?: string
  file?: string
  contentType?: string
  delay?: string
  fault?: string
  auth?: string[]
  header?: string[]
  json?: boolean
}

export function registerAddEndpoint(program: Command, ctx: CliContext): void {
  program
    .command('add-endpoint <method> <path>')
    .description('add one custom endpoint (GET POST PUT PATCH DELETE); on a resource path without --body it works on the records')
    .addHelpText('after', '\nExamples:\n  $ mockapi add-endpoint GET /api/stats --body \'{"orders":42}\' --delay 300\n  $ mockapi add-endpoint GET /api/flaky --delay 100-300 --fault reset\n  $ mockapi add-endpoint POST /api/login --status 201 --body \'{"token":"{{uuid}}"}\'\n  $ mockapi add-endpoint GET /api/avatar --file ./avatar.png')
    .option('--status <code>', 'response status (default 200; 201 for a create)', parseInteger)
    .option('--body <json>', 'response body as JSON, or @file to read it from a file')
    .option('--text <text>', 'response body as text (a template, text/plain), or @file; at most 1 MiB')
    .option('--file <path>', 'answer this file as it is (at most 5 MiB, kept in the database; Content-Type from its extension)')
    .option('--content-type <type>', 'Content-Type of the body, instead of the one its type or extension implies')
    .option('--delay <ms|min-max>', 'wait this many milliseconds before answering: 300, or a range 100-300 drawn per request')
    .option('--fault <fault>', 'answer every call with a network fault instead: reset, empty, malformed or hang')
    .option('--auth <scheme>', 'credentials it demands: bearer[:t1,t2], apiKey:header|query|cookie:NAME[:k1,k2], basic:user:pass[,…], none, or JSON; repeatable (any one passes)', collect)
    .option('--header <name:value>', 'response header, repeatable', collect)
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--json', 'print the created endpoint as JSON')
    .action((method: string, path: string, options: AddEndpointOptions, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        const cwd = ctx.environment.cwd
        const body = options.body === undefined ? undefined : readJsonBodyArgument(options.body, cwd)
        const makeFaker = await loadFaker()
        // A template is checked now, as `endpoint set` does, rather than failing on every call.
        if (body !== undefined && hasPlaceholders(body)) checkTemplate(checkJsonBody(body), makeFaker())
        const { endpoint, warnings } = addEndpointWithBody(context, {
          project: options.project,
          method,
          path,
          status: options.status,
          body,
          delay: options.delay === undefined ? undefined : parseDelay(options.delay),
          fault: options.fault,
          auth: options.auth === undefined ? undefined : parseAuthFlags(options.auth) ?? undefined,
        }, {
          headers: options.header ? parseHeaders(options.header) : undefined,
          text: options.text === undefined ? undefined : readJsonArgument(options.text, cwd),
          file: options.file === undefined ? undefined : readFileArgument(options.file, cwd),
          contentType: options.contentType,
        }, makeFaker)
        printWarnings(ctx.io, warnings)
        if (options.json) return printJson(ctx.io, endpointView(endpoint))
        ctx.io.out(success(`added ${endpoint.method} ${endpoint.path} (${endpoint.kind}${endpoint.action ? `: ${endpoint.action}` : ''}, status ${endpoint.status})`))
      }))
}
