import type { H3 } from 'h3'
import { projectStats } from '../domain/stats.ts'
import { notAllowed, type AdminDeps, type Authorize, isRead, route } from './admin-common.ts'
import { jsonResponse } from './http-response.ts'

/**
 * `…/stats`: the project's requests per bucket, by status class with duration percentiles (as
 * `deps.requests` counted them), and its deliveries per subscription, by outcome with latency
 * percentiles.
 */
export function mountAdminStats(app: H3, deps: AdminDeps, authorized: Authorize): void {
  const { context, requests } = deps
  route(app, '/api/projects/:projectId/stats', async (event) => {
    const project = await authorized(event)
    if (!isRead(event)) notAllowed(event, ['GET'])
    // As `…/requests` says it: the dashboard learns here that the journal is off (0) without asking it for a 409.
    return jsonResponse(200, projectStats(context, requests, project.id, event.url.searchParams), { 'X-Journal-Size': String(deps.journal?.size ?? 0) })
  })
}
