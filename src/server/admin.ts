import { getRouterParam, type H3, type H3Event } from 'h3'
import { AppError } from '../errors.ts'
import { authorizeProject, verifyBearer } from '../domain/auth.ts'
import type { Store } from '../domain/context.ts'
import {
  createSubscription, deleteSubscription, recentAttempts, requireSubscription, updateSubscription,
} from '../domain/subscriptions.ts'
import { parsePaging } from '../engine/list-query.ts'
import { resetProject } from '../domain/seeding.ts'
import type { MockEvents } from '../events.ts'
import type { Project } from '../model.ts'
import { attemptView, subscriptionView } from '../views.ts'
import { readJsonBody } from './body.ts'
import { jsonResponse, textResponse } from './respond.ts'

export interface AdminDeps {
  store: Store
  events: MockEvents
  bodyLimit: number
}

function notAllowed(event: H3Event, allow: string[]): never {
  throw new AppError('METHOD_NOT_ALLOWED', `${event.req.method} is not allowed here; allowed: ${allow.join(', ')}`, {
    headers: { Allow: allow.join(', ') },
  })
}

/** The management API under `/api/projects/{project_id}/…`: JWT first, then the project. */
export function mountAdmin(app: H3, deps: AdminDeps): void {
  const { store } = deps
  const authorized = async (event: H3Event): Promise<Project> => {
    const claims = await verifyBearer(store, event.req.headers.get('authorization'))
    return authorizeProject(store, claims, getRouterParam(event, 'projectId') ?? '')
  }

  app.all('/api/projects/:projectId/webhook-inbox', async (event) => {
    const project = await authorized(event)
    if (event.req.method === 'GET') {
      const { limit, offset } = parsePaging(event.url.searchParams)
      return textResponse(200, store.repos.inbox.pageJson(project.id, limit, offset), {
        'X-Total-Count': String(store.repos.inbox.count(project.id)),
      })
    }
    if (event.req.method === 'DELETE') {
      store.repos.inbox.clear(project.id)
      return textResponse(204, null)
    }
    notAllowed(event, ['DELETE', 'GET'])
  })

  app.all('/api/projects/:projectId/reset', async (event) => {
    const project = await authorized(event)
    if (event.req.method !== 'POST') notAllowed(event, ['POST'])
    return jsonResponse(200, resetProject(store, project.id))
  })

  app.all('/api/projects/:projectId/webhooks', async (event) => {
    const project = await authorized(event)
    if (event.req.method === 'GET') {
      const withDeliveries = event.url.searchParams.get('deliveries') === 'true'
      return jsonResponse(200, store.repos.subscriptions.listByProject(project.id).map((s) => ({
        ...subscriptionView(s),
        ...(withDeliveries ? { deliveries: recentAttempts(store, s.id).map(attemptView) } : {}),
      })))
    }
    if (event.req.method === 'POST') {
      const created = createSubscription(store, project, await readJsonBody(event, deps.bodyLimit))
      deps.events.emit('config.changed')
      return jsonResponse(201, subscriptionView(created))
    }
    notAllowed(event, ['GET', 'POST'])
  })

  app.all('/api/projects/:projectId/webhooks/:id', async (event) => {
    const project = await authorized(event)
    const subscription = requireSubscription(store, getRouterParam(event, 'id') ?? '', project)
    if (event.req.method === 'GET') return jsonResponse(200, subscriptionView(subscription))
    if (event.req.method === 'PATCH') {
      const updated = updateSubscription(store, subscription, await readJsonBody(event, deps.bodyLimit))
      deps.events.emit('config.changed')
      return jsonResponse(200, subscriptionView(updated))
    }
    if (event.req.method === 'DELETE') {
      deleteSubscription(store, subscription)
      deps.events.emit('config.changed')
      return textResponse(204, null)
    }
    notAllowed(event, ['DELETE', 'GET', 'PATCH'])
  })
}
