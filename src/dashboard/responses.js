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
    title: '[{"name", "when": {"params"|"query"|"headers"|"cookies"|"body": {…}}, "status", "headers", "body" (JSON) | "text" | "file": {"name", "base64"} (a kept file: {"id"}), "contentType", "delay", "fault"}, …]',
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
  // A file joins the list as {"file": {"name", "base64"}}, to be given its `when` and status there before Save.
  const upload = h('input', { type: 'file', 'data-testid': 'responses-file', 'aria-label': `Add a file response to ${name}` })
  upload.addEventListener('change', () => guard(async () => {
    const file = upload.files?.[0]
    if (!file) return
    const list = parsed(text.value)
    if (!Array.isArray(list)) return notify('Responses must be a JSON list before a file joins it', 'error')
    list.push({ file: { name: file.name, base64: await base64Of(file) } })
    text.value = JSON.stringify(list, null, 2)
    upload.value = ''
    notify(`${file.name} added as response #${list.length}: Save to keep it`)
  }))
  return h('details', { class: 'responses', 'data-testid': 'endpoint-responses' }, summary, h('div', {}, h('label', {}, 'Pick ', pick)), text,
    h('div', {}, h('label', { class: 'small' }, 'Add a file response ', upload)), save, problem)
}

/**
 * @param {Blob} file
 * @returns {Promise<string>}
 */
async function base64Of(file) {
  const bytes = new Uint8Array(await file.arrayBuffer())
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
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
