// @ts-check
// What the dashboard holds between renders: the token, the selected project and each tab's data.

/** @typedef {import('./api.js').ProjectSummaryView} ProjectSummaryView */
/** @typedef {import('./api.js').ServedEndpointView} ServedEndpointView */
/** @typedef {import('./api.js').ResourceView} ResourceView */
/** @typedef {import('./api.js').RequestEntry} RequestEntry */
/** @typedef {import('./api.js').InboxItem} InboxItem */
/** @typedef {import('./api.js').SubscriptionWithDeliveries} SubscriptionWithDeliveries */
/** @typedef {'endpoints' | 'records' | 'requests' | 'inbox' | 'integrations'} TabName */

/**
 * The Records tab: which resource, the filter typed, sort and page, the rows shown, and the record
 * in the editor (`null`: a new one; `undefined`: the editor is closed).
 * @typedef {object} RecordsView
 * @property {number | null} resourceId
 * @property {string} filter
 * @property {string | null} sort
 * @property {'asc' | 'desc'} order
 * @property {number} page
 * @property {number} limit
 * @property {number} total
 * @property {Record<string, unknown>[]} rows
 * @property {string[]} columns
 * @property {string | null | undefined} editing
 */

export const TOKEN_KEY = 'mockapi.token'
export const PROJECT_KEY = 'mockapi.project'
export const TAB_KEY = 'mockapi.tab'
/** @type {readonly TabName[]} */
export const TABS = ['endpoints', 'records', 'requests', 'inbox', 'integrations']
export const MAX_REQUESTS = 200
export const INBOX_PAGE = 100

/**
 * @param {number | null} resourceId
 * @returns {RecordsView}
 */
export function freshRecords(resourceId) {
  return { resourceId, filter: '', sort: null, order: 'asc', page: 1, limit: 25, total: 0, rows: [], columns: ['id'], editing: undefined }
}

export const state = {
  /** @type {string | null} */
  token: null,
  /** @type {ProjectSummaryView[]} */
  projects: [],
  /** @type {ProjectSummaryView | null} */
  project: null,
  /** Bumped on every project switch: answers for an earlier one are dropped. */
  generation: 0,
  /** @type {TabName} */
  tab: 'endpoints',
  /** @type {ServedEndpointView[]} */
  endpoints: [],
  /** @type {ResourceView[]} */
  resources: [],
  records: freshRecords(null),
  /** @type {RequestEntry[]} */
  requests: [],
  /** @type {number | null} */
  selectedRequest: null,
  /** @type {InboxItem[]} */
  inbox: [],
  inboxTotal: 0,
  /** @type {SubscriptionWithDeliveries[]} */
  subscriptions: [],
  /** @type {Set<number>} */
  shownSecrets: new Set(),
  /** @type {Map<number, HTMLElement>} */
  deliveryBoxes: new Map(),
  /** @type {Map<number, ReturnType<typeof setTimeout>>} */
  deliveryTimers: new Map(),
}

/** The selected project; only called where one is (the tabs show only then). */
export function currentProject() {
  if (!state.project) throw new Error('no project is selected')
  return state.project
}

/** True while the project selected when it was called is still selected. */
export function stillCurrent() {
  const generation = state.generation
  return () => generation === state.generation
}

/** Drops what the tabs hold of the project left: nothing of it shows under the next. */
export function forgetProjectData() {
  Object.assign(state, { endpoints: [], resources: [], records: freshRecords(null), requests: [], selectedRequest: null, inbox: [], inboxTotal: 0, subscriptions: [] })
}

/**
 * `incoming` merged into `list` (newest first, by id), at most `max`.
 * @template {{ id: number }} T
 * @param {T[]} list
 * @param {T[]} incoming
 * @param {(item: T) => string} timeOf
 * @param {number} max
 * @returns {T[]}
 */
export function mergeNewest(list, incoming, timeOf, max) {
  const seen = new Set(list.map((item) => item.id))
  const added = incoming.filter((item) => !seen.has(item.id))
  return [...added, ...list].sort((a, b) => timeOf(b).localeCompare(timeOf(a))).slice(0, max)
}
