import type { Db } from './db.ts'
import type { BodyType, Endpoint, EndpointAuth, EndpointKind, EndpointResponse, Fault, HttpMethod, OpenApiOperation, ResourceAction, ResponsePick } from '../model.ts'

interface EndpointRow {
  id: number
  project_id: number
  resource_id: number | null
  method: string
  path: string
  kind: string
  action: string | null
  status: number
  headers: string
  delay_ms: number
  delay_max_ms: number | null
  fault: string | null
  auth: string | null
  pick: string
  responses: string
  body: string | null
  schema: string | null
  error_rate: number
  error_status: number
  proxy: number
  spec_id: number | null
  operation: string | null
  created_at: string
  body_type: string
  content_type: string | null
  file_id: number | null
  file_name: string | null
  file_size: number | null
}

function toEndpoint(row: EndpointRow): Endpoint {
  return {
    id: row.id,
    projectId: row.project_id,
    resourceId: row.resource_id,
    method: row.method as HttpMethod,
    path: row.path,
    kind: row.kind as EndpointKind,
    action: row.action as ResourceAction | null,
    status: row.status,
    headers: JSON.parse(row.headers) as Record<string, string>,
    delayMs: row.delay_ms,
    delayMaxMs: row.delay_max_ms,
    fault: row.fault as Fault | null,
    auth: row.auth === null ? null : (JSON.parse(row.auth) as EndpointAuth),
    pick: row.pick as ResponsePick,
    // Responses stored before they had text or file bodies lack those fields.
    responses: (JSON.parse(row.responses) as Partial<EndpointResponse>[]).map((response) => ({ fileId: null, file: null, contentType: null, ...response }) as EndpointResponse),
    body: row.body,
    bodyType: row.body_type as BodyType,
    contentType: row.content_type,
    fileId: row.file_id,
    file: row.file_id === null ? null : { name: row.file_name!, size: row.file_size! },
    schema: row.schema,
    errorRate: row.error_rate,
    errorStatus: row.error_status,
    proxy: row.proxy === 1,
    specId: row.spec_id,
    operation: row.operation === null ? null : (JSON.parse(row.operation) as OpenApiOperation),
    createdAt: row.created_at,
  }
}

function storedAuth(auth: EndpointAuth): string | null {
  return auth === null ? null : JSON.stringify(auth)
}

export interface NewEndpoint {
  projectId: number
  resourceId: number | null
  method: HttpMethod
  path: string
  kind: EndpointKind
  action: ResourceAction | null
  status: number
  headers?: Record<string, string>
  delayMs?: number
  delayMaxMs?: number | null
  fault?: Fault | null
  auth?: EndpointAuth
  pick?: ResponsePick
  responses?: EndpointResponse[]
  body?: string | null
  bodyType?: BodyType
  contentType?: string | null
  fileId?: number | null
  schema?: string | null
  errorRate?: number
  errorStatus?: number
  proxy?: boolean
  specId?: number | null
  operation?: OpenApiOperation | null
  createdAt: string
}

/** Everything about an endpoint that can be configured after it exists. */
export type EndpointSettings = Pick<Endpoint, 'status' | 'headers' | 'delayMs' | 'delayMaxMs' | 'fault' | 'auth' | 'pick' | 'responses' | 'body' | 'bodyType' | 'contentType' | 'fileId' | 'schema' | 'errorRate' | 'errorStatus' | 'proxy'>

export type EndpointRepo = ReturnType<typeof createEndpointRepo>

// The file's name and size come with the row; its bytes never do.
const SELECT = 'SELECT e.*, f.name AS file_name, f.size AS file_size FROM endpoints e LEFT JOIN response_files f ON f.id = e.file_id'

export function createEndpointRepo(db: Db) {
  const all = db.prepare<[], EndpointRow>(`${SELECT} ORDER BY e.project_id, e.path, e.id`)
  const byProject = db.prepare<[number], EndpointRow>(`${SELECT} WHERE e.project_id = ? ORDER BY e.path, e.id`)
  const byId = db.prepare<[number], EndpointRow>(`${SELECT} WHERE e.id = ?`)
  const byRoute = db.prepare<[number, string, string], EndpointRow>(
    `${SELECT} WHERE e.project_id = ? AND e.method = ? AND e.path = ?`,
  )
  const insert = db.prepare(
    `INSERT INTO endpoints (project_id, resource_id, method, path, kind, action, status, headers, delay_ms, delay_max_ms, fault, auth, pick, responses, body, body_type, content_type, file_id, schema, error_rate, error_status, proxy, spec_id, operation, created_at)
     VALUES (@projectId, @resourceId, @method, @path, @kind, @action, @status, @headers, @delayMs, @delayMaxMs, @fault, @auth, @pick, @responses, @body, @bodyType, @contentType, @fileId, @schema, @errorRate, @errorStatus, @proxy, @specId, @operation, @createdAt)`,
  )
  const configure = db.prepare(
    `UPDATE endpoints SET status = @status, headers = @headers, delay_ms = @delayMs, delay_max_ms = @delayMaxMs, fault = @fault, auth = @auth, pick = @pick, responses = @responses, body = @body, body_type = @bodyType,
       content_type = @contentType, file_id = @fileId, schema = @schema,
       error_rate = @errorRate, error_status = @errorStatus, proxy = @proxy WHERE id = @id`,
  )
  const reimport = db.prepare(
    `UPDATE endpoints SET kind = @kind, path = @path, spec_id = @specId, operation = @operation, status = @status,
       resource_id = @resourceId, action = @action WHERE id = @id`,
  )
  const detach = db.prepare(
    `UPDATE endpoints SET kind = 'custom', spec_id = NULL, operation = NULL, resource_id = NULL, action = NULL,
       status = @status, body = CASE WHEN body_type = 'json' THEN coalesce(body, @body) ELSE body END WHERE id = @id`,
  )
  const bySpec = db.prepare<[number], EndpointRow>(`${SELECT} WHERE e.spec_id = ? ORDER BY e.path, e.id`)
  const remove = db.prepare<[number]>('DELETE FROM endpoints WHERE id = ?')
  const countByProject = db.prepare<[number], number>('SELECT count(*) FROM endpoints WHERE project_id = ?').pluck()

  return {
    listAll: (): Endpoint[] => all.all().map(toEndpoint),
    listByProject: (projectId: number): Endpoint[] => byProject.all(projectId).map(toEndpoint),
    byId: (id: number): Endpoint | undefined => {
      const row = byId.get(id)
      return row && toEndpoint(row)
    },
    countByProject: (projectId: number): number => countByProject.get(projectId) as number,
    byRoute: (projectId: number, method: string, path: string): Endpoint | undefined => {
      const row = byRoute.get(projectId, method, path)
      return row && toEndpoint(row)
    },
    insert(endpoint: NewEndpoint): Endpoint {
      const info = insert.run({
        ...endpoint,
        headers: JSON.stringify(endpoint.headers ?? {}),
        delayMs: endpoint.delayMs ?? 0,
        delayMaxMs: endpoint.delayMaxMs ?? null,
        fault: endpoint.fault ?? null,
        auth: storedAuth(endpoint.auth ?? null),
        pick: endpoint.pick ?? 'rules',
        responses: JSON.stringify(endpoint.responses ?? []),
        body: endpoint.body ?? null,
        bodyType: endpoint.bodyType ?? 'json',
        contentType: endpoint.contentType ?? null,
        fileId: endpoint.fileId ?? null,
        schema: endpoint.schema ?? null,
        errorRate: endpoint.errorRate ?? 0,
        errorStatus: endpoint.errorStatus ?? 500,
        proxy: endpoint.proxy ? 1 : 0,
        specId: endpoint.specId ?? null,
        operation: endpoint.operation ? JSON.stringify(endpoint.operation) : null,
      })
      return toEndpoint(byId.get(Number(info.lastInsertRowid))!)
    },
    configure(id: number, settings: EndpointSettings): Endpoint {
      configure.run({ id, ...settings, headers: JSON.stringify(settings.headers), auth: storedAuth(settings.auth), responses: JSON.stringify(settings.responses), proxy: settings.proxy ? 1 : 0 })
      return toEndpoint(byId.get(id)!)
    },
    listBySpec: (specId: number): Endpoint[] => bySpec.all(specId).map(toEndpoint),
    /** A re-import: the operation and its wiring change; delay, headers, body, error rate stay as configured. */
    reimport(id: number, imported: Pick<Endpoint, 'path' | 'status' | 'resourceId' | 'action'> & { kind: EndpointKind; specId: number; operation: OpenApiOperation | null }): Endpoint {
      reimport.run({ id, ...imported, operation: imported.operation && JSON.stringify(imported.operation) })
      return toEndpoint(byId.get(id)!)
    },
    /** No longer from a spec: a custom endpoint answering `body` (unless one was configured). */
    detach(id: number, answer: { status: number; body: string | null }): Endpoint {
      detach.run({ id, ...answer })
      return toEndpoint(byId.get(id)!)
    },
    remove: (id: number): void => void remove.run(id),
  }
}
