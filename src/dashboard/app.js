// The mockapi dashboard: a plain ES module, no dependencies, no build step.
// Everything the server sends (paths, payloads, headers, names) is user data: it reaches the page
// only as text nodes and `textContent`, never as HTML.

const TOKEN_KEY = 'mockapi.token'
const PROJECT_KEY = 'mockapi.project'
const TAB_KEY = 'mockapi.tab'
const TABS = ['endpoints', 'records', 'requests', 'inbox', 'integrations']
const MAX_REQUESTS = 200
const INBOX_PAGE = 100
const RETRY_MS = 5000

const state = {
  token: null,
  projects: [],
  project: null,
  /** Bumped on every project switch: answers for an earlier one are dropped. */
  generation: 0,
  tab: 'endpoints',
  events: null,
  retryTimer: null,
  endpoints: [],
  resources: [],
  records: freshRecords(null),
  requests: [],
  selectedRequest: null,
  inbox: [],
  inboxTotal: 0,
  subscriptions: [],
  shownSecrets: new Set(),
  deliveryBoxes: new Map(),
  deliveryTimers: new Map(),
}

function freshRecords(resourceId) {
  return { resourceId, filter: '', sort: null, order: 'asc', page: 1, limit: 25, total: 0, rows: [], columns: ['id'], editing: undefined }
}

// ---------------------------------------------------------------- DOM helpers

const $ = (id) => document.getElementById(id)

/** An element: `on…` props listen, `class`/`role`/`for`/dashed names are attributes, the rest properties; strings become text. */
function h(tag, props = {}, ...children) {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value)
    else if (key === 'class') el.className = value
    else if (key === 'role' || key === 'for' || key.includes('-')) el.setAttribute(key, value === true ? '' : String(value))
    else el[key] = value
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false).map((c) => (c instanceof Node ? c : String(c))))
  return el
}

/** A button that asks once more ("Delete?") before it acts. */
function confirming(button, question, action) {
  const label = button.textContent
  let timer = null
  button.addEventListener('click', async () => {
    if (!timer) {
      button.textContent = question
      button.dataset.armed = 'true'
      timer = setTimeout(() => disarm(), 4000)
      return
    }
    disarm()
    await action()
  })
  function disarm() {
    clearTimeout(timer)
    timer = null
    button.textContent = label
    delete button.dataset.armed
  }
  return button
}

function dangerButton(label, question, action, props = {}) {
  return confirming(h('button', { type: 'button', class: 'danger', ...props }, label), question, action)
}

const pad = (n, width = 2) => String(n).padStart(width, '0')

function clock(iso) {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return String(iso ?? '')
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
}

function dateTime(iso) {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return String(iso ?? '')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock(iso)}`
}

/** Durations may be fractional: one decimal below 10 ms, whole ms above. */
const ms = (value) => `${typeof value === 'number' && value < 10 ? value.toFixed(1) : Math.round(value)} ms`

const statusClass = (status) => (status >= 500 ? 's5' : status >= 400 ? 's4' : status >= 300 ? 's3' : 's2')

function statusBadge(status) {
  return h('span', { class: `status ${statusClass(status)}` }, String(status))
}

function methodBadge(method) {
  return h('span', { class: `method m-${String(method).toLowerCase()}` }, method)
}

/** A body as text: JSON pretty-printed, anything else as it came. */
function prettyText(text) {
  if (text === null || text === undefined || text === '') return '(no body)'
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

function headersTable(headers) {
  const entries = Object.entries(headers ?? {})
  if (!entries.length) return h('p', { class: 'muted' }, 'No headers')
  return h('table', { class: 'headers' }, h('tbody', {}, entries.map(([name, value]) =>
    h('tr', {}, h('th', { scope: 'row' }, name), h('td', {}, Array.isArray(value) ? value.join(', ') : String(value))))))
}

let noticeTimer = null
function notify(message, kind = 'ok') {
  const el = $('notice')
  el.textContent = message
  el.dataset.kind = kind
  clearTimeout(noticeTimer)
  noticeTimer = setTimeout(() => (el.textContent = ''), 6000)
}

async function copyText(text, what) {
  try {
    await navigator.clipboard.writeText(text)
  } catch {
    const area = h('textarea', { value: text, readOnly: true, class: 'offscreen' })
    document.body.append(area)
    area.select()
    document.execCommand('copy')
    area.remove()
  }
  notify(`Copied ${what}`)
}

const shellQuote = (text) => `'${text.replaceAll("'", "'\\''")}'`

// ---------------------------------------------------------------- API

class ApiError extends Error {
  constructor(status, message, details) {
    super(message)
    this.status = status
    this.details = details
  }
}

/** A management API call under `/api/projects`; a refused token goes back to the login screen. */
async function api(path, { method = 'GET', body } = {}) {
  const init = { method, headers: { Authorization: `Bearer ${state.token}` } }
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json'
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
  if (response.status === 401) signOut(`That token was refused: ${message}.`)
  throw new ApiError(response.status, message, data?.error?.details)
}

/** The same, under the selected project. */
const papi = (path, init) => api(`/${state.project.id}${path}`, init)

/** Runs an action; its error goes to `onError` (default: the notice). A refused token has already signed out. */
async function guard(action, onError = (message) => notify(message, 'error')) {
  try {
    return await action()
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return undefined
    if (!(error instanceof ApiError)) console.error(error)
    onError(error.message)
    return undefined
  }
}

/** True while the project selected when it was called is still selected. */
function stillCurrent() {
  const generation = state.generation
  return () => generation === state.generation
}

// ---------------------------------------------------------------- sign-in

function decoded(text) {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

function tokenFromHash() {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash)
  if (!match) return null
  history.replaceState(null, '', location.pathname + location.search)
  return decoded(match[1])
}

/** A pasted JWT, `Bearer …`, or a whole dashboard URL with `#token=`. */
function tokenFromText(text) {
  const trimmed = text.trim()
  const inUrl = /#token=([^&\s]+)/.exec(trimmed)
  return inUrl ? decoded(inUrl[1]) : trimmed.replace(/^Bearer\s+/i, '')
}

function showLogin(message) {
  $('dashboard').hidden = true
  $('login').hidden = false
  $('login-error').textContent = message
  $('login-token').focus()
}

function signOut(message) {
  closeEvents()
  state.token = null
  state.project = null
  state.generation++
  sessionStorage.removeItem(TOKEN_KEY)
  showLogin(message)
}

async function signIn(token) {
  state.token = token
  try {
    const { data } = await api('')
    sessionStorage.setItem(TOKEN_KEY, token)
    state.projects = data
    $('login').hidden = true
    $('login-token').value = ''
    $('dashboard').hidden = false
    const saved = Number(sessionStorage.getItem(PROJECT_KEY))
    const project = data.find((p) => p.id === saved) ?? data.find((p) => p.isDefault) ?? data[0]
    $('no-projects').hidden = Boolean(project)
    $('project-main').hidden = !project
    if (project) selectProject(project)
    else renderProjects()
  } catch (error) {
    if (error.status !== 401) showLogin(error.message)
  }
}

// ---------------------------------------------------------------- projects and tabs

function renderProjects() {
  $('project-list').replaceChildren(...state.projects.map((p) => h('li', {},
    h('button', {
      type: 'button', class: 'project', 'data-testid': 'project', 'data-slug': p.slug,
      'aria-current': p.id === state.project?.id ? 'true' : undefined, onclick: () => selectProject(p),
    }, h('span', { class: 'name' }, p.name), h('span', { class: 'muted small' }, `${p.slug} · ${p.endpointCount ?? 0} endpoints`)))))
}

async function refreshProjects() {
  await guard(async () => {
    const { data } = await api('')
    state.projects = data
    renderProjects()
  })
}

function selectProject(project) {
  closeEvents()
  state.generation++
  state.project = project
  sessionStorage.setItem(PROJECT_KEY, String(project.id))
  Object.assign(state, { endpoints: [], resources: [], records: freshRecords(null), requests: [], selectedRequest: null, inbox: [], inboxTotal: 0, subscriptions: [] })
  renderProjects()
  $('project-title').textContent = project.name
  $('project-base').textContent = `${location.origin}/api/${project.slug}/`
  $('inbox-url').textContent = inboxUrl()
  renderRequests()
  renderInbox()
  renderSubscriptions()
  connectEvents()
  loadRequests()
  loadInbox()
  loadSubscriptions()
  activateTab(state.tab)
}

const LOADERS = { endpoints: loadEndpoints, records: loadResources, integrations: loadSubscriptions }

function activateTab(name, { focus = false } = {}) {
  state.tab = TABS.includes(name) ? name : 'endpoints'
  sessionStorage.setItem(TAB_KEY, state.tab)
  for (const tab of TABS) {
    const button = $(`tab-${tab}`)
    const selected = tab === state.tab
    button.setAttribute('aria-selected', String(selected))
    button.tabIndex = selected ? 0 : -1
    $(`panel-${tab}`).hidden = !selected
  }
  if (focus) $(`tab-${state.tab}`).focus()
  if (state.project) LOADERS[state.tab]?.()
}

function onTabKey(event) {
  const index = TABS.indexOf(state.tab)
  const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: TABS.length - 1 }[event.key]
  if (next === undefined) return
  event.preventDefault()
  activateTab(TABS[(next + TABS.length) % TABS.length], { focus: true })
}

// ---------------------------------------------------------------- live events

function setLive(text, kind) {
  $('live').textContent = text
  $('live').dataset.state = kind
}

function closeEvents() {
  state.events?.close()
  state.events = null
  clearTimeout(state.retryTimer)
}

function connectEvents() {
  const current = stillCurrent()
  const source = new EventSource(`/api/projects/${state.project.id}/events?access_token=${encodeURIComponent(state.token)}`)
  state.events = source
  setLive('connecting…', 'wait')
  source.addEventListener('open', () => {
    setLive('live', 'on')
    // What happened before the stream opened, or while it was down.
    loadRequests()
    loadInbox()
    loadSubscriptions()
  })
  source.addEventListener('error', () => {
    if (!current()) return
    if (source.readyState !== EventSource.CLOSED) return setLive('reconnecting…', 'wait')
    // Refused (a token gone bad, the route missing): check the token, then try again.
    setLive('offline', 'off')
    state.retryTimer = setTimeout(async () => {
      if (!current()) return
      await guard(() => api(`/${state.project.id}`), () => {})
      if (current() && state.token) connectEvents()
    }, RETRY_MS)
  })
  const listen = (type, handle) => source.addEventListener(type, (event) => {
    if (current()) handle(JSON.parse(event.data))
  })
  listen('request', onRequest)
  listen('inbox', onInbox)
  listen('delivery', onDelivery)
}

/** `incoming` merged into `list` (newest first, by id), at most `max`. */
function mergeNewest(list, incoming, timeKey, max) {
  const seen = new Set(list.map((item) => item.id))
  const added = incoming.filter((item) => !seen.has(item.id))
  return [...added, ...list].sort((a, b) => String(b[timeKey]).localeCompare(String(a[timeKey]))).slice(0, max)
}

// ---------------------------------------------------------------- endpoints

const EDITABLE = [
  { key: 'status', label: 'Status', testid: 'endpoint-status', step: '1' },
  { key: 'delayMs', label: 'Delay', testid: 'endpoint-delay', min: '0', step: '1' },
  { key: 'errorRate', label: 'Error rate', testid: 'endpoint-error-rate', min: '0', max: '100', step: 'any' },
]

const CURL_BODY = {
  graphql: ['-H', "'content-type: application/json'", '-d', shellQuote('{"query":"{ __typename }"}')],
  soap: ['-H', "'content-type: text/xml'", '--data-binary', '@envelope.xml'],
  json: ['-H', "'content-type: application/json'", '-d', "'{}'"],
}

/** Where the endpoint answers: `/api/{slug}` + its path without a leading `/api` (and without a `#operation`). */
function servedUrl(path) {
  const own = path.split('#')[0].replace(/^\/api(?=\/|$)/, '')
  return `${location.origin}/api/${state.project.slug}${own}`
}

function curlLine(endpoint) {
  if (endpoint.kind === 'grpc') return null
  const parts = ['curl']
  if (endpoint.method !== 'GET') parts.push('-X', endpoint.method)
  parts.push(shellQuote(servedUrl(endpoint.path)))
  if (endpoint.kind === 'graphql' || endpoint.kind === 'soap') parts.push(...CURL_BODY[endpoint.kind])
  else if (['POST', 'PUT', 'PATCH'].includes(endpoint.method)) parts.push(...CURL_BODY.json)
  return parts.join(' ')
}

async function loadEndpoints() {
  const current = stillCurrent()
  await guard(async () => {
    const { data } = await papi('/endpoints')
    if (!current()) return
    state.endpoints = data
    renderEndpoints()
  })
}

function renderEndpoints() {
  $('endpoint-rows').replaceChildren(...state.endpoints.map(endpointRow))
  $('endpoints-empty').hidden = state.endpoints.length > 0
}

function endpointRow(endpoint) {
  const name = `${endpoint.method} ${endpoint.path}`
  const curl = curlLine(endpoint)
  return h('tr', { 'data-testid': 'endpoint-row', 'data-method': endpoint.method, 'data-path': endpoint.path },
    h('td', {}, methodBadge(endpoint.method)),
    h('td', { class: 'path' },
      h('div', { 'data-testid': 'endpoint-path' }, endpoint.path),
      curl
        ? h('div', { class: 'curl' }, h('code', { 'data-testid': 'endpoint-curl' }, curl),
          h('button', { type: 'button', class: 'small', 'aria-label': `Copy curl for ${name}`, onclick: () => copyText(curl, 'the curl line') }, 'Copy'))
        : h('div', { class: 'muted small' }, 'gRPC: call it on the gRPC port')),
    h('td', { class: 'fit', 'data-testid': 'endpoint-kind' }, endpoint.kind),
    ...EDITABLE.map((field) => h('td', { class: 'fit' }, endpointInput(endpoint, field, name))),
    h('td', { class: 'actions' }, dangerButton('Delete', 'Delete?', () => deleteEndpoint(endpoint), { 'data-testid': 'endpoint-delete', 'aria-label': `Delete ${name}` })))
}

function endpointInput(endpoint, field, name) {
  const input = h('input', {
    type: 'number', class: 'num', value: String(endpoint[field.key]), step: field.step, min: field.min, max: field.max,
    'aria-label': `${field.label} of ${name}`, 'data-testid': field.testid,
  })
  input.addEventListener('change', () => saveEndpointField(endpoint, field, input))
  return input
}

async function saveEndpointField(endpoint, field, input) {
  const value = Number(input.value)
  if (input.value.trim() === '' || !Number.isFinite(value)) {
    input.setAttribute('aria-invalid', 'true')
    return notify(`${field.label} must be a number`, 'error')
  }
  await guard(async () => {
    const { data } = await papi(`/endpoints/${endpoint.id}`, { method: 'PATCH', body: { [field.key]: value } })
    Object.assign(endpoint, data)
    input.value = String(data[field.key])
    input.removeAttribute('aria-invalid')
    notify(`Saved: ${field.label.toLowerCase()} of ${endpoint.method} ${endpoint.path} is ${data[field.key]}`)
  }, (message) => {
    input.setAttribute('aria-invalid', 'true')
    notify(message, 'error')
  })
}

async function deleteEndpoint(endpoint) {
  await guard(async () => {
    await papi(`/endpoints/${endpoint.id}`, { method: 'DELETE' })
    state.endpoints = state.endpoints.filter((e) => e.id !== endpoint.id)
    renderEndpoints()
    notify(`Deleted ${endpoint.method} ${endpoint.path}`)
    refreshProjects()
  })
}

// ---------------------------------------------------------------- add resource

let checkTimer = null
let checkSequence = 0

function setCheck(text, kind) {
  $('resource-check').textContent = text
  $('resource-check').dataset.kind = kind ?? ''
}

function scheduleResourceCheck() {
  clearTimeout(checkTimer)
  $('resource-add').disabled = true
  checkTimer = setTimeout(checkResourcePath, 150)
}

async function checkResourcePath() {
  const path = $('resource-path').value.trim()
  const sequence = ++checkSequence
  if (!path) return setCheck('', null)
  await guard(async () => {
    const { data } = await papi(`/resources/check?path=${encodeURIComponent(path)}`)
    if (sequence !== checkSequence) return
    const warnings = data.warnings?.length ? ` (warning: ${data.warnings.join('; ')})` : ''
    if (data.ok) setCheck(`✓ ${data.path} makes five endpoints${warnings}`, 'ok')
    else setCheck(`✗ ${data.message}`, 'bad')
    $('resource-add').disabled = !data.ok
  }, (message) => setCheck(message, 'bad'))
}

/** `name:commerce.productName, price:number.int({"min":1})` → an object; commas inside (), [], {} or quotes stay. */
function parseFields(text) {
  const parts = []
  let depth = 0
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
  const fields = {}
  for (const part of parts.map((p) => p.trim()).filter(Boolean)) {
    const colon = part.indexOf(':')
    if (colon < 1 || !part.slice(colon + 1).trim()) throw new Error(`field "${part}" must look like name:generator, e.g. title:lorem.sentence`)
    fields[part.slice(0, colon).trim()] = part.slice(colon + 1).trim()
  }
  return Object.keys(fields).length ? fields : undefined
}

async function submitResource(event) {
  event.preventDefault()
  let fields
  try {
    fields = parseFields($('resource-fields').value)
  } catch (error) {
    return setCheck(error.message, 'bad')
  }
  const seed = $('resource-seed').value.trim()
  const body = { path: $('resource-path').value.trim(), ...(fields ? { fields } : {}), ...(seed ? { seed: Number(seed) } : {}) }
  await guard(async () => {
    const { data } = await papi('/resources', { method: 'POST', body })
    $('resource-form').reset()
    $('resource-add').disabled = true
    const warnings = data.warnings?.length ? ` Warning: ${data.warnings.join('; ')}` : ''
    setCheck(`Added ${data.resource.path} with ${data.endpoints.length} endpoints.${warnings}`, 'ok')
    await loadEndpoints()
    refreshProjects()
  }, (message) => setCheck(message, 'bad'))
}

// ---------------------------------------------------------------- records

async function loadResources() {
  const current = stillCurrent()
  await guard(async () => {
    const { data } = await papi('/resources')
    if (!current()) return
    state.resources = data
    if (!data.some((r) => r.id === state.records.resourceId)) state.records = freshRecords(data[0]?.id ?? null)
    $('record-resource').replaceChildren(...data.map((r) => h('option', { value: String(r.id) }, `${r.path} (${r.recordCount} records)`)))
    $('record-resource').value = String(state.records.resourceId ?? '')
    $('record-filter').value = state.records.filter
    await loadRecords()
  })
}

function recordsQuery() {
  const r = state.records
  const params = new URLSearchParams(r.filter.trim().replace(/^\?/, ''))
  params.delete('page')
  params.delete('limit')
  if (r.sort) {
    params.set('sort', r.sort)
    params.set('order', r.order)
  }
  params.set('page', String(r.page))
  params.set('limit', String(r.limit))
  return params.toString()
}

async function loadRecords() {
  const r = state.records
  const current = stillCurrent()
  if (r.resourceId === null) return renderRecords()
  await guard(async () => {
    const { data, headers } = await papi(`/resources/${r.resourceId}/records?${recordsQuery()}`)
    if (!current() || r !== state.records) return
    r.rows = data
    r.total = Number(headers.get('X-Total-Count') ?? data.length)
    $('records-error').textContent = ''
    renderRecords()
  }, (message) => {
    $('records-error').textContent = message
  })
}

function recordColumns(rows) {
  const columns = ['id']
  for (const row of rows) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key)
  return columns
}

function renderRecords() {
  const r = state.records
  if (r.rows.length) r.columns = recordColumns(r.rows)
  $('record-head').replaceChildren(h('tr', {}, ...r.columns.map(sortHeader), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions'))))
  $('record-rows').replaceChildren(...r.rows.map((row) => recordRow(row, r.columns)))
  $('records-empty').hidden = r.rows.length > 0
  $('records-empty').textContent = r.resourceId === null ? 'No resources yet: add one on the Endpoints tab.' : 'No records match.'
  const pages = Math.max(1, Math.ceil(r.total / r.limit))
  $('page-info').textContent = `Page ${r.page} of ${pages} · ${r.total} record${r.total === 1 ? '' : 's'}`
  $('page-prev').disabled = r.page <= 1
  $('page-next').disabled = r.page >= pages
}

function sortHeader(column) {
  const r = state.records
  const active = r.sort === column
  return h('th', { scope: 'col', 'aria-sort': active ? (r.order === 'asc' ? 'ascending' : 'descending') : 'none' },
    h('button', { type: 'button', class: 'sort', 'data-testid': `sort-${column}`, onclick: () => sortBy(column) },
      column, active ? (r.order === 'asc' ? ' ▲' : ' ▼') : ''))
}

function sortBy(column) {
  const r = state.records
  r.order = r.sort === column && r.order === 'asc' ? 'desc' : 'asc'
  r.sort = column
  r.page = 1
  loadRecords()
}

function cellText(value) {
  if (value === undefined) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

function recordRow(row, columns) {
  const id = String(row.id)
  return h('tr', { 'data-testid': 'record-row', 'data-id': id },
    ...columns.map((column) => {
      const text = cellText(row[column])
      return h('td', { title: text.length > 40 ? text : undefined }, text)
    }),
    h('td', { class: 'actions' },
      h('button', { type: 'button', 'data-testid': 'record-edit', 'aria-label': `Edit record ${id}`, onclick: () => openEditor(row) }, 'Edit'),
      dangerButton('Delete', 'Delete?', () => deleteRecord(row), { 'data-testid': 'record-delete', 'aria-label': `Delete record ${id}` })))
}

const recordsBase = () => `/resources/${state.records.resourceId}/records`

function openEditor(row) {
  state.records.editing = row ? String(row.id) : null
  $('record-editor-title').textContent = row ? `Record ${row.id} (JSON)` : 'New record (JSON)'
  $('record-json').value = JSON.stringify(row ?? {}, null, 2)
  $('record-editor-error').textContent = ''
  $('record-editor').hidden = false
  $('record-json').focus()
}

function closeEditor() {
  state.records.editing = undefined
  $('record-editor').hidden = true
}

async function saveRecord(event) {
  event.preventDefault()
  let value
  try {
    value = JSON.parse($('record-json').value)
  } catch (error) {
    $('record-editor-error').textContent = `Not valid JSON: ${error.message}`
    return
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    $('record-editor-error').textContent = 'A record is a JSON object: { … }'
    return
  }
  const id = state.records.editing
  await guard(async () => {
    if (id === null) await papi(recordsBase(), { method: 'POST', body: value })
    else await papi(`${recordsBase()}/${encodeURIComponent(id)}`, { method: 'PUT', body: value })
    closeEditor()
    notify(id === null ? 'Record created' : `Record ${id} saved`)
    await loadRecords()
  }, (message) => {
    $('record-editor-error').textContent = message
  })
}

async function deleteRecord(row) {
  await guard(async () => {
    await papi(`${recordsBase()}/${encodeURIComponent(String(row.id))}`, { method: 'DELETE' })
    notify(`Record ${row.id} deleted`)
    await loadRecords()
  })
}

async function resetRecords() {
  await guard(async () => {
    const { data } = await papi('/reset', { method: 'POST' })
    notify(`Reset ${data.records} records in ${data.collections} collections to their seeded state`)
    await loadResources()
  })
}

// ---------------------------------------------------------------- live requests

function queryString(query) {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query ?? {})) for (const item of [].concat(value)) params.append(key, String(item))
  const text = params.toString()
  return text ? `?${text}` : ''
}

const displayPath = (entry) => (entry.path.includes('?') ? entry.path : entry.path + queryString(entry.query))

async function loadRequests() {
  const current = stillCurrent()
  await guard(async () => {
    const { data } = await papi('/requests')
    if (!current()) return
    state.requests = mergeNewest(state.requests, data, 'time', MAX_REQUESTS)
    renderRequests()
  })
}

function onRequest(entry) {
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

function renderRequests() {
  $('request-rows').replaceChildren(...state.requests.map(requestRow))
  renderRequestCount()
  renderRequestDetail()
}

function renderRequestCount() {
  const n = state.requests.length
  $('requests-empty').hidden = n > 0
  $('request-count').textContent = n ? `${n} request${n === 1 ? '' : 's'}, newest first (the server keeps the last ${MAX_REQUESTS}). Click one for its headers and bodies.` : ''
}

function requestRow(entry) {
  return h('tr', {
    'data-testid': 'request-row', 'data-id': String(entry.id), class: `clickable${entry.id === state.selectedRequest ? ' selected' : ''}`,
    onclick: () => showRequest(entry.id),
  },
  h('td', { class: 'time' }, h('time', { dateTime: entry.time }, clock(entry.time))),
  h('td', {}, methodBadge(entry.method)),
  h('td', { class: 'path' }, h('button', { type: 'button', class: 'link', 'data-testid': 'request-open' }, displayPath(entry))),
  h('td', { 'data-testid': 'request-status' }, statusBadge(entry.status)),
  h('td', { class: 'num' }, ms(entry.durationMs)))
}

function showRequest(id) {
  state.selectedRequest = id
  for (const row of $('request-rows').children) row.classList.toggle('selected', row.dataset.id === String(id))
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
    h('p', { class: 'muted' }, statusBadge(entry.status), ` ${ms(entry.durationMs)} · ${dateTime(entry.time)}`),
    exchangePart('Request', entry.request, 'detail-request'),
    exchangePart('Response', entry.response, 'detail-response'))
}

function exchangePart(title, part, testid) {
  return h('section', { 'data-testid': testid },
    h('h3', {}, title),
    headersTable(part?.headers),
    h('pre', { class: 'body', 'data-testid': `${testid}-body` }, prettyText(part?.body)))
}

// ---------------------------------------------------------------- inbox

const inboxUrl = () => `${location.origin}/api/webhooks/inbox/${state.project.shareToken}`

async function loadInbox() {
  const current = stillCurrent()
  await guard(async () => {
    const { data, headers } = await papi(`/webhook-inbox?limit=${INBOX_PAGE}`)
    if (!current()) return
    state.inbox = mergeNewest(state.inbox, data, 'receivedAt', INBOX_PAGE)
    state.inboxTotal = Number(headers.get('X-Total-Count') ?? data.length)
    renderInbox()
  })
}

function onInbox(payload) {
  if (state.inbox.some((p) => p.id === payload.id)) return
  state.inbox.unshift(payload)
  state.inboxTotal++
  $('inbox-list').prepend(inboxItem(payload))
  renderInboxCount()
}

function renderInbox() {
  $('inbox-list').replaceChildren(...state.inbox.map(inboxItem))
  renderInboxCount()
}

function renderInboxCount() {
  const n = state.inboxTotal
  $('inbox-count').textContent = n ? `${n} payload${n === 1 ? '' : 's'} received, newest first` : 'Nothing received yet. New payloads appear here as they arrive.'
}

function inboxItem(item) {
  const body = JSON.stringify(item.body, null, 2) ?? ''
  const count = Object.keys(item.headers ?? {}).length
  return h('li', { class: 'card', 'data-testid': 'inbox-item', 'data-id': String(item.id) },
    h('div', { class: 'card-head' },
      h('time', { dateTime: item.receivedAt }, dateTime(item.receivedAt)),
      h('span', { class: 'muted small' }, `${item.sizeBytes} bytes${item.sourceIp ? ` from ${item.sourceIp}` : ''}`),
      h('span', { class: 'spacer' }),
      h('button', { type: 'button', class: 'small', 'data-testid': 'inbox-copy', onclick: () => copyText(body, 'the payload') }, 'Copy')),
    h('details', {}, h('summary', {}, `Headers (${count})`), headersTable(item.headers)),
    h('pre', { class: 'body', 'data-testid': 'inbox-body' }, body))
}

async function clearInbox() {
  await guard(async () => {
    await papi('/webhook-inbox', { method: 'DELETE' })
    state.inbox = []
    state.inboxTotal = 0
    renderInbox()
    notify('Inbox cleared')
  })
}

// ---------------------------------------------------------------- integrations

async function loadSubscriptions() {
  const current = stillCurrent()
  await guard(async () => {
    const { data } = await papi('/webhooks?deliveries=true')
    if (!current()) return
    state.subscriptions = data
    renderSubscriptions()
  })
}

function renderSubscriptions() {
  state.deliveryBoxes.clear()
  $('sub-list').replaceChildren(...state.subscriptions.map(subscriptionCard))
  $('subs-empty').hidden = state.subscriptions.length > 0
}

function subscriptionCard(sub) {
  const enabled = h('input', { type: 'checkbox', role: 'switch', checked: sub.enabled, 'data-testid': 'sub-enabled' })
  enabled.addEventListener('change', () => setEnabled(sub, enabled))
  const box = h('div', { class: 'deliveries', 'aria-live': 'polite' }, deliveriesTable(sub))
  state.deliveryBoxes.set(sub.id, box)
  return h('li', { class: 'card', 'data-testid': 'subscription', 'data-id': String(sub.id), 'data-name': sub.name },
    h('div', { class: 'card-head' },
      h('h3', {}, sub.name),
      h('label', { class: 'switch' }, enabled, ' Enabled'),
      h('span', { class: 'spacer' }),
      dangerButton('Delete', 'Delete?', () => deleteSubscription(sub), { 'data-testid': 'sub-delete', 'aria-label': `Delete subscription ${sub.name}` })),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Target'), h('dd', {}, h('code', { 'data-testid': 'sub-target' }, sub.targetUrl)),
      h('dt', {}, 'Events'), h('dd', {}, sub.events.join(', ')),
      h('dt', {}, 'Secret'), h('dd', {}, secretField(sub))),
    h('h4', {}, 'Deliveries'),
    box)
}

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
      h('td', {}, h('span', { class: a.succeeded ? 'ok' : 'bad', 'data-testid': 'delivery-result' }, a.succeeded ? 'succeeded' : 'failed')),
      h('td', { class: 'error-text' }, a.error ?? ''),
      h('td', { class: 'num' }, ms(a.durationMs)),
      h('td', {}, h('button', { type: 'button', class: 'small', 'data-testid': 'delivery-redeliver', 'aria-label': `Redeliver attempt ${a.attempt} of ${a.eventType}`, onclick: () => redeliver(a) }, 'Redeliver')))))))
}

/** A `delivery` event: fetch that subscription's log again (several attempts at once: once). */
function onDelivery(event) {
  const sub = state.subscriptions.find((s) => s.id === event.subscriptionId)
  if (!sub) return loadSubscriptions()
  if (state.deliveryTimers.has(sub.id)) return
  const current = stillCurrent()
  state.deliveryTimers.set(sub.id, setTimeout(async () => {
    state.deliveryTimers.delete(sub.id)
    await guard(async () => {
      const { data } = await papi(`/webhooks/${sub.id}/deliveries`)
      if (!current()) return
      sub.deliveries = data
      state.deliveryBoxes.get(sub.id)?.replaceChildren(deliveriesTable(sub))
    })
  }, 100))
}

async function submitSubscription(event) {
  event.preventDefault()
  const form = $('sub-form')
  const events = [...form.querySelectorAll('input[name=events]:checked')].map((input) => input.value)
  if (!events.length) {
    $('sub-error').textContent = 'Pick at least one event.'
    return
  }
  const body = { name: $('sub-name').value.trim(), targetUrl: $('sub-url').value.trim(), events }
  await guard(async () => {
    const { data } = await papi('/webhooks', { method: 'POST', body })
    form.reset()
    $('sub-error').textContent = ''
    notify(`Subscription ${data.name} added`)
    await loadSubscriptions()
  }, (message) => {
    $('sub-error').textContent = message
  })
}

async function setEnabled(sub, input) {
  await guard(async () => {
    const { data } = await papi(`/webhooks/${sub.id}`, { method: 'PATCH', body: { enabled: input.checked } })
    Object.assign(sub, data)
    notify(`${sub.name} is ${data.enabled ? 'on' : 'off'}`)
  }, (message) => {
    input.checked = sub.enabled
    notify(message, 'error')
  })
}

async function deleteSubscription(sub) {
  await guard(async () => {
    await papi(`/webhooks/${sub.id}`, { method: 'DELETE' })
    notify(`Subscription ${sub.name} deleted`)
    await loadSubscriptions()
  })
}

async function redeliver(attempt) {
  await guard(async () => {
    await papi(`/deliveries/${attempt.id}/redeliver`, { method: 'POST' })
    notify(`${attempt.eventType} queued again`)
  })
}

// ---------------------------------------------------------------- wiring

function wire() {
  $('login-form').addEventListener('submit', (event) => {
    event.preventDefault()
    const token = tokenFromText($('login-token').value)
    if (!token) return showLogin('Paste a token first.')
    signIn(token)
  })
  $('sign-out').addEventListener('click', () => signOut('Signed out.'))
  for (const tab of TABS) $(`tab-${tab}`).addEventListener('click', () => activateTab(tab))
  $('tabs').addEventListener('keydown', onTabKey)

  $('resource-path').addEventListener('input', scheduleResourceCheck)
  $('resource-form').addEventListener('submit', submitResource)

  $('record-resource').addEventListener('change', () => {
    state.records = freshRecords(Number($('record-resource').value))
    $('record-filter').value = ''
    closeEditor()
    loadRecords()
  })
  $('record-filter-form').addEventListener('submit', (event) => {
    event.preventDefault()
    state.records.filter = $('record-filter').value
    state.records.page = 1
    loadRecords()
  })
  $('page-prev').addEventListener('click', () => { state.records.page--; loadRecords() })
  $('page-next').addEventListener('click', () => { state.records.page++; loadRecords() })
  $('page-size').addEventListener('change', () => {
    state.records.limit = Number($('page-size').value)
    state.records.page = 1
    loadRecords()
  })
  $('record-new').addEventListener('click', () => state.records.resourceId !== null && openEditor(null))
  $('record-editor').addEventListener('submit', saveRecord)
  $('record-json').addEventListener('input', () => ($('record-editor-error').textContent = ''))
  $('record-cancel').addEventListener('click', closeEditor)
  confirming($('records-reset'), 'Reset all records?', resetRecords)

  $('inbox-copy-url').addEventListener('click', () =>
    copyText(`curl -X POST ${shellQuote(inboxUrl())} -H 'content-type: application/json' -d '{"event":"test"}'`, 'the curl line'))
  confirming($('inbox-clear'), 'Clear all?', clearInbox)

  $('sub-form').addEventListener('submit', submitSubscription)
}

function start() {
  wire()
  state.tab = sessionStorage.getItem(TAB_KEY) ?? 'endpoints'
  const fromHash = tokenFromHash()
  if (fromHash) sessionStorage.setItem(TOKEN_KEY, fromHash)
  const token = sessionStorage.getItem(TOKEN_KEY)
  if (token) signIn(token)
  else showLogin('')
  // A banner URL pasted into a tab already open on the dashboard changes only the fragment.
  window.addEventListener('hashchange', () => {
    const fresh = tokenFromHash()
    if (fresh && fresh !== state.token) {
      closeEvents()
      signIn(fresh)
    }
  })
}

start()
