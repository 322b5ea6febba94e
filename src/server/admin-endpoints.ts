import type { H3, H3Event } from 'h3'
import { effectiveAuthOf } from '../domain/auth-settings.ts'
import { deleteEndpoint, endpointsByPath, requireEndpointById } from '../domain/endpoints.ts'
import { fileContent, MAX_FILE_BYTES } from '../domain/bodies.ts'
import { whenStoreFree } from '../domain/transaction.ts'
import { AppError } from '../errors.ts'
import type { Project } from '../model.ts'
import { notAllowed, pathParam, type AdminDeps, type Authorize, isRead, route } from './admin-common.ts'
import { readJsonBody, readRawBody } from './body.ts'
import { jsonResponse, textResponse } from './http-response.ts'
import { servedAt, servedViews } from './served-url.ts'

/** `…/endpoints`: list, add (as `add-endpoint`), configure (as `mockapi endpoint set`), delete (as `remove-endpoint`). */
export function mountAdminEndpoints(app: H3, deps: AdminDeps, authorized: Authorize): void {
  const { context } = deps
  /** Endpoints with the URL they are served at, on the host this request came to. */
  const viewsFor = (event: H3Event, project: Project) => servedViews(project, servedAt(event, deps.grpcPort()), effectiveAuthOf(context, project))

  route(app, '/api/projects/:projectId/endpoints', async (event) => {
    const project = await authorized(event)
    if (event.req.method === 'POST') {
      const input = await readJsonBody(event, deps.bodyLimit)
      const [{ addEndpointFromJson }, { loadFaker }] = await Promise.all([import('../domain/endpoint-config.ts'), import('../engine/generators.ts')])
      const faker = await loadFaker()
      const { endpoint } = await whenStoreFree(context.db, () => addEndpointFromJson(context, project, input, faker))
      return jsonResponse(201, viewsFor(event, project)(endpoint))
    }
    if (!isRead(event)) notAllowed(event, ['GET', 'POST'])
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

  /** The file an endpoint answers: PUT its bytes as the request body (`?name=avatar.png`), GET them back. */
  route(app, '/api/projects/:projectId/endpoints/:endpointId/file', async (event) => {
    const project = await authorized(event)
    const endpoint = requireEndpointById(context, project, pathParam(event, 'endpointId'))
    if (event.req.method === 'PUT') {
      const query = new URL(event.req.url).searchParams
      const name = query.get('name')
      if (!name) throw new AppError('INVALID_INPUT', 'say the file\'s name: PUT …/file?name=avatar.png (its extension gives the Content-Type)', { details: [{ field: 'name', message: 'is required' }] })
      // A file may be larger than the API's JSON limit, up to what a response file may be.
      const bytes = await readRawBody(event, MAX_FILE_BYTES)
      const [{ configureEndpointFields }, { loadFaker }] = await Promise.all([import('../domain/endpoint-config.ts'), import('../engine/generators.ts')])
      const faker = await loadFaker()
      const contentType = query.get('contentType') ?? undefined
      const updated = await whenStoreFree(context.db, () => configureEndpointFields(context, endpoint, { file: { name, bytes }, contentType }, faker))
      return jsonResponse(200, viewsFor(event, project)(updated))
    }
    if (!isRead(event)) notAllowed(event, ['GET', 'PUT'])
    const file = endpoint.fileId === null ? undefined : fileContent(context, endpoint.fileId)
    if (!file) throw new AppError('NOT_FOUND', `endpoint ${endpoint.id} answers no file`)
    return textResponse(200, file.bytes, {
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': `attachment; filename="${endpoint.file!.name.replace(/["\\]/g, '_').replace(/[^\x20-\x7e]/g, '_')}"`,
    })
  })
}
