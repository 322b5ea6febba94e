// @ts-check
// The management API, one typed function per call. Types come from the server's own view shapes
// (src/views.ts, src/events.ts), so `npm run typecheck` fails when the two drift apart.

import { currentProject, state } from './state.js'

/** @typedef {import('../views.ts').ProjectSummaryView} ProjectSummaryView */
/** @typedef {import('../views.ts').EndpointView} EndpointView */
/** @typedef {import('../views.ts').ServedEndpointView} ServedEndpointView */
/** @typedef {import('../views.ts').ResourceView} ResourceView */
/** @typedef {import('../views.ts').SubscriptionView} SubscriptionView */
/** @typedef {import('../views.ts').AttemptView} AttemptView */
/** @typedef {import('../views.ts').StatsView} StatsView */
/** @typedef {import('../views.ts').RequestBucketView} RequestBucketView */
/** @typedef {import('../views.ts').DeliveryBucketView} DeliveryBucketView */
/** @typedef {SubscriptionView & { deliveries: AttemptView[] }} SubscriptionWithDeliveries */
/** @typedef {import('../events.ts').JournalEntry} JournalEntry */
/** @typedef {import('../events.ts').NearMiss} NearMiss */
/** @typedef {import('../events.ts').RuleMiss} RuleMiss */
/** @typedef {Omit<import('../events.ts').DeliveryAttempted, 'eventType'>} DeliveryEvent */
/** @typedef {Record<string, unknown>} RecordRow */

/**
 * One payload of the inbox (the store sends it as JSON text, so no view function describes it).
 * @typedef {object} InboxItem
 * @property {number} id
 * @property {string} receivedAt
 * @property {Record<string, string>} headers
 * @property {unknown} body
 * @property {number} sizeBytes
 * @property {string | null} sourceIp
 */

/** @typedef {{ ok: true, path: string, warnings: string[] } | { ok: false, message: string }} ResourceCheck */
/** @typedef {{ resource: ResourceView, endpoints: EndpointView[], warnings: string[] }} ResourceCreated */

/**
 * What `POST …/imports` takes (docs/management-api.md): the document as `text` or a `url`, exactly one.
 * @typedef {object} ImportRequest
 * @property {string} [text]
 * @property {string} [filename] the name of the file `text` came from
 * @property {string} [url]
 * @property {import('../model.ts').ImportFormat} [format] sniffed from the document when absent (one of `listImportFormats`)
 * @property {string} [title]
 * @property {boolean} [stateful] collection and item paths store what is POSTed
 * @property {number} [seed] with `stateful`: how many generated items each collection starts with
 * @property {boolean} [replace] remove endpoints of an earlier import of this document that it no longer has
 * @property {boolean} [strict] OpenAPI: refuse a spec its validator calls invalid, rather than import it with warnings
 */

/**
 * What an import made: the import itself and its endpoints, sorted by what happened to them.
 * @typedef {object} ImportResult
 * @property {{ id: number | null, title: string, format: string }} import (id null for a json-server database, which is stored as resources, not as a spec)
 * @property {EndpointView[]} created
 * @property {EndpointView[]} updated
 * @property {EndpointView[]} kept
 * @property {EndpointView[]} removed
 * @property {string[]} warnings
 */

/** @typedef {{ method?: string, body?: unknown, raw?: Blob }} CallInit */

/** @typedef {{ field: string, message: string }} ErrorDetail */

export class ApiError extends Error {
  /**
   * @param {number} status 0 when the server did not answer
   * @param {string} message
   * @param {ErrorDetail[]} [details] the fields a refusal names (`responses[1].when.body`)
   */
  constructor(status, message, details = []) {
    super(message)
    this.status = status
    this.details = details
  }
}

/** @type {(message: string) => void} */
let refused = () => {}

/**
 * Who hears of a refused token (401): the sign-in screen.
 * @param {(message: string) => void} handler
 */
export function onTokenRefused(handler) {
  refused = handler
}

/**
 * A call under `/api/projects`; the JSON answer and its headers. The answer is trusted to have the
 * shape the server's view types give it: the functions below name that shape.
 * @param {string} path
 * @param {CallInit} [init]
 * @returns {Promise<{ data: any, headers: Headers }>}
 */
async function call(path, { method = 'GET', body, raw } = {}) {
  /** @type {Record<string, string>} */
  const headers = { Authorization: `Bearer ${state.token}` }
  /** @type {RequestInit} */
  const init = { method, headers }
  if (raw !== undefined) {
    headers['Content-Type'] = 'application/octet-stream'
    init.body = raw
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json'
    init.body = JSON.stringify(body)
  }
  let response
  try {
    response = await fetch(`/api/projects${path}`, init)
  } catch {
    throw new ApiError(0, 'The server did not answer: is mockapi serve running?')
  }
  const text = await response.text()
  let data = null
  try {
    data = text ? JSON.parse(text) : null
  } catch {
    data = text
  }
  if (response.ok) return { data, headers: response.headers }
  const message = data?.error?.message ?? `${response.status} ${response.statusText}`
  if (response.status === 401) refused(`That token was refused: ${message}.`)
  const details = Array.isArray(data?.error?.details) ? data.error.details : []
  throw new ApiError(response.status, message, details)
}

/**
 * The same, under the selected project.
 * @param {string} path
 * @param {CallInit} [init]
 */
const inProject = (path, init) => call(`/${currentProject().id}${path}`, init)

/** @param {string} id */
const segment = (id) => encodeURIComponent(id)

/** @returns {Promise<ProjectSummaryView[]>} */
export const listProjects = async () => (await call('')).data

/**
 * @param {number} projectId
 * @returns {Promise<ProjectSummaryView>}
 */
export const getProject = async (projectId) => (await call(`/${projectId}`)).data

/**
 * @param {{ pathRules?: 'strict' | 'warn' | 'off', auth?: unknown, openapiSecurity?: boolean, proxy?: { target: string, headers: Record<string, string>, pathRewrite: Record<string, string> } | null }} change
 * @returns {Promise<ProjectSummaryView>}
 */
export const updateProject = async (change) => (await call(`/${currentProject().id}`, { method: 'PATCH', body: change })).data

/** @returns {Promise<ServedEndpointView[]>} */
export const listEndpoints = async () => (await inProject('/endpoints')).data

/**
 * A new endpoint, as `mockapi add-endpoint` adds it (the settings as `updateEndpoint` takes them).
 * @param {{ method: string, path: string, status?: number, body?: unknown }} endpoint
 * @returns {Promise<ServedEndpointView>}
 */
export const createEndpoint = async (endpoint) => (await inProject('/endpoints', { method: 'POST', body: endpoint })).data

/**
 * @param {number} endpointId
 * @param {{ status?: number, delay?: number | string, delayMs?: number, errorRate?: number, fault?: string | null, auth?: unknown, contentType?: string | null, body?: unknown, text?: string, pick?: string, responses?: unknown[], proxy?: boolean }} change
 * @returns {Promise<ServedEndpointView>}
 */
export const updateEndpoint = async (endpointId, change) => (await inProject(`/endpoints/${endpointId}`, { method: 'PATCH', body: change })).data

/**
 * The endpoint answers this file as it is (PUT its bytes; its name's extension gives the Content-Type).
 * @param {number} endpointId
 * @param {File} file
 * @returns {Promise<ServedEndpointView>}
 */
export const uploadEndpointFile = async (endpointId, file) =>
  (await inProject(`/endpoints/${endpointId}/file?name=${encodeURIComponent(file.name)}`, { method: 'PUT', raw: file })).data

/** @param {number} endpointId */
export const deleteEndpoint = async (endpointId) => void (await inProject(`/endpoints/${endpointId}`, { method: 'DELETE' }))

/**
 * @param {ImportRequest} request
 * @returns {Promise<ImportResult>}
 */
export const importDocument = async (request) => (await inProject('/imports', { method: 'POST', body: request })).data

/** @returns {Promise<import('../views.ts').ImportFormatView[]>} the formats an import takes, named by the server */
export const listImportFormats = async () => (await inProject('/imports/formats')).data

/** @returns {Promise<ResourceView[]>} */
export const listResources = async () => (await inProject('/resources')).data

/**
 * @param {string} path
 * @returns {Promise<ResourceCheck>}
 */
export const checkResource = async (path) => (await inProject(`/resources/check?path=${encodeURIComponent(path)}`)).data

/**
 * @param {{ path: string, fields?: Record<string, string>, seed?: number, onDelete?: ResourceView['onDelete'] }} request
 * @returns {Promise<ResourceCreated>}
 */
export const addResource = async (request) => (await inProject('/resources', { method: 'POST', body: request })).data

/**
 * A page of records and how many match in all (`X-Total-Count`).
 * @param {number} resourceId
 * @param {string} query
 * @returns {Promise<{ rows: RecordRow[], total: number }>}
 */
export async function listRecords(resourceId, query) {
  const { data, headers } = await inProject(`/resources/${resourceId}/records?${query}`)
  return { rows: data, total: Number(headers.get('X-Total-Count') ?? data.length) }
}

/**
 * A new record (`id` null) or one replaced whole.
 * @param {number} resourceId
 * @param {string | null} id
 * @param {RecordRow} record
 */
export async function saveRecord(resourceId, id, record) {
  if (id === null) await inProject(`/resources/${resourceId}/records`, { method: 'POST', body: record })
  else await inProject(`/resources/${resourceId}/records/${segment(id)}`, { method: 'PUT', body: record })
}

/**
 * @param {number} resourceId
 * @param {string} id
 */
export const deleteRecord = async (resourceId, id) => void (await inProject(`/resources/${resourceId}/records/${segment(id)}`, { method: 'DELETE' }))

/** @returns {Promise<{ collections: number, records: number }>} */
export const resetRecords = async () => (await inProject('/reset', { method: 'POST' })).data

/**
 * The newest entries of the project's journal a filter keeps, masked, and how many it keeps in all
 * (`X-Total-Count`), and how many it keeps per project (`X-Journal-Size`). A refused filter is a
 * 400 naming the field; a serve with `--journal 0`, a 409.
 * @param {URLSearchParams} query the filter (method, path, status, matched) and a limit
 * @returns {Promise<{ entries: JournalEntry[], total: number, bound: number | null }>}
 */
export async function listRequests(query) {
  const { data, headers } = await inProject(`/requests?${query}`)
  const bound = headers.get('X-Journal-Size')
  return { entries: data, total: Number(headers.get('X-Total-Count') ?? data.length), bound: bound === null ? null : Number(bound) }
}

/** Empties the project's journal (what is under way when it is cleared is not kept either). */
export const clearRequests = async () => void (await inProject('/requests', { method: 'DELETE' }))

/**
 * The newest payloads and how many there are in all.
 * @param {number} limit
 * @returns {Promise<{ items: InboxItem[], total: number }>}
 */
export async function listInbox(limit) {
  const { data, headers } = await inProject(`/webhook-inbox?limit=${limit}`)
  return { items: data, total: Number(headers.get('X-Total-Count') ?? data.length) }
}

export const clearInbox = async () => void (await inProject('/webhook-inbox', { method: 'DELETE' }))

/** @returns {Promise<SubscriptionWithDeliveries[]>} */
export const listSubscriptions = async () => (await inProject('/webhooks?deliveries=true')).data

/**
 * @param {number} subscriptionId
 * @returns {Promise<AttemptView[]>}
 */
export const listDeliveries = async (subscriptionId) => (await inProject(`/webhooks/${subscriptionId}/deliveries`)).data

/**
 * @param {{ name: string, targetUrl: string, events: string[] }} request
 * @returns {Promise<SubscriptionView>}
 */
export const addSubscription = async (request) => (await inProject('/webhooks', { method: 'POST', body: request })).data

/**
 * @param {number} subscriptionId
 * @param {{ enabled: boolean }} change
 * @returns {Promise<SubscriptionView>}
 */
export const updateSubscription = async (subscriptionId, change) => (await inProject(`/webhooks/${subscriptionId}`, { method: 'PATCH', body: change })).data

/** @param {number} subscriptionId */
export const deleteSubscription = async (subscriptionId) => void (await inProject(`/webhooks/${subscriptionId}`, { method: 'DELETE' }))

/** @param {number} attemptId */
export const redeliver = async (attemptId) => void (await inProject(`/deliveries/${attemptId}/redeliver`, { method: 'POST' }))

/**
 * The project's requests and deliveries over the last `window` (`5m`, `1h`), in buckets.
 * @param {string} window
 * @returns {Promise<StatsView>}
 */
export const getStats = async (window) => (await inProject(`/stats?window=${encodeURIComponent(window)}`)).data

/**
 * How many requests per project the serve's journal keeps (`X-Journal-Size` of the stats; 0: `serve
 * --journal 0`, where `…/requests` is a 409).
 * @returns {Promise<number>}
 */
export const journalSize = async () => Number((await inProject('/stats?window=1m')).headers.get('X-Journal-Size') ?? 1)

/** The live stream's address: `EventSource` cannot send the token in a header. */
export const eventsUrl = () => `/api/projects/${currentProject().id}/events?access_token=${encodeURIComponent(state.token ?? '')}`
