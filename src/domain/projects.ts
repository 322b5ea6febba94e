import { randomBytes } from 'node:crypto'
import { AppError } from '../errors.ts'
import { countProgress, type ProgressOptions } from '../engine/progress.ts'
import { NEGOTIATIONS, PATH_RULES, type Negotiation, type PathRules, type Project } from '../model.ts'
import type { Context } from './context.ts'
import { checkAuthSetting } from './auth-settings.ts'
import { projectView } from '../views.ts'
import { writeTransaction } from './transaction.ts'
import { checkProxySetting } from './proxy-setting.ts'

export const RESERVED_SLUGS = new Set(['projects', 'webhooks', 'health', 'auth', 'admin', '_mockapi'])
const SLUG = /^[a-z0-9-]{1,63}$/

export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '')
}

export function checkSlug(slug: string): string {
  if (!SLUG.test(slug)) {
    throw new AppError('INVALID_INPUT', `slug "${slug}" must be 1–63 lowercase letters, digits or hyphens`)
  }
  if (RESERVED_SLUGS.has(slug)) {
    throw new AppError('INVALID_INPUT', `slug "${slug}" is reserved (${[...RESERVED_SLUGS].join(', ')})`)
  }
  return slug
}

export function createProject(context: Context, input: { name: string; slug?: string | undefined }): Project {
  const name = input.name.trim()
  if (!name) throw new AppError('INVALID_INPUT', 'project name must not be empty')
  const slug = checkSlug(input.slug ?? slugify(name))
  return writeTransaction(context.db, () => {
    if (context.repos.projects.bySlug(slug)) throw new AppError('CONFLICT', `a project with slug "${slug}" already exists`)
    const isDefault = context.repos.projects.list().length === 0
    return context.repos.projects.insert({
      name,
      slug,
      shareToken: randomBytes(18).toString('base64url'),
      isDefault,
      createdAt: context.clock.now().toISOString(),
    })
  })
}

export function requireProjectBySlug(context: Context, slug: string): Project {
  const project = context.repos.projects.bySlug(slug)
  if (!project) {
    const slugs = context.repos.projects.list().map((p) => p.slug)
    const there = slugs.length === 0 ? 'there is no project yet' : `the projects are: ${slugs.join(', ')}`
    throw new AppError('PROJECT_NOT_FOUND', `no project with slug "${slug}" (${there}); create it with "mockapi init --slug ${slug}"`)
  }
  return project
}

/**
 * The project commands act on without `--project`, and `serve` also answers at its endpoints'
 * own paths. Returns it, now the default.
 */
export function setDefaultProject(context: Context, slug: string): Project {
  return writeTransaction(context.db, () => {
    const project = requireProjectBySlug(context, slug)
    context.repos.projects.makeDefault(project.id)
    return context.repos.projects.byId(project.id)!
  })
}

/**
 * After `init` made `created`: it takes over as the default when the only other project is the
 * demo `serve` made on an empty database (the tour runs init right after it). Returns the default.
 */
export function settleDefault(context: Context, created: Project, demoProjectId: number | null): Project {
  const others = context.repos.projects.list().filter((p) => p.id !== created.id)
  if (others.length === 1 && others[0]!.id === demoProjectId && others[0]!.isDefault) return setDefaultProject(context, created.slug)
  return defaultProject(context) ?? created
}

export function deleteProject(context: Context, slug: string, { onProgress }: ProgressOptions = {}): Project {
  return writeTransaction(context.db, () => {
    const project = requireProjectBySlug(context, slug)
    const { collections, records } = context.repos
    // Records go collection by collection, so the line can count them; each collection is one statement, so a big one is drawn at once.
    const sizes = collections.listIds(project.id).map((id) => [id, records.count(id)] as const)
    const total = sizes.reduce((n, [, size]) => n + size, 0)
    const progress = countProgress(onProgress, 'deleting records', total)
    for (const [id, size] of sizes) {
      records.removeAll(id)
      progress.add(size)
    }
    progress.finish()
    context.repos.projects.remove(project.id)
    return project
  })
}

/** The project named by `--project`, else the only one, else the default (first created). */
export function selectProject(context: Context, slug?: string): Project {
  if (slug) return requireProjectBySlug(context, slug)
  const projects = context.repos.projects.list()
  if (projects.length === 0) throw new AppError('PROJECT_NOT_FOUND', 'no project yet: run "mockapi init" first')
  return projects.length === 1 ? projects[0]! : (projects.find((p) => p.isDefault) ?? projects[0]!)
}

export function defaultProject(context: Context): Project | undefined {
  const projects = context.repos.projects.list()
  return projects.find((p) => p.isDefault) ?? projects[0]
}

/** A project as the management API shows it: its view with how many resources and endpoints it has. */
export function projectSummary(context: Context, project: Project) {
  return {
    ...projectView(project),
    resourceCount: context.repos.resources.countByProject(project.id),
    endpointCount: context.repos.endpoints.countByProject(project.id),
  }
}

/** A `pathRules` value as typed or sent; anything else is refused naming the three. */
export function checkPathRules(value: unknown): PathRules {
  if (typeof value !== 'string' || !(PATH_RULES as readonly string[]).includes(value)) {
    const given = typeof value === 'string' ? `"${value}"` : JSON.stringify(value) ?? String(value)
    throw new AppError('INVALID_INPUT', `path rules ${given} must be one of ${PATH_RULES.join(', ')}`, { details: [{ field: 'pathRules', message: `must be one of ${PATH_RULES.join(', ')}` }] })
  }
  return value as PathRules
}

/** A `negotiation` value as typed or sent; anything else is refused naming the two. */
export function checkNegotiation(value: unknown): Negotiation {
  if (typeof value !== 'string' || !(NEGOTIATIONS as readonly string[]).includes(value)) {
    const given = typeof value === 'string' ? `"${value}"` : JSON.stringify(value) ?? String(value)
    throw new AppError('INVALID_INPUT', `negotiation ${given} must be one of ${NEGOTIATIONS.join(', ')}`, { details: [{ field: 'negotiation', message: `must be one of ${NEGOTIATIONS.join(', ')}` }] })
  }
  return value as Negotiation
}

const PROJECT_SETTINGS = ['pathRules', 'auth', 'openapiSecurity', 'negotiation', 'proxy']

/**
 * The settings `mockapi project set` and `PATCH /api/projects/{id}` change. Existing paths are not
 * judged again: the rules apply when something is created.
 */
export function updateProjectSettings(context: Context, project: Project, input: unknown): Project {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new AppError('INVALID_BODY', `request body must be a JSON object with any of ${PROJECT_SETTINGS.join(', ')}`)
  }
  const fields = input as Record<string, unknown>
  const unknown = Object.keys(fields).find((key) => !PROJECT_SETTINGS.includes(key))
  if (unknown !== undefined) {
    const message = `is not a project setting; send any of ${PROJECT_SETTINGS.join(', ')}`
    throw new AppError('INVALID_INPUT', `"${unknown}" ${message}`, { details: [{ field: unknown, message }] })
  }
  if (Object.keys(fields).length === 0) throw new AppError('INVALID_INPUT', `nothing to change: send any of ${PROJECT_SETTINGS.join(', ')}`)
  const pathRules = fields.pathRules === undefined ? undefined : checkPathRules(fields.pathRules)
  const auth = fields.auth === undefined ? undefined : checkAuthSetting(fields.auth)
  const negotiation = fields.negotiation === undefined ? undefined : checkNegotiation(fields.negotiation)
  const proxy = fields.proxy === undefined ? undefined : checkProxySetting(fields.proxy)
  const openapiSecurity = fields.openapiSecurity
  if (openapiSecurity !== undefined && typeof openapiSecurity !== 'boolean') {
    throw new AppError('INVALID_INPUT', `openapiSecurity must be true or false, got ${JSON.stringify(openapiSecurity)}`, { details: [{ field: 'openapiSecurity', message: 'must be true or false' }] })
  }
  return writeTransaction(context.db, () => {
    const current = context.repos.projects.byId(project.id)
    if (!current) throw new AppError('PROJECT_NOT_FOUND', `project ${project.id} no longer exists`)
    if (pathRules !== undefined) context.repos.projects.setPathRules(project.id, pathRules)
    if (auth !== undefined) context.repos.projects.setAuth(project.id, auth)
    if (openapiSecurity !== undefined) context.repos.projects.setOpenapiSecurity(project.id, openapiSecurity)
    if (negotiation !== undefined) context.repos.projects.setNegotiation(project.id, negotiation)
    if (proxy !== undefined) context.repos.projects.setProxy(project.id, proxy)
    return context.repos.projects.byId(project.id)!
  })
}
