import { AppError } from '../../errors.ts'
import type { SpecKind } from '../kind.ts'

/** A gRPC code (0–16), or an HTTP status the gRPC server maps to the closest code. */
function checkGrpcStatus(status: number): number {
  if (Number.isInteger(status) && status >= 0 && status <= 16) return status
  if (Number.isInteger(status) && status >= 100 && status <= 599) return status
  throw new AppError('INVALID_INPUT', `status ${status} must be a gRPC status code from 0 (OK) to 16, or an HTTP status to map to one`)
}

/**
 * A .proto and everything it imports, stored as one protobuf descriptor (JSON); one endpoint per
 * method, its HTTP/2 path, served on the gRPC port. Statuses are gRPC codes (0 is OK).
 */
export const grpcKind: SpecKind<'grpc'> = {
  name: 'grpc',
  routing: 'grpc-port',
  label: 'proto',
  defaultStatus: () => 0,
  statuses: {
    check: checkGrpcStatus,
    isErrorStatus: (status) => status >= 400 || (status >= 1 && status <= 16),
    errorStatusHint: ', or a gRPC code from 1 to 16',
  },
  async checkBody(document, endpoint, body) {
    const [{ methodsOf }, { checkGrpcBody }] = await Promise.all([import('./load.ts'), import('./generate.ts')])
    const descriptor = JSON.parse(document) as Record<string, unknown>
    const method = methodsOf(descriptor).find((m) => m.path === endpoint.path)
    if (method) checkGrpcBody(descriptor, method.responseType, body)
  },
  detect: {
    extensions: ['.proto'],
    looksLike: /^\s*syntax\s*=\s*["']proto[23]["']|^\s*service\s+\w+\s*\{/m,
    described: 'gRPC (.proto)',
  },
  urlRefusal: 'a .proto is imported from a file (its imports are resolved next to it); download it first',
  async load(input) {
    const { loadProto, loadProtoText } = await import('./load.ts')
    const proto = input.file !== undefined
      ? await loadProto(input.file, { protoPaths: input.protoPaths, name: input.name })
      : await loadProtoText(await input.read(), input.name)
    return {
      // A file or URL names the import; a pasted .proto its package, so two pasted protos stay two imports.
      title: input.file === undefined && input.url === undefined ? proto.packages[0] ?? null : null,
      version: 'proto',
      document: JSON.stringify(proto.descriptor),
      operations: proto.methods.map((method) => ({ method: 'POST' as const, path: method.path, operation: null })),
      describe: (title) => `proto "${title}"`,
    }
  },
  nothingToServe: 'the proto defines no operations: nothing to serve',
  operations: { by: 'named', pattern: /^\/[^/#\s]+\/[^/#\s]+$/, example: '/helloworld.Greeter/SayHello' },
  exportDocument: (stored) => JSON.parse(stored) as Record<string, unknown>,
}
