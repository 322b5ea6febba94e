import { parseDelay } from '../engine/delay.ts'
import type { FakerFactory } from '../engine/generators.ts'
import { countProgress, LONG_STEP_ITEMS, partOf, type OnProgress } from '../engine/progress.ts'
import { AppError } from '../errors.ts'
import type { Endpoint, Project, Resource, SpecFormat } from '../model.ts'
import type { EndpointSettings } from '../store/endpoints.ts'
import { storeFile } from './bodies.ts'
import type { Context } from './context.ts'
import { currentSettings, defaultSettings, mergeSettings, responseFiles } from './endpoint-config.ts'
import { addEndpoint, resourceBinding, routeShape } from './endpoints.ts'
import { specKindOf } from '../kinds/registry.ts'
import type { OpenApiOperation } from '../model.ts'
import { storeSpecDocument } from './import.ts'
import { checkEndpointPath, checkResourcePath } from './path-rules.ts'
import type { EndpointSpec, ProjectFile, ResourceSpec } from './project-file.ts'
import { checkSlug, createProject, slugify } from './projects.ts'
import { deleteResource } from './resource-admin.ts'
import { createResource, standardEndpoints } from './resources.ts'
import { checkSeed, reseedCollection } from './seeding.ts'
import { checkTargetUrl, createSubscription, deleteSubscription, updateSubscription } from './subscriptions.ts'
import { writeTransaction } from './transaction.ts'

export interface ApplyOptions {
  /** The project to fill when the file names no slug. */
  project?: string | undefined
  /** Remove what the file does not have (apply); templates only add. */
  prune: boolean
  onProgress?: OnProgress | undefined
}

export interface ApplyResult {
  project: Project
  /** One line per change; empty when the project already matched the file. */
  changes: string[]
  warnings: string[]
}

/** JSON with sorted keys: equal values give equal text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item)
}

const key = (method: string, path: string) => `${method} ${routeShape(path)}`

function seedOf(spec: ResourceSpec) {
  return { fields: spec.fields, seedCount: spec.count, seedValue: spec.seed, seedRecords: spec.records }
}

function sameSeed(resource: Resource, spec: ResourceSpec): boolean {
  return canonical({ f: resource.fields, c: resource.seedCount, v: resource.seedValue, r: resource.seedRecords })
    === canonical({ f: spec.fields, c: spec.count, v: spec.seed, r: spec.records })
}

function settingsOf(context: Context, spec: EndpointSpec | undefined, endpoint: Endpoint, makeFaker: FakerFactory): EndpointSettings {
  const base = defaultSettings(endpoint)
  if (!spec) return base
  return mergeSettings(base, {
    status: spec.status,
    headers: spec.headers,
    delay: spec.delay === undefined ? undefined : parseDelay(spec.delay),
    fault: spec.fault,
    auth: spec.auth,
    pick: spec.pick,
    responses: spec.responses,
    body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
    text: spec.text,
    // Stored once per name and bytes, so applying the same file again keeps the same id.
    fileId: spec.file && storeFile(context, endpoint.projectId, { name: spec.file.name, bytes: Buffer.from(spec.file.base64, 'base64') }),
    contentType: spec.contentType,
    schema: spec.schema === undefined ? undefined : JSON.stringify(spec.schema),
    errorRate: spec.errorRate,
    errorStatus: spec.errorStatus,
    proxy: spec.proxy,
  }, makeFaker, endpoint.kind, responseFiles(context, endpoint.projectId))
}

/** The project the file targets, created or updated; `seedChanged` when its default seed value moved. */
function resolveProject(context: Context, file: ProjectFile, options: ApplyOptions, changes: string[]): { project: Project; seedChanged: boolean } {
  const slug = checkSlug(file.slug ?? options.project ?? slugify(file.name))
  const existing = context.repos.projects.bySlug(slug)
  if (!existing) {
    const created = createProject(context, { name: file.name, slug })
    context.repos.projects.updateInfo(created.id, { name: file.name, description: file.description, seedValue: file.seed })
    if (file.pathRules) context.repos.projects.setPathRules(created.id, file.pathRules)
    if (file.auth) context.repos.projects.setAuth(created.id, file.auth)
    if (file.openapiSecurity === false) context.repos.projects.setOpenapiSecurity(created.id, false)
    if (file.negotiation === 'lenient') context.repos.projects.setNegotiation(created.id, 'lenient')
    if (file.proxy) context.repos.projects.setProxy(created.id, file.proxy)
    changes.push(`+ project ${slug}`)
    return { project: context.repos.projects.byId(created.id)!, seedChanged: false }
  }
  // A template fills a project without renaming it.
  if (options.prune && (existing.name !== file.name || existing.description !== file.description || existing.seedValue !== file.seed)) {
    context.repos.projects.updateInfo(existing.id, { name: file.name, description: file.description, seedValue: file.seed })
    changes.push(`~ project ${slug}`)
  }
  // Before resources and endpoints, whose paths it judges; a template (no prune) leaves it unless it names one.
  const pathRules = file.pathRules ?? (options.prune ? 'strict' : existing.pathRules)
  if (pathRules !== existing.pathRules) {
    context.repos.projects.setPathRules(existing.id, pathRules)
    changes.push(`~ project ${slug} pathRules: ${pathRules}`)
  }
  const auth = file.auth ?? (options.prune ? null : existing.auth)
  if (canonical(auth) !== canonical(existing.auth)) {
    context.repos.projects.setAuth(existing.id, auth)
    changes.push(`~ project ${slug} auth`)
  }
  const openapiSecurity = file.openapiSecurity ?? (options.prune ? true : existing.openapiSecurity)
  if (openapiSecurity !== existing.openapiSecurity) {
    context.repos.projects.setOpenapiSecurity(existing.id, openapiSecurity)
    changes.push(`~ project ${slug} openapiSecurity: ${openapiSecurity}`)
  }
  const negotiation = file.negotiation ?? (options.prune ? 'strict' : existing.negotiation)
  if (negotiation !== existing.negotiation) {
    context.repos.projects.setNegotiation(existing.id, negotiation)
    changes.push(`~ project ${slug} negotiation: ${negotiation}`)
  }
  const proxy = file.proxy ?? (options.prune ? null : existing.proxy)
  if (canonical(proxy) !== canonical(existing.proxy)) {
    context.repos.projects.setProxy(existing.id, proxy)
    changes.push(`~ project ${slug} proxy: ${proxy ? proxy.target : 'off'}`)
  }
  return { project: context.repos.projects.byId(existing.id)!, seedChanged: options.prune && existing.seedValue !== file.seed }
}

/**
 * Makes the project match the file, in one transaction: applying the same file twice changes
 * nothing, and an edited file changes only what was edited. A resource whose seed changed is
 * seeded again (its collection's records replaced).
 */
export function applyProjectFile(context: Context, file: ProjectFile, makeFaker: FakerFactory, options: ApplyOptions): ApplyResult {
  return writeTransaction(context.db, () => {
    const changes: string[] = []
    const warnings: string[] = []
    const { project, seedChanged } = resolveProject(context, file, options, changes)
    const { resources, endpoints, collections, specs } = context.repos

    // Imported specs, matched by title; a route (OpenAPI) names its operation by pointer, others by their path.
    const imported = new Map<string, { specId: number; format: SpecFormat; operations: Map<string, OpenApiOperation> | null }>()
    const storedSpecs = new Map(specs.listByProject(project.id).map((s) => [s.title, s]))
    for (const spec of file.imports) {
      const { specId, changed } = storeSpecDocument(context, project, spec)
      if (changed) changes.push(`${storedSpecs.has(spec.title) ? '~' : '+'} import ${spec.title}`)
      const naming = specKindOf(spec.format).operations
      const operations = naming.by === 'routes' && typeof spec.document !== 'string' ? naming.byPointer({ ...spec, document: spec.document }) : null
      imported.set(spec.title, { specId, format: spec.format, operations })
    }
    if (options.prune) {
      for (const [title, stored] of storedSpecs) {
        if (imported.has(title)) continue
        specs.remove(stored.id)
        changes.push(`- import ${title}`)
      }
    }
    const operationOf = (spec: EndpointSpec): { specId: number; kind: SpecFormat; operation: OpenApiOperation | null } | null => {
      if (!spec.import) return null
      const { specId, format, operations } = imported.get(spec.import)!
      if (operations === null) return { specId, kind: format, operation: null }
      const operation = spec.operation === undefined ? undefined : operations.get(spec.operation)
      if (!operation) throw new AppError('INVALID_INPUT', `endpoint ${spec.method} ${spec.path}: import "${spec.import}" has no operation ${spec.operation}`)
      return { specId, kind: format, operation }
    }
    // Paths a spec defines are not judged by the path rules (`/pets` has no /api).
    const specPaths = new Set(file.endpoints.filter((e) => e.import).map((e) => routeShape(e.path)))
    // A singular's path is judged as a custom endpoint's (`/api/profile` may be singular).
    const resourcePath = ({ path, singular }: ResourceSpec) => (specPaths.has(routeShape(path)) ? path : (singular ? checkEndpointPath : checkResourcePath)(path, project.pathRules).path)

    // Resources.
    const wanted = new Map(file.resources.map((spec) => [resourcePath(spec), spec]))
    const reseed = new Set<number>()
    for (const resource of resources.listByProject(project.id)) {
      if (wanted.has(resource.path) || !options.prune) continue
      resources.remove(resource.id)
      collections.removeIfUnused(resource.collectionId)
      changes.push(`- resource ${resource.path}`)
    }
    for (const [path, spec] of wanted) {
      let resource = resources.byPath(project.id, path)
      if (resource && resource.singular !== spec.singular) {
        // A collection becoming one object (or back) keeps nothing of what it was: made again as the file says.
        deleteResource(context, resource)
        changes.push(`- resource ${path}`)
        resource = undefined
      }
      if (!resource) {
        const created = createResource(context, { project: project.slug, path, rules: !specPaths.has(routeShape(path)), onDelete: spec.onDelete, singular: spec.singular })
        warnings.push(...created.warnings)
        resource = created.resource
        changes.push(`+ resource ${path}`)
      } else if (resource.onDelete !== spec.onDelete) {
        resources.setOnDelete(resource.id, spec.onDelete)
        changes.push(`~ onDelete ${path}: ${spec.onDelete}`)
      }
      if (!sameSeed(resource, spec)) {
        resources.setSeed(resource.id, checkSeed(seedOf(spec), makeFaker))
        reseed.add(resource.collectionId)
        changes.push(`~ seed ${path}`)
      } else if (seedChanged && spec.count > 0 && spec.seed === null) {
        // Generated from the project's seed value, which changed.
        reseed.add(resource.collectionId)
      }
    }
    // Its steps from here, numbered for the line: one per reseeded collection, the endpoints, the saving.
    const steps = reseed.size + 2
    let stepIndex = 0
    const nextStep = () => partOf(options.onProgress, (stepIndex += 1), steps)
    let reseeded = 0
    for (const collectionId of reseed) reseeded += reseedCollection(context, collectionId, makeFaker, { onProgress: nextStep() })

    // Endpoints: each resource's six (less `without`), then the file's entries over them.
    const desired = new Map<string, { method: string; path: string; spec?: EndpointSpec; standard?: Endpoint }>()
    const current = new Map(endpoints.listByProject(project.id).map((e) => [key(e.method, e.path), e]))
    for (const [path, spec] of wanted) {
      const without = new Set(spec.without.map((entry) => {
        const [method, ...rest] = entry.split(' ')
        return key(method!, rest.join(' '))
      }))
      for (const standard of standardEndpoints(path, spec.singular)) {
        const k = key(standard.method, standard.path)
        if (!without.has(k)) desired.set(k, { method: standard.method, path: standard.path })
      }
    }
    for (const spec of file.endpoints) {
      const k = key(spec.method, spec.path)
      desired.set(k, { method: spec.method, path: desired.get(k)?.path ?? spec.path, spec })
    }
    for (const [k, endpoint] of current) {
      if (desired.has(k) || !options.prune) continue
      endpoints.remove(endpoint.id)
      changes.push(`- endpoint ${endpoint.method} ${endpoint.path}`)
    }
    const projectResources = resources.listByProject(project.id)
    const progress = countProgress(nextStep(), 'applying endpoints', desired.size)
    for (const [k, want] of desired) {
      progress.add()
      let endpoint = current.get(k)
      const fromSpec = want.spec ? operationOf(want.spec) : null
      if (fromSpec) {
        const path = want.spec!.path
        const binding = resourceBinding(projectResources, want.method as Endpoint['method'], path)
        const wiring = { kind: fromSpec.kind, path, specId: fromSpec.specId, operation: fromSpec.operation, resourceId: binding?.resource.id ?? null, action: binding?.action ?? null }
        if (!endpoint) {
          const status = defaultSettings({ kind: fromSpec.kind, action: null, operation: null }).status
          endpoint = endpoints.insert({ projectId: project.id, method: want.method as Endpoint['method'], status, createdAt: context.clock.now().toISOString(), ...wiring })
          changes.push(`+ endpoint ${endpoint.method} ${endpoint.path}`)
        } else if (canonical([endpoint.kind, endpoint.path, endpoint.specId, endpoint.operation, endpoint.resourceId, endpoint.action]) !== canonical([wiring.kind, path, wiring.specId, wiring.operation, wiring.resourceId, wiring.action])) {
          endpoint = endpoints.reimport(endpoint.id, { ...wiring, status: endpoint.status })
          changes.push(`~ endpoint ${endpoint.method} ${endpoint.path}`)
        }
      } else if (endpoint?.specId) {
        // The file has this route as a plain endpoint now: it stops answering from the spec.
        endpoints.remove(endpoint.id)
        endpoint = undefined
      }
      if (!endpoint) {
        const { endpoint: added, warnings: pathWarnings } = addEndpoint(context, {
          project: project.slug,
          method: want.method,
          path: want.path,
          body: want.spec?.body === undefined ? undefined : JSON.stringify(want.spec.body),
          fixedAnswer: want.spec?.text !== undefined || want.spec?.file !== undefined,
          // Endpoints kept from an earlier version of an imported spec have the spec's paths.
          rules: file.imports.length === 0,
        })
        warnings.push(...pathWarnings)
        endpoint = added
        changes.push(`+ endpoint ${endpoint.method} ${endpoint.path}`)
      }
      const settings = settingsOf(context, want.spec, endpoint, makeFaker)
      if (canonical(settings) !== canonical(currentSettings(endpoint))) {
        endpoints.configure(endpoint.id, settings)
        if (current.has(k)) changes.push(`~ endpoint ${endpoint.method} ${endpoint.path}`)
      }
    }
    progress.finish()

    context.repos.files.removeUnused(project.id)

    // Subscriptions, matched by name; secrets are never in the file and are kept. The one carrying
    // OpenAPI callbacks is made by the server, not by files.
    const subscriptions = new Map(context.repos.subscriptions.listByProject(project.id).filter((s) => s.kind === 'webhook').map((s) => [s.name, s]))
    const names = new Set<string>()
    for (const spec of file.webhooks) {
      if (names.has(spec.name)) throw new AppError('INVALID_INPUT', `webhook name "${spec.name}" appears twice in the file`)
      names.add(spec.name)
      const existing = subscriptions.get(spec.name)
      if (!existing) {
        const created = createSubscription(context, project, spec)
        if (!spec.enabled) updateSubscription(context, created, { enabled: false })
        changes.push(`+ webhook ${spec.name}`)
      } else if (canonical([existing.targetUrl, existing.events, existing.enabled]) !== canonical([checkTargetUrl(spec.targetUrl), spec.events, spec.enabled])) {
        updateSubscription(context, existing, { targetUrl: spec.targetUrl, events: spec.events, enabled: spec.enabled })
        changes.push(`~ webhook ${spec.name}`)
      }
    }
    if (options.prune) {
      for (const [name, subscription] of subscriptions) {
        if (names.has(name)) continue
        deleteSubscription(context, subscription)
        changes.push(`- webhook ${name}`)
      }
    }
    // The commit follows and writes all of the above, for a while when many records were made: the line says so rather than keep the last count.
    nextStep()?.({ label: 'saving', done: 0, total: null, long: reseeded >= LONG_STEP_ITEMS })
    return { project, changes, warnings }
  })
}
