import chalk from 'chalk'
import type { Command } from 'commander'
import { mintToken } from '../../domain/auth.ts'
import { selectProject } from '../../domain/projects.ts'
import { servingUrl } from '../../domain/serve-lease.ts'
import { AppError, ERRORS, type ErrorBody } from '../../errors.ts'
import type { Difference, JournalEntry } from '../../events.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, success, tableLines } from '../output.ts'
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
  clear?: boolean
  url?: string
  token?: string
}

/** Which serve to ask, as whom, about which project. */
interface Target {
  origin: string
  token: string
  projectId: number
  slug: string
  /** Said after a 401: a token minted from this database sent to a serve of another one. */
  unauthorizedHint: string
}

/** A serve's answer to one management API request. */
interface Answer {
  headers: Headers
  json: unknown
}

/**
 * Long enough for any query of a journal (5,000 entries, bodies read for a `when`) on a busy
 * machine; a serve that takes longer is stuck, and the command says so instead of hanging.
 */
const ANSWER_TIMEOUT_MS = 5_000

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

/** The serve's origin; only http(s) is a serve. */
function originOf(given: string): string {
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
async function ask(url: string, init: RequestInit, unauthorizedHint = ''): Promise<Answer> {
  const origin = new URL(url).origin
  let response: Response
  let text: string
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) })
    text = await response.text()
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new AppError('CONFLICT', `the serve at ${origin} did not answer within ${ANSWER_TIMEOUT_MS / 1000} s`)
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    const why = cause?.code ?? cause?.message
    throw new AppError('CONFLICT', `the serve at ${origin} does not answer${why ? ` (${why})` : ''}: is it running?`)
  }
  let json: unknown
  try {
    json = response.status === 204 ? null : JSON.parse(text)
  } catch {
    throw new AppError('INTERNAL', `${origin} answered ${response.status} without JSON: is it a mockapi serve?`)
  }
  if (!response.ok) {
    const error = (json as Partial<ErrorBody> | null)?.error
    if (error?.code && Object.hasOwn(ERRORS, error.code) && error.message) {
      throw new AppError(error.code, `${error.message}${response.status === 401 ? unauthorizedHint : ''}`, { details: error.details })
    }
    throw new AppError('INTERNAL', `${origin} answered ${response.status}`)
  }
  return { headers: response.headers, json }
}

/** The serve of this database (or --url), with a token minted from it unless one is given. */
async function localTarget(command: Command, ctx: CliContext, options: RequestsOptions): Promise<Target> {
  return withRuntime(command, ctx, async ({ context }) => {
    const project = selectProject(context, options.project)
    const origin = options.url === undefined ? servingUrl(context) : originOf(options.url)
    if (origin === null) throw new AppError('CONFLICT', 'no serve of this database is running (the journal lives in the serve): start `mockapi serve`, or pass --url')
    const token = options.token ?? (await mintToken(context, { projectId: project.id, expiresInMs: 60_000 }))
    const minted = options.token === undefined && options.url !== undefined
    return {
      origin,
      token,
      projectId: project.id,
      slug: project.slug,
      unauthorizedHint: minted ? ` (a token of this database: if ${origin} serves another one, pass --token with a token of its own)` : '',
    }
  })
}

/**
 * `--url` with `--token`: a serve whose database is not here (a container, another machine). The
 * project is picked from what the token may see, as `selectProject` picks from a database.
 */
async function remoteTarget(url: string, token: string, slug: string | undefined): Promise<Target> {
  const origin = originOf(url)
  const { json } = await ask(`${origin}/api/projects`, { headers: { Authorization: `Bearer ${token}` } })
  const projects = json as { id: number; slug: string; isDefault: boolean }[]
  const slugs = projects.map((p) => p.slug).join(', ') || 'none'
  const project = slug !== undefined
    ? projects.find((p) => p.slug === slug)
    : projects.length === 1 ? projects[0] : (projects.find((p) => p.isDefault) ?? projects[0])
  if (!project) {
    throw new AppError('PROJECT_NOT_FOUND', slug === undefined ? `${origin} serves no project this token may see` : `${origin} serves no project "${slug}" this token may see (it sees: ${slugs})`)
  }
  return { origin, token, projectId: project.id, slug: project.slug, unauthorizedHint: '' }
}

/** Who answered: the endpoint and its response, the proxy target, or that nothing matched. */
function answeredBy(entry: JournalEntry): string {
  if (entry.proxied) return entry.endpointId === null ? chalk.cyan('proxied') : `endpoint ${entry.endpointId} · ${chalk.cyan('proxied')}`
  if (!entry.matched) return chalk.yellow('unmatched')
  const parts: string[] = []
  if (entry.endpointId !== null) parts.push(`endpoint ${entry.endpointId}`)
  if (entry.response) parts.push(`response ${entry.response.position}${entry.response.name ? ` (${entry.response.name})` : ''}`)
  if (entry.fault) parts.push(`fault ${entry.fault}`)
  return parts.join(' · ')
}

/** The path and its query as a person reads them: values as received (a masked one is not re-encoded into `supe%E2%80%A6`). */
function pathWithQuery(entry: JournalEntry): string {
  const pairs = Object.entries(entry.query).flatMap(([name, value]) => [value].flat().map((one) => `${name}=${one}`))
  return pairs.length > 0 ? `${entry.path}?${pairs.join('&')}` : entry.path
}

const texts = (differences: readonly Difference[]) => differences.map((difference) => difference.text).join('; ')

/** What is said under an entry, indented: what kept it from the query when it is one of the closest, else its near misses and the rules that did not hold. */
function detailsOf(entry: JournalEntry, differences: readonly Difference[] | undefined): string[] {
  if (differences) return [`differs: ${texts(differences)}`]
  const details: string[] = []
  for (const miss of entry.nearMisses ?? []) details.push(`near miss ${miss.method} ${miss.path}: ${texts(miss.differences)}`)
  for (const miss of entry.ruleMisses ?? []) {
    details.push(`rule not held, response ${miss.response.position}${miss.response.name ? ` (${miss.response.name})` : ''}: ${miss.failed.join('; ')}`)
  }
  return details
}

/** One line per entry, newest first, each followed by its details; the columns fit the entries, not the details. */
function printEntries(ctx: CliContext, entries: readonly { entry: JournalEntry; differences?: Difference[] }[]): void {
  const rows = entries.map(({ entry }) => [entry.id, entry.time.slice(11, 23), entry.method, pathWithQuery(entry), entry.status, entry.durationMs, answeredBy(entry)])
  const { header, lines } = tableLines(['ID', 'TIME', 'METHOD', 'PATH', 'STATUS', 'MS', 'ANSWERED'], rows)
  // Under the TIME column: the ID column is as wide as its widest cell or its header.
  const indent = ' '.repeat(Math.max('ID'.length, ...entries.map(({ entry }) => String(entry.id).length)) + 2)
  ctx.io.out([header, ...lines.flatMap((line, i) => [line, ...detailsOf(entries[i]!.entry, entries[i]!.differences).map((detail) => chalk.dim(`${indent}${detail}`))])].join('\n'))
}

export function registerRequests(program: Command, ctx: CliContext): void {
  program
    .command('requests')
    .description("list the requests a running serve's journal kept, newest first, with near misses (see docs/testing.md)")
    .option('--project <slug>', 'project (default: the only or the default one)')
    .option('--method <methods>', 'only these methods (comma list)')
    .option('--path <pattern>', 'only paths matching, as endpoint paths are written: * one segment, ** the rest')
    .option('--status <statuses>', 'only these statuses: 201, 4xx, 400-499, a comma list; 0 for faults')
    .option('--unmatched', 'only requests no endpoint matched, with their near misses')
    .option('--since <time>', 'only requests since an ISO time or a span back (30s, 5m, 2h)')
    .option('--limit <n>', 'how many, newest first', parseInteger, 50)
    .option('--when <json>', 'conditions as response rules take them (JSON, or @file): {"body":{"sku":"A-1"}}')
    .option('--json', 'the entries as JSON on stdout (an array, newest first)')
    .option('--clear', "empty the project's journal instead of listing it")
    .option('--url <url>', "the serve's address (default: the serve of this database, found in the database)")
    .option('--token <jwt>', 'a management API token (default: one minted from this database for 60 s)')
    .action(async (options: RequestsOptions, command: Command) => {
      const narrowing = (['method', 'path', 'status', 'unmatched', 'since', 'when', 'json'] as const).filter((flag) => options[flag] !== undefined)
      if (options.clear && narrowing.length > 0) {
        throw new AppError('INVALID_INPUT', `--clear empties the whole journal of the project: it takes no --${narrowing.join(', --')}`)
      }
      // A broken --when is refused before anything is asked.
      const when = options.when === undefined ? undefined : jsonFlag('--when', options.when, ctx.environment.cwd)
      const target = options.url !== undefined && options.token !== undefined
        ? await remoteTarget(options.url, options.token, options.project)
        : await localTarget(command, ctx, options)
      const headers = { Authorization: `Bearer ${target.token}` }
      const filter = filterOf(options)
      const base = `${target.origin}/api/projects/${target.projectId}/requests`
      if (options.clear) {
        await ask(base, { method: 'DELETE', headers }, target.unauthorizedHint)
        return ctx.io.out(success(`the journal of ${target.slug} is empty`))
      }
      let entries: JournalEntry[]
      let total: number
      let closest: { request: JournalEntry; differences: Difference[] }[] = []
      if (when === undefined) {
        const query = new URLSearchParams(Object.entries(filter).map(([name, value]): [string, string] => [name, String(value)]))
        const answer = await ask(`${base}?${query}`, { headers }, target.unauthorizedHint)
        entries = answer.json as JournalEntry[]
        total = Number(answer.headers.get('x-total-count') ?? entries.length)
      } else {
        const found = (await ask(`${base}/find`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: JSON.stringify({ ...filter, when }),
        }, target.unauthorizedHint)).json as { count: number; requests: JournalEntry[]; closest?: { request: JournalEntry; differences: Difference[] }[] }
        entries = found.requests
        total = found.count
        closest = found.closest ?? []
      }
      if (options.json) return printJson(ctx.io, entries)
      if (entries.length > 0) {
        printEntries(ctx, entries.map((entry) => ({ entry })))
        if (total > entries.length) ctx.io.out(chalk.dim(`${entries.length} of ${total} shown (--limit for more)`))
      } else if (closest.length > 0) {
        ctx.io.out(chalk.dim('no requests match; the closest, with what differed:'))
        printEntries(ctx, closest.map(({ request, differences }) => ({ entry: request, differences })))
      } else {
        ctx.io.out(chalk.dim('no requests match'))
      }
    })
}
