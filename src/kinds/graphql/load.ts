import {
  buildASTSchema,
  buildClientSchema,
  GraphQLError,
  parse,
  print,
  printSchema,
  validateSchema,
  type DefinitionNode,
  type DocumentNode,
  type FieldDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type InputValueDefinitionNode,
  type IntrospectionQuery,
} from 'graphql'
import { AppError } from '../../errors.ts'

const MAX_ISSUES = 5

export interface GraphqlOperation {
  /** Root operation type of the field. */
  type: 'query' | 'mutation'
  /** Root field name, e.g. `allFilms`. */
  field: string
  /** The field's type as printed, e.g. `FilmsConnection`, `[Film!]!`. */
  returns: string
}

export interface GraphqlSpec {
  /** The schema as SDL (printSchema of the built schema): what gets stored; introspection JSON input is converted. */
  sdl: string
  operations: GraphqlOperation[]
}

/** SDL text or introspection JSON text (`{"data":{"__schema":…}}` or `{"__schema":…}`). `origin` (file name/URL) prefixes error messages. */
export function loadGraphqlSchema(text: string, origin: string): GraphqlSpec {
  const source = text.replace(/^\uFEFF/, '')
  // SDL never starts with `{` or `[`, so such text can only be meant as JSON.
  const schema = /^\s*[{[]/.test(source) ? _fromIntrospection(source, origin) : _fromSdl(source, origin)
  if (!schema.getQueryType()) throw new AppError('INVALID_SPEC', `${origin}: the schema defines no Query type (add "type Query { … }" or a "schema { query: … }" block)`)
  const errors = validateSchema(schema)
  if (errors.length) throw _invalid(origin, errors)
  return { sdl: printSchema(schema), operations: _operations(schema) }
}

function _fromSdl(text: string, origin: string): GraphQLSchema {
  if (!text.trim()) throw new AppError('INVALID_SPEC', `${origin}: the schema is empty: it defines no Query type`)
  let document: DocumentNode
  try {
    document = parse(text)
  } catch (error) {
    throw _invalid(origin, [error])
  }
  try {
    // buildSchema(text) is parse + buildASTSchema; split here to repair the document in between.
    return buildASTSchema(_withoutRepeatedFields(document), { assumeValidSDL: false })
  } catch (error) {
    throw _invalid(origin, [error])
  }
}

/**
 * Drops a field defined twice in one type when both copies are identical but for their description.
 * GitHub's published schema has two such fields (`EnterpriseOwnerInfo.repositoryDeployKeySetting…`);
 * strict SDL validation refuses them though the meaning is unambiguous. Differing copies are kept,
 * so validation still reports them.
 */
function _withoutRepeatedFields(document: DocumentNode): DocumentNode {
  let changed = false
  const definitions = document.definitions.map((definition): DefinitionNode => {
    if (!('fields' in definition) || !definition.fields) return definition
    const fields = _uniqueFields(definition.fields)
    if (fields.length === definition.fields.length) return definition
    changed = true
    return { ...definition, fields } as DefinitionNode
  })
  return changed ? { ...document, definitions } : document
}

function _uniqueFields(fields: readonly (FieldDefinitionNode | InputValueDefinitionNode)[]): (FieldDefinitionNode | InputValueDefinitionNode)[] {
  const first = new Map<string, FieldDefinitionNode | InputValueDefinitionNode>()
  return fields.filter((field) => {
    const earlier = first.get(field.name.value)
    if (!earlier) {
      first.set(field.name.value, field)
      return true
    }
    return _signature(earlier) !== _signature(field)
  })
}

function _signature(field: FieldDefinitionNode | InputValueDefinitionNode): string {
  return print({ ...field, description: undefined })
}

function _fromIntrospection(text: string, origin: string): GraphQLSchema {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new AppError('INVALID_SPEC', `${origin}: not valid JSON (${(error as Error).message}); expected GraphQL SDL or an introspection result`)
  }
  const introspection = _introspectionIn(json)
  if (!introspection) {
    throw new AppError('INVALID_SPEC', `${origin}: the JSON is not a GraphQL introspection result (expected {"data":{"__schema":…}} or {"__schema":…})`)
  }
  try {
    return buildClientSchema(introspection)
  } catch (error) {
    throw _invalid(origin, [error])
  }
}

function _introspectionIn(json: unknown): IntrospectionQuery | null {
  const candidate = _isRecord(json) && _isRecord(json.data) ? json.data : json
  return _isRecord(candidate) && _isRecord(candidate.__schema) ? (candidate as unknown as IntrospectionQuery) : null
}

function _isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * One line naming the first few problems, with their locations. SDL validation throws a plain
 * Error whose message joins every problem with blank lines (no locations survive); GraphQLErrors
 * (syntax, schema validation) keep theirs.
 */
function _invalid(origin: string, errors: readonly unknown[]): AppError {
  const issues = errors.flatMap((error) => {
    if (error instanceof GraphQLError) return [_located(error)]
    return String(error instanceof Error ? error.message : error).split(/\n\n+/).filter(Boolean)
  })
  const more = issues.length > MAX_ISSUES ? ` (and ${issues.length - MAX_ISSUES} more)` : ''
  return new AppError('INVALID_SPEC', `${origin}: ${issues.slice(0, MAX_ISSUES).join('; ')}${more}`, { details: { issues } })
}

function _located(error: GraphQLError): string {
  const at = (error.locations ?? []).map(({ line, column }) => `line ${line}, column ${column}`).join('; ')
  return at ? `${error.message} (${at})` : error.message
}

// Subscription fields are left out: over plain HTTP there is no stream to deliver their events on.
function _operations(schema: GraphQLSchema): GraphqlOperation[] {
  return [..._rootFields('query', schema.getQueryType()), ..._rootFields('mutation', schema.getMutationType())]
}

function _rootFields(type: GraphqlOperation['type'], root: GraphQLObjectType | null | undefined): GraphqlOperation[] {
  if (!root) return []
  return Object.values(root.getFields()).map((field) => ({ type, field: field.name, returns: String(field.type) }))
}
