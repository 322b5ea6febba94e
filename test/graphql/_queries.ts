import {
  buildSchema,
  getNamedType,
  getNullableType,
  isAbstractType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isRequiredArgument,
  isRequiredInputField,
  isScalarType,
  Kind,
  parse,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql'

export interface RootFieldQuery {
  type: 'query' | 'mutation'
  field: string
  query: string
  variables: Record<string, unknown>
}

/**
 * For every root Query and Mutation field: a query document selecting the field's scalars,
 * `__typename` and one level of nested objects (inline fragments for unions and interfaces), with
 * required arguments passed as variables holding valid generated inputs. Depends on graphql only,
 * so any layer (engine, HTTP) can run the same documents.
 */
export function queriesFor(sdl: string): RootFieldQuery[] {
  const entry = lastBuilt(sdl)
  // Shared between callers, who only read them.
  entry.queries ??= rootFieldQueries(entry.schema)
  return entry.queries
}

/**
 * The schema of `sdl`, built and validated; the same object for the same text. Tests over GitHub's
 * schema ask for it several times (its queries, the shapes of the answers), and each build of its
 * 1.2 MB took a few hundred milliseconds. Only the last text is kept, so a run holds one schema.
 */
export function schemaOf(sdl: string): GraphQLSchema {
  return lastBuilt(sdl).schema
}

interface Built { sdl: string; schema: GraphQLSchema; queries?: RootFieldQuery[] }
let last: Built | null = null

function lastBuilt(sdl: string): Built {
  if (last?.sdl !== sdl) last = { sdl, schema: buildSchema(sdl) }
  return last
}

function rootFieldQueries(schema: GraphQLSchema): RootFieldQuery[] {
  const roots: [RootFieldQuery['type'], GraphQLObjectType | null | undefined][] = [['query', schema.getQueryType()], ['mutation', schema.getMutationType()]]
  return roots.flatMap(([type, root]) => Object.values(root?.getFields() ?? {}).map((field) => queryFor(schema, type, field)))
}

function queryFor(schema: GraphQLSchema, type: RootFieldQuery['type'], field: GraphQLField<unknown, unknown>): RootFieldQuery {
  const required = field.args.filter(isRequiredArgument)
  const declarations = required.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ')
  const args = required.map((arg) => `${arg.name}: $${arg.name}`).join(', ')
  const variables = Object.fromEntries(required.map((arg) => [arg.name, inputValue(arg.type)]))
  const name = field.name[0]!.toUpperCase() + field.name.slice(1)
  const query = `${type} ${name}${declarations ? `(${declarations})` : ''} { ${field.name}${args ? `(${args})` : ''}${selection(schema, field.type, true)} }`
  return { type, field: field.name, query, variables }
}

/** ` { … }` for composite types, nothing for leaves. */
function selection(schema: GraphQLSchema, type: GraphQLOutputType, nested: boolean): string {
  const named = getNamedType(type)
  if (isLeafType(named)) return ''
  // Fields of one selection set must agree on type across fragments; clashing names get an alias.
  const taken = new Map<string, string>()
  const pick = (owner: GraphQLNamedType, field: GraphQLField<unknown, unknown>, sub = ''): string => {
    const typeName = String(field.type)
    const earlier = taken.get(field.name)
    if (earlier !== undefined && earlier !== typeName) return `${field.name}_${owner.name}: ${field.name}${sub}`
    taken.set(field.name, typeName)
    return `${field.name}${sub}`
  }
  const parts = ['__typename']
  if (!isAbstractType(named) || isInterfaceType(named)) {
    for (const field of selectableFields(named)) if (isLeafType(getNamedType(field.type))) parts.push(pick(named, field))
    if (nested) {
      for (const field of selectableFields(named)) {
        if (isCompositeType(getNamedType(field.type))) parts.push(pick(named, field, selection(schema, field.type, false)))
      }
    }
  }
  if (isAbstractType(named)) {
    for (const possible of schema.getPossibleTypes(named)) {
      const scalars = selectableFields(possible).filter((field) => isLeafType(getNamedType(field.type))).map((field) => pick(possible, field))
      parts.push(`... on ${possible.name} { __typename ${scalars.join(' ')} }`)
    }
  }
  return ` { ${parts.join(' ')} }`
}

function selectableFields(type: GraphQLNamedType): GraphQLField<unknown, unknown>[] {
  if (!('getFields' in type) || isInputObjectType(type)) return []
  return Object.values(type.getFields()).filter((field) => !field.args.some(isRequiredArgument))
}

const CUSTOM_INPUTS: [RegExp, unknown][] = [
  [/^date$/i, '2025-01-31'],
  [/(time|timestamp)$/i, '2025-01-31T12:00:00Z'],
  [/^(uri|url)$/i, 'https://example.com/a'],
  [/^(bigint|long)$/i, '12345678901'],
  [/^base64/i, 'aGVsbG8='],
  [/^gitobjectid$/i, 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3'],
  [/^gitrefname$/i, 'refs/heads/main'],
  [/^html$/i, '<p>hello</p>'],
]

/** A valid value for an input type: required fields only, one list item, the first enum value. */
function inputValue(type: GraphQLInputType): unknown {
  const nullable = getNullableType(type)
  if (isListType(nullable)) return [inputValue(nullable.ofType)]
  if (isEnumType(nullable)) return nullable.getValues()[0]!.name
  if (isInputObjectType(nullable)) {
    const fields = Object.values(nullable.getFields())
    // A @oneOf input takes exactly one field.
    const chosen = nullable.isOneOf ? fields.slice(0, 1) : fields.filter(isRequiredInputField)
    return Object.fromEntries(chosen.map((field) => [field.name, inputValue(field.type)]))
  }
  switch (nullable.name) {
    case 'Int': return 1
    case 'Float': return 1.5
    case 'Boolean': return true
    case 'ID': return 'MDQ6VXNlcjE='
    case 'String': return 'example'
  }
  return CUSTOM_INPUTS.find(([pattern]) => pattern.test(nullable.name))?.[1] ?? 'example'
}

/**
 * What in `data` does not match the selection of `query`: a selected key missing, null where the
 * schema says non-null, a list not of 2–4 items (the mock's lengths), an unknown enum value, a
 * scalar of the wrong JS type, a `__typename` that is not a concrete type the field can return.
 */
export function shapeProblems(schema: GraphQLSchema, query: string, data: unknown): string[] {
  const document = parse(query)
  const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION)
  const problems: string[] = []
  if (!operation || operation.kind !== Kind.OPERATION_DEFINITION) return ['no operation in the query']
  const root = schema.getRootType(operation.operation)
  if (!root) return [`the schema has no ${operation.operation} type`]
  checkObject(schema, root, operation.selectionSet, data, 'data', problems)
  return problems
}

function checkObject(schema: GraphQLSchema, type: GraphQLCompositeType, selectionSet: SelectionSetNode, value: unknown, path: string, problems: string[]): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push(`${path}: expected an object, got ${JSON.stringify(value)}`)
    return
  }
  const record = value as Record<string, unknown>
  const typename = record.__typename
  const concrete = typeof typename === 'string' ? schema.getType(typename) : undefined
  if (typename !== undefined && !(isObjectType(concrete) && (concrete === type || (isAbstractType(type) && schema.isSubType(type, concrete))))) {
    problems.push(`${path}.__typename: ${JSON.stringify(typename)} is not a concrete type of ${type.name}`)
  }
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const condition = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type
      const applies = condition === concrete || (isAbstractType(condition) && isObjectType(concrete) && schema.isSubType(condition, concrete))
      if (applies && isCompositeType(condition)) checkObject(schema, condition, selection.selectionSet, value, path, problems)
    } else if (selection.kind === Kind.FIELD && selection.name.value !== '__typename') {
      const key = selection.alias?.value ?? selection.name.value
      const field = 'getFields' in type ? type.getFields()[selection.name.value] : undefined
      if (!field) problems.push(`${path}.${key}: not a field of ${type.name}`)
      else if (!(key in record)) problems.push(`${path}.${key}: missing`)
      else checkValue(schema, field.type, selection.selectionSet, record[key], `${path}.${key}`, problems)
    }
  }
}

function checkValue(schema: GraphQLSchema, type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined, value: unknown, path: string, problems: string[]): void {
  if (value === null) {
    if (isNonNullType(type)) problems.push(`${path}: null for non-null ${String(type)}`)
    return
  }
  const nullable = getNullableType(type)
  if (isListType(nullable)) {
    if (!Array.isArray(value)) problems.push(`${path}: expected a list, got ${JSON.stringify(value)}`)
    else if (value.length < 2 || value.length > 4) problems.push(`${path}: ${value.length} items, expected 2–4`)
    else value.forEach((item, index) => checkValue(schema, nullable.ofType, selectionSet, item, `${path}[${index}]`, problems))
  } else if (isEnumType(nullable)) {
    if (!nullable.getValues().some((enumValue) => enumValue.name === value)) problems.push(`${path}: ${JSON.stringify(value)} is not a value of ${nullable.name}`)
  } else if (isScalarType(nullable)) {
    const expected = SCALAR_JS_TYPES[nullable.name]
    if (expected && !expected(value)) problems.push(`${path}: ${JSON.stringify(value)} is not a valid ${nullable.name}`)
  } else if (selectionSet) {
    checkObject(schema, nullable, selectionSet, value, path, problems)
  }
}

const SCALAR_JS_TYPES: Record<string, (value: unknown) => boolean> = {
  Int: Number.isInteger,
  Float: (value) => typeof value === 'number',
  Boolean: (value) => typeof value === 'boolean',
  String: (value) => typeof value === 'string',
  ID: (value) => typeof value === 'string',
}
