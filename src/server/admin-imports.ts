import type { H3 } from 'h3'
import { effectiveAuthOf } from '../domain/auth-settings.ts'
import { whenStoreFree } from '../domain/transaction.ts'
import { DATA_KINDS, EXCHANGE_KINDS, SPEC_KINDS } from '../kinds/registry.ts'
import type { ImportResult } from '../domain/import.ts'
import type { Endpoint } from '../model.ts'
import type { ImportFormatView, ServedEndpointView } from '../views.ts'
import { notAllowed, route, type AdminDeps, type Authorize } from './admin-common.ts'
import { readJsonBody } from './body.ts'
import { jsonResponse } from './http-response.ts'
import { servedAt, servedViews } from './served-url.ts'

/** What `POST …/imports` answers (201). */
export function importResultView(result: ImportResult, view: (endpoint: Endpoint) => ServedEndpointView) {
  const { spec } = result
  return {
    import: { id: spec.id, title: spec.title, format: spec.format, version: spec.version },
    created: result.created.map(view),
    updated: result.updated.map(view),
    kept: result.kept.map(view),
    removed: result.removed.map(view),
    warnings: result.warnings,
  }
}

/** What `GET …/imports/formats` answers: the formats an import takes, in the order content is tried. */
export function importFormatsView(): ImportFormatView[] {
  return [...EXCHANGE_KINDS, ...SPEC_KINDS, ...DATA_KINDS].map((kind) => ({ name: kind.name, label: kind.label, described: kind.detect.described, extensions: kind.detect.extensions }))
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
    // The import code (yaml, the spec parsers) loads with the first import, not with the server.
    const { importRequestFromJson, loadImport, MAX_SPEC_BYTES, storeImport } = await import('../domain/import.ts')
    // A spec is a document, not a request: its JSON may be as large as a spec (and its quoting).
    const body = await readJsonBody(event, Math.max(deps.bodyLimit, 2 * MAX_SPEC_BYTES))
    // Read and parsed before the write lock is asked for; only storing is tried again while another process holds it.
    const loaded = await loadImport(importRequestFromJson(body))
    const result = await whenStoreFree(context.db, () => storeImport(context, project, loaded))
    return jsonResponse(201, importResultView(result, servedViews(result.project, servedAt(event, deps.grpcPort()), effectiveAuthOf(context, result.project))))
  })
}
