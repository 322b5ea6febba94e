// @ts-check
// An endpoint's responses in the Endpoints tab: a disclosure with the pick and the list as JSON,
// saved whole (the API replaces the list); a refusal names the field inside it.

import { updateEndpoint } from './api.js'
import { guard, h, notify } from './dom.js'

/** @typedef {import('./api.js').ServedEndpointView} ServedEndpointView */

const PICKS = ['rules', 'sequence', 'random']

/** @param {ServedEndpointView} endpoint */
const summaryText = (endpoint) => `Responses (${endpoint.responses.length}) · ${endpoint.pick}`

/**
 * @param {ServedEndpointView} endpoint
 * @param {string} name
 */
export function responsesEditor(endpoint, name) {
  const summary = h('summary', { 'data-testid': 'responses-summary' }, summaryText(endpoint))
  const pick = h('select', { 'aria-label': `Pick of ${name}`, 'data-testid': 'responses-pick', title: 'rules: the first whose when holds, else the one without when; sequence: in turn; random' },
    ...PICKS.map((mode) => h('option', { value: mode }, mode)))
  pick.value = endpoint.pick
  const text = h('textarea', {
    'aria-label': `Responses of ${name}`, 'data-testid': 'responses-json', rows: 8, cols: 60, spellcheck: false,
    title: '[{"name", "when": {"params"|"query"|"headers"|"cookies"|"body": {…}}, "status", "headers", "body", "delay", "fault"}, …]',
    value: JSON.stringify(endpoint.responses, null, 2),
  })
  const problem = h('div', { class: 'muted small', 'data-testid': 'responses-problem', 'aria-live': 'polite' })
  // A list that is not JSON is said at once, before anything is sent (below Save: the button stays put).
  text.addEventListener('blur', () => {
    problem.textContent = parsed(text.value) === undefined ? 'not valid JSON: a list of responses' : ''
  })
  const save = h('button', { type: 'button', class: 'small', 'data-testid': 'responses-save', 'aria-label': `Save the responses of ${name}` }, 'Save')
  save.addEventListener('click', () => guard(async () => {
    const responses = parsed(text.value)
    if (!Array.isArray(responses)) {
      text.setAttribute('aria-invalid', 'true')
      return notify('Responses must be a JSON list', 'error')
    }
    const updated = await updateEndpoint(endpoint.id, { pick: pick.value, responses })
    Object.assign(endpoint, updated)
    text.value = JSON.stringify(updated.responses, null, 2)
    text.removeAttribute('aria-invalid')
    problem.textContent = ''
    summary.textContent = summaryText(updated)
    notify(`Saved: ${updated.responses.length} responses of ${endpoint.method} ${endpoint.path}, picked by ${updated.pick}`)
  }, (message) => {
    text.setAttribute('aria-invalid', 'true')
    problem.textContent = message
    notify(message, 'error')
  }))
  return h('details', { class: 'responses', 'data-testid': 'endpoint-responses' }, summary, h('div', {}, h('label', {}, 'Pick ', pick)), text, save, problem)
}

/**
 * @param {string} value
 * @returns {unknown}
 */
function parsed(value) {
  try {
    return JSON.parse(value)
  } catch {
    return undefined
  }
}
