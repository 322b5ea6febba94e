import type { FakerFactory } from '../engine/generators.ts'
import type { OnProgress } from '../engine/progress.ts'
import { AppError } from '../errors.ts'
import type { DataSet } from '../kinds/kind.ts'
import type { Endpoint, Project, Resource } from '../model.ts'
import type { Context } from './context.ts'
import { findEndpoint } from './endpoints.ts'
import { checkEndpointPath, checkResourcePath } from './path-rules.ts'
import { deleteResource } from './resource-admin.ts'
import { collectionName, createResource } from './resources.ts'
import { seedResource } from './seeding.ts'

/**
 * A json-server database stored as resources: each array a resource at `{prefix}/{name}` whose
 * literal records (its seed, so `reset` and `export` keep them) are the file's; each object a
 * singular resource there, its object the seed in the same way, answering GET, PUT and PATCH.
 * Importing again fills the same resources in place.
 */
export interface DataImportInput {
  set: DataSet
  /** `''` (json-server's `/posts`) or a path such as `/api`. */
  prefix: string
  /** Remove the resources directly under the prefix that the file no longer names. */
  replace: boolean
  /** How messages name the file. */
  name: string
  onProgress?: OnProgress | undefined
}

/** What storing a json-server database did; import.ts adds what the import itself names. */
export interface StoredData {
  project: Project
  created: Endpoint[]
  /** Endpoints of resources already there (their records, or a singular's object, replaced). */
  updated: Endpoint[]
  /** Resources directly under the prefix that the file does not name: kept, or removed with `replace`. */
  kept: Endpoint[]
  removed: Endpoint[]
  /** Every resource the file filled. */
  resources: Resource[]
  records: number
  /** What the project's path rules say of the file's names, in `warn` mode. */
  warnings: string[]
}

/** `''`, or `/api`-like: plain segments, no trailing slash. */
export function checkPrefix(prefix: string): string {
  const trimmed = prefix.trim().replace(/\/+$/, '')
  const plain = trimmed === '' || (trimmed.startsWith('/') && trimmed.split('/').slice(1).every((segment) => /^[^:*{}\s?#]+$/.test(segment)))
  if (!plain) throw new AppError('INVALID_INPUT', `prefix "${prefix}" must be a path of plain segments, such as /api`, { details: [{ field: 'prefix', message: 'must be a path of plain segments, such as /api' }] })
  return trimmed
}

/**
 * `{prefix}/{name}` as the project's path rules take it, as for a resource made by hand (so the
 * project's `export` applies again); a refusal is INVALID_INPUT naming the entry and the way out.
 */
function pathOf(project: Project, input: DataImportInput, name: string, check: typeof checkResourcePath, warnings: string[]): string {
  const refuse = (why: string): never => {
    throw new AppError('INVALID_INPUT', `${input.name}: "${name}" cannot be a path: ${why}`, { details: [{ field: name, message: `cannot be a path: ${why}` }] })
  }
  if (/[/\\]/.test(name)) refuse('a resource name is one path segment, without "/"')
  if (/^:|[*{}]/.test(name)) refuse('":", "*", "{" and "}" make a route pattern, not a name')
  try {
    const checked = check(`${input.prefix}/${name}`, project.pathRules)
    warnings.push(...checked.warnings)
    return checked.path
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'INVALID_PATH') throw error
    // Only a naming rule gives way to the project's setting; a path no router can hold is refused in every mode.
    if (project.pathRules !== 'strict' || !checkQuietly(() => check(`${input.prefix}/${name}`, 'off'))) return refuse(error.message)
    const rule = (error.details as { rule?: string }[] | undefined)?.[0]?.rule
    const asTheyAre = `let project "${project.slug}" take the file's names as they are (mockapi project set ${project.slug} --path-rules off)`
    return refuse(`${error.message}; ${rule === 'starts-with-api' ? `import under --prefix /api, or ${asTheyAre}` : asTheyAre}`)
  }
}

function checkQuietly(check: () => unknown): boolean {
  try {
    check()
    return true
  } catch {
    return false
  }
}

const endpointsOf = (context: Context, project: Project, resource: Resource) =>
  context.repos.endpoints.listByProject(project.id).filter((endpoint) => endpoint.resourceId === resource.id)

/** Runs inside the import's transaction: a refusal part way leaves nothing stored. */
export function storeData(context: Context, project: Project, input: DataImportInput, makeFaker: FakerFactory): StoredData {
  const result: StoredData = { project, created: [], updated: [], kept: [], removed: [], resources: [], records: 0, warnings: [] }
  const before = context.repos.resources.listByProject(project.id)
  const paths = new Set<string>()
  for (const { name, records } of input.set.collections) {
    const path = pathOf(project, input, name, checkResourcePath, result.warnings)
    paths.add(path)
    let resource = before.find((r) => r.path === path)
    if (resource?.singular) {
      throw new AppError('CONFLICT', `resource ${path} of project "${project.slug}" is one object (a singular resource); "${name}" of ${input.name} is a list of records: import into another project (--project)`)
    }
    if (resource) {
      result.updated.push(...endpointsOf(context, project, resource))
    } else {
      // Resources that end in the same name share their records (nested ones do, by design): the file's would mix with theirs.
      const sharing = before.find((r) => collectionName(r.path) === collectionName(path))
      if (sharing) {
        throw new AppError('CONFLICT', `project "${project.slug}" already keeps "${collectionName(path)}" records for ${sharing.path}; import into another project (--project)${sharing.path === `/api/${name}` ? ' or under --prefix /api to fill that resource' : ''}`)
      }
      const created = createResource(context, { project: project.slug, path, rules: false })
      resource = created.resource
      result.created.push(...created.endpoints)
    }
    result.records += seedResource(context, resource, { fields: {}, seedCount: 0, seedValue: null, seedRecords: records }, makeFaker, input)
    result.resources.push(resource)
  }
  for (const { name, value } of input.set.singulars) {
    const path = pathOf(project, input, name, checkEndpointPath, result.warnings)
    paths.add(path)
    let resource = before.find((r) => r.path === path)
    if (resource && !resource.singular) {
      throw new AppError('CONFLICT', `resource ${path} of project "${project.slug}" keeps records; "${name}" of ${input.name} is one object (a singular resource): import into another project (--project)`)
    }
    if (resource) {
      result.updated.push(...endpointsOf(context, project, resource))
    } else {
      // What an import made before singulars kept their writes: a fixed GET answering the object, replaced by the singular.
      const fixed = findEndpoint(context, project.id, 'GET', path)
      if (fixed && fixed.kind === 'custom' && fixed.path === path) context.repos.endpoints.remove(fixed.id)
      const created = createResource(context, { project: project.slug, path, rules: false, singular: true })
      resource = created.resource
      result.created.push(...created.endpoints)
    }
    seedResource(context, resource, { fields: {}, seedCount: 0, seedValue: null, seedRecords: [value] }, makeFaker)
  }
  // Only what the file could have made: a resource one segment below the prefix.
  const stale = before.filter((r) => !paths.has(r.path) && r.path.startsWith(`${input.prefix}/`) && !r.path.slice(input.prefix.length + 1).includes('/'))
  for (const resource of stale) {
    const endpoints = endpointsOf(context, project, resource)
    if (input.replace) {
      deleteResource(context, resource)
      result.removed.push(...endpoints)
    } else {
      result.kept.push(...endpoints)
    }
  }
  return result
}
