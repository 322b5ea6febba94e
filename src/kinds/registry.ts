/**
 * Every endpoint kind, one line each. The names are listed in model.ts (SPEC_FORMATS, within
 * ENDPOINT_KINDS), the foundation every layer may read but which may import nothing above it; this
 * map must have a module for each name, and only those, or the build fails.
 */
import { AppError } from '../errors.ts'
import { DATA_FORMATS, EXCHANGE_FORMATS, SPEC_FORMATS, type DataFormat, type EndpointKind, type ExchangeFormat, type ImportFormat, type SpecFormat } from '../model.ts'
import { customKind } from './custom.ts'
import { graphqlKind } from './graphql/kind.ts'
import { grpcKind } from './grpc/kind.ts'
import { harKind } from './har/kind.ts'
import { jsonServerKind } from './json-server/kind.ts'
import type { DataKind, ExchangeKind, KindModule, SpecKind } from './kind.ts'
import { openapiKind } from './openapi/kind.ts'
import { postmanKind } from './postman/kind.ts'
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

const DATA: { [F in DataFormat]: DataKind } = {
  'json-server': jsonServerKind,
}

/** Data import formats (records, not endpoints), tried after every spec kind. */
export const DATA_KINDS: readonly DataKind[] = DATA_FORMATS.map((format) => DATA[format])

const EXCHANGES: { [F in ExchangeFormat]: ExchangeKind } = {
  har: harKind,
  postman: postmanKind,
}

/** Recorded exchanges (a HAR file, a Postman collection), tried before every spec kind: their structure says them exactly. */
export const EXCHANGE_KINDS: readonly ExchangeKind[] = EXCHANGE_FORMATS.map((format) => EXCHANGES[format])

const IMPORT_FORMATS: readonly ImportFormat[] = [...SPEC_FORMATS, ...DATA_FORMATS, ...EXCHANGE_FORMATS]

/** The format named by a user (flag, API body): refused unless it is one. */
export function parseFormat(format: string): ImportFormat {
  const known = IMPORT_FORMATS.find((name) => name === format)
  if (known === undefined) throw new AppError('INVALID_INPUT', `format "${format}" must be one of ${IMPORT_FORMATS.join(', ')}`)
  return known
}

/** The module of an import format: a spec kind, a data kind, or an exchange kind. */
export function importKindOf(format: ImportFormat): SpecKind | DataKind | ExchangeKind {
  if ((EXCHANGE_FORMATS as readonly string[]).includes(format)) return EXCHANGES[format as ExchangeFormat]
  return (DATA_FORMATS as readonly string[]).includes(format) ? DATA[format as DataFormat] : specKindOf(format as SpecFormat)
}

export function isDataKind(kind: SpecKind | DataKind | ExchangeKind): kind is DataKind {
  return DATA_KINDS.includes(kind as DataKind)
}

export function isExchangeKind(kind: SpecKind | DataKind | ExchangeKind): kind is ExchangeKind {
  return EXCHANGE_KINDS.includes(kind as ExchangeKind)
}

/** The format of a project file's import that names none (files written when OpenAPI was the only one). */
export const UNNAMED_FORMAT: SpecFormat = openapiKind.name
