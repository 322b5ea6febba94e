// @ts-check
// The Import action of the Endpoints tab: an OpenAPI, GraphQL, gRPC or SOAP document, a json-server
// db.json, a HAR file or a Postman collection, from a file, pasted text or a URL, through
// `POST /api/projects/{id}/imports`.

import { importDocument, listImportFormats } from './api.js'
import { $, button, form, guard, h, input, notify, select, textArea } from './dom.js'
import { loadEndpoints } from './endpoints.js'
import { refreshProjects } from './projects.js'

/** @typedef {import('./api.js').ImportRequest} ImportRequest */
/** @typedef {import('./api.js').ImportResult} ImportResult */
/** @typedef {import('./api.js').EndpointView} EndpointView */

/** The formats the server imports (`GET …/imports/formats`), asked for when the panel first opens. */
/** @type {NonNullable<ImportRequest['format']>[]} */
let formats = []

async function loadFormats() {
  if (formats.length > 0) return
  await guard(async () => {
    const offered = await listImportFormats()
    formats = offered.map((format) => format.name)
    select('import-format').append(...offered.map((format) => h('option', { value: format.name }, format.described)))
  }, setError)
}

/** @type {readonly ['created' | 'updated' | 'kept' | 'removed', string][]} */
const GROUPS = [['created', 'Created'], ['updated', 'Updated'], ['kept', 'Kept'], ['removed', 'Removed']]

/** @param {string} text */
function setError(text) {
  $('import-error').textContent = text
}

/**
 * What the form asks for, as the API takes it; a file chosen is read here (its text is the document).
 * @returns {Promise<ImportRequest | string>} the request, or why there is none
 */
async function requestFromForm() {
  const file = input('import-file').files?.[0]
  const text = file ? await file.text() : textArea('import-text').value
  const url = input('import-url').value.trim()
  if (!text.trim() && !url) return 'Pick a file, paste a document or give its URL.'
  /** @type {ImportRequest} */
  const request = {}
  if (text.trim()) request.text = text
  // The file's name says its format by extension and titles the import, as `mockapi import <file>` does.
  if (file && text.trim()) request.filename = file.name
  if (url) request.url = url
  const format = formats.find((name) => name === select('import-format').value)
  if (format) request.format = format
  const title = input('import-title').value.trim()
  if (title) request.title = title
  if (input('import-stateful').checked) request.stateful = true
  if (input('import-replace').checked) request.replace = true
  if (input('import-strict').checked) request.strict = true
  const seed = input('import-seed').value.trim()
  if (seed) request.seed = Number(seed)
  return request
}

/** @param {EndpointView} endpoint */
const endpointItem = (endpoint) => h('li', { 'data-method': endpoint.method, 'data-path': endpoint.path }, h('code', {}, `${endpoint.method} ${endpoint.path}`))

/** @param {ImportResult} result */
function renderResult(result) {
  const counts = GROUPS.map(([key, label]) => `${result[key].length} ${label.toLowerCase()}`).join(', ')
  $('import-result').replaceChildren(
    h('p', { 'data-testid': 'import-summary' }, `Imported ${result.import.title} (${result.import.format}): ${counts}.`),
    ...GROUPS.filter(([key]) => result[key].length > 0).map(([key, label]) => h('details', { 'data-testid': `import-${key}`, open: key !== 'kept' },
      h('summary', {}, `${label} (${result[key].length})`),
      h('ul', { class: 'plain' }, result[key].map(endpointItem)))),
    ...(result.warnings.length
      ? [h('ul', { class: 'warnings', 'data-testid': 'import-warnings' }, result.warnings.map((warning) => h('li', {}, `Warning: ${warning}`)))]
      : []))
}

/** @param {SubmitEvent} event */
async function submitImport(event) {
  event.preventDefault()
  setError('')
  const request = await requestFromForm()
  if (typeof request === 'string') return setError(request)
  const submit = button('import-submit')
  submit.disabled = true
  $('import-result').replaceChildren()
  await guard(async () => {
    const result = await importDocument(request)
    form('import-form').reset()
    renderResult(result)
    notify(`Imported ${result.import.title}`)
    await loadEndpoints()
    refreshProjects()
  }, setError)
  submit.disabled = false
}

/** Listens to the form: a file chosen shows its text; typing text instead forgets the file. */
export function wireImport() {
  $('import-panel').addEventListener('toggle', loadFormats)
  form('import-form').addEventListener('submit', submitImport)
  input('import-file').addEventListener('change', async () => {
    const file = input('import-file').files?.[0]
    if (file) textArea('import-text').value = await file.text()
  })
  textArea('import-text').addEventListener('input', () => {
    input('import-file').value = ''
  })
}
