import type { Command } from 'commander'
import { parseAuthFlags } from '../../domain/auth-settings.ts'
import { addEndpoint, checkJsonBody } from '../../domain/endpoints.ts'
import { parseDelay } from '../../engine/delay.ts'
import { loadFaker } from '../../engine/generators.ts'
import { checkTemplate, hasPlaceholders } from '../../engine/template.ts'
import { endpointView } from '../../views.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, printWarnings, success } from '../output.ts'
import { collect, parseHeaders, parseInteger, readJsonArgument } from '../parse.ts'

interface AddEndpointOptions {
  project?: string
  status?: number
  body?: string
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
    .addHelpText('after', '\nExamples:\n  $ mockapi add-endpoint GET /api/stats --body \'{"orders":42}\' --delay 300\n  $ mockapi add-endpoint GET /api/flaky --delay 100-300 --fault reset\n  $ mockapi add-endpoint POST /api/login --status 201 --body \'{"token":"{{uuid}}"}\'')
    .option('--status <code>', 'response status (default 200; 201 for a create)', parseInteger)
    .option('--body <json>', 'response body as JSON, or @file to read it from a file')
    .option('--delay <ms|min-max>', 'wait this many milliseconds before answering: 300, or a range 100-300 drawn per request')
    .option('--fault <fault>', 'answer every call with a network fault instead: reset, empty, malformed or hang')
    .option('--auth <scheme>', 'credentials it demands: bearer[:t1,t2], apiKey:header|query|cookie:NAME[:k1,k2], basic:user:pass[,…], none, or JSON; repeatable (any one passes)', collect)
    .option('--header <name:value>', 'response header, repeatable', collect)
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--json', 'print the created endpoint as JSON')
    .action((method: string, path: string, options: AddEndpointOptions, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        const body = options.body === undefined ? undefined : readJsonArgument(options.body, ctx.environment.cwd)
        // A template is checked now, as `endpoint set` does, rather than failing on every call.
        if (body !== undefined && hasPlaceholders(body)) checkTemplate(checkJsonBody(body), (await loadFaker())())
        const { endpoint, warnings } = addEndpoint(context, {
          project: options.project,
          method,
          path,
          status: options.status,
          body,
          delay: options.delay === undefined ? undefined : parseDelay(options.delay),
          fault: options.fault,
          auth: options.auth === undefined ? undefined : parseAuthFlags(options.auth) ?? undefined,
          headers: parseHeaders(options.header),
        })
        printWarnings(ctx.io, warnings)
        if (options.json) return printJson(ctx.io, endpointView(endpoint))
        ctx.io.out(success(`added ${endpoint.method} ${endpoint.path} (${endpoint.kind}${endpoint.action ? `: ${endpoint.action}` : ''}, status ${endpoint.status})`))
      }))
}
