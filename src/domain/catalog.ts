import type { Endpoint, EndpointKind, Project, Resource, SpecDocument, SpecVersion } from '../model.ts'
import { kindOf } from '../kinds/registry.ts'
import type { StoredSpec } from '../store/specs.ts'
import type { OperationsRoute } from '../engine/exchange.ts'
import { parseRoutePath } from '../engine/path-pattern.ts'
import { MAX_ROUTES, nearMissRoute, type NearMissRoute } from '../engine/near-miss.ts'
import { createRouter, type Router } from '../engine/router.ts'
import { fileContent, MATCHED_FILE_BYTES } from './bodies.ts'
import type { Context } from './context.ts'
import { splitOperationPath } from './operation-paths.ts'
import { parentFields } from './resources.ts'
import { createVersionedCache } from './versioned-cache.ts'

export interface RoutedEndpoint {
  endpoint: Endpoint
  /** For resource endpoints: where the records live, and the parameters tying them to a parent. */
  collectionId: number | null
  resource: Resource | null
  parentFields: string[]
  /** The path parameter holding a record's id (`id`, or `petId` on an imported stateful path). */
  idParam: string
  /** For imported endpoints: their spec document, parsed on first use and shared by the snapshot. */
  spec: (() => SpecDocument) | null
  /**
   * The files it may answer (its own, its responses'), by id, read when the request matched it, so
   * that a change made before the answer cannot drop them; absent: none, or read when answered.
   */
  files?: ReadonlyMap<number, { name: string; bytes: Uint8Array }>
}

/** A GraphQL schema or SOAP service: one URL answering each of its operations, as its kind's answerer reads it. */
export interface ProtocolRoute extends OperationsRoute {
  /** The kind of its endpoints (a `mount` kind: graphql, soap). */
  protocol: EndpointKind
  loadSpec: () => StoredSpec
}

type RouteValue = RoutedEndpoint | ProtocolRoute

export type Resolution =
  | { kind: 'found'; project: Project; route: RoutedEndpoint; params: Record<string, string> }
  | { kind: 'protocol'; project: Project; route: ProtocolRoute }
  | { kind: 'method-not-allowed'; project: Project; allow: string[] }
  /** `fallback`: the project served at its own paths, which a request outside any project's is journalled under. */
  | { kind: 'not-found'; project: Project | null; fallback: Project | null }

interface Snapshot {
  bySlug: Map<string, { project: Project; router: Router<RouteValue> }>
  /** The default project's endpoints at their own paths (`/api/posts`, `/pets`). */
  ownPaths: { project: Project; router: Router<RouteValue> } | null
  /** A new array whenever anything changed. */
  grpc: GrpcEndpoint[]
  /** Each project's routes as written (mounts with no endpoint), in routing order: what near misses compare with. */
  routes: Map<number, { project: Project; routes: WrittenRoute[] }>
  /** routesOf's answers, made on a project's first miss. */
  nearMissRoutes: Map<number, NearMissRoute[]>
}

interface WrittenRoute {
  endpointId: number | null
  method: string
  path: string
}

function segmentsOf(path: string): string[] {
  return path.split('/').filter(Boolean)
}

/** Under `/api/{slug}/…` a leading `/api` of the endpoint path is not repeated. */
function slugMount(path: string): string[] {
  const segments = segmentsOf(path)
  return segments[0] === 'api' ? segments.slice(1) : segments
}

type SpecCache = Map<number, { importedAt: string; spec: SpecDocument }>

/** A gRPC method to serve (the gRPC server turns these into bindings; protobufjs stays out of HTTP-only starts). */
export interface GrpcEndpoint {
  endpoint: Endpoint
  importedAt: string
}

function isProtocolRoute(value: RouteValue): value is ProtocolRoute {
  return 'mount' in value
}

/** GraphQL fields and SOAP operations grouped under the URL that serves them. */
function protocolRoutes(context: Context, endpoints: Endpoint[], stamps: Map<number, string>): ProtocolRoute[] {
  const byMount = new Map<string, ProtocolRoute>()
  for (const endpoint of endpoints) {
    if (kindOf(endpoint.kind).routing !== 'mount' || endpoint.specId === null) continue
    const split = splitOperationPath(endpoint.path)
    if (!split) continue
    let route = byMount.get(split.mount)
    if (!route) {
      const specId = endpoint.specId
      route = {
        protocol: endpoint.kind,
        mount: split.mount,
        specId,
        importedAt: stamps.get(specId) ?? '',
        loadSpec: () => context.repos.specs.byId(specId)!,
        operations: new Map(),
      }
      byMount.set(split.mount, route)
    }
    route.operations.set(split.operation, endpoint)
  }
  return [...byMount.values()]
}

/**
 * Every gRPC method served, by path; where two projects define the same method, the project
 * served at its own paths wins, then the older project.
 */
function grpcEndpoints(projectOrder: Project[], byProject: Map<number, RoutedEndpoint[]>, stamps: Map<number, string>): GrpcEndpoint[] {
  const byPath = new Map<string, GrpcEndpoint>()
  for (const project of projectOrder) {
    for (const { endpoint } of byProject.get(project.id) ?? []) {
      if (kindOf(endpoint.kind).routing !== 'grpc-port' || endpoint.specId === null || byPath.has(endpoint.path)) continue
      byPath.set(endpoint.path, { endpoint, importedAt: stamps.get(endpoint.specId) ?? '' })
    }
  }
  return [...byPath.values()]
}

function build(context: Context, ownPathsSlug: string | undefined, parsedSpecs: SpecCache): Snapshot {
  const { projects, endpoints, resources } = context.repos
  const allProjects = projects.list()
  const resourcesById = new Map<number, Resource>()
  for (const project of allProjects) {
    for (const resource of resources.listByProject(project.id)) resourcesById.set(resource.id, resource)
  }
  // A rebuild (any commit by another process) re-reads a document only if it was re-imported:
  // parsing the GitHub spec and compiling its validators again would cost a second.
  const current = new Map<number, SpecDocument>()
  const specOf = (id: number) => (): SpecDocument => {
    let spec = current.get(id)
    if (spec) return spec
    const importedAt = context.repos.specs.importedAt(id) ?? ''
    const cached = parsedSpecs.get(id)
    if (cached?.importedAt === importedAt) spec = cached.spec
    else {
      const stored = context.repos.specs.byId(id)
      spec = { version: (stored?.version ?? '3.0') as SpecVersion, title: stored?.title ?? '', document: stored ? (JSON.parse(stored.document) as Record<string, unknown>) : {} }
      parsedSpecs.set(id, { importedAt, spec })
    }
    current.set(id, spec)
    return spec
  }
  const byProject = new Map<number, RoutedEndpoint[]>()
  for (const endpoint of endpoints.listAll()) {
    const resource = endpoint.resourceId === null ? undefined : resourcesById.get(endpoint.resourceId)
    const last = parseRoutePath(endpoint.path).at(-1)
    const routed: RoutedEndpoint = {
      endpoint,
      collectionId: resource?.collectionId ?? null,
      resource: resource ?? null,
      parentFields: resource ? parentFields(resource.path) : [],
      idParam: last?.kind === 'param' ? last.name : 'id',
      spec: endpoint.specId === null ? null : specOf(endpoint.specId),
    }
    const list = byProject.get(endpoint.projectId)
    if (list) list.push(routed)
    else byProject.set(endpoint.projectId, [routed])
  }
  const referenced = new Set([...byProject.values()].flat().flatMap((r) => (r.endpoint.specId === null ? [] : [r.endpoint.specId])))
  for (const id of parsedSpecs.keys()) if (!referenced.has(id)) parsedSpecs.delete(id)
  const stamps = context.repos.specs.stamps()
  const fallback = allProjects.find((p) => p.slug === ownPathsSlug) ?? allProjects.find((p) => p.isDefault) ?? allProjects[0]
  const projectOrder = fallback ? [fallback, ...allProjects.filter((p) => p !== fallback)] : allProjects
  const snapshot: Snapshot = { bySlug: new Map(), ownPaths: null, grpc: grpcEndpoints(projectOrder, byProject, stamps), routes: new Map(), nearMissRoutes: new Map() }
  for (const project of allProjects) {
    const routed = byProject.get(project.id) ?? []
    const mounted = protocolRoutes(context, routed.map((r) => r.endpoint), stamps)
    const toRoute = (segments: (path: string) => string[]) => [
      // Protocol operations are answered through their mount; gRPC ones on the gRPC port.
      ...routed.filter((r) => kindOf(r.endpoint.kind).routing === 'route')
        .map((r) => ({ method: r.endpoint.method, segments: segments(r.endpoint.path), value: r as RouteValue })),
      ...mounted.flatMap((m) => ['GET', 'POST'].map((method) => ({ method, segments: segments(m.mount), value: m as RouteValue }))),
    ]
    const slugRoutes = toRoute(slugMount)
    snapshot.bySlug.set(project.slug, { project, router: createRouter(slugRoutes) })
    snapshot.routes.set(project.id, {
      project,
      routes: slugRoutes.map(({ method, value }) =>
        isProtocolRoute(value) ? { endpointId: null, method, path: value.mount } : { endpointId: value.endpoint.id, method, path: value.endpoint.path }),
    })
    if (project === fallback) snapshot.ownPaths = { project, router: createRouter(toRoute(segmentsOf)) }
  }
  return snapshot
}

type MatchedFiles = Map<number, { name: string; bytes: Uint8Array }>

/**
 * The bytes of the files `endpoint` may answer, read now; undefined when it answers none, or when
 * together they are more than MATCHED_FILE_BYTES (read when answered); null when one is gone: the
 * snapshot is older than the store (another process's change, not seen yet).
 */
function matchedFiles(context: Context, endpoint: Endpoint): MatchedFiles | null | undefined {
  if (endpoint.fileId === null && !endpoint.responses.some((response) => response.fileId !== null)) return undefined
  const sizes = new Map<number, number>()
  if (endpoint.fileId !== null) sizes.set(endpoint.fileId, endpoint.file?.size ?? 0)
  for (const response of endpoint.responses) if (response.fileId !== null) sizes.set(response.fileId, response.file?.size ?? 0)
  if ([...sizes.values()].reduce((sum, size) => sum + size, 0) > MATCHED_FILE_BYTES) return undefined
  const files: MatchedFiles = new Map()
  for (const id of sizes.keys()) {
    const content = fileContent(context, id)
    if (!content) return null
    files.set(id, content)
  }
  return files
}

export interface Catalog {
  resolve(method: string, segments: readonly string[]): Resolution
  /** The gRPC methods to serve, with their settings; cheap enough to call per call. */
  grpc(): GrpcEndpoint[]
  /**
   * The routes a request journalled under this project may have meant, for its near misses: the
   * project's under `/api/{slug}`; for the project served at its own paths, those too, then every
   * other project's under its slug (a mistyped slug lands there). At most MAX_ROUTES.
   */
  routesOf(projectId: number): NearMissRoute[]
}

function nearMissRoutesOf(s: Snapshot, projectId: number): NearMissRoute[] {
  const own = s.routes.get(projectId)
  if (!own) return []
  const listed: NearMissRoute[] = []
  const add = (project: Project, routes: readonly WrittenRoute[], served: 'slug' | 'own') => {
    for (const route of routes) {
      if (listed.length >= MAX_ROUTES) return
      listed.push(served === 'own'
        ? nearMissRoute({ ...route, base: [], slug: null })
        : nearMissRoute({ ...route, base: ['api', project.slug], slug: project.slug, path: `/${slugMount(route.path).join('/')}` }))
    }
  }
  add(own.project, own.routes, 'slug')
  if (s.ownPaths?.project.id === projectId) {
    add(own.project, own.routes, 'own')
    for (const other of s.routes.values()) if (other !== own) add(other.project, other.routes, 'slug')
  }
  return listed
}

/**
 * The routing table, rebuilt only when the store says projects, resources, endpoints or imports may
 * have changed; `recheckMs`: how long another process's commit may go unseen (createVersionedCache).
 */
export function createCatalog(context: Context, options: { ownPathsSlug?: string | undefined; recheckMs?: number | undefined } = {}): Catalog {
  const parsedSpecs: SpecCache = new Map()
  const snapshots = createVersionedCache(context.db, () => build(context, options.ownPathsSlug, parsedSpecs), { recheckMs: options.recheckMs })
  const found = (project: Project, match: { value: RouteValue; params: Record<string, string> }): Resolution =>
    isProtocolRoute(match.value)
      ? { kind: 'protocol', project, route: match.value }
      : { kind: 'found', project, route: match.value, params: match.params }

  const matchOwnPaths = (s: Snapshot, method: string, segments: readonly string[]): Resolution | null => {
    if (!s.ownPaths) return null
    const match = s.ownPaths.router.match(method, segments)
    if (match.kind === 'found') return found(s.ownPaths.project, match)
    if (match.kind === 'method-not-allowed') return { kind: 'method-not-allowed', project: s.ownPaths.project, allow: match.allow }
    return null
  }

  const resolveIn = (s: Snapshot, method: string, segments: readonly string[]): Resolution => {
    const slugged = segments[0] === 'api' && segments[1] !== undefined ? s.bySlug.get(segments[1]) : undefined
    if (slugged) {
      const match = slugged.router.match(method, segments.slice(2))
      if (match.kind === 'found') return found(slugged.project, match)
      if (match.kind === 'method-not-allowed') return { kind: 'method-not-allowed', project: slugged.project, allow: match.allow }
      return matchOwnPaths(s, method, segments) ?? { kind: 'not-found', project: slugged.project, fallback: s.ownPaths?.project ?? null }
    }
    return matchOwnPaths(s, method, segments) ?? { kind: 'not-found', project: null, fallback: s.ownPaths?.project ?? null }
  }

  /** A found route with its files read; once the snapshot is seen to be older than the store, matched again in a fresh one. */
  const withFiles = (resolution: Resolution, method: string, segments: readonly string[], fresh: boolean): Resolution => {
    if (resolution.kind !== 'found') return resolution
    const files = matchedFiles(context, resolution.route.endpoint)
    if (files === null) return fresh ? resolution : withFiles(resolveIn(snapshots.refresh(), method, segments), method, segments, true)
    return files === undefined ? resolution : { ...resolution, route: { ...resolution.route, files } }
  }

  return {
    resolve: (method, segments) => withFiles(resolveIn(snapshots.get(), method, segments), method, segments, false),
    grpc: () => snapshots.get().grpc,
    routesOf(projectId) {
      const s = snapshots.get()
      let routes = s.nearMissRoutes.get(projectId)
      if (!routes) s.nearMissRoutes.set(projectId, (routes = nearMissRoutesOf(s, projectId)))
      return routes
    },
  }
}
