import type { Db } from './db.ts'
import type { Endpoint, EndpointKind, EndpointResponse, Fault, HttpMethod, OpenApiOperation, ResourceAction, ResponsePick } from '../model.ts'

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
  pick: string
  responses: string
  body: string | null
  schema: string | null
  error_rate: number
  error_status: number
  spec_id: number | null
  operation: string | null
  created_at: string
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
    pick: row.pick as ResponsePick,
    responses: JSON.parse(row.responses) as EndpointResponse[],
    body: row.body,
    schema: row.schema,
    errorRate: row.error_rate,
    errorStatus: row.error_status,
    specId: row.spec_id,
    operation: row.operation === null ? null : (JSON.parse(row.operation) as OpenApiOperation),
    createdAt: row.created_at,
  }
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
  pick?: ResponsePick
  responses?: EndpointResponse[]
  body?: string | null
  schema?: string | null
  errorRate?: number
  errorStatus?: number
  specId?: number | null
  operation?: OpenApiOperation | null
  createdAt: string
}

/** Everything about an endpoint that can be configured after it exists. */
export type EndpointSettings = Pick<Endpoint, 'status' | 'headers' | 'delayMs' | 'delayMaxMs' | 'fault' | 'pick' | 'responses' | 'body' | 'schema' | 'errorRate' | 'errorStatus'>

export type EndpointRepo = ReturnType<typeof createEndpointRepo>

export function createEndpointRepo(db: Db) {
  const all = db.prepare<[], EndpointRow>('SELECT * FROM endpoints ORDER BY project_id, path, id')
  const byProject = db.prepare<[number], EndpointRow>('SELECT * FROM endpoints WHERE project_id = ? ORDER BY path, id')
  const byId = db.prepare<[number], EndpointRow>('SELECT * FROM endpoints WHERE id = ?')
  const byRoute = db.prepare<[number, string, string], EndpointRow>(
    'SELECT * FROM endpoints WHERE project_id = ? AND method = ? AND path = ?',
  )
  const insert = db.prepare(
    `INSERT INTO endpoints (project_id, resource_id, method, path, kind, action, status, headers, delay_ms, delay_max_ms, fault, pick, responses, body, schema, error_rate, error_status, spec_id, operation, created_at)
     VALUES (@projectId, @resourceId, @method, @path, @kind, @action, @status, @headers, @delayMs, @delayMaxMs, @fault, @pick, @responses, @body, @schema, @errorRate, @errorStatus, @specId, @operation, @createdAt)`,
  )
  const configure = db.prepare(
    `UPDATE endpoints SET status = @status, headers = @headers, delay_ms = @delayMs, delay_max_ms = @delayMaxMs, fault = @fault, pick = @pick, responses = @responses, body = @body, schema = @schema,
       error_rate = @errorRate, error_status = @errorStatus WHERE id = @id`,
  )
  const reimport = db.prepare(
    `UPDATE endpoints SET kind = @kind, path = @path, spec_id = @specId, operation = @operation, status = @status,
       resource_id = @resourceId, action = @action WHERE id = @id`,
  )
  const detach = db.prepare(
    `UPDATE endpoints SET kind = 'custom', spec_id = NULL, operation = NULL, resource_id = NULL, action = NULL,
       status = @status, body = coalesce(body, @body) WHERE id = @id`,
  )
  const bySpec = db.prepare<[number], EndpointRow>('SELECT * FROM endpoints WHERE spec_id = ? ORDER BY path, id')
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
        pick: endpoint.pick ?? 'rules',
        responses: JSON.stringify(endpoint.responses ?? []),
        body: endpoint.body ?? null,
        schema: endpoint.schema ?? null,
        errorRate: endpoint.errorRate ?? 0,
        errorStatus: endpoint.errorStatus ?? 500,
        specId: endpoint.specId ?? null,
        operation: endpoint.operation ? JSON.stringify(endpoint.operation) : null,
      })
      return toEndpoint(byId.get(Number(info.lastInsertRowid))!)
    },
    configure(id: number, settings: EndpointSettings): Endpoint {
      configure.run({ id, ...settings, headers: JSON.stringify(settings.headers), responses: JSON.stringify(settings.responses) })
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
