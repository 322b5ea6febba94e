import { countProgress, type ProgressOptions } from '../engine/progress.ts'
import { AppError } from '../errors.ts'
import { kindOf, specKindOf } from '../kinds/registry.ts'
import type { Endpoint, Project, SpecFormat } from '../model.ts'
import type { Context } from './context.ts'
import { servedPath } from './endpoints.ts'
import { splitOperationPath } from './operation-paths.ts'
import { writeTransaction } from './transaction.ts'

/**
 * A spec whose operations are named in their endpoint paths (a GraphQL schema, .proto or WSDL),
 * ready to store: its operations already listed by its kind.
 */
export interface OperationImportInput {
  format: SpecFormat
  title: string
  version: string
  source: string
  document: string
  /** One endpoint path per operation: `/graphql#Query.film`, `/pkg.Service/Method`, `/soap/Calc#Add`. */
  operations: string[]
}

export interface OperationImportResult {
  project: Project
  specId: number
  created: Endpoint[]
  /** Operations an earlier import already had: their settings are kept. */
  kept: Endpoint[]
  /** Operations the new version no longer has: without their schema they cannot answer. */
  removed: Endpoint[]
}

function refuse(project: Project, message: string): never {
  throw new AppError('CONFLICT', `${message}; import into another project (--project) or remove those endpoints first`)
}

/** Nothing else may answer where the spec's operations are served. */
function checkClashes(context: Context, project: Project, input: OperationImportInput, specId: number | undefined): void {
  const current = context.repos.endpoints.listByProject(project.id)
  const wanted = new Set(input.operations)
  const mounts = new Set(input.operations.map((path) => splitOperationPath(path)?.mount).filter((m): m is string => m !== undefined))
  for (const endpoint of current) {
    if (endpoint.specId !== null && endpoint.specId === specId) continue
    if (endpoint.method === 'POST' && wanted.has(endpoint.path)) {
      refuse(project, `project "${project.slug}" already has ${endpoint.method} ${endpoint.path} (${endpoint.kind})`)
    }
    const theirs = splitOperationPath(endpoint.path)?.mount ?? endpoint.path
    if (!mounts.has(servedPath(theirs))) continue
    const mounted = kindOf(endpoint.kind).mounted
    if (mounted) refuse(project, `project "${project.slug}" already serves ${mounted.another} at ${theirs}`)
    if (endpoint.method === 'GET' || endpoint.method === 'POST') refuse(project, `the ${specKindOf(input.format).label} is served at ${servedPath(theirs)}, where project "${project.slug}" has ${endpoint.method} ${endpoint.path} (${endpoint.kind})`)
  }
}

/**
 * Stores the spec (by title: importing it again replaces the document) and one endpoint per
 * operation, in one transaction. Operations kept from an earlier import keep their settings.
 */
export function storeOperations(context: Context, project: Project, input: OperationImportInput, { onProgress }: ProgressOptions = {}): OperationImportResult {
  const { endpoints, specs } = context.repos
  return writeTransaction(context.db, () => {
    const previous = specs.listByProject(project.id).find((spec) => spec.title === input.title)
    if (previous && previous.format !== input.format) {
      throw new AppError('CONFLICT', `project "${project.slug}" already has an import titled "${input.title}" (${specKindOf(previous.format).label}); import into another project (--project)`)
    }
    checkClashes(context, project, input, previous?.id)
    const now = context.clock.now().toISOString()
    const specId = specs.save({ projectId: project.id, format: input.format, title: input.title, version: input.version, source: input.source, document: input.document, importedAt: now })
    const result: OperationImportResult = { project, specId, created: [], kept: [], removed: [] }
    const existing = new Map(endpoints.listBySpec(specId).map((e) => [e.path, e]))
    const progress = countProgress(onProgress, 'importing operations', input.operations.length)
    for (const path of input.operations) {
      progress.add()
      const before = existing.get(path)
      if (before) {
        result.kept.push(before)
        continue
      }
      const status = kindOf(input.format).defaultStatus({ action: null, operation: null })
      result.created.push(endpoints.insert({ projectId: project.id, resourceId: null, method: 'POST', path, kind: input.format, action: null, status, specId, createdAt: now }))
    }
    progress.finish()
    const wanted = new Set(input.operations)
    for (const endpoint of existing.values()) {
      if (wanted.has(endpoint.path)) continue
      endpoints.remove(endpoint.id)
      result.removed.push(endpoint)
    }
    return result
  })
}
