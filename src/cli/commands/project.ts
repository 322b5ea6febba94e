import type { Command } from 'commander'
import type { Project, ProxySetting } from '../../model.ts'
import { parseAuthFlags } from '../../domain/auth-settings.ts'
import { describeEffectiveAuth } from '../../engine/auth-check.ts'
import { AppError } from '../../errors.ts'
import { createProject, defaultProject, deleteProject, requireProjectBySlug, selectProject, setDefaultProject, updateProjectSettings } from '../../domain/projects.ts'
import { endpointView, projectView } from '../../views.ts'
import { withRuntime, type CliContext } from '../context.ts'
import { printJson, printTable, success } from '../output.ts'
import { collect } from '../parse.ts'
import { QUIET_OPTION, withProgress } from '../progress.ts'

/** `bearer, any token | apiKey in header X-API-Key, any key`, or `none`. */
function projectAuthText(auth: Project['auth']): string {
  return auth ? describeEffectiveAuth({ source: 'project', requirements: auth.map((scheme) => [scheme]) }).replace(/ \(project\)$/, '') : 'none'
}

export function registerProject(program: Command, ctx: CliContext): void {
  const project = program.command('project').description('create, delete, show one project, or choose the default one')

  project
    .command('create <name>')
    .description('create a project')
    .option('--slug <slug>', 'URL slug (default: from the name)')
    .option('--json', 'print the created project as JSON')
    .action((name: string, options: { slug?: string; json?: boolean }, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        const created = createProject(context, { name, slug: options.slug })
        if (options.json) return printJson(ctx.io, projectView(created))
        ctx.io.out(success(`created project ${created.name} (slug ${created.slug}, id ${created.id})`))
      }, { create: true }))

  project
    .command('delete <slug>')
    .description('delete a project with its resources, endpoints and records')
    .option(...QUIET_OPTION)
    .action((slug: string, options: { quiet?: boolean }, command: Command) =>
      withRuntime(command, ctx, async ({ context }) => {
        const removed = await withProgress(ctx, options, (onProgress) => deleteProject(context, slug, { onProgress }))
        ctx.io.out(success(`deleted project ${removed.name} (${removed.slug})`))
      }))

  project
    .command('default [slug]')
    .description('make a project the default (commands without --project act on it; serve answers its own paths); without a slug, show which one is')
    .addHelpText('after', '\nExamples:\n  $ mockapi project default shop\n  $ mockapi project default')
    .action((slug: string | undefined, _options: unknown, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        if (slug === undefined) {
          const current = defaultProject(context)
          ctx.io.out(current ? `${current.slug}  (${current.name}, id ${current.id})` : 'no project yet: run "mockapi init" first')
          return
        }
        const chosen = setDefaultProject(context, slug)
        ctx.io.out(success(`${chosen.slug} is now the default project`))
      }))

  project
    .command('set [slug]')
    .description("change a project's settings (default: the only or the default project)")
    .addHelpText('after', '\nExamples:\n  $ mockapi project set shop --path-rules warn\n  $ mockapi project set --path-rules off\n  $ mockapi project set shop --auth bearer:t-123 --auth apiKey:header:X-API-Key\n  $ mockapi project set shop --openapi-security off\n  $ mockapi project set shop --negotiation lenient\n  $ mockapi project set shop --proxy https://api.example.com --proxy-header X-Api-Key:k-1 --proxy-path-rewrite "^/v1=/v2"\n  $ mockapi project set shop --proxy off')
    .option('--path-rules <mode>', 'how new paths are judged: strict (the naming rules refuse), warn (they warn) or off (any sound path); existing paths stay')
    .option('--auth <scheme>', 'credentials every mock route demands: bearer[:t1,t2], apiKey:header|query|cookie:NAME[:k1,k2], basic:user:pass[,…], or JSON; repeatable (any one passes); none: no auth', collect)
    .option('--openapi-security <on|off>', "whether imported OpenAPI operations enforce their spec's security requirements (default on)")
    .option('--negotiation <mode>', "what imported OpenAPI operations answer an Accept they document no type for: strict (406, the default) or lenient (their default type)")
    .option('--proxy <url|off>', 'forward what none of its endpoints matches to this http(s) URL (under /api/{slug}/, and at its own paths when served there); off: answer 404 again')
    .option('--proxy-header <name:value>', 'a header every forwarded request carries, replacing the client\'s (an API key the real back end wants); repeatable; replaces the list', collect)
    .option('--proxy-path-rewrite <pattern=replacement>', 'rewrite the forwarded path: the first pattern (a regular expression) that matches is replaced ($1 a group); repeatable, tried in order; replaces the list', collect)
    .option('--json', 'print the project as JSON')
    .action((slug: string | undefined, options: { pathRules?: string; auth?: string[]; openapiSecurity?: string; negotiation?: string; proxy?: string; proxyHeader?: string[]; proxyPathRewrite?: string[]; json?: boolean }, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        const found = selectProject(context, slug)
        const changes: Record<string, unknown> = {}
        if (options.pathRules !== undefined) changes.pathRules = options.pathRules
        if (options.auth !== undefined) {
          const auth = options.auth.length === 1 && options.auth[0] === 'none' ? null : parseAuthFlags(options.auth)
          if (auth === 'none') throw new AppError('INVALID_INPUT', '--auth none stands alone')
          changes.auth = auth
        }
        if (options.openapiSecurity !== undefined) {
          if (options.openapiSecurity !== 'on' && options.openapiSecurity !== 'off') throw new AppError('INVALID_INPUT', `--openapi-security "${options.openapiSecurity}" must be on or off`)
          changes.openapiSecurity = options.openapiSecurity === 'on'
        }
        if (options.negotiation !== undefined) changes.negotiation = options.negotiation
        const proxy = proxyChange(found.proxy, options)
        if (proxy !== undefined) changes.proxy = proxy
        if (Object.keys(changes).length === 0) throw new AppError('INVALID_INPUT', 'nothing to change: give --path-rules strict|warn|off, --auth, --openapi-security on|off, --negotiation strict|lenient or --proxy URL|off')
        const updated = updateProjectSettings(context, found, changes)
        if (options.json) return printJson(ctx.io, projectView(updated))
        ctx.io.out(success(`project ${updated.slug}: path rules ${updated.pathRules}, auth ${projectAuthText(updated.auth)}, OpenAPI security ${updated.openapiSecurity ? 'on' : 'off'}, negotiation ${updated.negotiation}, proxy ${proxyText(updated.proxy)}`))
      }))

  project
    .command('show <slug>')
    .description('show a project and its endpoints')
    .option('--json', 'machine-readable JSON on stdout')
    .action((slug: string, options: { json?: boolean }, command: Command) =>
      withRuntime(command, ctx, ({ context }) => {
        const found = requireProjectBySlug(context, slug)
        const endpoints = context.repos.endpoints.listByProject(found.id).map(endpointView)
        const resources = context.repos.resources.listByProject(found.id).map((r) => ({ id: r.id, path: r.path, onDelete: r.onDelete }))
        if (options.json) return printJson(ctx.io, { ...projectView(found), resources, endpoints })
        ctx.io.out(`${found.name}  (slug ${found.slug}, id ${found.id}${found.isDefault ? ', default' : ''})`)
        ctx.io.out(`share token  ${found.shareToken}`)
        ctx.io.out(`path rules   ${found.pathRules}`)
        ctx.io.out(`auth         ${projectAuthText(found.auth)}`)
        ctx.io.out(`security     ${found.openapiSecurity ? 'on (imported OpenAPI operations enforce theirs)' : 'off (imported OpenAPI operations ignore theirs)'}`)
        ctx.io.out(`negotiation  ${found.negotiation === 'strict' ? 'strict (an Accept an imported OpenAPI operation cannot satisfy: 406)' : 'lenient (an Accept an imported OpenAPI operation cannot satisfy: its default type)'}`)
        ctx.io.out(`proxy        ${proxyText(found.proxy)}`)
        ctx.io.out(`created      ${found.createdAt}\n`)
        printTable(ctx.io, ['METHOD', 'PATH', 'KIND', 'STATUS'], endpoints.map((e) => [e.method, e.path, e.kind, e.status]), 'no endpoints yet')
      }))
}

/** `name:value` or `pattern=replacement` split at the first separator. */
function pairsOf(values: string[], separator: string, flag: string): Record<string, string> {
  const pairs: Record<string, string> = {}
  for (const value of values) {
    const at = value.indexOf(separator)
    if (at <= 0) throw new AppError('INVALID_INPUT', `${flag} "${value}" must be ${separator === ':' ? 'name:value' : 'pattern=replacement'}`)
    pairs[value.slice(0, at).trim()] = value.slice(at + 1).trim()
  }
  return pairs
}

/** The `proxy` setting the flags make of the current one; undefined: no proxy flag given. */
function proxyChange(current: ProxySetting | null, options: { proxy?: string; proxyHeader?: string[]; proxyPathRewrite?: string[] }): ProxySetting | null | undefined {
  if (options.proxy === undefined && options.proxyHeader === undefined && options.proxyPathRewrite === undefined) return undefined
  if (options.proxy === 'off') {
    if (options.proxyHeader !== undefined || options.proxyPathRewrite !== undefined) throw new AppError('INVALID_INPUT', '--proxy off stands alone')
    return null
  }
  const target = options.proxy ?? current?.target
  if (target === undefined) throw new AppError('INVALID_INPUT', 'the project has no proxy yet: give --proxy URL with --proxy-header or --proxy-path-rewrite')
  return {
    target,
    headers: options.proxyHeader === undefined ? (current?.headers ?? {}) : pairsOf(options.proxyHeader, ':', '--proxy-header'),
    pathRewrite: options.proxyPathRewrite === undefined ? (current?.pathRewrite ?? {}) : pairsOf(options.proxyPathRewrite, '=', '--proxy-path-rewrite'),
  }
}

/** The proxy setting in one line; header values are not shown (they are often keys). */
function proxyText(proxy: ProxySetting | null): string {
  if (!proxy) return 'off'
  const headers = Object.keys(proxy.headers)
  const rewrites = Object.entries(proxy.pathRewrite).map(([pattern, replacement]) => `${pattern} → ${replacement}`)
  return [proxy.target, headers.length ? `headers ${headers.join(', ')}` : '', rewrites.length ? `paths ${rewrites.join(', ')}` : ''].filter(Boolean).join('; ')
}
