/** Shapes shared by every layer; plain data, no behaviour. */

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const
export type HttpMethod = (typeof HTTP_METHODS)[number]

/**
 * What an imported spec is; each serves endpoints of the kind of the same name. The names of the
 * kinds in src/kinds/registry.ts, which has one module per name (kept here, the foundation, so that
 * every layer can name a kind; the build fails if the two lists differ).
 */
export const SPEC_FORMATS = ['openapi', 'graphql', 'grpc', 'soap'] as const
export type SpecFormat = (typeof SPEC_FORMATS)[number]

/**
 * Imports of data rather than of a spec: a json-server `db.json` becomes resources with their
 * records (src/kinds/json-server/), nothing stored as a spec and no endpoint kind of its own.
 */
export const DATA_FORMATS = ['json-server'] as const
export type DataFormat = (typeof DATA_FORMATS)[number]
/**
 * Imports of recorded exchanges: a HAR file or a Postman collection's example responses, recorded
 * as `serve --proxy --record` records (src/domain/recording.ts), nothing stored as a spec.
 */
export const EXCHANGE_FORMATS = ['har', 'postman'] as const
export type ExchangeFormat = (typeof EXCHANGE_FORMATS)[number]
/** What `import --format` and the API's `format` take. */
export type ImportFormat = SpecFormat | DataFormat | ExchangeFormat

/** mockapi's own kinds (a resource's endpoints, fixed answers), then one per import format. */
export const ENDPOINT_KINDS = ['resource', 'custom', ...SPEC_FORMATS] as const
export type EndpointKind = (typeof ENDPOINT_KINDS)[number]

/** What a resource endpoint does with the records; null for endpoints that answer a fixed body. */
export const RESOURCE_ACTIONS = ['list', 'create', 'read', 'replace', 'delete', 'patch'] as const
export type ResourceAction = (typeof RESOURCE_ACTIONS)[number]

/** How a project judges the paths of new resources and endpoints (docs/mocking.md, "Path rules"). */
export const PATH_RULES = ['strict', 'warn', 'off'] as const
export type PathRules = (typeof PATH_RULES)[number]

/**
 * A network fault answered instead of a response: `reset` (TCP reset), `empty` (closed without a
 * byte), `malformed` (a broken chunked body), `hang` (nothing until the client gives up or 60 s).
 */
export const FAULTS = ['reset', 'empty', 'malformed', 'hang'] as const
export type Fault = (typeof FAULTS)[number]

/** What a configured body is: JSON (templated strings), text (a template), or a file's bytes as they are. */
export const BODY_TYPES = ['json', 'text', 'file'] as const
export type BodyType = (typeof BODY_TYPES)[number]

/** A file a response answers as is; its bytes are read by id when it is answered, never with the endpoint. */
export interface ResponseFile {
  id: number
  projectId: number
  /** The name it was given (`avatar.png`): its extension says its Content-Type. */
  name: string
  sha256: string
  size: number
}

/**
 * A credential a mock route demands (docs/mocking.md, "Auth"): `bearer` (any token, or one of
 * `tokens`), `apiKey` (a header, query parameter or cookie; any key, or one of `keys`), `basic`
 * (one of `users`, name → password).
 */
export type AuthScheme =
  | { type: 'bearer'; tokens?: string[] }
  | { type: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string; keys?: string[] }
  | { type: 'basic'; users: Record<string, string> }

/** An endpoint's auth: schemes (any one passes), `none` (public), or null (the project's). */
export type EndpointAuth = AuthScheme[] | 'none' | null

/** How an endpoint with responses picks one: the first whose `when` holds, each in turn, or one at random. */
export const PICKS = ['rules', 'sequence', 'random'] as const
export type ResponsePick = (typeof PICKS)[number]

/** What a response's `body` holds: JSON text, a text template, or (with `fileId`) a stored file's bytes. */
export const RESPONSE_BODY_TYPES = ['json', 'text', 'file'] as const
export type ResponseBodyType = (typeof RESPONSE_BODY_TYPES)[number]

/** One of an endpoint's responses (docs/mocking.md, "Responses and rules"); null fields take the endpoint's. */
export interface EndpointResponse {
  name: string | null
  /** The conditions as written (engine/conditions.ts checks them); null: the fallback. */
  when: Record<string, unknown> | null
  status: number | null
  /** Laid over the endpoint's headers. */
  headers: Record<string, string>
  /** null: no body at all. */
  bodyType: ResponseBodyType | null
  body: string | null
  /** The stored file a `file` body answers; its name and size are kept with it (file rows never change). */
  fileId: number | null
  file: { name: string; size: number } | null
  /** The Content-Type of its body; null: from its type (a file's from its extension). */
  contentType: string | null
  /** null: the endpoint's delay; with `delayMaxMs`, a range. */
  delayMs: number | null
  delayMaxMs: number | null
  fault: Fault | null
}

export const NEGOTIATIONS = ['strict', 'lenient'] as const
export type Negotiation = (typeof NEGOTIATIONS)[number]

/** Where a project forwards what none of its endpoints matches (`mockapi project set --proxy`). */
export interface ProxySetting {
  /** An http(s) URL; its path is put before every forwarded path. */
  target: string
  /** Sent with every forwarded request, replacing the client's header of the same name (an API key the real back end wants). */
  headers: Record<string, string>
  /** Regular expression → replacement, tried in order on the path within the project; the first that matches rewrites it. */
  pathRewrite: Record<string, string>
}

export interface Project {
  id: number
  name: string
  slug: string
  shareToken: string
  isDefault: boolean
  description: string
  /** Default seed for generated data; null: fresh values every time. */
  seedValue: number | null
  /** strict: naming rules refuse; warn: they warn; off: only the structural checks. */
  pathRules: PathRules
  /** What every mock route demands unless its endpoint says otherwise; null: nothing. */
  auth: AuthScheme[] | null
  /** Imported OpenAPI operations enforce their `security` requirements. */
  openapiSecurity: boolean
  /** What an imported OpenAPI operation answers an `Accept` it documents nothing for: 406 (strict) or its default type (lenient). */
  negotiation: Negotiation
  /** Where what none of its endpoints matches is forwarded; null: nowhere (a 404, unless `serve --proxy`). */
  proxy: ProxySetting | null
  /** Bumped by every reset: sequences of responses start again at their first. */
  sequenceEpoch: number
  createdAt: string
}

export interface Resource {
  id: number
  projectId: number
  /** Where its records live; shared by `/api/posts` and `/api/users/:userId/posts`. */
  collectionId: number
  path: string
  /** Field name → generator (`person.fullName`, `int`, …). */
  fields: Record<string, string>
  /** How many generated records seeding adds. */
  seedCount: number
  seedValue: number | null
  /** Records given literally (project file, template), seeded before the generated ones. */
  seedRecords: Record<string, unknown>[]
  /** What deleting one of its records does to the records that belong to it (docs/mocking.md, "Relations"). */
  onDelete: OnDelete
  /**
   * One object at `path` (json-server's `"profile": {…}`), answering GET, PUT and PATCH there: its
   * seed is `seedRecords[0]`, its current value the only record of its collection.
   */
  singular: boolean
  createdAt: string
}

export const ON_DELETE = ['keep', 'cascade'] as const
export type OnDelete = (typeof ON_DELETE)[number]

export interface Endpoint {
  id: number
  projectId: number
  resourceId: number | null
  method: HttpMethod
  path: string
  kind: EndpointKind
  action: ResourceAction | null
  status: number
  headers: Record<string, string>
  delayMs: number
  /** With `delayMs`, a range drawn from on every call; null: the delay is `delayMs` exactly. */
  delayMaxMs: number | null
  /** A network fault every call gets instead of an answer; null: none. */
  fault: Fault | null
  /** The credentials this endpoint demands: its own schemes, `none`, or null for the project's. */
  auth: EndpointAuth
  /** How `responses` are picked. */
  pick: ResponsePick
  /** Answers chosen per request (by `pick`); empty: the endpoint answers as configured. */
  responses: EndpointResponse[]
  /** JSON text answered instead of the records (may hold {{…}} placeholders); null: the default for its kind. */
  body: string | null
  /** `json`: `body` is JSON text; `text`: `body` is a text template; `file`: `fileId`'s bytes are answered. */
  bodyType: BodyType
  /** The Content-Type of a configured body; null: from its type (a file's from its extension). */
  contentType: string | null
  fileId: number | null
  /** The file `fileId` names, as lists show it (its bytes are read only when answered). */
  file: { name: string; size: number } | null
  /** JSON Schema text the request body must satisfy; null: no check. */
  schema: string | null
  /** Percentage (0–100) of requests answered with `errorStatus`. */
  errorRate: number
  errorStatus: number
  /** A matched request is forwarded to the project's proxy target instead (to mock only some routes of a real API). */
  proxy: boolean
  /**
   * For imported endpoints: the spec they answer from; `operation` for `openapi` ones (graphql,
   * grpc and soap endpoints name their operation in the path: `/graphql#Query.film`,
   * `/helloworld.Greeter/SayHello`, `/soap/Calculator#Add`).
   */
  specId: number | null
  operation: OpenApiOperation | null
  createdAt: string
}

/**
 * An imported OpenAPI operation as stored with its endpoint. Schemas, examples and media are
 * JSON Pointers into the spec document stored once per import (`api_specs`), so a recursive schema
 * never has to be serialized as a tree.
 */
export interface ParameterSpec {
  name: string
  in: 'path' | 'query' | 'header' | 'cookie'
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

export type SpecVersion = '2.0' | '3.0' | '3.1'

/** A validated, bundled OpenAPI spec: internal `$ref`s kept, dialect quirks normalized for ajv. */
export interface SpecDocument {
  version: SpecVersion
  title: string
  document: Record<string, unknown>
}

/** A list filter: keep records whose `field` equals any of `values` (repeats OR, fields AND). */
export interface FieldFilter {
  field: string
  values: string[]
}

/** A list filter's test: json-server 1.x's operators, and 0.17's `_like` (a regex). */
export type FilterOperator = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte' | 'in' | 'contains' | 'startsWith' | 'endsWith' | 'like'

/**
 * One list filter. `eq`/`in`/`like`/`contains`/`startsWith`/`endsWith` match any of `values`, `ne`
 * none of them; the comparisons (`lt`…) take one value.
 * `like` carries its compiled pattern (a linear-time regex), which the store runs on each value.
 */
export interface FieldCondition {
  field: string
  op: FilterOperator
  values: string[]
  matches?: (text: string) => boolean
}

export interface SortKey {
  field: string
  descending: boolean
}

export interface Clock {
  now(): Date
}

export const EVENT_TYPES = ['mock.request', 'mock.error'] as const
export type EventType = (typeof EVENT_TYPES)[number]

/** `callbacks`: the project's one subscription for its OpenAPI callbacks, each event naming its own request. */
export type SubscriptionKind = 'webhook' | 'callbacks'

/** The event type of an OpenAPI callback: its payload is a CallbackRequest as JSON. */
export const CALLBACK_EVENT = 'openapi.callback'

/** One OpenAPI callback request, as queued: where to, and what to send. */
export interface CallbackRequest {
  /** The callback's name and expression in the spec (`onEvent {$request.body#/callbackUrl}`), for the log. */
  name: string
  url: string
  method: string
  headers: Record<string, string>
  body: string | null
}

export interface Subscription {
  id: number
  projectId: number
  kind: SubscriptionKind
  name: string
  targetUrl: string
  events: EventType[]
  enabled: boolean
  secret: string
  createdAt: string
}

export interface Attempt {
  id: number
  deliveryId: number
  subscriptionId: number
  eventId: string
  eventType: string
  attempt: number
  statusCode: number | null
  succeeded: boolean
  error: string | null
  durationMs: number
  timestamp: string
  /** As the stats count it: decided by the attempt and where its delivery stands now. */
  outcome: AttemptOutcome
}

/** How a delivery attempt ended: it got through, another attempt will follow, or the delivery was given up (or canceled). */
export type AttemptOutcome = 'succeeded' | 'retrying' | 'failed'

/** One delivery attempt as the stats count it (store → engine). */
export interface AttemptSample {
  subscriptionId: number
  /** When it was logged, in ms since the epoch. */
  atMs: number
  outcome: AttemptOutcome
  durationMs: number
}
