import type { H3 } from 'h3'
import type { ImportResult } from '../domain/import.ts'
import { whenStoreFree } from '../domain/transaction.ts'
import { SPEC_KINDS } from '../kinds/registry.ts'
import { endpointView, type ImportFormatView } from '../views.ts'
import { notAllowed, route, type AdminDeps, type Authorize } from './admin-common.ts'
import { readJsonBody } from './body.ts'
import { jsonResponse } from './http-response.ts'

/** A spec is a document, not a request: the Slack spec alone is 1.2 MB. */
const IMPORT_BODY_LIMIT = 16 * 1024 * 1024

/** What `POST …/imports` answers (201). */
export function importResultView(result: ImportResult) {
  const { spec } = result
  return {
    import: { id: spec.id, title: spec.title, format: spec.format, version: spec.version },
    created: result.created.map(endpointView),
    updated: result.updated.map(endpointView),
    kept: result.kept.map(endpointView),
    removed: result.removed.map(endpointView),
    warnings: result.warnings,
  }
}

/** What `GET …/imports/formats` answers: the formats an import takes, in the order content is tried. */
export function importFormatsView(): ImportFormatView[] {
  return SPEC_KINDS.map((kind) => ({ name: kind.name, label: kind.label, described: kind.detect.described, extensions: kind.detect.extensions }))
}

/**
 * `…/imports`: import a spec (its text, or an http(s) URL) into the project, as `mockapi import`
 * does; the routing table sees the new endpoints at once (the store counts the writes).
 */
export function mountAdminImports(app: H3, deps: AdminDeps, authorized: Authorize): void {
  const { context } = deps

  route(app, '/api/projects/:projectId/imports/formats', async (event) => {
    await authorized(event)
    if (event.req.method !== 'GET' && event.req.method !== 'HEAD') notAllowed(event, ['GET', 'HEAD'])
    return jsonResponse(200, importFormatsView())
  })

  route(app, '/api/projects/:projectId/imports', async (event) => {
    const project = await authorized(event)
    if (event.req.method !== 'POST') notAllowed(event, ['POST'])
    const body = await readJsonBody(event, Math.max(deps.bodyLimit, IMPORT_BODY_LIMIT))
    // The parsers load with the first import, not with the server.
    const { importRequestFromJson, loadImport, storeImport } = await import('../domain/import.ts')
    // Fetched and parsed once; only storing is tried again while another process holds the lock.
    const loaded = await loadImport(importRequestFromJson(body))
    const result = await whenStoreFree(context.db, () => storeImport(context, project, loaded))
    return jsonResponse(201, importResultView(result))
  })
}
