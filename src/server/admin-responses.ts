import type { H3, H3Event } from 'h3'
import { requireEndpointById } from '../domain/endpoints.ts'
import { fileContent, MAX_FILE_BYTES } from '../domain/bodies.ts'
import { responseIndex } from '../domain/responses.ts'
import { whenStoreFree } from '../domain/transaction.ts'
import { AppError } from '../errors.ts'
import type { Endpoint, Project } from '../model.ts'
import { endpointView } from '../views.ts'
import { notAllowed, pathParam, type AdminDeps, type Authorize, isRead, route } from './admin-common.ts'
import { readJsonBody, readRawBody } from './body.ts'
import { jsonResponse, textResponse } from './http-response.ts'

/** What every route here answers: how the endpoint picks, and its list. */
function listView(endpoint: Endpoint) {
  const { pick, responses } = endpointView(endpoint)
  return { pick, responses }
}

/** `?at=2`: a 1-based position, or undefined for the end. */
function atOf(event: H3Event): number | undefined {
  const at = new URL(event.req.url).searchParams.get('at')
  if (at === null) return undefined
  if (!/^\d+$/.test(at)) throw new AppError('INVALID_INPUT', `at "${at}" must be a 1-based position`, { details: [{ field: 'at', message: 'must be a 1-based position' }] })
  return Number(at)
}

/** `…/endpoints/{eid}/responses[/{position|name}]`: one response at a time, as `mockapi response` does. */
export function mountAdminResponses(app: H3, deps: AdminDeps, authorized: Authorize): void {
  const { context } = deps
  const target = async (event: H3Event): Promise<{ project: Project; endpoint: Endpoint }> => {
    const project = await authorized(event)
    return { project, endpoint: requireEndpointById(context, project, pathParam(event, 'endpointId')) }
  }
  // The edits (ajv for schemas, through the endpoint settings) and faker (templates) load with the
  // first change, not with the server: together they were about half of serve's cold start.
  const faker = async () => (await (await import('../engine/generators.ts')).loadFaker())
  const edits = () => import('../domain/response-edits.ts')

  route(app, '/api/projects/:projectId/endpoints/:endpointId/responses', async (event) => {
    const { endpoint } = await target(event)
    if (isRead(event)) return jsonResponse(200, listView(endpoint))
    if (event.req.method !== 'POST') notAllowed(event, ['GET', 'POST'])
    const input = await readJsonBody(event, deps.bodyLimit)
    const at = atOf(event)
    const [{ addResponse }, makeFaker] = await Promise.all([edits(), faker()])
    const updated = await whenStoreFree(context.db, () => addResponse(context, endpoint, input, at, makeFaker))
    return jsonResponse(201, listView(updated))
  })

  route(app, '/api/projects/:projectId/endpoints/:endpointId/responses/:which', async (event) => {
    const { endpoint } = await target(event)
    const which = pathParam(event, 'which')
    if (event.req.method === 'PUT') {
      const input = await readJsonBody(event, deps.bodyLimit)
      const [{ replaceResponse }, makeFaker] = await Promise.all([edits(), faker()])
      const updated = await whenStoreFree(context.db, () => replaceResponse(context, endpoint, which, input, makeFaker))
      return jsonResponse(200, listView(updated))
    }
    if (event.req.method === 'DELETE') {
      const [{ removeResponse }, makeFaker] = await Promise.all([edits(), faker()])
      const updated = await whenStoreFree(context.db, () => removeResponse(context, endpoint, which, makeFaker))
      return jsonResponse(200, listView(updated))
    }
    notAllowed(event, ['PUT', 'DELETE'])
  })

  /** A response's file: PUT its bytes as the request body (`?name=avatar.png`, up to 5 MiB, past the JSON limit), GET them back. */
  route(app, '/api/projects/:projectId/endpoints/:endpointId/responses/:which/file', async (event) => {
    const { endpoint } = await target(event)
    const which = pathParam(event, 'which')
    if (event.req.method === 'PUT') {
      const query = new URL(event.req.url).searchParams
      const name = query.get('name')
      if (!name) throw new AppError('INVALID_INPUT', 'say the file\'s name: PUT …/responses/1/file?name=avatar.png (its extension gives the Content-Type)', { details: [{ field: 'name', message: 'is required' }] })
      responseIndex(endpoint, which)
      const bytes = await readRawBody(event, MAX_FILE_BYTES)
      const [{ setResponseFile }, makeFaker] = await Promise.all([edits(), faker()])
      const updated = await whenStoreFree(context.db, () => setResponseFile(context, endpoint, which, { name, bytes }, query.get('contentType') ?? undefined, makeFaker))
      return jsonResponse(200, listView(updated))
    }
    if (!isRead(event)) notAllowed(event, ['GET', 'PUT'])
    const response = endpoint.responses[responseIndex(endpoint, which)]!
    const file = response.fileId === null ? undefined : fileContent(context, response.fileId)
    if (!file) throw new AppError('NOT_FOUND', `response ${which} of endpoint ${endpoint.id} answers no file`)
    return textResponse(200, file.bytes, {
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': `attachment; filename="${file.name.replace(/["\\]/g, '_').replace(/[^\x20-\x7e]/g, '_')}"`,
    })
  })
}
