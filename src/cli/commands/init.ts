import type { Command } from 'commander'
import { basename } from 'node:path'
import { applyProjectFile } from '../../domain/apply.ts'
import type { ProjectFile } from '../../domain/project-file.ts'
import { writeTransaction } from '../../domain/transaction.ts'
import { loadFaker } from '../../engine/generators.ts'
import { checkResourcePath } from '../../domain/path-rules.ts'
import { DEMO_META_KEY } from '../../domain/demo.ts'
import { checkPathRules, checkSlug, defaultProject, settleDefault, slugify } from '../../domain/projects.ts'
import { createResource } from '../../domain/resources.ts'
import { AppError } from '../../errors.ts'
import { listTemplates, loadTemplate } from '../../domain/templates.ts'
import { dbPathOf, withRuntime, type CliContext } from '../context.ts'
import { printWarnings, success } from '../output.ts'
import { collect } from '../parse.ts'

interface InitOptions {
  name?: string
  slug?: string
  template?: string
  resource?: string[]
  pathRules?: string
  yes?: boolean
}

const EMPTY: ProjectFile = { name: '', slug: null, description: '', seed: null, resources: [], endpoints: [], webhooks: [], imports: [] }

/** A validator for prompts: true, or the refusal's message. */
function validity(check: (value: string) => unknown): (value: string) => string | true {
  return (value) => {
    try {
      check(value)
      return true
    } catch (error) {
      return error instanceof AppError ? error.message : String(error)
    }
  }
}

export function registerInit(program: Command, ctx: CliContext): void {
  program
    .command('init')
    .description('create the database (if needed) and a project, optionally from a template and with resources')
    .addHelpText('after', '\nExamples:\n  $ mockapi init --name Shop --slug shop --yes\n  $ mockapi init --template ecommerce --yes\n  $ mockapi init --yes --resource /api/products --resource /api/users/:userId/orders\n  $ mockapi init --name Stripe --path-rules off --yes')
    .option('--name <name>', "project name (default: the template's, else the folder name)")
    .option('--slug <slug>', 'URL slug (default: from the name)')
    .option('--template <name>', 'start from a template (see "mockapi templates")')
    .option('--resource <path>', 'add a resource, repeatable', collect)
    .option('--path-rules <mode>', 'how new paths are judged: strict (default; the naming rules refuse), warn (they warn) or off (any sound path)')
    .option('-y, --yes', 'ask nothing; take flags and defaults')
    .action(async (options: InitOptions, command: Command) => {
      const pathRules = options.pathRules === undefined ? undefined : checkPathRules(options.pathRules)
      const chosen = options.template ? loadTemplate(options.template) : undefined
      let answers = {
        name: options.name ?? chosen?.name ?? (basename(ctx.environment.cwd) || 'My API'),
        slug: options.slug,
        template: options.template ?? null,
        resources: options.resource ?? [],
      }
      if (ctx.io.isInteractive && !options.yes) {
        const { askInit } = await import('../prompts.ts')
        answers = await askInit({
          name: answers.name,
          slugOf: slugify,
          checkSlug: validity(checkSlug),
          templates: listTemplates(),
          checkPath: validity((path) => checkResourcePath(path, pathRules)),
        })
      }
      // Loaded once; again only if the prompts picked another template.
      const template = answers.template === null ? EMPTY : answers.template === options.template && chosen ? chosen : loadTemplate(answers.template)
      const makeFaker = await loadFaker()
      await withRuntime(command, ctx, ({ context }) => {
        // A template names the project after itself (`--template ecommerce` → slug ecommerce), not after its title.
        const fromTemplate = answers.template !== null && options.name === undefined && answers.name === template.name ? answers.template : null
        const slug = checkSlug(answers.slug ?? fromTemplate ?? slugify(answers.name))
        if (context.repos.projects.bySlug(slug)) throw new AppError('CONFLICT', `a project with slug "${slug}" already exists`)
        const { project, warnings } = writeTransaction(context.db, () => {
          const applied = applyProjectFile(context, { ...template, name: answers.name, slug, ...(pathRules ? { pathRules } : {}) }, makeFaker, { prune: true })
          const pathWarnings = answers.resources.flatMap((path) => createResource(context, { project: slug, path }).warnings)
          // Templates are ours; only the paths typed here get their warnings shown.
          return { project: applied.project, warnings: pathWarnings }
        })
        printWarnings(ctx.io, warnings)
        const before = defaultProject(context)
        const demoId = Number(context.repos.meta.get(DEMO_META_KEY)) || null
        const chosen = settleDefault(context, project, demoId)
        const resources = context.repos.resources.listByProject(project.id)
        ctx.io.out(success(`created project ${project.name} (slug ${project.slug}) in ${dbPathOf(command, ctx)}`))
        if (answers.template) ctx.io.out(`  from template ${answers.template}`)
        if (project.pathRules !== 'strict') ctx.io.out(`  path rules ${project.pathRules}`)
        for (const resource of resources) ctx.io.out(`  resource ${resource.path}`)
        if (chosen.id === project.id && before && before.id !== project.id) {
          ctx.io.out(`  now the default project (instead of ${before.slug}, the demo serve made); change it with "mockapi project default <slug>"`)
        } else if (chosen.id !== project.id) {
          ctx.io.out(`  the default project stays ${chosen.slug}: commands without --project act on it, and serve answers its own paths;`)
          ctx.io.out(`  make this one the default with "mockapi project default ${project.slug}", or pass --project ${project.slug}`)
        }
        ctx.io.out(`\nnext: mockapi serve   then   curl http://127.0.0.1:3000/api/${project.slug}/…`)
      }, { create: true })
    })
}
