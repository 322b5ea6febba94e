import type { Command } from 'commander'
import { requireEndpoint } from '../../domain/endpoint-config.ts'
import { addResponse, removeResponse } from '../../domain/response-edits.ts'
import { describeResponse, describeResponseHeaders } from '../../domain/responses.ts'
import { describeWhen } from '../../engine/conditions.ts'
import { loadFaker } from '../../engine/generators.ts'
import { endpointView, type ResponseView } from '../../views.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, printTable, success } from '../output.ts'
import { collect, jsonFlag, parseHeaders, parseInteger, readFileArgument, readJsonArgument } from '../parse.ts'

interface AddOptions {
  when?: string
  status?: number
  header?: string[]
  body?: string
  text?: string
  file?: string
  contentType?: string
  delay?: string
  fault?: string
  name?: string
  at?: number
  project?: string
  json?: boolean
}

/** The response the flags describe, in the shape the API and the project file take. */
function responseOf(options: AddOptions, cwd: string): ResponseView & { when?: unknown; fault?: string } {
  const response: Record<string, unknown> = {}
  if (options.name !== undefined) response.name = options.name
  if (options.when !== undefined) response.when = jsonFlag('--when', options.when, cwd)
  if (options.status !== undefined) response.status = options.status
  if (options.header) response.headers = parseHeaders(options.header)
  if (options.body !== undefined) response.body = jsonFlag('--body', options.body, cwd)
  if (options.text !== undefined) response.text = readJsonArgument(options.text, cwd)
  if (options.file !== undefined) {
    const file = readFileArgument(options.file, cwd)
    response.file = { name: file.name, base64: Buffer.from(file.bytes).toString('base64') }
  }
  if (options.contentType !== undefined) response.contentType = options.contentType
  // parseDelay reads `300` and `100-300` as text, as the project file's delay.
  if (options.delay !== undefined) response.delay = options.delay
  if (options.fault !== undefined) response.fault = options.fault
  return response
}

/** The BODY column: the JSON, the text or the file, shortened. */
function bodyCell(response: ResponseView): string {
  const type = response.contentType === undefined ? '' : ` (${response.contentType})`
  if (response.text !== undefined) return `text ${JSON.stringify(response.text).slice(0, 40)}${type}`
  if (response.file !== undefined && 'size' in response.file) return `file ${response.file.name} (${response.file.size} bytes)${type}`
  return response.body === undefined ? `(none)${type}` : `${JSON.stringify(response.body).slice(0, 40)}${type}`
}

export function registerResponse(program: Command, ctx: CliContext): void {
  const response = program.command('response').description('the responses of one endpoint, picked per request by rules, in sequence or at random')

  response
    .command('add <method> <path>')
    .description('add a response; without --when it is the fallback (pick: rules)')
    .option('--when <json>', 'conditions on params, query, headers, cookies, body (JSON, or @file): {"body":{"email":"taken@example.com"}}')
    .option('--status <code>', 'status of this answer (default: the endpoint\'s)', parseInteger)
    .option('--header <name:value>', 'header laid over the endpoint\'s, repeatable', collect)
    .option('--body <json>', 'JSON body or template, or @file (default: no body)')
    .option('--text <text>', 'text body (a template, text/plain), or @file; at most 1 MiB')
    .option('--file <path>', 'answer this file as it is (at most 5 MiB, kept in the database; Content-Type from its extension)')
    .option('--content-type <type>', 'Content-Type of this body, instead of the one its type or extension implies')
    .option('--delay <ms|min-max>', 'wait before this answer: 300, or a range 100-300')
    .option('--fault <fault>', 'a network fault instead of this answer: reset, empty, malformed or hang')
    .option('--name <label>', 'a name events, the serve log and `response remove` use')
    .option('--at <position>', 'insert at this 1-based position (default: last)', parseInteger)
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--json', 'print the endpoint as JSON')
    .action((method: string, path: string, options: AddOptions, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        const raw = responseOf(options, ctx.environment.cwd)
        const target = requireEndpoint(context, { project: options.project, method, path })
        const updated = addResponse(context, target, raw, options.at, await loadFaker())
        if (options.json) return printJson(ctx.io, endpointView(updated))
        const position = options.at ?? updated.responses.length
        ctx.io.out(success(`${updated.method} ${updated.path}: added ${describeResponse(updated.responses[position - 1]!, position)}`))
      }))

  response
    .command('list <method> <path>')
    .description('the responses of one endpoint, in order, and how they are picked')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--json', 'machine-readable JSON on stdout')
    .action((method: string, path: string, options: { project?: string; json?: boolean }, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        const view = endpointView(requireEndpoint(context, { project: options.project, method, path }))
        if (options.json) return printJson(ctx.io, { pick: view.pick, responses: view.responses })
        ctx.io.out(`pick: ${view.pick}`)
        printTable(ctx.io, ['#', 'NAME', 'WHEN', 'STATUS', 'HEADERS', 'BODY', 'DELAY', 'FAULT'], view.responses.map((r, i) => [
          i + 1,
          r.name ?? '',
          r.when ? describeWhen(r.when) : view.pick === 'rules' ? '(fallback)' : '',
          r.status ?? view.status,
          describeResponseHeaders(r.headers ?? {}, 40),
          bodyCell(r),
          r.delay === undefined ? '' : `${r.delay}ms`,
          r.fault ?? '',
        ]), 'no responses: the endpoint answers as configured')
      }))

  response
    .command('remove <method> <path> <which>')
    .description('remove a response by its 1-based position or its name')
    .option('--project <slug>', 'project (default: the only or the default one)')
    .action((method: string, path: string, which: string, options: { project?: string }, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        const target = requireEndpoint(context, { project: options.project, method, path })
        const updated = removeResponse(context, target, which, await loadFaker())
        ctx.io.out(success(`${updated.method} ${updated.path}: removed response ${/^\d+$/.test(which) ? `#${which}` : `"${which}"`} (${updated.responses.length} left)`))
      }))
}
