import type { Command } from 'commander'
import { mintToken } from '../../domain/auth.ts'
import { selectProject } from '../../domain/projects.ts'
import { servingUrl } from '../../domain/serve-lease.ts'
import { AppError, ERRORS, type ErrorBody } from '../../errors.ts'
import type { JournalEntry } from '../../events.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, printTable } from '../output.ts'
import { jsonFlag, parseInteger } from '../parse.ts'

interface RequestsOptions {
  project?: string
  method?: string
  path?: string
  status?: string
  unmatched?: boolean
  since?: string
  limit: number
  when?: string
  json?: boolean
  url?: string
  token?: string
}

/** The management API's query for the flags; `find` takes the same fields as JSON, with `when`. */
function filterOf(options: RequestsOptions): Record<string, string | number | boolean> {
  const filter: Record<string, string | number | boolean> = { limit: options.limit }
  if (options.method !== undefined) filter.method = options.method
  if (options.path !== undefined) filter.path = options.path
  if (options.status !== undefined) filter.status = options.status
  if (options.unmatched) filter.matched = false
  if (options.since !== undefined) filter.since = options.since
  return filter
}

/** The base URL without a trailing slash; only http(s) is a serve. */
function baseUrl(given: string): string {
  let url: URL
  try {
    url = new URL(given)
  } catch {
    throw new AppError('INVALID_INPUT', `--url ${given} is not a URL: give the serve's address, such as http://localhost:3000`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError('INVALID_INPUT', `--url ${given} is not http(s)`)
  return url.origin
}

/** One request of the management API; its errors are the API's own, a serve that does not answer says so. */
async function ask(url: string, init: RequestInit): Promise<unknown> {
  let response: Response
  try {
    response = await fetch(url, init)
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code
    throw new AppError('CONFLICT', `the serve at ${new URL(url).origin} does not answer${cause ? ` (${cause})` : ''}: is it running?`)
  }
  const text = await response.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new AppError('INTERNAL', `${new URL(url).origin} answered ${response.status} without JSON: is it a mockapi serve?`)
  }
  if (!response.ok) {
    const error = (json as Partial<ErrorBody>).error
    if (error?.code && Object.hasOwn(ERRORS, error.code) && error.message) throw new AppError(error.code, error.message, { details: error.details })
    throw new AppError('INTERNAL', `${new URL(url).origin} answered ${response.status}`)
  }
  return json
}

/** Who answered: the endpoint and its response, or why nothing did. */
function answeredBy(entry: JournalEntry): string {
  if (!entry.matched) return 'unmatched'
  if (entry.endpointId === null) return ''
  const response = entry.response ? ` · response ${entry.response.position}${entry.response.name ? ` (${entry.response.name})` : ''}` : ''
  return `endpoint ${entry.endpointId}${response}${entry.fault ? ` · fault ${entry.fault}` : ''}`
}

function pathWithQuery(entry: JournalEntry): string {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(entry.query)) for (const one of [value].flat()) query.append(name, one)
  const search = query.toString()
  return search ? `${entry.path}?${search}` : entry.path
}

function printEntries(ctx: CliContext, entries: JournalEntry[]): void {
  const rows: (string | number)[][] = []
  for (const entry of entries) {
    rows.push([entry.id, entry.time.slice(11, 23), entry.method, pathWithQuery(entry), entry.status, entry.durationMs, answeredBy(entry)])
    for (const miss of entry.nearMisses ?? []) {
      rows.push(['', '', '', `  near miss: ${miss.method} ${miss.path}`, '', '', miss.differences.map((d) => d.text).join('; ')])
    }
    for (const miss of entry.ruleMisses ?? []) {
      const name = `response ${miss.response.position}${miss.response.name ? ` (${miss.response.name})` : ''}`
      rows.push(['', '', '', `  rule not held: ${name}`, '', '', miss.failed.join('; ')])
    }
  }
  printTable(ctx.io, ['ID', 'TIME', 'METHOD', 'PATH', 'STATUS', 'MS', 'ANSWERED'], rows, 'no requests match')
}

export function registerRequests(program: Command, ctx: CliContext): void {
  program
    .command('requests')
    .description("list the requests a running serve's journal kept, newest first (see docs/testing.md)")
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--method <methods>', 'only these methods (comma list)')
    .option('--path <pattern>', 'only paths matching, as endpoint paths are written: * one segment, ** the rest')
    .option('--status <statuses>', 'only these statuses: 201, 4xx, 400-499, a comma list; 0 for faults')
    .option('--unmatched', 'only requests no endpoint matched, with their near misses')
    .option('--since <time>', 'only requests since an ISO time or a span back (30s, 5m, 2h)')
    .option('--limit <n>', 'how many (default 50)', parseInteger, 50)
    .option('--when <json>', 'conditions as response rules take them (JSON, or @file): {"body":{"sku":"A-1"}}')
    .option('--json', 'the entries as JSON on stdout')
    .option('--url <url>', "the serve's address (default: the serve of this database, found from the database)")
    .option('--token <jwt>', 'a management API token (default: one minted from this database for 60 s)')
    .action((options: RequestsOptions, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        const project = selectProject(context, options.project)
        const found = options.url === undefined ? servingUrl(context) : baseUrl(options.url)
        if (found === null) throw new AppError('CONFLICT', 'no serve of this database is running (the journal lives in the serve): start `mockapi serve`, or pass --url')
        const token = options.token ?? (await mintToken(context, { projectId: project.id, expiresInMs: 60_000 }))
        const headers = { Authorization: `Bearer ${token}` }
        const filter = filterOf(options)
        const base = `${found}/api/projects/${project.id}/requests`
        const entries = options.when === undefined
          ? await ask(`${base}?${new URLSearchParams(Object.entries(filter).map(([k, v]): [string, string] => [k, String(v)]))}`, { headers }) as JournalEntry[]
          : (await ask(`${base}/find`, {
            method: 'POST',
            headers: { ...headers, 'Content-Type': 'application/json' },
            body: JSON.stringify({ ...filter, when: jsonFlag('--when', options.when, ctx.environment.cwd) }),
          }) as { requests: JournalEntry[] }).requests
        if (options.json) return printJson(ctx.io, entries)
        printEntries(ctx, entries)
      }))
}
