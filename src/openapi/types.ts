/**
 * An imported OpenAPI operation as stored with its endpoint. Schemas, examples and media are
 * JSON Pointers into the spec document stored once per import (`api_specs`), so a recursive schema
 * never has to be serialized as a tree.
 */

export type SpecVersion = '2.0' | '3.0' | '3.1'

/** A validated, bundled spec: internal `$ref`s kept, dialect quirks normalized for ajv. */
export interface SpecDocument {
  version: SpecVersion
  title: string
  document: Record<string, unknown>
}

export interface ParameterSpec {
  name: string
  in: 'path' | 'query' | 'header'
  required: boolean
  /** Pointer to the parameter's schema in the document; null when it has none. */
  schema: string | null
}

export interface MediaSpec {
  /** Media type as written in the spec (`application/json`, `*\/*`, …). */
  type: string
  schema: string | null
  /** Pointer to the media's single `example` value, if any. */
  example: string | null
  /** Example name → pointer to its value (the `value` of an Example Object, `$ref`s resolved). */
  examples: Record<string, string>
}

export interface HeaderSpec {
  name: string
  required: boolean
  schema: string | null
  example: string | null
}

export interface ResponseSpec {
  /** `200`, `4XX` or `default`, as written. */
  code: string
  description: string
  headers: HeaderSpec[]
  media: MediaSpec[]
}

export interface OpenApiOperation {
  /** Pointer to the operation object (`/paths/~1pets~1{petId}/get`). */
  pointer: string
  operationId: string | null
  parameters: ParameterSpec[]
  requestBody: { required: boolean; media: MediaSpec[] } | null
  responses: ResponseSpec[]
}

/** One path+method of a spec, with the path already in mockapi's form (`{petId}` → `:petId`). */
export interface ImportedOperation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  path: string
  operation: OpenApiOperation
}
