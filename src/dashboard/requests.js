// @ts-check
// The Requests tab: mock requests as they arrive, and one's headers and bodies.

import { listRequests } from './api.js'
import { $, clock, dateTime, h, headersTable, loadForProject, methodBadge, ms, prettyText, statusBadge } from './dom.js'
import { MAX_REQUESTS, mergeNewest, state } from './state.js'
import { endpointFromRequest } from './request-endpoint.js'

/** @typedef {import('./api.js').RequestEntry} RequestEntry */

/** @param {RequestEntry['query']} query */
function queryString(query) {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query ?? {})) for (const item of [value].flat()) params.append(key, String(item))
  const text = params.toString()
  return text ? `?${text}` : ''
}

/** @param {RequestEntry} entry */
const displayPath = (entry) => (entry.path.includes('?') ? entry.path : entry.path + queryString(entry.query))

export async function loadRequests() {
  await loadForProject(listRequests, (entries) => {
    state.requests = mergeNewest(state.requests, entries, (entry) => entry.time, MAX_REQUESTS)
    renderRequests()
  })
}

/**
 * A `request` event: on top, the oldest dropped past the limit.
 * @param {RequestEntry} entry
 */
export function onRequest(entry) {
  if (state.requests.some((r) => r.id === entry.id)) return
  state.requests.unshift(entry)
  const rows = $('request-rows')
  rows.prepend(requestRow(entry))
  if (state.requests.length > MAX_REQUESTS) {
    state.requests.pop()
    rows.lastElementChild?.remove()
  }
  renderRequestCount()
}

export function renderRequests() {
  $('request-rows').replaceChildren(...state.requests.map(requestRow))
  renderRequestCount()
  renderRequestDetail()
}

function renderRequestCount() {
  const n = state.requests.length
  $('requests-empty').hidden = n > 0
  $('request-count').textContent = n ? `${n} request${n === 1 ? '' : 's'}, newest first (the server keeps the last ${MAX_REQUESTS}). Click one for its headers and bodies.` : ''
}

/**
 * The status, or the simulated fault that left the client without one.
 * @param {RequestEntry} entry
 */
function outcomeBadge(entry) {
  if (!entry.fault) return statusBadge(entry.status)
  return h('span', { class: 'status s5', title: 'a simulated network fault: no response was sent', 'data-testid': 'request-fault' }, `— ${entry.fault}`)
}

/** @param {RequestEntry} entry */
function requestRow(entry) {
  return h('tr', {
    'data-testid': 'request-row', 'data-id': String(entry.id), class: `clickable${entry.id === state.selectedRequest ? ' selected' : ''}`,
    onclick: () => showRequest(entry.id),
  },
  h('td', { class: 'time' }, h('time', { dateTime: entry.time }, clock(entry.time))),
  h('td', {}, methodBadge(entry.method)),
  h('td', { class: 'path' }, h('button', { type: 'button', class: 'link', 'data-testid': 'request-open' }, displayPath(entry))),
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
    panel.replaceChildren(h('p', { class: 'muted' }, 'Select a request to see its headers and bodies.'))
    return
  }
  panel.replaceChildren(
    h('h2', { 'data-testid': 'detail-title' }, methodBadge(entry.method), ' ', displayPath(entry)),
    h('p', { class: 'muted' }, outcomeBadge(entry), ` ${ms(entry.durationMs)} · ${dateTime(entry.time)}`),
    exchangePart('Request', { headers: entry.headers, body: entry.body }, 'detail-request'),
    exchangePart('Response', entry.answer, 'detail-response'))
  panel.append(endpointFromRequest(entry.method, entry.path))
}

/**
 * @param {string} title
 * @param {RequestEntry['answer'] | undefined} part
 * @param {string} testid
 */
function exchangePart(title, part, testid) {
  return h('section', { 'data-testid': testid },
    h('h3', {}, title),
    headersTable(part?.headers),
    h('pre', { class: 'body', 'data-testid': `${testid}-body` }, prettyText(part?.body)))
}
