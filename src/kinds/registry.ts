/**
 * Every endpoint kind, one line each. The names are listed in model.ts (SPEC_FORMATS, within
 * ENDPOINT_KINDS), the foundation every layer may read but which may import nothing above it; this
 * map must have a module for each name, and only those, or the build fails.
 */
import { AppError } from '../errors.ts'
import { SPEC_FORMATS, type EndpointKind, type SpecFormat } from '../model.ts'
import { customKind } from './custom.ts'
import { graphqlKind } from './graphql/kind.ts'
import { grpcKind } from './grpc/kind.ts'
import type { KindModule, SpecKind } from './kind.ts'
import { openapiKind } from './openapi/kind.ts'
import { resourceKind } from './resource.ts'
import { soapKind } from './soap/kind.ts'

type Registry = { [K in EndpointKind]: K extends SpecFormat ? SpecKind<K> : KindModule<K> }

const KINDS: Registry = {
  resource: resourceKind,
  custom: customKind,
  openapi: openapiKind,
  graphql: graphqlKind,
  grpc: grpcKind,
  soap: soapKind,
}

export function kindOf(kind: EndpointKind): KindModule {
  return KINDS[kind]
}

/** Import formats, in the order their content is sniffed (SPEC_FORMATS order). */
export const SPEC_KINDS: readonly SpecKind[] = SPEC_FORMATS.map((format) => KINDS[format] as SpecKind)

export function specKindOf(format: SpecFormat): SpecKind {
  return KINDS[format] as SpecKind
}

/** The format named by a user (flag, API body): refused unless it is one. */
export function parseFormat(format: string): SpecFormat {
  const known = SPEC_FORMATS.find((name) => name === format)
  if (known === undefined) throw new AppError('INVALID_INPUT', `format "${format}" must be one of ${SPEC_FORMATS.join(', ')}`)
  return known
}

/** The format of a project file's import that names none (files written when OpenAPI was the only one). */
export const UNNAMED_FORMAT: SpecFormat = openapiKind.name
