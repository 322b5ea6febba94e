import type { Faker } from '@faker-js/faker'
import { addMocksToSchema, createMockStore, type IMocks, type IMockStore } from '@graphql-tools/mock'
// graphql ships CommonJS (`main`) and ESM (`module`) builds; Node gives @graphql-tools the CommonJS one,
// while bundler-style resolvers (vitest) would give this file the ESM one, and a schema built by one
// copy is refused by the other. Naming the file makes both sides load the same copy everywhere.
import {
  buildSchema,
  executeSync,
  getNullableType,
  getOperationAST,
  GraphQLError,
  isAbstractType,
  isEnumType,
  isInputObjectType,
  isListType,
  isObjectType,
  isScalarType,
  Kind,
  parse,
  validate,
  validateSchema,
  type DocumentNode,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql/index.js'
import type { FakerFactory } from '../../engine/generators.ts'
import { costProblem, GRAPHQL_LIMITS, shapeProblem } from './limits.ts'
import { scalarValue } from './scalars.ts'

export interface GraphqlRequest {
  query: string
  variables?: Record<string, unknown> | null
  operationName?: string | null
}

/** A root field configured by the user: a fixed value (parsed JSON) or an error message. */
export interface FieldOverride {
  value?: unknown
  error?: string
}

export type Prepared =
  | { ok: false; errors: GraphQLFormattedError[] }
  | {
    ok: true
    operationType: 'query' | 'mutation' | 'subscription'
    rootFields: string[]
    execute(overrides?: (field: string) => FieldOverride | undefined): FormattedExecutionResult
  }

export interface GraphqlExecutor {
  prepare(request: GraphqlRequest): Prepared
}

/** graphql-tools keeps root fields in its store under this key. */
const ROOT_KEY = 'ROOT'
const LIST_LENGTH = { min: 2, max: 4 }
/**
 * Generated list items per execution. Queries are counted before they run (limits.ts), but a
 * configured root value may hold more items than the 4 that count assumes, each with mocked lists
 * below it: past this budget the execution ends with an error rather than generate millions.
 */
export const MAX_LIST_ITEMS = 10_000

/**
 * Answers requests against `sdl` (as stored by loadGraphqlSchema) with generated data. The mocked
 * schema is built once (GitHub's takes ~0.4 s); each execution starts from an empty store, so
 * responses never leak into each other. With a seed, each execution restarts faker from it: the same
 * request gets the same response.
 */
export function createGraphqlExecutor(sdl: string, makeFaker: FakerFactory, options: { seed?: number | null } = {}): GraphqlExecutor {
  // The SDL passed loadGraphqlSchema's validation before it was stored.
  const schema = buildSchema(sdl, { assumeValidSDL: true })
  const seed = options.seed ?? null
  const unseeded = makeFaker(null)
  // Execution is synchronous, so the mocks can read the execution's faker from here without interleaving.
  const current = { faker: unseeded, listItems: 0 }
  const store = createMockStore({ schema, mocks: _mocks(schema, () => current), typePolicies: _rootTypePolicies(schema) })
  const mocked = addMocksToSchema({ schema, store })
  // Validated once now rather than on the first request.
  validateSchema(mocked)

  const run = (document: DocumentNode, request: GraphqlRequest, rootValue: Record<string, RootMethod> | undefined): FormattedExecutionResult => {
    current.faker = seed === null ? unseeded : makeFaker(seed)
    current.listItems = 0
    store.reset()
    try {
      // executeSync throws rather than return a Promise: every resolver here is synchronous.
      return _format(executeSync({
        schema: mocked,
        document,
        rootValue,
        variableValues: request.variables ?? undefined,
        operationName: request.operationName ?? undefined,
      }))
    } finally {
      store.reset()
    }
  }

  return {
    prepare(request) {
      let document: DocumentNode
      try {
        document = parse(request.query, { maxTokens: GRAPHQL_LIMITS.tokens })
      } catch (error) {
        return { ok: false, errors: [_formatError(error)] }
      }
      const shape = shapeProblem(document)
      if (shape) return { ok: false, errors: [{ message: shape }] }
      const errors = validate(mocked, document)
      if (errors.length) return { ok: false, errors: errors.map((error) => error.toJSON()) }
      const operation = getOperationAST(document, request.operationName ?? undefined)
      if (!operation) return { ok: false, errors: [{ message: _noOperation(document, request.operationName) }] }
      const cost = costProblem(mocked, document, operation)
      if (cost) return { ok: false, errors: [{ message: cost }] }
      const rootFields = _rootFieldNames(document, operation.selectionSet)
      return {
        ok: true,
        operationType: operation.operation,
        rootFields,
        execute: (overrides) => run(document, request, overrides && _overridingRoot(rootFields, overrides, store)),
      }
    },
  }
}

/** The messages graphql-js's own execute() would give. */
function _noOperation(document: DocumentNode, operationName: string | null | undefined): string {
  if (operationName) return `Unknown operation named "${operationName}".`
  const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION)
  return operations.length ? 'Must provide operation name if query contains multiple operations.' : 'Must provide an operation.'
}

/** Root field names (not aliases) selected directly or through top-level fragments, in order, once each. */
function _rootFieldNames(document: DocumentNode, selectionSet: SelectionSetNode): string[] {
  const fragments = new Map<string, SelectionSetNode>()
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition.selectionSet)
  }
  const names = new Set<string>()
  const visited = new Set<string>()
  const collect = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!selection.name.value.startsWith('__')) names.add(selection.name.value)
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.selectionSet)
      } else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value)
        const fragment = fragments.get(selection.name.value)
        if (fragment) collect(fragment)
      }
    }
  }
  collect(selectionSet)
  return [...names]
}

/** What graphql's default resolver calls when the root value holds a function under the field's name. */
type RootMethod = (args: Record<string, unknown>, context: unknown, info: GraphQLResolveInfo) => unknown

/**
 * A root value whose overridden fields are functions: graphql-tools' resolvers try the root value
 * before the store. A value goes through the store, so fields it leaves out are still mocked.
 */
function _overridingRoot(rootFields: string[], overrides: (field: string) => FieldOverride | undefined, store: IMockStore): Record<string, RootMethod> | undefined {
  const root: Record<string, RootMethod> = {}
  for (const field of rootFields) {
    const override = overrides(field)
    if (override?.error !== undefined) {
      const message = override.error
      root[field] = () => {
        throw new Error(message)
      }
    } else if (override?.value !== undefined) {
      const value = override.value
      root[field] = (args, _context, info) => {
        if (value === null) return null
        const at = { typeName: info.parentType.name, key: ROOT_KEY, fieldName: field, fieldArgs: args }
        try {
          store.set({ ...at, value })
        } catch (error) {
          // graphql-tools nests one "Value to set in T.f in not normalizable: " per level; the innermost reason is the news.
          const reason = String((error as Error).message).split(/ i[ns] not normalizable: /).pop()
          throw new Error(`the value configured for ${field} does not fit its type ${String(info.returnType)}: ${reason}`)
        }
        return store.get(at)
      }
    }
  }
  return Object.keys(root).length ? root : undefined
}

function _format(result: ExecutionResult): FormattedExecutionResult {
  const formatted: FormattedExecutionResult = {}
  if (result.errors) formatted.errors = result.errors.map((error) => error.toJSON())
  // Variable coercion errors come without `data` at all; the HTTP layer answers those with 400.
  if (result.data !== undefined) formatted.data = result.data
  return formatted
}

function _formatError(error: unknown): GraphQLFormattedError {
  return error instanceof GraphQLError ? error.toJSON() : { message: error instanceof Error ? error.message : String(error) }
}

/**
 * Root types keep graphql-tools' fixed ROOT key, but GitHub's Query implements Node: with `id` as
 * its key field, `{ id }` would answer "ROOT".
 */
function _rootTypePolicies(schema: GraphQLSchema): Record<string, { keyFieldName: false }> {
  const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]
  return Object.fromEntries(roots.filter((root) => root !== null && root !== undefined).map((root) => [root.name, { keyFieldName: false }]))
}

/**
 * graphql-tools mocks scalars by type only; here every object field gets its own mock so a value can
 * follow the field's name (email, createdAt, …) and lists get 2–4 items. Scalars, enums and abstract
 * types keep type-level mocks for the values graphql-tools generates on its own.
 */
function _mocks(schema: GraphQLSchema, execution: () => { faker: Faker; listItems: number }): IMocks {
  const faker = () => execution().faker
  const valueOf = (type: GraphQLOutputType, field: string): unknown => {
    const nullable = getNullableType(type)
    if (isListType(nullable)) {
      const length = faker().number.int(LIST_LENGTH)
      // Past the budget each further list is a field error, so the execution ends quickly.
      if ((execution().listItems += length) > MAX_LIST_ITEMS) throw new Error(`the response would hold more than ${MAX_LIST_ITEMS} generated list items: select fewer nested lists`)
      return Array.from({ length }, () => valueOf(nullable.ofType, field))
    }
    if (isScalarType(nullable)) return scalarValue(nullable.name, field, faker())
    if (isEnumType(nullable)) return faker().helpers.arrayElement(nullable.getValues()).value
    // An empty record becomes a new store entry whose fields are mocked when read.
    if (isObjectType(nullable)) return {}
    const possible = schema.getPossibleTypes(nullable)
    return possible.length ? { __typename: faker().helpers.arrayElement(possible).name } : null
  }
  const mocks: IMocks = {}
  for (const type of Object.values(schema.getTypeMap())) {
    if (!type.name.startsWith('__') && !isInputObjectType(type)) mocks[type.name] = _typeMock(type, valueOf)
  }
  return mocks
}

function _typeMock(type: GraphQLOutputType & GraphQLNamedType, valueOf: (type: GraphQLOutputType, field: string) => unknown): (() => unknown) | Record<string, () => unknown> {
  if (isScalarType(type) || isEnumType(type)) return () => valueOf(type, '')
  if (isAbstractType(type)) return { __typename: () => (valueOf(type, '') as { __typename: string } | null)?.__typename }
  // No prototype: graphql-tools looks fields up by name, and `constructor` must not find Object's.
  const fields: Record<string, () => unknown> = Object.create(null) as Record<string, () => unknown>
  for (const field of Object.values(type.getFields())) fields[field.name] = () => valueOf(field.type, field.name)
  return fields
}
