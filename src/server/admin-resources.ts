import type { H3, H3Event } from 'h3'
import type { Context } from '../domain/context.ts'
import { runRecordAction } from '../domain/records.ts'
import { whenStoreFree } from '../domain/transaction.ts'
import { addResource, checkNewResource, deleteResource, listResources, requireRecords, requireResource } from '../domain/resource-admin.ts'
import type { Resource, ResourceAction } from '../model.ts'
import { notAllowed, pathParam, type AdminDeps, type Authorize, isRead, route } from './admin-common.ts'
import { readJsonBody } from './body.ts'
import { jsonResponse, textResponse } from './http-response.ts'

const SUCCESS: Record<ResourceAction, number> = { list: 200, create: 201, read: 200, replace: 200, patch: 200, delete: 200 }

/** The records of a resource, through the same code as its mock endpoints (filters, sort, paging, `X-Total-Count`, `Link`). */
async function recordResponse(context: Context, event: H3Event, resource: Resource, action: ResourceAction, body: unknown, id?: string): Promise<Response> {
  const result = await whenStoreFree(context.db, () => runRecordAction(context, {
    action,
    resource,
    collectionId: resource.collectionId,
    parents: [],
    id,
    query: event.url.searchParams,
    body,
    url: event.url,
    status: SUCCESS[action],
  }))
  if (action === 'delete') return textResponse(204, null)
  return textResponse(result.status, result.body, result.headers)
}

/** `…/resources` and their records. */
export function mountAdminResources(app: H3, deps: AdminDeps, authorized: Authorize): void {
  const { context } = deps

  route(app, '/api/projects/:projectId/resources', async (event) => {
    const project = await authorized(event)
    if (isRead(event)) return jsonResponse(200, listResources(context, project.id))
    if (event.req.method === 'POST') {
      const input = await readJsonBody(event, deps.bodyLimit)
      const { loadFaker } = await import('../engine/generators.ts')
      const faker = await loadFaker()
      const created = await whenStoreFree(context.db, () => addResource(context, project, input, faker))
      return jsonResponse(201, created)
    }
    notAllowed(event, ['GET', 'POST'])
  })

  route(app, '/api/projects/:projectId/resources/check', async (event) => {
    const project = await authorized(event)
    if (!isRead(event)) notAllowed(event, ['GET'])
    return jsonResponse(200, checkNewResource(context, project, event.url.searchParams.get('path')))
  })

  route(app, '/api/projects/:projectId/resources/:resourceId', async (event) => {
    const project = await authorized(event)
    const resource = requireResource(context, project, pathParam(event, 'resourceId'))
    if (event.req.method !== 'DELETE') notAllowed(event, ['DELETE'])
    await whenStoreFree(context.db, () => deleteResource(context, resource))
    return textResponse(204, null)
  })

  route(app, '/api/projects/:projectId/resources/:resourceId/records', async (event) => {
    const project = await authorized(event)
    const resource = requireRecords(requireResource(context, project, pathParam(event, 'resourceId')))
    if (isRead(event)) return recordResponse(context, event, resource, 'list', undefined)
    if (event.req.method === 'POST') return recordResponse(context, event, resource, 'create', await readJsonBody(event, deps.bodyLimit))
    notAllowed(event, ['GET', 'POST'])
  })

  route(app, '/api/projects/:projectId/resources/:resourceId/records/:recordId', async (event) => {
    const project = await authorized(event)
    const resource = requireRecords(requireResource(context, project, pathParam(event, 'resourceId')))
    const id = pathParam(event, 'recordId')
    switch (event.req.method) {
      case 'GET':
      case 'HEAD': return recordResponse(context, event, resource, 'read', undefined, id)
      case 'PUT': return recordResponse(context, event, resource, 'replace', await readJsonBody(event, deps.bodyLimit), id)
      case 'PATCH': return recordResponse(context, event, resource, 'patch', await readJsonBody(event, deps.bodyLimit), id)
      case 'DELETE': return recordResponse(context, event, resource, 'delete', undefined, id)
      default: notAllowed(event, ['DELETE', 'GET', 'PATCH', 'PUT'])
    }
  })
}
