/**
 * The OpenAPI kind's shapes. The operation as stored with its endpoint is in model.ts, beside the
 * Endpoint that holds it (the store reads and writes it); this kind's modules name it from here.
 */
import type { HttpMethod, OpenApiOperation } from '../../model.ts'

export type { HeaderSpec, MediaSpec, OpenApiOperation, ParameterSpec, ResponseSpec, SpecDocument, SpecVersion } from '../../model.ts'

/** One path+method of a spec, with the path already in mockapi's form (`{petId}` → `:petId`). */
export interface ImportedOperation {
  method: HttpMethod
  path: string
  operation: OpenApiOperation
}
