import { Document, isMap, isSeq, type YAMLSeq } from 'yaml'
import { delayOf, formatDelay } from '../engine/delay.ts'
import { countProgress, LONG_STEP_ITEMS, type ProgressCounter, type ProgressOptions } from '../engine/progress.ts'
import type { Endpoint, EndpointResponse, Project, ProxySetting } from '../model.ts'
import { specKindOf } from '../kinds/registry.ts'
import { fileContent } from './bodies.ts'
import type { Context } from './context.ts'
import { currentSettings, defaultSettings } from './endpoint-config.ts'
import { routeShape } from './endpoints.ts'
import { responseView, type ResponseView } from '../views.ts'
import type { EndpointSpec, ProjectFile, ResourceSpec } from './project-file.ts'
import { standardEndpoints } from './resources.ts'

/**
 * Where the exported file's first line points editors: the schema as `npm install mockapi-cli`
 * puts it, relative to a file kept at the project's root (yaml-language-server resolves a relative
 * $schema from the file's own folder).
 */
export const PROJECT_FILE_SCHEMA_REF = './node_modules/mockapi-cli/schema/mockapi.schema.json'

/** Code-unit order, the same on every machine (localeCompare depends on the locale). */
function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Orders by the first key that differs. */
function byKeys<T>(...keys: ((item: T) => string)[]): (a: T, b: T) => number {
  return (a, b) => {
    for (const keyOf of keys) {
      const order = byText(keyOf(a), keyOf(b))
      if (order !== 0) return order
    }
    return 0
  }
}

/** A response as the project file writes it: a file with its bytes, as an endpoint's. */
function exportedResponse(context: Context, response: EndpointResponse): ResponseView {
  const view = responseView(response)
  if (response.fileId !== null) view.file = { name: response.file!.name, base64: Buffer.from(fileContent(context, response.fileId)!.bytes).toString('base64') }
  return view
}

/** An endpoint's settings as the project file names them, without what says which endpoint it is. */
export type EndpointSettingsSpec = Omit<EndpointSpec, 'method' | 'path' | 'import' | 'operation'>

/** The endpoint with only the settings that differ from its defaults, in the file's names. */
function endpointSpec(context: Context, endpoint: Endpoint, importTitles: Map<number, string>): EndpointSpec {
  const spec: EndpointSpec = { method: endpoint.method, path: endpoint.path }
  if (endpoint.specId !== null) {
    spec.import = importTitles.get(endpoint.specId)!
    if (endpoint.operation) spec.operation = endpoint.operation.pointer
  }
  return { ...spec, ...endpointSettingsSpec(context, endpoint) }
}

/**
 * Only the settings that differ from the endpoint's defaults, in the file's names (which the
 * management API's PATCH takes too); a file with its bytes.
 */
export function endpointSettingsSpec(context: Context, endpoint: Endpoint): EndpointSettingsSpec {
  const settings = currentSettings(endpoint)
  const defaults = defaultSettings(endpoint)
  const spec: EndpointSettingsSpec = {}
  if (settings.status !== defaults.status) spec.status = settings.status
  if (Object.keys(settings.headers).length > 0) spec.headers = settings.headers
  if (settings.delayMs !== 0 || settings.delayMaxMs !== null) spec.delay = formatDelay(delayOf(settings))
  if (settings.fault !== null) spec.fault = settings.fault
  if (settings.auth !== null) spec.auth = settings.auth
  if (settings.pick !== defaults.pick) spec.pick = settings.pick
  if (settings.responses.length > 0) spec.responses = settings.responses.map((response) => exportedResponse(context, response))
  if (settings.body !== null && settings.bodyType === 'json') spec.body = JSON.parse(settings.body) as unknown
  if (settings.body !== null && settings.bodyType === 'text') spec.text = settings.body
  // The bytes themselves, so the exported file stands alone.
  if (settings.fileId !== null) spec.file = { name: endpoint.file!.name, base64: Buffer.from(fileContent(context, settings.fileId)!.bytes).toString('base64') }
  if (settings.contentType !== null) spec.contentType = settings.contentType
  if (settings.schema !== null) spec.schema = JSON.parse(settings.schema) as unknown
  if (settings.errorRate !== 0) spec.errorRate = settings.errorRate
  if (settings.errorStatus !== defaults.errorStatus) spec.errorStatus = settings.errorStatus
  if (settings.proxy) spec.proxy = true
  return spec
}

/**
 * The project as a project file: what `apply` needs to build the same API elsewhere (no secrets).
 * Entries are sorted by what identifies them, not listed in creation order, so the same project
 * exports the same bytes from any database it was applied to.
 */
export function exportProject(context: Context, project: Project): ProjectFile {
  const endpoints = context.repos.endpoints.listByProject(project.id)
  const specs = context.repos.specs.listByProject(project.id)
  const importTitles = new Map(specs.map((s) => [s.id, s.title]))
  const byShape = new Map(endpoints.map((e) => [`${e.method} ${routeShape(e.path)}`, e]))
  const standard = new Set<string>()
  const resources = context.repos.resources.listByProject(project.id).sort(byKeys((r) => r.path)).map((resource): ResourceSpec => {
    const without: string[] = []
    for (const { method, path } of standardEndpoints(resource.path, resource.singular)) {
      const key = `${method} ${routeShape(path)}`
      if (byShape.has(key)) standard.add(key)
      else without.push(`${method} ${path}`)
    }
    return { path: resource.path, fields: resource.fields, count: resource.seedCount, seed: resource.seedValue, records: resource.seedRecords, without, onDelete: resource.onDelete, singular: resource.singular }
  })
  const endpointSpecs = endpoints
    .map((endpoint) => ({ endpoint, spec: endpointSpec(context, endpoint, importTitles) }))
    // A standard resource endpoint with default settings is implied by its resource.
    .filter(({ endpoint, spec }) => !standard.has(`${endpoint.method} ${routeShape(endpoint.path)}`) || Object.keys(spec).length > 2)
    .map(({ spec }) => spec)
    .sort(byKeys((e) => e.path, (e) => e.method, (e) => e.import ?? ''))
  return {
    name: project.name,
    slug: project.slug,
    description: project.description,
    seed: project.seedValue,
    ...(project.pathRules !== 'strict' ? { pathRules: project.pathRules } : {}),
    ...(project.auth !== null ? { auth: project.auth } : {}),
    ...(!project.openapiSecurity ? { openapiSecurity: false } : {}),
    ...(project.negotiation !== 'strict' ? { negotiation: project.negotiation } : {}),
    ...(project.proxy ? { proxy: project.proxy } : {}),
    resources,
    endpoints: endpointSpecs,
    webhooks: context.repos.subscriptions.listByProject(project.id).filter((s) => s.kind === 'webhook').sort(byKeys((s) => s.targetUrl, (s) => s.name)).map((s) => ({ name: s.name, targetUrl: s.targetUrl, events: s.events, enabled: s.enabled })),
    imports: [...specs].sort(byKeys((s) => s.title, (s) => s.format)).map((s) => ({
      format: s.format,
      title: s.title,
      version: s.version,
      source: s.source,
      document: specKindOf(s.format).exportDocument(s.document),
    })),
  }
}

/** The proxy setting with its empty maps left out. */
function proxyYaml(proxy: ProxySetting) {
  return {
    target: proxy.target,
    ...(Object.keys(proxy.headers).length ? { headers: proxy.headers } : {}),
    ...(Object.keys(proxy.pathRewrite).length ? { pathRewrite: proxy.pathRewrite } : {}),
  }
}

/** YAML with empty parts left out, so files stay short and diffs small. */
export function toYaml(file: ProjectFile, { onProgress }: ProgressOptions = {}): string {
  const resources = file.resources.map((r) => ({
    path: r.path,
    ...(Object.keys(r.fields).length ? { fields: r.fields } : {}),
    ...(r.count ? { count: r.count } : {}),
    ...(r.seed !== null ? { seed: r.seed } : {}),
    // A singular's object is what it starts with (its seed), as the file it came from gave it.
    ...(r.singular ? { object: r.records[0] ?? {} } : r.records.length ? { records: r.records } : {}),
    ...(r.without.length ? { without: r.without } : {}),
    ...(r.onDelete !== 'keep' ? { onDelete: r.onDelete } : {}),
  }))
  const document = {
    name: file.name,
    ...(file.slug ? { slug: file.slug } : {}),
    ...(file.description ? { description: file.description } : {}),
    ...(file.seed !== null ? { seed: file.seed } : {}),
    ...(file.pathRules && file.pathRules !== 'strict' ? { pathRules: file.pathRules } : {}),
    ...(file.auth ? { auth: file.auth } : {}),
    ...(file.openapiSecurity === false ? { openapiSecurity: false } : {}),
    ...(file.negotiation && file.negotiation !== 'strict' ? { negotiation: file.negotiation } : {}),
    ...(file.proxy ? { proxy: proxyYaml(file.proxy) } : {}),
    resources,
    endpoints: file.endpoints,
    ...(file.webhooks.length ? { webhooks: file.webhooks } : {}),
    ...(file.imports.length ? { imports: file.imports } : {}),
  }
  const records = file.resources.reduce((n, r) => n + (r.singular ? 0 : r.records.length), 0)
  // yaml makes its nodes in one call that reports nothing: many records make it a long one.
  if (records > 0) onProgress?.({ label: 'laying out records', done: 0, total: null, long: records >= LONG_STEP_ITEMS })
  const yaml = new Document(document)
  const progress = countProgress(onProgress, 'writing records', records)
  if (onProgress) countRecordWrites(yaml, file, progress)
  // The first line tells editors (yaml-language-server) which schema completes and checks the file.
  const text = `# yaml-language-server: $schema=${PROJECT_FILE_SCHEMA_REF}\n# mockapi project file: mockapi apply <this file>\n${yaml.toString({ lineWidth: 0 })}`
  progress.finish()
  return text
}

/** Records between two counts of the YAML being written. */
const COUNTED_EVERY = 100

/**
 * yaml writes a document in one synchronous call that reports nothing, and a project's literal
 * records (a db.json's) can take it many seconds: the last record node of every `COUNTED_EVERY`
 * counts them when yaml writes it, which changes nothing of what it writes.
 */
function countRecordWrites(yaml: Document, file: ProjectFile, progress: ProgressCounter): void {
  file.resources.forEach((_resource, i) => {
    const records = yaml.getIn(['resources', i, 'records'], true)
    if (isSeq(records)) countItemWrites(records, progress)
  })
}

/** Counts the records of `records` as yaml writes them (`countRecordWrites`); `export --format openapi` counts its examples' so. */
export function countItemWrites(records: YAMLSeq, progress: ProgressCounter): void {
  for (let start = 0; start < records.items.length; start += COUNTED_EVERY) {
    const end = Math.min(start + COUNTED_EVERY, records.items.length)
    const node = records.items[end - 1]
    if (!isMap(node)) continue
    const write = node.toString.bind(node)
    node.toString = (ctx, onComment, onChompKeep) => {
      progress.add(end - start)
      return write(ctx, onComment, onChompKeep)
    }
  }
}
