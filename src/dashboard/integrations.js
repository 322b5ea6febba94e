// @ts-check
// The Integrations tab: webhook subscriptions and their delivery logs.

import { addSubscription, deleteSubscription as removeSubscription, listDeliveries, listSubscriptions, redeliver as redeliverAttempt, updateSubscription } from './api.js'
import { $, clock, copyText, dangerButton, form, guard, h, input, loadForProject, ms, notify, statusBadge } from './dom.js'
import { state, stillCurrent } from './state.js'
import { drawDeliveries, onDeliveryTraffic } from './traffic.js'

/** @typedef {import('./api.js').SubscriptionWithDeliveries} SubscriptionWithDeliveries */
/** @typedef {import('./api.js').AttemptView} AttemptView */
/** @typedef {import('./api.js').DeliveryEvent} DeliveryEvent */

export async function loadSubscriptions() {
  await loadForProject(listSubscriptions, (subscriptions) => {
    state.subscriptions = subscriptions
    renderSubscriptions()
  })
}

export function renderSubscriptions() {
  state.deliveryBoxes.clear()
  state.deliveryCharts.clear()
  $('sub-list').replaceChildren(...state.subscriptions.map(subscriptionCard))
  $('subs-empty').hidden = state.subscriptions.length > 0
  drawDeliveries()
}

/** @param {SubscriptionWithDeliveries} sub */
function subscriptionCard(sub) {
  const enabled = h('input', { type: 'checkbox', role: 'switch', checked: sub.enabled, 'data-testid': 'sub-enabled' })
  enabled.addEventListener('change', () => setEnabled(sub, enabled))
  const box = h('div', { class: 'deliveries', 'aria-live': 'polite' }, deliveriesTable(sub))
  state.deliveryBoxes.set(sub.id, box)
  const chart = h('div', { class: 'chart-box', 'data-testid': 'delivery-chart-box' })
  state.deliveryCharts.set(sub.id, { box: chart, name: sub.name })
  return h('li', { class: 'card', 'data-testid': 'subscription', 'data-id': String(sub.id), 'data-name': sub.name },
    h('div', { class: 'card-head' },
      h('h3', {}, sub.name),
      h('label', { class: 'switch' }, enabled, ' Enabled'),
      h('span', { class: 'spacer' }),
      dangerButton('Delete', 'Delete?', () => deleteSubscription(sub), { 'data-testid': 'sub-delete', 'aria-label': `Delete subscription ${sub.name}` })),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Target'), h('dd', {}, h('code', { 'data-testid': 'sub-target' }, sub.targetUrl)),
      h('dt', {}, 'Events'), h('dd', {}, sub.kind === 'callbacks' ? 'the OpenAPI callbacks of imported operations' : sub.events.join(', ')),
      h('dt', {}, 'Secret'), h('dd', {}, secretField(sub))),
    h('h4', {}, 'Deliveries'),
    chart,
    box)
}

/** @param {SubscriptionWithDeliveries} sub */
function secretField(sub) {
  const masked = 'whsec_' + '•'.repeat(16)
  const shown = () => state.shownSecrets.has(sub.id)
  const code = h('code', { 'data-testid': 'sub-secret' }, shown() ? sub.secret : masked)
  const toggle = h('button', { type: 'button', class: 'small', 'data-testid': 'sub-secret-toggle', 'aria-pressed': String(shown()) }, shown() ? 'Hide' : 'Show')
  toggle.addEventListener('click', () => {
    if (shown()) state.shownSecrets.delete(sub.id)
    else state.shownSecrets.add(sub.id)
    code.textContent = shown() ? sub.secret : masked
    toggle.textContent = shown() ? 'Hide' : 'Show'
    toggle.setAttribute('aria-pressed', String(shown()))
  })
  const copy = h('button', { type: 'button', class: 'small', onclick: () => copyText(sub.secret, 'the secret') }, 'Copy')
  return h('span', { class: 'secret' }, code, ' ', toggle, ' ', copy)
}

/** @param {SubscriptionWithDeliveries} sub */
function deliveriesTable(sub) {
  const attempts = sub.deliveries ?? []
  if (!attempts.length) return h('p', { class: 'muted', 'data-testid': 'deliveries-empty' }, 'No deliveries yet.')
  return h('div', { class: 'table-wrap' }, h('table', { class: 'grid', 'data-testid': 'deliveries' },
    h('caption', { class: 'sr-only' }, `Delivery attempts of ${sub.name}, newest first`),
    h('thead', {}, h('tr', {}, ['Time', 'Event', 'Attempt', 'Status', 'Result', 'Error', 'Duration', ''].map((title) =>
      h('th', { scope: 'col' }, title || h('span', { class: 'sr-only' }, 'Actions'))))),
    h('tbody', {}, attempts.map((a) => h('tr', { 'data-testid': 'delivery-row', 'data-id': String(a.id) },
      h('td', { class: 'time' }, h('time', { dateTime: a.timestamp }, clock(a.timestamp))),
      h('td', {}, a.eventType),
      h('td', { class: 'num', 'data-testid': 'delivery-attempt' }, `#${a.attempt}`),
      h('td', { 'data-testid': 'delivery-status' }, a.statusCode === null ? '—' : statusBadge(a.statusCode)),
      h('td', { class: 'outcome' }, h('span', { class: `swatch c-${a.outcome}`, 'aria-hidden': 'true' }), ' ', h('span', { class: `c-${a.outcome}`, 'data-testid': 'delivery-result' }, a.outcome)),
      h('td', { class: 'error-text' }, a.error ?? ''),
      h('td', { class: 'num' }, ms(a.durationMs)),
      h('td', {}, h('button', { type: 'button', class: 'small', 'data-testid': 'delivery-redeliver', 'aria-label': `Redeliver attempt ${a.attempt} of ${a.eventType}`, onclick: () => redeliver(a) }, 'Redeliver')))))))
}

/**
 * A `delivery` event: fetch that subscription's log again (several attempts at once: once).
 * @param {DeliveryEvent} event
 */
export function onDelivery(event) {
  const sub = state.subscriptions.find((s) => s.id === event.subscriptionId)
  if (!sub) return void loadSubscriptions()
  if (state.deliveryTimers.has(sub.id)) return
  const current = stillCurrent()
  state.deliveryTimers.set(sub.id, setTimeout(() => {
    state.deliveryTimers.delete(sub.id)
    void guard(() => reloadDeliveries(sub, current))
  }, 100))
}

/**
 * @param {SubscriptionWithDeliveries} sub
 * @param {() => boolean} current
 */
async function reloadDeliveries(sub, current) {
  const deliveries = await listDeliveries(sub.id)
  if (!current()) return
  sub.deliveries = deliveries
  state.deliveryBoxes.get(sub.id)?.replaceChildren(deliveriesTable(sub))
}

/** @param {SubmitEvent} event */
async function submitSubscription(event) {
  event.preventDefault()
  const subForm = form('sub-form')
  const events = [...subForm.querySelectorAll('input[name=events]:checked')].map((box) => box instanceof HTMLInputElement ? box.value : '')
  if (!events.length) {
    $('sub-error').textContent = 'Pick at least one event.'
    return
  }
  const request = { name: input('sub-name').value.trim(), targetUrl: input('sub-url').value.trim(), events }
  await guard(async () => {
    const created = await addSubscription(request)
    subForm.reset()
    $('sub-error').textContent = ''
    notify(`Subscription ${created.name} added`)
    await loadSubscriptions()
  }, (message) => {
    $('sub-error').textContent = message
  })
}

/**
 * @param {SubscriptionWithDeliveries} sub
 * @param {HTMLInputElement} box
 */
async function setEnabled(sub, box) {
  await guard(async () => {
    const current = stillCurrent()
    const updated = await updateSubscription(sub.id, { enabled: box.checked })
    Object.assign(sub, updated)
    notify(`${sub.name} is ${updated.enabled ? 'on' : 'off'}`)
    // Turning it off cancels the pending retries: the attempts they followed are now `failed`, in the log and the chart.
    if (!updated.enabled) {
      onDeliveryTraffic()
      await reloadDeliveries(sub, current)
    }
  }, (message) => {
    box.checked = sub.enabled
    notify(message, 'error')
  })
}

/** @param {SubscriptionWithDeliveries} sub */
async function deleteSubscription(sub) {
  await guard(async () => {
    await removeSubscription(sub.id)
    notify(`Subscription ${sub.name} deleted`)
    await loadSubscriptions()
  })
}

/** @param {AttemptView} attempt */
async function redeliver(attempt) {
  await guard(async () => {
    await redeliverAttempt(attempt.id)
    notify(`${attempt.eventType} queued again`)
  })
}

/** Listens to the tab's own controls. */
export function wireIntegrations() {
  form('sub-form').addEventListener('submit', submitSubscription)
}
