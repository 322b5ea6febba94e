import type { H3 } from 'h3'
import { verifyBearer } from '../domain/auth.ts'
import { projectSummary, updateProjectSettings } from '../domain/projects.ts'
import {
  DELIVERY_LOG_LIMIT, createSubscription, deleteSubscription, recentAttempts, redeliver, requireSubscription, updateSubscription,
} from '../domain/subscriptions.ts'
import { AppError } from '../errors.ts'
import { parsePaging } from '../engine/list-query.ts'
import { redeliverMany, redeliveryRequest } from '../domain/redelivery.ts'
import { resetProject } from '../domain/seeding.ts'
import { whenStoreFree } from '../domain/transaction.ts'
import { attemptView, subscriptionView } from '../views.ts'
import { createAuthorize, notAllowed, pathParam, type AdminDeps, isRead, route } from './admin-common.ts'
import { mountAdminEndpoints } from './admin-endpoints.ts'
import { mountAdminImports } from './admin-imports.ts'
import { mountAdminLive } from './admin-live.ts'
import { mountAdminResources } from './admin-resources.ts'
import { mountAdminResponses } from './admin-responses.ts'
import { mountAdminStats } from './admin-stats.ts'
import { readJsonBody } from './body.ts'
import { jsonResponse, textResponse } from './http-response.ts'

export type { AdminDeps } from './admin-common.ts'

const MAX_ATTEMPTS_LISTED = 1000

function attemptLimit(query: URLSearchParams): number {
  const raw = query.get('limit')
  if (raw === null) return DELIVERY_LOG_LIMIT
  const limit = /^[1-9][0-9]{0,5}$/.test(raw) ? Number(raw) : NaN
  if (!(limit <= MAX_ATTEMPTS_LISTED)) {
    throw new AppError('INVALID_QUERY', `query parameter "limit" must be an integer from 1 to ${MAX_ATTEMPTS_LISTED}, got "${raw}"`, {
      details: [{ parameter: 'limit', message: `must be an integer from 1 to ${MAX_ATTEMPTS_LISTED}` }],
    })
  }
  return limit
}

/** The management API under `/api/projects…`: JWT first, then the project. */
export function mountAdmin(app: H3, deps: AdminDeps): void {
  const { context } = deps
  const authorized = createAuthorize(context)

  route(app, '/api/projects', async (event) => {
    const claims = await verifyBearer(context, event.req.headers.get('authorization'))
    if (!isRead(event)) notAllowed(event, ['GET'])
    const projects = context.repos.projects.list().filter((p) => claims.projectId === undefined || p.id === claims.projectId)
    return jsonResponse(200, projects.map((p) => projectSummary(context, p)))
  })

  route(app, '/api/projects/:projectId', async (event) => {
    const project = await authorized(event)
    if (isRead(event)) return jsonResponse(200, projectSummary(context, project))
    if (event.req.method === 'PATCH') {
      const input = await readJsonBody(event, deps.bodyLimit)
      const updated = await whenStoreFree(context.db, () => updateProjectSettings(context, project, input))
      return jsonResponse(200, projectSummary(context, updated))
    }
    notAllowed(event, ['GET', 'PATCH'])
  })

  route(app, '/api/projects/:projectId/webhook-inbox', async (event) => {
    const project = await authorized(event)
    if (isRead(event)) {
      const { limit, offset } = parsePaging(event.url.searchParams)
      return textResponse(200, context.repos.inbox.pageJson(project.id, limit, offset), {
        'X-Total-Count': String(context.repos.inbox.count(project.id)),
      })
    }
    if (event.req.method === 'DELETE') {
      await whenStoreFree(context.db, () => context.repos.inbox.clear(project.id))
      return textResponse(204, null)
    }
    notAllowed(event, ['DELETE', 'GET'])
  })

  route(app, '/api/projects/:projectId/reset', async (event) => {
    const project = await authorized(event)
    if (event.req.method !== 'POST') notAllowed(event, ['POST'])
    const result = await whenStoreFree(context.db, () => resetProject(context, project.id))
    // As WireMock's reset: a test starting over starts with an empty journal too.
    deps.journal?.clear(project.id)
    // Seen at once, so a request answered from the catalog before it sees the reset is not cleared later.
    deps.journal?.seenReset(project.id, context.repos.projects.byId(project.id)?.sequenceEpoch ?? 0)
    return jsonResponse(200, result)
  })

  route(app, '/api/projects/:projectId/webhooks', async (event) => {
    const project = await authorized(event)
    if (isRead(event)) {
      const withDeliveries = event.url.searchParams.get('deliveries') === 'true'
      return jsonResponse(200, context.repos.subscriptions.listByProject(project.id).map((s) => ({
        ...subscriptionView(s),
        ...(withDeliveries ? { deliveries: recentAttempts(context, s.id).map(attemptView) } : {}),
      })))
    }
    if (event.req.method === 'POST') {
      const input = await readJsonBody(event, deps.bodyLimit)
      const created = await whenStoreFree(context.db, () => createSubscription(context, project, input))
      return jsonResponse(201, subscriptionView(created))
    }
    notAllowed(event, ['GET', 'POST'])
  })

  route(app, '/api/projects/:projectId/webhooks/:id', async (event) => {
    const project = await authorized(event)
    const subscription = requireSubscription(context, pathParam(event, 'id'), project)
    if (isRead(event)) return jsonResponse(200, subscriptionView(subscription))
    if (event.req.method === 'PATCH') {
      const input = await readJsonBody(event, deps.bodyLimit)
      const updated = await whenStoreFree(context.db, () => updateSubscription(context, subscription, input))
      return jsonResponse(200, subscriptionView(updated))
    }
    if (event.req.method === 'DELETE') {
      await whenStoreFree(context.db, () => deleteSubscription(context, subscription))
      return textResponse(204, null)
    }
    notAllowed(event, ['DELETE', 'GET', 'PATCH'])
  })

  route(app, '/api/projects/:projectId/webhooks/:id/deliveries', async (event) => {
    const project = await authorized(event)
    const subscription = requireSubscription(context, pathParam(event, 'id'), project)
    if (!isRead(event)) notAllowed(event, ['GET'])
    return jsonResponse(200, recentAttempts(context, subscription.id, attemptLimit(event.url.searchParams)).map(attemptView))
  })

  route(app, '/api/projects/:projectId/deliveries/redeliver', async (event) => {
    const project = await authorized(event)
    if (event.req.method !== 'POST') notAllowed(event, ['POST'])
    const selection = redeliveryRequest(context, project, await readJsonBody(event, deps.bodyLimit))
    // Each batch waits for the write lock on its own (redeliverMany): no whenStoreFree around the whole.
    const summary = await redeliverMany(context, selection)
    if (summary.queued > 0) deps.events.emit('delivery.queued')
    return jsonResponse(202, summary)
  })

  route(app, '/api/projects/:projectId/deliveries/:attemptId/redeliver', async (event) => {
    const project = await authorized(event)
    if (event.req.method !== 'POST') notAllowed(event, ['POST'])
    const { deliveryId, attempt } = await whenStoreFree(context.db, () => redeliver(context, pathParam(event, 'attemptId'), project))
    deps.events.emit('delivery.queued')
    return jsonResponse(202, { deliveryId, attempt: attemptView(attempt) })
  })

  mountAdminEndpoints(app, deps, authorized)
  mountAdminResponses(app, deps, authorized)
  mountAdminResources(app, deps, authorized)
  mountAdminLive(app, deps, authorized)
  mountAdminStats(app, deps, authorized)
  mountAdminImports(app, deps, authorized)
  // A mistyped management path is the management API's 404, not a mock request of the project served at its own paths.
  route(app, '/api/projects/**', (event) => {
    throw new AppError('NOT_FOUND', `no management API route matches ${event.req.method} ${event.url.pathname}`)
  })
}
