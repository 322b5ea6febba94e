import type { H3, H3Event } from 'h3'
import { effectiveAuthOf } from '../domain/auth-settings.ts'
import { deleteEndpoint, endpointsByPath, requireEndpointById } from '../domain/endpoints.ts'
import { whenStoreFree } from '../domain/transaction.ts'
import type { Project } from '../model.ts'
import { notAllowed, pathParam, type AdminDeps, type Authorize, isRead, route } from './admin-common.ts'
import { readJsonBody } from './body.ts'
import { jsonResponse, textResponse } from './http-response.ts'
import { servedAt, servedViews } from './served-url.ts'

/** `…/endpoints`: list, configure (as `mockapi endpoint set`), delete (as `remove-endpoint`). */
export function mountAdminEndpoints(app: H3, deps: AdminDeps, authorized: Authorize): void {
  const { context } = deps
  /** Endpoints with the URL they are served at, on the host this request came to. */
  const viewsFor = (event: H3Event, project: Project) => servedViews(project, servedAt(event, deps.grpcPort()), effectiveAuthOf(context, project))

  route(app, '/api/projects/:projectId/endpoints', async (event) => {
    const project = await authorized(event)
    if (!isRead(event)) notAllowed(event, ['GET'])
    return jsonResponse(200, endpointsByPath(context, project.id).map(viewsFor(event, project)))
  })

  route(app, '/api/projects/:projectId/endpoints/:endpointId', async (event) => {
    const project = await authorized(event)
    const endpoint = requireEndpointById(context, project, pathParam(event, 'endpointId'))
    if (event.req.method === 'PATCH') {
      const input = await readJsonBody(event, deps.bodyLimit)
      // ajv (schemas) and faker (templates) load with the first change, not with the server.
      const [{ configureEndpointFields, settingsFromJson }, { loadFaker }] = await Promise.all([
        import('../domain/endpoint-config.ts'),
        import('../engine/generators.ts'),
      ])
      const settings = settingsFromJson(input)
      const faker = await loadFaker()
      const updated = await whenStoreFree(context.db, () => configureEndpointFields(context, endpoint, settings, faker))
      return jsonResponse(200, viewsFor(event, project)(updated))
    }
    if (event.req.method === 'DELETE') {
      await whenStoreFree(context.db, () => deleteEndpoint(context, endpoint))
      return textResponse(204, null)
    }
    notAllowed(event, ['DELETE', 'PATCH'])
  })
}
