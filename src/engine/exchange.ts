import type { CallbackRequest, Endpoint, Fault, Negotiation, SpecDocument } from '../model.ts'
import { errorBody } from '../errors.ts'
import type { AnswerDecision, Random } from './policy.ts'
import type { Preferences } from './prefer.ts'

/**
 * A request and its answer as every answerer sees them, whatever carried them (h3 for HTTP
 * today): the server layer builds a MockRequest and turns the MockAnswer into its response.
 */
export interface MockRequest {
  method: string
  url: URL
  headers: Headers
  /** The body's bytes, refused (413) past the server's body limit; read once, on first call. */
  body(): Promise<Uint8Array>
  /** The body as UTF-8 text (400 when it is not). */
  text(): Promise<string>
  /** The body parsed as JSON (400 `INVALID_JSON`), without looking at its Content-Type; undefined when empty. */
  json(): Promise<unknown>
}

/** The methods whose requests carry a body. */
export const WITH_BODY: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH'])

export interface MockAnswer {
  status: number
  headers: Record<string, string>
  /** Text as sent, or bytes (a file answered as it is); null for none. */
  body: string | Uint8Array | null
  /** OpenAPI callbacks this answer sets off, and those it cannot (said in the journal's note). */
  callbacks?: { requests: CallbackRequest[]; skipped: string[] }
}

/** An endpoint answers a body configured on it (JSON, text or a file) rather than its kind's default. */
export function hasConfiguredBody(endpoint: Pick<Endpoint, 'body' | 'fileId'>): boolean {
  return endpoint.body !== null || endpoint.fileId !== null
}

/** What an operation answerer (GraphQL, SOAP) gives back besides the answer: which operation answered, whether it failed, how long to hold it. */
export interface OperationAnswer {
  answer: MockAnswer
  endpointId: number | null
  failed: boolean
  /** The policy's delay for the operation(s) answered; the transport holds the answer that long. */
  delayMs: number
  /** A fault decided for an operation answered: the whole exchange faults instead of `answer`. */
  fault?: Fault | null
}

/** A GraphQL schema or SOAP service as its answerer needs it: the stored document and the endpoint of each operation. */
export interface OperationsRoute {
  /** `/graphql`, `/soap/Calculator`: the end of the URL the route is served at. */
  mount: string
  specId: number
  /** Changes when the document is imported again: what is built from it is rebuilt then. */
  importedAt: string
  loadSpec(): { document: string }
  /** The endpoints by operation: `Query.film`, `Add`. */
  operations: Map<string, Endpoint>
}

/** A `mount` kind's answerer (GraphQL, SOAP): every operation of a schema or service, at its one URL. */
export type MountAnswerer = (input: { request: MockRequest; route: OperationsRoute; random: Random }) => Promise<OperationAnswer>

/** The validate stage's output: the request body as the answer needs it, or an answer already decided (a simulated error). */
export type Validated = { body: unknown } | { answer: MockAnswer }

/** What the validate and answer stages of an endpoint served at its own route read. */
export interface RouteStageInput {
  request: MockRequest
  endpoint: Endpoint
  params: Record<string, string>
  /** The policy stage's output. */
  prefer: Preferences
  decision: AnswerDecision
  /** For an imported endpoint: its spec document, parsed on first use. */
  spec: (() => SpecDocument) | null
  /** The endpoint keeps records (a resource's, or an import's with `--stateful`). */
  stateful: boolean
  /** The project's answer to an `Accept` an imported operation documents no type for: 406 or its default type. */
  negotiation: Negotiation
  /**
   * How an endpoint configured by hand (resource, custom) is validated and answered: the default
   * stages, and what a kind's own stages fall back to. The domain's (records live there), given here.
   */
  configured: {
    validate(): Promise<Validated>
    answer(status: number, body: unknown): Promise<MockAnswer>
    /** The endpoint's headers, each value rendered as a template for this request and body, with its configured Content-Type. */
    headers(body: unknown): Promise<Record<string, string>>
    /** Refuses a body nested deeper than a record may be (validators recurse on it). */
    checkDepth(body: unknown): void
    /** Refuses a body that breaks the JSON Schema set on the endpoint, if any. */
    checkSchema(body: unknown): Promise<void>
  }
}

/** How a kind served at its own routes validates and answers (absent: as an endpoint configured by hand). */
export interface RouteStages {
  validate(input: RouteStageInput): Promise<Validated>
  answer(input: RouteStageInput & { body: unknown }): Promise<MockAnswer>
}

/** The answer of a simulated error (the policy's, or a preferred code nothing documents): the project's error body. */
export function simulatedErrorAnswer(status: number, reason: string): MockAnswer {
  return { status, headers: {}, body: JSON.stringify(errorBody('SIMULATED_ERROR', `simulated ${status} (${reason})`)) }
}

/**
 * A 1xx is informational: sent as the final status, no client could read the answer (and a
 * Response cannot even be built with one). Configuring one is refused; one stored before that,
 * or the only code a spec documents (a WebSocket upgrade's 101), is answered as 200.
 */
export function finalStatus(status: number): number {
  return status < 200 ? 200 : status
}
