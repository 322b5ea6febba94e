// @ts-check
// The Requests tab: the project's journal (its mock requests of this server run), newest first,
// narrowed by a filter that the server applies (GET …/requests, the fields the CLI and the test API
// take), kept current by the live stream; one request's headers, bodies, and why nothing matched it.

import { ApiError, clearRequests, journalSize, listRequests } from './api.js'
import { $, button, clock, confirming, dateTime, form, guard, h, headersTable, input, methodBadge, ms, notify, notifyError, prettyText, select, statusBadge } from './dom.js'
import { endpointFromRequest } from './request-endpoint.js'
import { REQUESTS_SHOWN, currentProject, emptyRequestFilter, state, stillCurrent } from './state.js'

/** @typedef {import('./api.js').JournalEntry} JournalEntry */
/** @typedef {import('./api.js').NearMiss} NearMiss */
/** @typedef {import('./api.js').RuleMiss} RuleMiss */
/** @typedef {import('./state.js').RequestFilter} RequestFilter */

/** A burst of live requests under a filter costs one query, this long after the last of them. */
const REQUERY_MS = 300
/** The filter's fields, named as the API names them; each has its control `request-filter-{field}`. */
const FILTER_FIELDS = /** @type {const} */ (['method', 'path', 'status', 'matched'])

/** The newest load's number: an answer to an earlier one (another filter, before a clear) is dropped. */
let loads = 0
/**
 * Entries the live stream brought while an unfiltered load was under way: the answer may predate
 * them, so they are kept on top of it. Null when no such load is under way.
 * @type {JournalEntry[] | null}
 */
let arrivedDuringLoad = null
/** @type {ReturnType<typeof setTimeout> | undefined} */
let requeryTimer
/**
 * Whether this serve keeps a journal (`serve --journal`, the same for every project), asked once of
 * the stats: without one, `…/requests` is a 409 that the browser's console would show as an error.
 * @type {Promise<boolean> | null}
 */
let journalKept = null

function keepsJournal() {
  // Not answered (a refused token, the server away): the list is asked, and says why.
  journalKept ??= journalSize().then((size) => size > 0, () => {
    journalKept = null
    return true
  })
  return journalKept
}

/** @param {RequestFilter} filter */
const isFiltered = (filter) => FILTER_FIELDS.some((field) => filter[field].trim() !== '')

/** @param {RequestFilter} filter */
function filterQuery(filter) {
  const query = new URLSearchParams()
  for (const field of FILTER_FIELDS) if (filter[field].trim() !== '') query.set(field, filter[field].trim())
  query.set('limit', String(REQUESTS_SHOWN))
  return query
}

/** @param {JournalEntry['query']} query */
function queryString(query) {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query ?? {})) for (const item of [value].flat()) params.append(key, String(item))
  const text = params.toString()
  return text ? `?${text}` : ''
}

/** @param {JournalEntry} entry */
const displayPath = (entry) => entry.path + queryString(entry.query)

/**
 * The project's journal as the filter narrows it, from the server: the list is replaced by its
 * answer (plus what arrived live meanwhile), or says why there is none.
 */
export async function loadRequests() {
  clearTimeout(requeryTimer)
  const current = stillCurrent()
  const load = ++loads
  const filtered = isFiltered(state.requestFilter)
  const arrived = filtered ? null : /** @type {JournalEntry[]} */ ([])
  arrivedDuringLoad = arrived
  try {
    if (!(await keepsJournal())) {
      if (!current() || load !== loads) return
      state.requestsShown = { kind: 'off' }
      state.requests = []
      state.requestTotal = 0
      return renderRequests()
    }
    const { entries, total, bound } = await listRequests(filterQuery(state.requestFilter))
    if (!current() || load !== loads) return
    const listed = new Set(entries.map((entry) => entry.id))
    const late = (arrived ?? []).filter((entry) => !listed.has(entry.id))
    state.requests = [...late, ...entries].sort((a, b) => b.id - a.id).slice(0, REQUESTS_SHOWN)
    state.requestTotal = total + late.length
    state.journalSize = bound
    state.requestsShown = { kind: 'list' }
  } catch (error) {
    if (!current() || load !== loads) return
    // A refused token has already gone back to the sign-in screen.
    if (error instanceof ApiError && error.status === 401) return
    if (error instanceof ApiError && error.status === 409) state.requestsShown = { kind: 'off' }
    else if (error instanceof ApiError && error.status === 400) state.requestsShown = { kind: 'refused', message: error.message, field: error.details[0]?.field ?? null }
    else return notifyError(error instanceof Error ? error.message : String(error))
    state.requests = []
    state.requestTotal = 0
  } finally {
    if (arrivedDuringLoad === arrived) arrivedDuringLoad = null
  }
  renderRequests()
}

/**
 * A `request` event. Unfiltered, it goes on top (the oldest listed dropped past the limit); under a
 * filter, the server is asked again, once a burst is over, so the filter has one implementation.
 * @param {JournalEntry} entry
 */
export function onRequest(entry) {
  if (state.requestsShown.kind !== 'list') return
  if (isFiltered(state.requestFilter)) {
    clearTimeout(requeryTimer)
    const current = stillCurrent()
    requeryTimer = setTimeout(() => current() && loadRequests(), REQUERY_MS)
    return
  }
  arrivedDuringLoad?.push(entry)
  if (state.requests.some((r) => r.id === entry.id)) return
  state.requests.unshift(entry)
  state.requestTotal++
  const rows = $('request-rows')
  rows.prepend(requestRow(entry))
  if (state.requests.length > REQUESTS_SHOWN) {
    state.requests.pop()
    rows.lastElementChild?.remove()
  }
  renderRequestCount()
}

/** A project just selected: its journal unfiltered, the filter bar empty, nothing under way for the last one. */
export function resetRequests() {
  clearTimeout(requeryTimer)
  loads++
  arrivedDuringLoad = null
  state.requestFilter = emptyRequestFilter()
  form('request-filter-form').reset()
  input('request-filter-path').placeholder = `/api/${currentProject().slug}/**`
  renderRequests()
}

export function renderRequests() {
  const shown = state.requestsShown
  $('requests-off').hidden = shown.kind !== 'off'
  $('requests-journal').hidden = shown.kind === 'off'
  $('requests-error').textContent = shown.kind === 'refused' ? shown.message : ''
  for (const field of FILTER_FIELDS) {
    const control = $(`request-filter-${field}`)
    if (shown.kind === 'refused' && shown.field === field) control.setAttribute('aria-invalid', 'true')
    else control.removeAttribute('aria-invalid')
  }
  const rows = $('request-rows')
  // Redrawn under a filter at each burst of traffic: keyboard focus on a row stays on it.
  const focused = rows.contains(document.activeElement) ? document.activeElement?.closest('tr')?.getAttribute('data-id') : null
  rows.replaceChildren(...state.requests.map(requestRow))
  if (focused) rows.querySelector(`tr[data-id="${focused}"]`)?.querySelector('button')?.focus()
  renderRequestCount()
  renderRequestDetail()
}

function renderRequestCount() {
  const total = state.requestTotal
  const filtered = isFiltered(state.requestFilter)
  const refused = state.requestsShown.kind === 'refused'
  $('requests-empty').hidden = total > 0 || refused
  $('requests-empty').textContent = filtered ? 'No request matches this filter.' : 'No requests yet. Call one of the endpoints and it shows up here.'
  if (total === 0 || refused) {
    $('request-count').textContent = ''
    return
  }
  const what = `${total} request${total === 1 ? '' : 's'}${filtered ? ` match${total === 1 ? 'es' : ''} the filter` : ' in the journal'}`
  const listed = state.requests.length < total ? `, the newest ${state.requests.length} listed` : ', newest first'
  $('request-count').textContent = `${what}${listed}. The journal keeps each project's latest ${state.journalSize ?? 'few thousand'} requests of this server run (serve --journal sets how many). Click one for its headers and bodies.`
}

/**
 * The status, or the simulated fault that left the client without one.
 * @param {JournalEntry} entry
 */
function outcomeBadge(entry) {
  if (!entry.fault) return statusBadge(entry.status)
  return h('span', { class: 'status s5', title: 'a simulated network fault: no response was sent', 'data-testid': 'request-fault' }, `— ${entry.fault}`)
}

/** @param {JournalEntry} entry */
function requestRow(entry) {
  return h('tr', {
    'data-testid': 'request-row', 'data-id': String(entry.id), class: `clickable${entry.id === state.selectedRequest ? ' selected' : ''}`,
    onclick: () => showRequest(entry.id),
  },
  h('td', { class: 'time' }, h('time', { dateTime: entry.time }, clock(entry.time))),
  h('td', {}, methodBadge(entry.method)),
  h('td', { class: 'path' }, h('button', { type: 'button', class: 'link', 'data-testid': 'request-open' }, displayPath(entry)),
    entry.matched ? null : h('span', { class: 'badge unmatched', title: 'no endpoint has this method and path', 'data-testid': 'request-unmatched' }, 'unmatched')),
  h('td', { 'data-testid': 'request-status' }, outcomeBadge(entry)),
  h('td', { class: 'num' }, ms(entry.durationMs)))
}

/** @param {number} id */
function showRequest(id) {
  state.selectedRequest = id
  for (const row of $('request-rows').children) row.classList.toggle('selected', row.getAttribute('data-id') === String(id))
  renderRequestDetail()
}

function renderRequestDetail() {
  const panel = $('request-detail')
  const entry = state.requests.find((r) => r.id === state.selectedRequest)
  if (!entry) {
    delete panel.dataset.id
    panel.replaceChildren(h('p', { class: 'muted' }, 'Select a request to see its headers and bodies.'))
    return
  }
  // The list is redrawn under a filter at each burst of traffic: a form being filled in here stays.
  if (panel.dataset.id === String(entry.id)) return
  panel.dataset.id = String(entry.id)
  const parts = [
    h('h2', { 'data-testid': 'detail-title' }, methodBadge(entry.method), ' ', displayPath(entry)),
    h('p', { class: 'muted' }, outcomeBadge(entry), ` ${ms(entry.durationMs)} · ${dateTime(entry.time)}`),
    h('p', { 'data-testid': 'detail-answered' }, answeredBy(entry)),
    entry.note ? h('p', { class: 'muted small' }, entry.note) : null,
    entry.matched ? null : nearMissPart(entry.nearMisses ?? []),
    entry.ruleMisses?.length ? ruleMissPart(entry.ruleMisses) : null,
    exchangePart('Request', { headers: entry.headers, body: entry.body }, 'detail-request',
      entry.bodyCut ? `The body had ${entry.bodySize} bytes: the first 64 KiB are kept.` : null),
    exchangePart('Response', entry.answer, 'detail-response', null),
    endpointFromRequest(entry.method, entry.path)]
  panel.replaceChildren(...parts.filter(/** @type {(part: HTMLElement | null) => part is HTMLElement} */ ((part) => part !== null)))
}

/**
 * @param {JournalEntry} entry
 * @returns {string | (HTMLElement | string)[]}
 */
function answeredBy(entry) {
  if (!entry.matched) return [h('span', { class: 'badge unmatched' }, 'unmatched'), ' No endpoint of the project has this method and path.']
  if (entry.endpointId === null) return 'Answered by the project (no endpoint of its own).'
  const response = entry.response ? `, response ${entry.response.position}${entry.response.name ? ` “${entry.response.name}”` : ''}` : ''
  return `Answered by endpoint ${entry.endpointId}${response}.`
}

/**
 * What an unmatched request came closest to, and how each differed (as `mockapi requests` and a
 * failed verify say it).
 * @param {NearMiss[]} misses
 */
function nearMissPart(misses) {
  return h('section', { 'data-testid': 'detail-near-misses' },
    h('h3', {}, 'Near misses'),
    misses.length === 0
      ? h('p', { class: 'muted' }, 'None of the project\'s endpoints comes close.')
      : h('ol', { class: 'misses' }, misses.map((miss) => h('li', { 'data-testid': 'near-miss' },
        h('div', {}, methodBadge(miss.method), ' ', h('code', { 'data-testid': 'near-miss-path' }, miss.path),
          miss.endpointId === null ? null : h('span', { class: 'muted small' }, ` endpoint ${miss.endpointId}`)),
        h('ul', {}, miss.differences.map((difference) => h('li', { 'data-testid': 'near-miss-difference' }, difference.text)))))))
}

/**
 * The response rules that did not hold for a request a fallback answered.
 * @param {RuleMiss[]} misses
 */
function ruleMissPart(misses) {
  return h('section', { 'data-testid': 'detail-rule-misses' },
    h('h3', {}, 'Rules that did not hold'),
    h('ol', { class: 'misses' }, misses.map((miss) => h('li', { 'data-testid': 'rule-miss' },
      h('div', {}, `Response ${miss.response.position}`, miss.response.name ? ` “${miss.response.name}”` : ''),
      h('ul', {}, miss.failed.map((text) => h('li', { 'data-testid': 'rule-miss-condition' }, h('code', {}, text))))))))
}

/**
 * @param {string} title
 * @param {JournalEntry['answer']} part
 * @param {string} testid
 * @param {string | null} note what the body shown is not (cut)
 */
function exchangePart(title, part, testid, note) {
  return h('section', { 'data-testid': testid },
    h('h3', {}, title),
    headersTable(part.headers),
    h('pre', { class: 'body', 'data-testid': `${testid}-body` }, prettyText(part.body)),
    note ? h('p', { class: 'muted small' }, note) : null)
}

/**
 * The filter bar's fields as typed.
 * @returns {RequestFilter}
 */
function filterOfPage() {
  const matched = select('request-filter-matched').value
  return {
    method: select('request-filter-method').value,
    path: input('request-filter-path').value,
    status: input('request-filter-status').value,
    matched: matched === 'true' || matched === 'false' ? matched : '',
  }
}

/** @param {RequestFilter} filter */
function applyFilter(filter) {
  state.requestFilter = filter
  loadRequests()
}

async function clearJournal() {
  await guard(async () => {
    await clearRequests()
    // Whatever a load under way brings back predates the clear.
    loads++
    clearTimeout(requeryTimer)
    state.requests = []
    state.requestTotal = 0
    state.selectedRequest = null
    renderRequests()
    notify('Requests cleared')
  })
}

/** Listens to the tab's own controls: the filter applies on Enter, Apply or a choice in a menu. */
export function wireRequests() {
  const filterForm = form('request-filter-form')
  filterForm.addEventListener('submit', (event) => {
    event.preventDefault()
    applyFilter(filterOfPage())
  })
  for (const id of ['request-filter-method', 'request-filter-matched']) select(id).addEventListener('change', () => applyFilter(filterOfPage()))
  button('request-filter-reset').addEventListener('click', () => {
    filterForm.reset()
    applyFilter(emptyRequestFilter())
  })
  confirming(button('requests-clear'), 'Clear all?', clearJournal)
}
