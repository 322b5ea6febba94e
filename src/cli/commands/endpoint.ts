import type { Command } from 'commander'
import { effectiveAuthOf, parseAuthFlags } from '../../domain/auth-settings.ts'
import { checkResponseBody, configureEndpoint, requireEndpoint, type SettingsInput } from '../../domain/endpoint-config.ts'
import { parseDelay } from '../../engine/delay.ts'
import { loadFaker } from '../../engine/generators.ts'
import { AppError } from '../../errors.ts'
import { contentTypeOf } from '../../engine/media-type.ts'
import { describeResponse, describeResponseDetails } from '../../domain/responses.ts'
import { endpointView, type EndpointView } from '../../views.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, success } from '../output.ts'
import { collect, parseHeaders, parseInteger, readFileArgument, readJsonArgument, readJsonBodyArgument } from '../parse.ts'

interface SetOptions {
  project?: string
  status?: number
  header?: string[]
  clearHeaders?: boolean
  delay?: string
  fault?: string
  clearFault?: boolean
  auth?: string[]
  body?: string
  text?: string
  file?: string
  clearBody?: boolean
  contentType?: string
  clearContentType?: boolean
  schema?: string
  clearSchema?: boolean
  errorRate?: string
  errorStatus?: number
  pick?: string
  proxy?: string
  json?: boolean
}

function onOff(value: string, flag: string): boolean {
  if (value !== 'on' && value !== 'off') throw new AppError('INVALID_INPUT', `${flag} "${value}" must be on or off`)
  return value === 'on'
}

function parseRate(value: string): number {
  const rate = Number(value.replace(/%$/, ''))
  if (!Number.isFinite(rate)) throw new AppError('INVALID_INPUT', `error rate "${value}" must be a percentage from 0 to 100`)
  return rate
}

/** What `endpoint show` says the endpoint answers. */
function bodyLine(view: EndpointView): string {
  if (view.bodyType === 'text') return `text ${JSON.stringify(view.text!.length > 200 ? `${view.text!.slice(0, 200)}…` : view.text)} (${Buffer.byteLength(view.text!)} bytes)`
  if (view.bodyType === 'file') return `file ${view.file!.name} (${view.file!.size} bytes, ${view.contentType ?? contentTypeOf(view.file!.name)})`
  return view.body === null ? (view.action ? '(the records)' : '{}') : JSON.stringify(view.body)
}

export function registerEndpoint(program: Command, ctx: CliContext): void {
  const endpoint = program.command('endpoint').description('show or configure one endpoint')

  endpoint
    .command('show <method> <path>')
    .description('every setting of one endpoint')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--json', 'machine-readable JSON on stdout')
    .action((method: string, path: string, options: { project?: string; json?: boolean }, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        const found = requireEndpoint(context, { project: options.project, method, path })
        const view = { ...endpointView(found), effectiveAuth: effectiveAuthOf(context, context.repos.projects.byId(found.projectId)!)(found) }
        if (options.json) return printJson(ctx.io, view)
        const line = (label: string, value: unknown) => ctx.io.out(`${label.padEnd(13)}${value}`)
        line('endpoint', `${view.method} ${view.path}  (${view.kind}${view.action ? `: ${view.action}` : ''}, id ${view.id})`)
        line('status', view.status)
        line('delay', `${view.delay} ms${typeof view.delay === 'string' ? ' (drawn per request)' : ''}`)
        if (view.fault !== null) line('fault', `${view.fault} (every call)`)
        if (view.proxy) line('proxy', 'on (forwarded to the project\'s proxy target)')
        line('auth', view.effectiveAuth)
        if (view.responses.length > 0 || view.pick !== 'rules') line('pick', view.pick)
        for (const [i, response] of found.responses.entries()) {
          line(i === 0 ? 'responses' : '', describeResponse(response, i + 1))
          for (const detail of describeResponseDetails(response)) line('', `   ${detail}`)
        }
        line('headers', Object.keys(view.headers).length ? Object.entries(view.headers).map(([k, v]) => `${k}: ${v}`).join(', ') : '(none)')
        line('error rate', `${view.errorRate} % → ${view.errorStatus}`)
        line('schema', view.schema === null ? '(none)' : JSON.stringify(view.schema))
        line('body', bodyLine(view))
        if (view.contentType !== null) line('content type', view.contentType)
      }))

  endpoint
    .command('set <method> <path>')
    .description('change settings of one endpoint; the others of its resource stay as they are')
    .option('--status <code>', 'success status', parseInteger)
    .option('--header <name:value>', 'response header, repeatable (replaces the headers)', collect)
    .option('--clear-headers', 'remove every response header')
    .option('--delay <ms|min-max>', 'wait before answering: 300, or a range 100-300 drawn per request')
    .option('--fault <fault>', 'answer every call with a network fault instead: reset, empty, malformed or hang')
    .option('--clear-fault', 'answer normally again')
    .option('--auth <scheme>', "credentials it demands: bearer[:t1,t2], apiKey:header|query|cookie:NAME[:k1,k2], basic:user:pass[,…], JSON; repeatable (any one passes); none: public; inherit: the project's", collect)
    .option('--body <json>', 'fixed response body or template ({{faker.person.fullName}}, {{params.id}}, …), or @file')
    .option('--text <text>', 'answer this text (a template, text/plain) instead of JSON, or @file; at most 1 MiB')
    .option('--file <path>', 'answer this file as it is (at most 5 MiB, kept in the database; Content-Type from its extension)')
    .option('--clear-body', 'answer the records (resource endpoints) or {} again (clears a JSON, text or file body)')
    .option('--content-type <type>', 'Content-Type of the configured body (text/csv, image/svg+xml, …)')
    .option('--clear-content-type', 'send the Content-Type the body\'s type or extension implies again')
    .option('--schema <json>', 'JSON Schema the request body must match (422 otherwise), or @file')
    .option('--clear-schema', 'stop validating the request body')
    .option('--error-rate <percent>', 'share of requests (0–100) answered with --error-status')
    .option('--error-status <code>', 'status of simulated errors (default 500)', parseInteger)
    .option('--pick <mode>', 'how a response is chosen (see `mockapi response`): rules, sequence or random')
    .option('--proxy <on|off>', "on: forward matched requests to the project's proxy target instead of answering them (project set --proxy, or serve --proxy)")
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--json', 'print the endpoint as JSON')
    .action((method: string, path: string, options: SetOptions, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        const cwd = ctx.environment.cwd
        const input: SettingsInput = {
          status: options.status,
          headers: options.clearHeaders ? {} : options.header ? parseHeaders(options.header) : undefined,
          delay: options.delay === undefined ? undefined : parseDelay(options.delay),
          fault: options.clearFault ? null : options.fault,
          auth: options.auth === undefined ? undefined : parseAuthFlags(options.auth),
          body: options.clearBody ? null : options.body === undefined ? undefined : readJsonBodyArgument(options.body, cwd),
          text: options.text === undefined ? undefined : readJsonArgument(options.text, cwd),
          file: options.file === undefined ? undefined : readFileArgument(options.file, cwd),
          contentType: options.clearContentType ? null : options.contentType,
          schema: options.clearSchema ? null : options.schema === undefined ? undefined : readJsonArgument(options.schema, cwd),
          errorRate: options.errorRate === undefined ? undefined : parseRate(options.errorRate),
          errorStatus: options.errorStatus,
          pick: options.pick,
          proxy: options.proxy === undefined ? undefined : onOff(options.proxy, '--proxy'),
        }
        if (options.clearBody && (options.text !== undefined || options.file !== undefined || options.body !== undefined)) throw new AppError('INVALID_INPUT', '--clear-body cannot be given with --body, --text or --file')
        if (Object.values(input).every((value) => value === undefined)) throw new AppError('INVALID_INPUT', 'nothing to set: give at least one option (see --help)')
        const target = requireEndpoint(context, { project: options.project, method, path })
        if (typeof input.body === 'string') await checkResponseBody(context, target, input.body)
        const updated = configureEndpoint(context, target, input, await loadFaker())
        if (options.json) return printJson(ctx.io, endpointView(updated))
        ctx.io.out(success(`updated ${updated.method} ${updated.path}`))
      }))
}
