import type { Endpoint, Project } from './model.ts'

/** The public JSON shapes of contract §3, shared by `--json` output and the HTTP API. */
export function projectView(project: Project) {
  return {
    id: project.id,
    name: project.name,
    slug: project.slug,
    shareToken: project.shareToken,
    isDefault: project.isDefault,
    createdAt: project.createdAt,
  }
}

export function endpointView(endpoint: Endpoint) {
  return {
    id: endpoint.id,
    method: endpoint.method,
    path: endpoint.path,
    kind: endpoint.kind,
    status: endpoint.status,
    action: endpoint.action,
    resourceId: endpoint.resourceId,
    delayMs: endpoint.delayMs,
    headers: endpoint.headers,
    body: endpoint.body === null ? null : (JSON.parse(endpoint.body) as unknown),
    createdAt: endpoint.createdAt,
  }
}
