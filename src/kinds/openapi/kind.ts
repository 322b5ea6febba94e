import type { SpecKind } from '../kind.ts'
import { defaultStatus, informationalWarnings } from './default-status.ts'
import { listOperations, skippedOperationWarnings } from './operations.ts'
import { operationSecurity, securityWarnings } from './security.ts'
import type { SpecDocument, SpecVersion } from './types.ts'

const asDocument = (spec: { title: string; version: string; document: Record<string, unknown> }): SpecDocument =>
  ({ title: spec.title, version: spec.version as SpecVersion, document: spec.document })

/**
 * An OpenAPI 3.0/3.1 or Swagger 2.0 spec, stored bundled (JSON, internal `$ref`s kept); one endpoint
 * per path and method, each holding its operation.
 */
export const openapiKind: SpecKind<'openapi'> = {
  name: 'openapi',
  routing: 'route',
  routeStages: async () => (await import('./answer.ts')).openapiStages,
  security: (spec, endpoint) => (endpoint.operation ? operationSecurity(spec, endpoint.operation.pointer) : null),
  async authRefusal(spec, endpoint, status, accept) {
    if (!endpoint.operation) return null
    const { documentedAuthRefusal } = await import('./auth-refusal.ts')
    return documentedAuthRefusal(spec, endpoint.operation, status, accept)
  },
  label: 'OpenAPI spec',
  defaultStatus: (endpoint) => (endpoint.operation ? defaultStatus(endpoint.operation) : 200),
  detect: {
    extensions: [],
    looksLike: /(?:^|[{,\s])["']?(?:openapi|swagger)["']?\s*:\s*["']?[23]\./m,
    described: 'OpenAPI 3.x or Swagger 2.0 (YAML or JSON with an "openapi" or "swagger" key)',
    claims: (extension, text) => /^\.(?:ya?ml|json)$/.test(extension) && /\b(?:openapi|swagger)\b/.test(text),
  },
  async load(input) {
    const { loadSpec, loadSpecText } = await import('./load.ts')
    // A local tool: specs served by a back end on localhost are the common case.
    const options = { allowInternalUrls: true, allowRefsOutside: input.allowRefsOutside, strict: input.strict }
    // The text read once (a URL within the import's time and size bounds); `$ref`s resolve from the file or URL.
    const location = input.file ?? input.url
    const text = await input.read()
    const spec = location !== undefined ? await loadSpec(location, options, text) : await loadSpecText(text, input.name, options)
    const operations = listOperations(spec)
    return {
      title: spec.title,
      version: spec.version,
      document: JSON.stringify(spec.document),
      operations,
      describe: (title) => `"${title}" (${spec.version === '2.0' ? 'Swagger 2.0' : `OpenAPI ${spec.version}`})`,
      warnings: [...spec.warnings, ...skippedOperationWarnings(spec.document), ...securityWarnings(spec.document), ...informationalWarnings(operations)],
    }
  },
  nothingToServe: 'the spec describes no paths (only webhooks or components): nothing to serve',
  operations: {
    by: 'routes',
    byPointer: (spec) => new Map(listOperations(asDocument(spec)).map((op) => [op.operation.pointer, op.operation])),
    async examples() {
      const { createResponder } = await import('./responder.ts')
      return (stored) => createResponder(asDocument({ ...stored, document: JSON.parse(stored.document) as Record<string, unknown> }))
    },
  },
  exportDocument: (stored) => JSON.parse(stored) as Record<string, unknown>,
}
