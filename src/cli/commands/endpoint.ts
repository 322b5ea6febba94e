import type { Command } from 'commander'
import { checkResponseBody, configureEndpoint, requireEndpoint, type SettingsInput } from '../../domain/endpoint-config.ts'
import { parseDelay } from '../../engine/delay.ts'
import { loadFaker } from '../../engine/generators.ts'
import { AppError } from '../../errors.ts'
import { describeResponse } from '../../domain/responses.ts'
import { endpointView } from '../../views.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, success } from '../output.ts'
import { collect, parseHeaders, parseInteger, readJsonArgument } from '../parse.ts'

interface SetOptions {
  project?: string
  status?: number
  header?: string[]
  clearHeaders?: boolean
  delay?: string
  fault?: string
  clearFault?: boolean
  body?: string
  clearBody?: boolean
  schema?: string
  clearSchema?: boolean
  errorRate?: string
  errorStatus?: number
  pick?: string
  json?: boolean
}

function parseRate(value: string): number {
  const rate = Number(value.replace(/%$/, ''))
  if (!Number.isFinite(rate)) throw new AppError('INVALID_INPUT', `error rate "${value}" must be a percentage from 0 to 100`)
  return rate
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
        const shown = requireEndpoint(context, { project: options.project, method, path })
        const view = endpointView(shown)
        if (options.json) return printJson(ctx.io, view)
        const line = (label: string, value: unknown) => ctx.io.out(`${label.padEnd(13)}${value}`)
        line('endpoint', `${view.method} ${view.path}  (${view.kind}${view.action ? `: ${view.action}` : ''}, id ${view.id})`)
        line('status', view.status)
        line('delay', `${view.delay} ms${typeof view.delay === 'string' ? ' (drawn per request)' : ''}`)
        if (view.fault !== null) line('fault', `${view.fault} (every call)`)
        if (view.responses.length > 0) {
          line('pick', view.pick)
          for (const [i, response] of shown.responses.entries()) line(i === 0 ? 'responses' : '', describeResponse(response, i + 1))
        }
        line('headers', Object.keys(view.headers).length ? Object.entries(view.headers).map(([k, v]) => `${k}: ${v}`).join(', ') : '(none)')
        line('error rate', `${view.errorRate} % → ${view.errorStatus}`)
        line('schema', view.schema === null ? '(none)' : JSON.stringify(view.schema))
        line('body', view.body === null ? (view.action ? '(the records)' : '{}') : JSON.stringify(view.body))
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
    .option('--body <json>', 'fixed response body or template ({{faker.person.fullName}}, {{params.id}}, …), or @file')
    .option('--clear-body', 'answer the records (resource endpoints) or {} again')
    .option('--schema <json>', 'JSON Schema the request body must match (422 otherwise), or @file')
    .option('--clear-schema', 'stop validating the request body')
    .option('--error-rate <percent>', 'share of requests (0–100) answered with --error-status')
    .option('--error-status <code>', 'status of simulated errors (default 500)', parseInteger)
    .option('--pick <mode>', 'how a response is chosen (see `mockapi response`): rules, sequence or random')
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
          body: options.clearBody ? null : options.body === undefined ? undefined : readJsonArgument(options.body, cwd),
          schema: options.clearSchema ? null : options.schema === undefined ? undefined : readJsonArgument(options.schema, cwd),
          errorRate: options.errorRate === undefined ? undefined : parseRate(options.errorRate),
          errorStatus: options.errorStatus,
          pick: options.pick,
        }
        if (Object.values(input).every((value) => value === undefined)) throw new AppError('INVALID_INPUT', 'nothing to set: give at least one option (see --help)')
        const target = requireEndpoint(context, { project: options.project, method, path })
        if (typeof input.body === 'string') await checkResponseBody(context, target, input.body)
        const updated = configureEndpoint(context, target, input, await loadFaker())
        if (options.json) return printJson(ctx.io, endpointView(updated))
        ctx.io.out(success(`updated ${updated.method} ${updated.path}`))
      }))
}
