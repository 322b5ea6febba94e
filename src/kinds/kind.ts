/**
 * What every endpoint kind tells the rest of mockapi. Each kind is one module (`resource.ts`,
 * `custom.ts`, `<format>/kind.ts`) listed once in `registry.ts`; nothing outside them branches on a
 * kind's name. The heavy parts (parsers, generators) are loaded by `load` only when an import needs
 * them, so a server that never imports pays nothing for them.
 */
import type { MockAnswer, MountAnswerer, RouteStages } from '../engine/exchange.ts'
import type { AuthRequirement } from '../engine/auth-check.ts'
import type { DataFormat, Endpoint, ExchangeFormat, EndpointKind, HttpMethod, OpenApiOperation, SpecDocument, SpecFormat } from '../model.ts'

/**
 * How requests reach a kind's endpoints:
 * - `route`: its own method and path over HTTP (resource, custom, openapi);
 * - `mount`: one URL per schema or service answers GET and POST for every operation, named in the
 *   endpoint path after `#` (`/graphql#Query.film`);
 * - `grpc-port`: its path on the gRPC port (`/helloworld.Greeter/SayHello`).
 */
export type Routing = 'route' | 'mount' | 'grpc-port'

/** Which statuses an endpoint of the kind may be set to answer. */
export interface StatusRule {
  /** The status to store, or a refusal (AppError INVALID_INPUT). */
  check(status: number): number
  /** Whether `status` may be the simulated error's status. */
  isErrorStatus(status: number): boolean
  /** Completes "error status N must be 400 or more…" when it is not. */
  errorStatusHint: string
}

export interface KindModule<K extends EndpointKind = EndpointKind> {
  name: K
  routing: Routing
  /** For `mount` kinds: what answers at the mount, for clash messages (`GraphQL schema`, `SOAP service`). */
  mounted?: { noun: string; another: string }
  /** The status a new endpoint answers, and the one a project file leaves out. */
  defaultStatus(endpoint: Pick<Endpoint, 'action' | 'operation'>): number
  /** Absent: HTTP statuses (100–599; errors 400 and up). */
  statuses?: StatusRule
  /** Refuses a fixed response body the endpoint could never answer; `document` is its stored spec. */
  checkBody?(document: string, endpoint: Pick<Endpoint, 'path'>, body: string): Promise<void>
  /**
   * How the kind answers, loaded with its first request (its libraries with it). A `route` kind
   * may give its own validate and answer stages (absent: answered as an endpoint configured by hand,
   * by the domain: its fixed body, its records, or `{}`); a `mount` kind gives its answerer. A
   * `grpc-port` kind is answered by the gRPC listener, through `grpc/answer.ts`.
   */
  routeStages?(): Promise<RouteStages>
  answerAtMount?(): Promise<MountAnswerer>
  /**
   * What curl sends to call an endpoint of the kind, as shell words (its Content-Type and data);
   * absent: JSON `{}` for POST, PUT and PATCH. Shown as the endpoint's `call` by the management API.
   */
  callArguments?: string[]
  /**
   * The credentials an endpoint's spec demands (OpenAPI `security`): alternatives that OR, each a
   * list that ANDs; `[]` public; null when the spec says nothing (the project's auth applies).
   */
  security?(spec: SpecDocument, endpoint: Pick<Endpoint, 'operation'>): AuthRequirement[][] | null
  /**
   * What the endpoint's spec documents for a request its security refused (an OpenAPI operation's
   * own 401 or 403); null: mockapi's own refusal.
   */
  authRefusal?(spec: SpecDocument, endpoint: Pick<Endpoint, 'operation'>, status: 401 | 403, accept: string | null): Promise<MockAnswer | null>
}

/** Where an import's document comes from. */
export interface SpecInput {
  /** The document's text: pasted, or read from the file or URL once (and kept). */
  read(): Promise<string>
  /** The document's file (an absolute path), when it is a file. */
  file?: string | undefined
  /** The document's http(s) URL, when it was fetched. */
  url?: string | undefined
  /** How messages name the document: the file or URL as given, else "the pasted document". */
  name: string
  /** gRPC: more folders to resolve a .proto's imports from. */
  protoPaths: string[]
  /** OpenAPI: a local spec may `$ref` files outside its folder. */
  allowRefsOutside: boolean
  /** OpenAPI: refuse a spec its validator calls invalid, rather than import it with warnings. */
  strict: boolean
}

/** One operation of an imported document, as an endpoint stores it. */
export interface SpecOperation {
  method: HttpMethod
  path: string
  /** OpenAPI: the operation; null for kinds that name their operation in the path. */
  operation: OpenApiOperation | null
}

/** A document parsed and checked, ready to store. */
export interface LoadedSpec {
  /** From the document (OpenAPI `info.title`, WSDL `definitions/@name`); null: name it after its source. */
  title: string | null
  version: string
  /** What is stored (and exported): the normalised document as text. */
  document: string
  operations: SpecOperation[]
  /** How the CLI names what it imported: `"Petstore" (OpenAPI 3.0)`, `WSDL "Calculator"`. */
  describe(title: string): string
  /** What the document gets wrong that the import works around, said to whoever imports it. */
  warnings?: string[]
}

/**
 * How an import's operations become endpoints and how a project file names them:
 * - `routes`: one endpoint per method and path, each holding its operation (named in a project file
 *   by `operation`, a JSON pointer); importing again updates them in place, and routes the new
 *   version lacks are kept as custom endpoints (or removed with `replace`);
 * - `named`: one POST endpoint per operation, the operation named in its path (`pattern`,
 *   `example`); importing again keeps the settings of the ones still there and removes the others.
 */
export type OperationNaming =
  | {
    by: 'routes'
    /** The operations of a document as a project file holds it, by pointer. */
    byPointer(document: { title: string; version: string; document: Record<string, unknown> }): Map<string, OpenApiOperation>
    /**
     * Example bodies of a stored document: what a route the new version lacks keeps answering, and
     * what stateful collections are seeded with. Loaded before the import's transaction, used in it.
     */
    examples(): Promise<(stored: { title: string; version: string; document: string }) => ExampleSource>
  }
  | { by: 'named'; pattern: RegExp; example: string }

/** What a route import needs of a responder: the example body an operation answers with. */
export interface ExampleSource {
  buildResponse(operation: OpenApiOperation, choice: { status: number }): { status: number; body: string | null } | null
}

export interface SpecKind<F extends SpecFormat = SpecFormat> extends KindModule<F> {
  /** How messages name the document: `OpenAPI spec`, `GraphQL schema`, `proto`, `WSDL`. */
  label: string
  detect: {
    /** Lower-case file extensions (with the dot) that say the format. */
    extensions: string[]
    /** Content that says the format; kinds are tried in registry order. */
    looksLike: RegExp
    /** For the refusal listing what was tried: `gRPC (.proto)`. */
    described: string
    /** A document that only claims the format: its own loader's complaint beats "none of the formats". */
    claims?(extension: string, text: string): boolean
  }
  /** Why the kind cannot load a document from a URL (a .proto's imports are files beside it); absent when it can. */
  urlRefusal?: string
  load(input: SpecInput): Promise<LoadedSpec>
  /** A warning when the document describes nothing to serve. */
  nothingToServe: string
  operations: OperationNaming
  /** The stored document as a project file holds it: text, or a mapping. */
  exportDocument(stored: string): string | Record<string, unknown>
}

/** Records read from a data import, checked: each collection's records and each single object. */
export interface DataSet {
  /** A top-level array: a resource, its records as given. */
  collections: { name: string; records: Record<string, unknown>[] }[]
  /** A top-level object (json-server's singular resources, `"profile": {…}`). */
  singulars: { name: string; value: Record<string, unknown> }[]
}

/**
 * A format that brings records, not operations (a json-server database): detected after the spec
 * kinds, so a document one of them recognises is never taken for data.
 */
export type DataKind = FileKind<DataFormat, DataSet>

/** A kind whose document is one JSON file read whole (a db.json, a HAR file, a Postman collection), detected by its structure. */
interface FileKind<F, Loaded> {
  name: F
  /** How messages name a document of it. */
  label: string
  detect: {
    extensions: string[]
    /** Content that says the format (data kinds are tried after every spec kind's `looksLike`, exchange kinds before). */
    looksLike(text: string): boolean
    described: string
    /** A document that only claims the format (a db.json with one value that is no resource, a Postman v2.0 collection): its loader's complaint beats "none of the formats". */
    claims?(text: string): boolean
  }
  /** Parses and checks the whole document; refuses (INVALID_INPUT naming where) what it cannot take. */
  load(text: string, name: string): Loaded
}

/**
 * One request and the answer a real API gave it, as the proxy saw it or a HAR file or Postman
 * collection wrote it down: what a recording (src/domain/recording.ts) turns into resources and
 * endpoints. Here, below the domain, so the kinds that read such files can produce it.
 */
export interface RecordedExchange {
  /** Upper case. */
  method: string
  /** The path within the project, as the mock serves it: before the proxy's `pathRewrite`. */
  path: string
  /** The search part: `''` or `?a=1`. */
  query: string
  requestHeaders: [string, string][]
  requestBody: Uint8Array | null
  status: number
  /** As received, hop-by-hop headers already dropped. */
  responseHeaders: [string, string][]
  /** The whole body, identity-coded (a HAR stores content decoded; the proxy copies bodies up to 32 MiB). */
  responseBody: Uint8Array
  /** ISO 8601. */
  startedAt: string
  durationMs: number
}

/** A document of recorded exchanges, read and checked. */
export interface ExchangeSet {
  /** From the document (a Postman collection's name, a HAR's first page title); null: name it after its file. */
  title: string | null
  /** `HAR 1.2`, `Postman v2.1.0`. */
  version: string
  exchanges: RecordedExchange[]
  /** What the document holds that is not recorded (a request without an example, a blocked request). */
  warnings: string[]
}

/**
 * A format that brings exchanges with a real API (a HAR file, a Postman collection with examples),
 * recorded as the proxy records them: detected before the spec kinds, by the document's structure.
 */
export type ExchangeKind = FileKind<ExchangeFormat, ExchangeSet>
