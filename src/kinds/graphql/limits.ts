import {
  __Schema,
  __Type,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  print,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql/index.js'

/**
 * What one GraphQL request may ask for. Mocked lists have 2–4 items and nest, so a query of a few
 * KB (nested lists × a fragment of many aliases) asked for hundreds of MB and held the server for
 * minutes. Checked before anything runs, each limit answers a GraphQL error naming it.
 */
export const GRAPHQL_LIMITS = {
  /** Lexical tokens in the query text (graphql's own parse limit): bounds parsing and validation. */
  tokens: 20_000,
  /** Nesting of fields, through fragments. */
  depth: 25,
  /** Aliased fields in the document. */
  aliases: 500,
  /** Fields the answer may hold at most, counting every list as its longest (4 generated items). */
  fields: 50_000,
  /**
   * Fields of introspection (`__schema`, `__type`), counted exactly: bounded by the schema, and
   * GitHub's full introspection query is about 120,000 of them.
   */
  introspectionFields: 300_000,
  /** Bytes of the JSON answer; configured values can hold more than the mocks make. */
  answerBytes: 16 * 1024 * 1024,
} as const

/** The most items a generated list has: each list field multiplies what it selects by this. */
export const MAX_LIST_LENGTH = 4

/** Checks on the parsed document, before validation (whose cost grows with these). */
export function shapeProblem(document: DocumentNode): string | null {
  const fragments = _fragments(document)
  let aliases = 0
  const depthOf = new Map<string, number>()
  const depth = (set: SelectionSetNode, visiting: Set<string>): number => {
    let deepest = 0
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.alias) aliases += 1
        deepest = Math.max(deepest, 1 + (selection.selectionSet ? depth(selection.selectionSet, visiting) : 0))
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        deepest = Math.max(deepest, depth(selection.selectionSet, visiting))
      } else {
        deepest = Math.max(deepest, fragmentDepth(selection.name.value, visiting))
      }
    }
    return deepest
  }
  // Memoised, so a fragment spread a thousand times is walked (and its aliases counted) once.
  const fragmentDepth = (name: string, visiting: Set<string>): number => {
    const known = depthOf.get(name)
    if (known !== undefined) return known
    const fragment = fragments.get(name)
    if (!fragment || visiting.has(name)) return 0 // unknown or cyclic: validation reports it
    visiting.add(name)
    const result = depth(fragment.selectionSet, visiting)
    visiting.delete(name)
    depthOf.set(name, result)
    return result
  }
  let deepest = 0
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) deepest = Math.max(deepest, depth(definition.selectionSet, new Set()))
  }
  for (const name of fragments.keys()) deepest = Math.max(deepest, fragmentDepth(name, new Set()))
  if (deepest > GRAPHQL_LIMITS.depth) return `the query is nested ${deepest} fields deep: at most ${GRAPHQL_LIMITS.depth} are served`
  if (aliases > GRAPHQL_LIMITS.aliases) return `the query has ${aliases} aliases: at most ${GRAPHQL_LIMITS.aliases} are served`
  return null
}

/**
 * The most fields the answer to `operation` (a validated document) can hold: every mocked list at
 * its longest, every fragment on an abstract type as if it applied, and introspection exactly.
 * Memoised per selection set and type, so fragments spread many times cost one walk each.
 */
export function costProblem(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): string | null {
  const fragments = _fragments(document)
  const memo = new Map<SelectionSetNode, Map<GraphQLNamedType, number>>()
  let introspection = 0
  // By the field as written (alias aside): 400 aliases of one `__schema { … }` walk the schema once.
  const introspectionCosts = new Map<string, number>()
  const introspectionCost = (selection: FieldNode): number => {
    const key = print({ ...selection, alias: undefined })
    let known = introspectionCosts.get(key)
    if (known === undefined) {
      const sources = selection.name.value === '__schema' ? [schema] : _typesNamed(schema, selection)
      introspectionCosts.set(key, (known = _introspectionCost(schema, selection.selectionSet!, sources, fragments)))
    }
    return known
  }

  const cost = (set: SelectionSetNode, parent: GraphQLNamedType): number => {
    const known = memo.get(set)?.get(parent)
    if (known !== undefined) return known
    let total = 0
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value
        if (name === '__typename') total += 1
        else if (name === '__schema' || name === '__type') {
          introspection += introspectionCost(selection)
          total += 1
        } else {
          const field = _field(parent, name)
          if (!field) continue
          const below = selection.selectionSet ? cost(selection.selectionSet, getNamedType(field.type)) : 0
          total += _listFactor(field.type) * (1 + below)
        }
      } else {
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value)
        if (!fragment) continue
        const on = fragment.typeCondition ? schema.getType(fragment.typeCondition.name.value) : parent
        if (on) total += cost(fragment.selectionSet, on)
      }
    }
    let byType = memo.get(set)
    if (!byType) memo.set(set, (byType = new Map()))
    byType.set(parent, total)
    return total
  }

  const root = schema.getRootType(operation.operation)
  const fields = root ? cost(operation.selectionSet, root) : 0
  if (fields > GRAPHQL_LIMITS.fields) {
    return `the answer could hold ${_round(fields)} fields (every list counted at ${MAX_LIST_LENGTH} items): at most ${GRAPHQL_LIMITS.fields} are served; select fewer fields, aliases or nested lists`
  }
  if (introspection > GRAPHQL_LIMITS.introspectionFields) {
    return `the introspection answer would hold ${_round(introspection)} fields: at most ${GRAPHQL_LIMITS.introspectionFields} are served`
  }
  return null
}

/** Walks introspection on the real schema objects with graphql's own resolvers, counting rather than building. */
function _introspectionCost(schema: GraphQLSchema, set: SelectionSetNode, sources: unknown[], fragments: Map<string, FragmentDefinitionNode>): number {
  const memo = new Map<SelectionSetNode, Map<unknown, number>>()
  const info = { schema } as GraphQLResolveInfo
  const cost = (selections: SelectionSetNode, type: GraphQLObjectType, source: unknown): number => {
    const known = memo.get(selections)?.get(source)
    if (known !== undefined) return known
    let total = 0
    for (const selection of selections.selections) {
      if (selection.kind === Kind.FIELD) {
        const field = type.getFields()[selection.name.value]
        if (!field?.resolve) {
          total += 1
          continue
        }
        // includeDeprecated: true counts every item there could be.
        const value = field.resolve(source, { includeDeprecated: true }, undefined, info)
        const items = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value]
        const named = getNamedType(field.type)
        total += 1
        if (selection.selectionSet && isObjectType(named)) for (const item of items) total += cost(selection.selectionSet, named, item)
        else total += Math.max(0, items.length - 1)
      } else {
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value)
        if (fragment && (!fragment.typeCondition || fragment.typeCondition.name.value === type.name)) total += cost(fragment.selectionSet, type, source)
      }
    }
    let bySource = memo.get(selections)
    if (!bySource) memo.set(selections, (bySource = new Map()))
    bySource.set(source, total)
    return total
  }
  let most = 0
  const rootType = sources[0] === schema ? __Schema : __Type
  for (const source of sources) most = Math.max(most, cost(set, rootType, source))
  return most
}

/** `__type(name: "X")`: that type; with the name in a variable, whichever type costs most. */
function _typesNamed(schema: GraphQLSchema, selection: { arguments?: readonly { name: { value: string }; value: { kind: Kind; value?: unknown } }[] }): unknown[] {
  const name = selection.arguments?.find((argument) => argument.name.value === 'name')?.value
  if (name?.kind === Kind.STRING) {
    const type = schema.getType(String(name.value))
    return type ? [type] : []
  }
  return Object.values(schema.getTypeMap())
}

function _field(parent: GraphQLNamedType, name: string): GraphQLField<unknown, unknown> | undefined {
  return isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined
}

function _listFactor(type: GraphQLOutputType): number {
  let factor = 1
  for (let current = getNullableType(type); isListType(current); current = getNullableType(current.ofType)) factor *= MAX_LIST_LENGTH
  return factor
}

function _fragments(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition)
  return fragments
}

const _round = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en') : 'unboundedly many')
