// @ts-check
// What the dashboard holds between renders: the token, the selected project and each tab's data.

/** @typedef {import('./api.js').ProjectSummaryView} ProjectSummaryView */
/** @typedef {import('./api.js').ServedEndpointView} ServedEndpointView */
/** @typedef {import('./api.js').ResourceView} ResourceView */
/** @typedef {import('./api.js').JournalEntry} JournalEntry */
/** @typedef {import('./api.js').InboxItem} InboxItem */
/** @typedef {import('./api.js').SubscriptionWithDeliveries} SubscriptionWithDeliveries */
/** @typedef {import('./api.js').StatsView} StatsView */
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

/**
 * The Requests tab's filter, as `GET …/requests` takes it (an empty field does not narrow).
 * @typedef {object} RequestFilter
 * @property {string} method
 * @property {string} path
 * @property {string} status
 * @property {'' | 'true' | 'false'} matched
 */

/**
 * What the Requests tab shows: the list; the filter refused (the API's message, and the field it
 * names); or that the serve keeps no journal (`--journal 0`).
 * @typedef {{ kind: 'list' } | { kind: 'refused', message: string, field: string | null } | { kind: 'off' }} RequestsShown
 */

export const TOKEN_KEY = 'mockapi.token'
export const PROJECT_KEY = 'mockapi.project'
export const TAB_KEY = 'mockapi.tab'
/** @type {readonly TabName[]} */
export const TABS = ['endpoints', 'records', 'requests', 'inbox', 'integrations']
/** The newest requests the tab lists; the count line says how many the journal holds in all. */
export const REQUESTS_SHOWN = 200
export const INBOX_PAGE = 100

/** @returns {RequestFilter} */
export const emptyRequestFilter = () => ({ method: '', path: '', status: '', matched: '' })

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
  /** @type {JournalEntry[]} */
  requests: [],
  /** How many entries of the journal the filter keeps (`X-Total-Count`), the listed ones and those beyond. */
  requestTotal: 0,
  /** How many requests the serve's journal keeps per project (`X-Journal-Size`); null until known. */
  journalSize: /** @type {number | null} */ (null),
  requestFilter: emptyRequestFilter(),
  /** @type {RequestsShown} */
  requestsShown: { kind: 'list' },
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
  /** The stats the Requests tab's chart draws; null until fetched. */
  requestStats: /** @type {StatsView | null} */ (null),
  /** The stats the subscriptions' charts draw; null until fetched. */
  deliveryStats: /** @type {StatsView | null} */ (null),
  /**
   * Where each subscription's chart goes, by its id.
   * @type {Map<number, { box: HTMLElement, name: string }>}
   */
  deliveryCharts: new Map(),
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
  Object.assign(state, { endpoints: [], resources: [], records: freshRecords(null), requests: [], requestTotal: 0, requestFilter: emptyRequestFilter(), requestsShown: { kind: 'list' }, selectedRequest: null, inbox: [], inboxTotal: 0, subscriptions: [], requestStats: null, deliveryStats: null })
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
