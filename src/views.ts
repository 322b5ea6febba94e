import type { Attempt, Endpoint, EndpointResponse, Fault, Project, Resource, ImportFormat, Subscription } from './model.ts'

/** The public JSON shapes shared by `--json` output and the management API (docs/management-api.md). */
export function projectView(project: Project) {
  return {
    id: project.id,
    name: project.name,
    slug: project.slug,
    shareToken: project.shareToken,
    isDefault: project.isDefault,
    pathRules: project.pathRules,
    auth: project.auth,
    openapiSecurity: project.openapiSecurity,
    negotiation: project.negotiation,
    proxy: project.proxy,
    createdAt: project.createdAt,
  }
}

export type ProjectView = ReturnType<typeof projectView>

/** A project as the management API lists it: its view with how many resources and endpoints it has. */
export type ProjectSummaryView = ProjectView & { resourceCount: number; endpointCount: number }

/** A response as the project file, the API and `--json` write it: the fields set, in a fixed order, the body as JSON. */
export interface ResponseView {
  name?: string
  when?: Record<string, unknown>
  status?: number
  headers?: Record<string, string>
  body?: unknown
  text?: string
  /** The stored file it answers (an export writes `{name, base64}` instead, to stand alone). */
  file?: { id: number; name: string; size: number } | { name: string; base64: string }
  contentType?: string
  delay?: number | string
  fault?: Fault
}

export function responseView(response: EndpointResponse): ResponseView {
  const view: ResponseView = {}
  if (response.name !== null) view.name = response.name
  if (response.when !== null) view.when = response.when
  if (response.status !== null) view.status = response.status
  if (Object.keys(response.headers).length > 0) view.headers = response.headers
  if (response.body !== null && response.bodyType === 'json') view.body = JSON.parse(response.body) as unknown
  if (response.body !== null && response.bodyType === 'text') view.text = response.body
  if (response.fileId !== null) view.file = { id: response.fileId, name: response.file!.name, size: response.file!.size }
  if (response.contentType !== null) view.contentType = response.contentType
  if (response.delayMs !== null) view.delay = response.delayMaxMs === null ? response.delayMs : `${response.delayMs}-${response.delayMaxMs}`
  if (response.fault !== null) view.fault = response.fault
  return view
}

export function endpointView(endpoint: Endpoint) {
  return {
    id: endpoint.id,
    method: endpoint.method,
    path: endpoint.path,
    kind: endpoint.kind,
    status: endpoint.status,
    action: endpoint.action,
    resourceId: endpoint.resourceId,
    delayMs: endpoint.delayMs,
    /** The delay as set: milliseconds, or a range `"100-300"` drawn per request (`delayMs` is then its low end). */
    delay: endpoint.delayMaxMs === null ? endpoint.delayMs : `${endpoint.delayMs}-${endpoint.delayMaxMs}`,
    fault: endpoint.fault,
    /** Its own auth: schemes, `none`, or null for the project's. */
    auth: endpoint.auth,
    /** How one of `responses` is chosen per request. */
    pick: endpoint.pick,
    responses: endpoint.responses.map(responseView),
    headers: endpoint.headers,
    /** json (`body`), text (`text`) or file (`file`); contentType overrides what the type implies. */
    bodyType: endpoint.bodyType,
    body: endpoint.body === null || endpoint.bodyType !== 'json' ? null : (JSON.parse(endpoint.body) as unknown),
    text: endpoint.bodyType === 'text' ? endpoint.body : null,
    file: endpoint.file,
    contentType: endpoint.contentType,
    schema: endpoint.schema === null ? null : (JSON.parse(endpoint.schema) as unknown),
    errorRate: endpoint.errorRate,
    errorStatus: endpoint.errorStatus,
    proxy: endpoint.proxy,
    specId: endpoint.specId,
    operationId: endpoint.operation?.operationId ?? null,
    createdAt: endpoint.createdAt,
  }
}

export type EndpointView = ReturnType<typeof endpointView>

/**
 * An endpoint as the management API lists it: with the URL a client calls it at (docs/management-api.md),
 * null for a gRPC method while nothing listens for gRPC. The CLI's `--json` keeps `endpointView`.
 */
export type ServedEndpointView = EndpointView & { url: string | null; call: string | null; effectiveAuth: string }

/** `call`: a shell line that calls the endpoint at `url` (curl, or grpcurl for a gRPC method). */
export function servedEndpointView(endpoint: Endpoint, served: { url: string | null; call: string | null; effectiveAuth: string }): ServedEndpointView {
  return { ...endpointView(endpoint), url: served.url, call: served.call, effectiveAuth: served.effectiveAuth }
}

/** A format `POST …/imports` takes, as `GET …/imports/formats` lists it. */
export interface ImportFormatView {
  name: ImportFormat
  /** How messages name a document of it: `WSDL`. */
  label: string
  /** With what says it: `SOAP (WSDL 1.1)`. */
  described: string
  /** File extensions that say it, with the dot. */
  extensions: string[]
}

export function subscriptionView(subscription: Subscription) {
  return {
    id: subscription.id,
    projectId: subscription.projectId,
    kind: subscription.kind,
    name: subscription.name,
    targetUrl: subscription.targetUrl,
    events: subscription.events,
    enabled: subscription.enabled,
    secret: subscription.secret,
    createdAt: subscription.createdAt,
  }
}

export type SubscriptionView = ReturnType<typeof subscriptionView>

export function attemptView(attempt: Attempt) {
  return {
    id: attempt.id,
    eventId: attempt.eventId,
    eventType: attempt.eventType,
    attempt: attempt.attempt,
    statusCode: attempt.statusCode,
    succeeded: attempt.succeeded,
    outcome: attempt.outcome,
    error: attempt.error,
    durationMs: attempt.durationMs,
    timestamp: attempt.timestamp,
  }
}

export type AttemptView = ReturnType<typeof attemptView>

/**
 * Why a delivery was not queued again: its subscription is off or was deleted, its event was
 * pruned from the log meanwhile, or another id named the same event for the same subscription.
 */
export type RedeliverySkipReason = 'subscription-off' | 'subscription-deleted' | 'event-pruned' | 'duplicate'

/** What a redelivery of many did (`webhooks redeliver`, `POST …/deliveries/redeliver`): how many queued, how many skipped, and why, by subscription. */
export interface RedeliveryView {
  queued: number
  skipped: number
  skips: { subscriptionId: number; reason: RedeliverySkipReason; count: number }[]
}

/** A resource as the management API lists it. */
export function resourceView(resource: Resource, recordCount: number, endpointIds: number[]) {
  return {
    id: resource.id,
    path: resource.path,
    fields: resource.fields,
    seedCount: resource.seedCount,
    onDelete: resource.onDelete,
    /** One object at its path (json-server's singular resources), not records. */
    singular: resource.singular,
    recordCount,
    endpointIds,
  }
}

export type ResourceView = ReturnType<typeof resourceView>

/** One bucket of a project's mock requests (`GET …/stats`): how many, by status class, and their duration percentiles (ms; null when none). */
export interface RequestBucketView {
  /** The bucket's start (ISO). */
  at: string
  /** Every request answered in the bucket, faults (status 0) included, which are in no class. */
  total: number
  '2xx': number
  '3xx': number
  '4xx': number
  '5xx': number
  /** Of `total`, those that got no answer (status 0: a hang or reset fault, a client that left). */
  noAnswer: number
  p50: number | null
  p95: number | null
  p99: number | null
}

/** One bucket of a subscription's delivery attempts: how many ended each way, and their latency percentiles (ms; null when none). */
export interface DeliveryBucketView {
  at: string
  subscriptionId: number
  succeeded: number
  retrying: number
  failed: number
  p50: number | null
  p95: number | null
}

/** `GET /api/projects/{id}/stats`: buckets of `bucketSeconds` from `from` to `to`, oldest first. */
export interface StatsView {
  window: string
  bucketSeconds: number
  from: string
  to: string
  requests: RequestBucketView[]
  /** By subscription, then time: every bucket of each of the project's subscriptions. */
  deliveries: DeliveryBucketView[]
}
