// @ts-check
// The Endpoints tab: the list with its settings edited in place, and Add resource.

import { addResource, checkResource, deleteEndpoint as removeEndpoint, listEndpoints, updateEndpoint, uploadEndpointFile } from './api.js'
import { $, button, copyText, dangerButton, form, guard, h, input, loadForProject, methodBadge, notify, select, statusBadge } from './dom.js'
import { authText, parseAuthText } from './auth-text.js'
import { refreshProjects } from './projects.js'
import { responsesEditor, responsesSummary } from './responses.js'
import { state } from './state.js'

/** @typedef {import('./api.js').ServedEndpointView} ServedEndpointView */
/** @typedef {{ key: 'status' | 'delay' | 'errorRate', label: string, testid: string, step: string, min?: string, max?: string }} EditableField */

/** @type {EditableField[]} */
const EDITABLE = [
  { key: 'status', label: 'Status', testid: 'endpoint-status', step: '1' },
  // Text, not a number box: a delay may be a range ("100-300"), which the server checks.
  { key: 'delay', label: 'Delay', testid: 'endpoint-delay', step: '1' },
  { key: 'errorRate', label: 'Error rate', testid: 'endpoint-error-rate', min: '0', max: '100', step: 'any' },
]

/** The faults the fault select offers; '' answers normally. */
const FAULTS = ['', 'reset', 'empty', 'malformed', 'hang']

/** @param {string} line */
const tool = (line) => line.slice(0, line.indexOf(' '))

export async function loadEndpoints() {
  await loadForProject(listEndpoints, (endpoints) => {
    state.endpoints = endpoints
    renderEndpoints()
  })
}

/** @type {Set<number>} the endpoints whose settings are open: they stay open when the list is drawn again */
const expanded = new Set()

function renderEndpoints() {
  const table = $('endpoints-table')
  for (const old of table.querySelectorAll('tbody')) old.remove()
  table.append(...state.endpoints.map(endpointRows))
  $('endpoints-empty').hidden = state.endpoints.length > 0
}

/**
 * One endpoint: a row that fits (method, path and call, what it answers, actions) and under it its
 * settings, shown with the Settings button; both in one <tbody> so that the pair stays together.
 * @param {ServedEndpointView} endpoint
 */
function endpointRows(endpoint) {
  const name = `${endpoint.method} ${endpoint.path}`
  const line = endpoint.call
  const detailId = `endpoint-settings-${endpoint.id}`
  const answer = h('td', { class: 'answer', 'data-testid': 'endpoint-answer' })
  const changed = () => answer.replaceChildren(...answerSummary(endpoint))
  changed()
  const detail = h('tr', { class: 'endpoint-settings', id: detailId, hidden: !expanded.has(endpoint.id) },
    h('td', { colSpan: 4 }, endpointSettings(endpoint, name, changed)))
  const toggle = h('button', {
    type: 'button', class: 'small settings-toggle', 'aria-expanded': String(expanded.has(endpoint.id)), 'aria-controls': detailId,
    'aria-label': `Settings of ${name}`, 'data-testid': 'endpoint-expand',
  }, 'Settings')
  toggle.addEventListener('click', () => {
    const open = detail.hidden
    detail.hidden = !open
    toggle.setAttribute('aria-expanded', String(open))
    if (open) expanded.add(endpoint.id)
    else expanded.delete(endpoint.id)
  })
  /** @type {HTMLTableSectionElement} */
  const rows = h('tbody', { class: 'endpoint', 'data-testid': 'endpoint-row', 'data-method': endpoint.method, 'data-path': endpoint.path },
    h('tr', { class: 'endpoint-main' },
      h('td', { class: 'fit' }, methodBadge(endpoint.method)),
      h('td', { class: 'path' },
        h('div', { 'data-testid': 'endpoint-path' }, endpoint.path),
        line
          ? h('div', { class: 'curl' }, h('code', { 'data-testid': 'endpoint-curl' }, line),
            h('button', { type: 'button', class: 'small', 'aria-label': `Copy ${tool(line)} for ${name}`, onclick: () => copyText(line, `the ${tool(line)} line`) }, 'Copy'))
          : h('div', { class: 'muted small', 'data-testid': 'endpoint-not-served' }, 'gRPC is not listening: serve with a gRPC port to call it')),
      answer,
      h('td', { class: 'actions' }, toggle,
        dangerButton('Delete', 'Delete?', () => deleteEndpoint(endpoint, rows), { class: 'danger small', 'data-testid': 'endpoint-delete', 'aria-label': `Delete ${name}` }))),
    detail)
  return rows
}

/**
 * What the endpoint answers, in a few words: status and body, then what differs from a plain answer.
 * @param {ServedEndpointView} endpoint
 */
function answerSummary(endpoint) {
  const extras = [
    endpoint.kind,
    ...(endpoint.responses.length ? [responsesSummary(endpoint)] : []),
    ...(endpoint.delay !== 0 ? [`delay ${endpoint.delay} ms`] : []),
    ...(endpoint.errorRate ? [`${endpoint.errorRate}% errors`] : []),
    ...(endpoint.fault ? [`fault ${endpoint.fault}`] : []),
    ...(endpoint.proxy ? ['proxied'] : []),
    ...(endpoint.effectiveAuth !== 'none' ? [`auth: ${endpoint.effectiveAuth}`] : []),
  ]
  return [
    h('div', {}, statusBadge(endpoint.status), ' ', h('span', { 'data-testid': 'endpoint-body' }, bodyKind(endpoint))),
    h('div', { class: 'muted small', 'data-testid': 'endpoint-facts' }, h('span', { 'data-testid': 'endpoint-kind' }, extras[0]), extras.slice(1).map((fact) => ` · ${fact}`).join('')),
  ]
}

/** @param {ServedEndpointView} endpoint */
function bodyKind(endpoint) {
  return endpoint.bodyType === 'file' && endpoint.file
    ? `file ${endpoint.file.name} (${endpoint.file.size} bytes)`
    : endpoint.bodyType === 'text' ? 'text' : endpoint.body === null ? (endpoint.action ? 'records' : '{}') : 'JSON'
}

/**
 * Every setting of the endpoint, edited in place; `changed` redraws the summary after a save.
 * @param {ServedEndpointView} endpoint
 * @param {string} name
 * @param {() => void} changed
 */
function endpointSettings(endpoint, name, changed) {
  return h('div', { class: 'endpoint-detail', role: 'group', 'aria-label': `Settings of ${name}` },
    h('div', { class: 'settings-fields' },
      ...EDITABLE.map((field) => h('label', {}, field.key === 'delay' ? 'Delay (ms)' : field.key === 'errorRate' ? 'Error rate (%)' : field.label, endpointInput(endpoint, field, name, changed))),
      h('label', {}, 'Fault', faultSelect(endpoint, name, changed)),
      ...(endpoint.kind === 'resource' || endpoint.kind === 'custom' || endpoint.kind === 'openapi' ? [h('label', {}, 'Proxy', proxyToggle(endpoint, name, changed))] : []),
      h('div', { class: 'auth-cell' }, h('span', { class: 'field-name', 'aria-hidden': 'true' }, 'Auth'), authInput(endpoint, name, changed))),
    bodyCell(endpoint, name, changed),
    responsesEditor(endpoint, name, changed))
}

/**
 * @param {ServedEndpointView} endpoint
 * @param {EditableField} field
 * @param {string} name
 * @param {() => void} changed
 */
function endpointInput(endpoint, field, name, changed) {
  const box = field.key === 'delay'
    ? h('input', {
      type: 'text', class: 'num', value: String(endpoint.delay), inputMode: 'numeric', title: 'milliseconds (250) or a range drawn per request (100-300)',
      'aria-label': `${field.label} of ${name}`, 'data-testid': field.testid,
    })
    : h('input', {
      type: 'number', class: 'num', value: String(endpoint[field.key]), step: field.step, min: field.min, max: field.max,
      'aria-label': `${field.label} of ${name}`, 'data-testid': field.testid,
    })
  box.addEventListener('change', () => saveEndpointField(endpoint, field, box, changed))
  return box
}

/**
 * @param {ServedEndpointView} endpoint
 * @param {EditableField} field
 * @param {HTMLInputElement} box
 * @param {() => void} changed
 */
async function saveEndpointField(endpoint, field, box, changed) {
  const text = box.value.trim()
  // A range goes as written; the server says what is wrong with it.
  const value = field.key === 'delay' && /-/.test(text) ? text : Number(text)
  if (text === '' || (typeof value === 'number' && !Number.isFinite(value))) {
    box.setAttribute('aria-invalid', 'true')
    return notify(field.key === 'delay' ? 'Delay must be milliseconds (250) or a range (100-300)' : `${field.label} must be a number`, 'error')
  }
  await guard(async () => {
    const updated = await updateEndpoint(endpoint.id, { [field.key]: value })
    Object.assign(endpoint, updated)
    box.value = String(updated[field.key])
    box.removeAttribute('aria-invalid')
    changed()
    notify(`Saved: ${field.label.toLowerCase()} of ${endpoint.method} ${endpoint.path} is ${updated[field.key]}`)
  }, (message) => {
    box.setAttribute('aria-invalid', 'true')
    notify(message, 'error')
  })
}

/**
 * @param {ServedEndpointView} endpoint
 * @param {string} name
 * @param {() => void} changed
 */
function faultSelect(endpoint, name, changed) {
  const select = h('select', { 'aria-label': `Fault of ${name}`, 'data-testid': 'endpoint-fault', title: 'a broken connection instead of an answer' },
    ...FAULTS.map((fault) => h('option', { value: fault }, fault || 'none')))
  select.value = endpoint.fault ?? ''
  select.addEventListener('change', () => guard(async () => {
    const updated = await updateEndpoint(endpoint.id, { fault: select.value || null })
    Object.assign(endpoint, updated)
    select.value = updated.fault ?? ''
    changed()
    notify(`Saved: fault of ${endpoint.method} ${endpoint.path} is ${updated.fault ?? 'none'}`)
  }))
  return select
}

/**
 * On: the endpoint's requests go to the project's proxy target instead of being answered here.
 * @param {ServedEndpointView} endpoint
 * @param {string} name
 * @param {() => void} changed
 */
function proxyToggle(endpoint, name, changed) {
  const box = h('input', { type: 'checkbox', 'aria-label': `Proxy ${name}`, 'data-testid': 'endpoint-proxy', title: "forward its requests to the project's proxy target instead of answering them" })
  box.checked = endpoint.proxy
  box.addEventListener('change', () => guard(async () => {
    const updated = await updateEndpoint(endpoint.id, { proxy: box.checked })
    Object.assign(endpoint, updated)
    box.checked = updated.proxy
    changed()
    notify(`Saved: ${endpoint.method} ${endpoint.path} is ${updated.proxy ? 'forwarded to the proxy target' : 'answered here'}`)
  }, (message) => {
    box.checked = endpoint.proxy
    notify(message, 'error')
  }))
  return box
}

/**
 * What the endpoint answers: JSON (its records, `{}` or a body), text, or a file; a file to answer
 * as it is can be uploaded here, and the Content-Type set (empty: the one the body implies).
 * @param {ServedEndpointView} endpoint
 * @param {string} name
 * @param {() => void} changed
 */
function bodyCell(endpoint, name, changed) {
  const editor = bodyEditor(endpoint, name, changed)
  const upload = h('input', { type: 'file', class: 'sr-only', 'data-testid': 'endpoint-upload', 'aria-label': `Answer a file for ${name}` })
  upload.addEventListener('change', () => {
    const file = upload.files?.[0]
    // Emptied, the same file can be chosen again.
    upload.value = ''
    if (file) void uploadFile(endpoint, file, editor.saved)
  })
  const type = h('input', {
    type: 'text', class: 'small', value: endpoint.contentType ?? '', placeholder: 'Content-Type',
    'aria-label': `Content-Type of ${name}`, 'data-testid': 'endpoint-content-type',
  })
  type.addEventListener('change', () => saveContentType(endpoint, type, changed))
  return h('div', { class: 'body-cell' },
    h('span', { class: 'field-name' }, 'Body'),
    h('label', { class: 'button small' }, 'Upload file', upload),
    type,
    editor.element)
}

/**
 * Edit the body as JSON or as text (a template either way); Clear goes back to the records or `{}`.
 * A save refills the editor in place (the rest of the settings, response cards being edited
 * included, stay as they are); `saved` is that, after the row's summary.
 * @param {ServedEndpointView} endpoint
 * @param {string} name
 * @param {() => void} changed
 */
function bodyEditor(endpoint, name, changed) {
  const typeSelect = h('select', { 'aria-label': `Body type of ${name}`, 'data-testid': 'endpoint-body-type' },
    h('option', { value: 'json' }, 'JSON'),
    h('option', { value: 'text' }, 'Text'))
  const area = h('textarea', { rows: 4, 'aria-label': `Body of ${name}`, 'data-testid': 'endpoint-body-text' })
  const saved = () => {
    changed()
    typeSelect.value = endpoint.bodyType === 'text' ? 'text' : 'json'
    area.value = endpoint.bodyType === 'text' ? endpoint.text ?? '' : endpoint.body === null ? '' : JSON.stringify(endpoint.body, null, 2)
    area.removeAttribute('aria-invalid')
  }
  saved()
  const save = h('button', { type: 'button', class: 'small', 'data-testid': 'endpoint-body-save', onclick: () => saveBody(endpoint, typeSelect, area, saved) }, 'Save body')
  const clear = h('button', { type: 'button', class: 'small', 'data-testid': 'endpoint-body-clear', onclick: () => clearBody(endpoint, saved) }, 'Clear')
  return { element: h('details', { class: 'body-editor' }, h('summary', {}, 'Edit body'), typeSelect, area, h('div', {}, save, clear)), saved }
}

/**
 * @param {ServedEndpointView} endpoint
 * @param {HTMLSelectElement} typeSelect
 * @param {HTMLTextAreaElement} area
 * @param {() => void} saved
 */
async function saveBody(endpoint, typeSelect, area, saved) {
  /** @type {{ body?: unknown, text?: string }} */
  let change
  if (typeSelect.value === 'text') change = { text: area.value }
  else {
    try {
      change = { body: JSON.parse(area.value) }
    } catch (error) {
      area.setAttribute('aria-invalid', 'true')
      return notify(`The body is not JSON (${error instanceof Error ? error.message : String(error)}): choose Text to answer it as text`, 'error')
    }
  }
  await guard(async () => {
    Object.assign(endpoint, await updateEndpoint(endpoint.id, change))
    saved()
    notify(`Saved: ${endpoint.method} ${endpoint.path} answers ${endpoint.bodyType === 'text' ? 'text' : 'JSON'}`)
  }, (message) => {
    area.setAttribute('aria-invalid', 'true')
    notify(message, 'error')
  })
}

/**
 * @param {ServedEndpointView} endpoint
 * @param {() => void} saved
 */
async function clearBody(endpoint, saved) {
  await guard(async () => {
    Object.assign(endpoint, await updateEndpoint(endpoint.id, { body: null }))
    saved()
    notify(`Saved: ${endpoint.method} ${endpoint.path} answers ${endpoint.action ? 'its records' : '{}'} again`)
  })
}

/**
 * @param {ServedEndpointView} endpoint
 * @param {File} file
 * @param {() => void} saved
 */
async function uploadFile(endpoint, file, saved) {
  await guard(async () => {
    Object.assign(endpoint, await uploadEndpointFile(endpoint.id, file))
    saved()
    notify(`Saved: ${endpoint.method} ${endpoint.path} answers ${file.name} (${file.size} bytes)`)
  })
}

/**
 * @param {ServedEndpointView} endpoint
 * @param {HTMLInputElement} box
 * @param {() => void} changed
 */
async function saveContentType(endpoint, box, changed) {
  const value = box.value.trim()
  await guard(async () => {
    Object.assign(endpoint, await updateEndpoint(endpoint.id, { contentType: value === '' ? null : value }))
    box.removeAttribute('aria-invalid')
    changed()
    notify(`Saved: Content-Type of ${endpoint.method} ${endpoint.path} is ${endpoint.contentType ?? 'the one its body implies'}`)
  }, (message) => {
    box.setAttribute('aria-invalid', 'true')
    notify(message, 'error')
  })
}

/**
 * The endpoint's own auth (JSON, `none`, or empty for the project's) over what it demands in effect.
 * @param {ServedEndpointView} endpoint
 * @param {string} name
 * @param {() => void} changed
 */
function authInput(endpoint, name, changed) {
  const box = h('input', {
    type: 'text', value: authText(endpoint.auth), placeholder: 'inherit', spellcheck: false,
    title: 'none, {"type":"bearer","tokens":["t-1"]}, {"type":"apiKey","in":"header","name":"X-API-Key"}, {"type":"basic","users":{"admin":"secret"}}, a list; empty: the project\'s',
    'aria-label': `Auth of ${name}`, 'data-testid': 'endpoint-auth',
  })
  const effective = h('div', { class: 'muted small', 'data-testid': 'endpoint-effective-auth' }, endpoint.effectiveAuth)
  box.addEventListener('change', () => guard(async () => {
    let auth
    try {
      auth = parseAuthText(box.value)
    } catch (error) {
      box.setAttribute('aria-invalid', 'true')
      return notify(`Auth must be none, JSON or empty: ${/** @type {Error} */ (error).message}`, 'error')
    }
    const updated = await updateEndpoint(endpoint.id, { auth })
    Object.assign(endpoint, updated)
    box.value = authText(updated.auth)
    box.removeAttribute('aria-invalid')
    effective.textContent = updated.effectiveAuth
    changed()
    notify(`Saved: auth of ${endpoint.method} ${endpoint.path} is ${updated.effectiveAuth}`)
  }, (message) => {
    box.setAttribute('aria-invalid', 'true')
    notify(message, 'error')
  }))
  return h('div', {}, box, effective)
}

/**
 * Only its rows go: the others keep what is being edited in them, and the focus moves to a
 * neighbour's Settings rather than to the page.
 * @param {ServedEndpointView} endpoint
 * @param {HTMLTableSectionElement} rows
 */
async function deleteEndpoint(endpoint, rows) {
  await guard(async () => {
    await removeEndpoint(endpoint.id)
    state.endpoints = state.endpoints.filter((e) => e.id !== endpoint.id)
    expanded.delete(endpoint.id)
    const neighbour = rows.nextElementSibling ?? rows.previousElementSibling
    rows.remove()
    neighbour?.querySelector(/** @type {'button'} */ ('button.settings-toggle'))?.focus()
    $('endpoints-empty').hidden = state.endpoints.length > 0
    notify(`Deleted ${endpoint.method} ${endpoint.path}`)
    refreshProjects()
  })
}

// ---------------------------------------------------------------- add resource

/** @type {ReturnType<typeof setTimeout> | undefined} */
let checkTimer
let checkSequence = 0

/**
 * @param {string} text
 * @param {'ok' | 'bad' | null} kind
 */
function setCheck(text, kind) {
  $('resource-check').textContent = text
  $('resource-check').dataset.kind = kind ?? ''
}

function scheduleResourceCheck() {
  clearTimeout(checkTimer)
  button('resource-add').disabled = true
  checkTimer = setTimeout(checkResourcePath, 150)
}

async function checkResourcePath() {
  const path = input('resource-path').value.trim()
  const sequence = ++checkSequence
  if (!path) return setCheck('', null)
  await guard(async () => {
    const check = await checkResource(path)
    if (sequence !== checkSequence) return
    if (check.ok) {
      const warnings = check.warnings.length ? ` (warning: ${check.warnings.join('; ')})` : ''
      setCheck(`✓ ${check.path} makes six endpoints${warnings}`, 'ok')
    } else setCheck(`✗ ${check.message}`, 'bad')
    button('resource-add').disabled = !check.ok
  }, (message) => setCheck(message, 'bad'))
}

/**
 * `name:commerce.productName, price:number.int({"min":1})` → an object; commas inside (), [], {} or quotes stay.
 * @param {string} text
 * @returns {Record<string, string> | undefined}
 */
function parseFields(text) {
  const parts = []
  let depth = 0
  /** @type {string | null} */
  let quote = null
  let current = ''
  for (const char of text) {
    if (quote) quote = char === quote ? null : quote
    else if (char === '"' || char === "'") quote = char
    else if ('([{'.includes(char)) depth++
    else if (')]}'.includes(char)) depth--
    else if (char === ',' && depth === 0) {
      parts.push(current)
      current = ''
      continue
    }
    current += char
  }
  parts.push(current)
  /** @type {Record<string, string>} */
  const fields = {}
  for (const part of parts.map((p) => p.trim()).filter(Boolean)) {
    const colon = part.indexOf(':')
    if (colon < 1 || !part.slice(colon + 1).trim()) throw new Error(`field "${part}" must look like name:generator, e.g. title:lorem.sentence`)
    fields[part.slice(0, colon).trim()] = part.slice(colon + 1).trim()
  }
  return Object.keys(fields).length ? fields : undefined
}

/** @param {SubmitEvent} event */
async function submitResource(event) {
  event.preventDefault()
  let fields
  try {
    fields = parseFields(input('resource-fields').value)
  } catch (error) {
    return setCheck(error instanceof Error ? error.message : String(error), 'bad')
  }
  const seed = input('resource-seed').value.trim()
  /** @type {import('../views.ts').ResourceView['onDelete']} */
  const onDelete = select('resource-on-delete').value === 'cascade' ? 'cascade' : 'keep'
  const request = { path: input('resource-path').value.trim(), ...(fields ? { fields } : {}), ...(seed ? { seed: Number(seed) } : {}), onDelete }
  await guard(async () => {
    const created = await addResource(request)
    form('resource-form').reset()
    button('resource-add').disabled = true
    const warnings = created.warnings.length ? ` Warning: ${created.warnings.join('; ')}` : ''
    setCheck(`Added ${created.resource.path} with ${created.endpoints.length} endpoints.${warnings}`, 'ok')
    await loadEndpoints()
    refreshProjects()
  }, (message) => setCheck(message, 'bad'))
}

/** Listens to the tab's own controls. */
export function wireEndpoints() {
  input('resource-path').addEventListener('input', scheduleResourceCheck)
  form('resource-form').addEventListener('submit', submitResource)
}
