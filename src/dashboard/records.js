// @ts-check
// The Records tab: a resource's records, filtered, sorted and paged; edit, add, delete, reset.

import { deleteRecord as removeRecord, listRecords, listResources, resetRecords as resetAll, saveRecord as storeRecord } from './api.js'
import { $, button, dangerButton, form, guard, h, input, notify, select, textArea, confirming } from './dom.js'
import { freshRecords, state, stillCurrent } from './state.js'

/** @typedef {import('./api.js').RecordRow} RecordRow */

export async function loadResources() {
  const current = stillCurrent()
  await guard(async () => {
    // A singular resource's object is no record: it is read and written at its own path.
    const resources = (await listResources()).filter((r) => !r.singular)
    if (!current()) return
    state.resources = resources
    if (!resources.some((r) => r.id === state.records.resourceId)) state.records = freshRecords(resources[0]?.id ?? null)
    select('record-resource').replaceChildren(...resources.map((r) => h('option', { value: String(r.id) }, `${r.path} (${r.recordCount} records)`)))
    select('record-resource').value = String(state.records.resourceId ?? '')
    input('record-filter').value = state.records.filter
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
  const resourceId = r.resourceId
  if (resourceId === null) return renderRecords()
  await guard(async () => {
    const { rows, total } = await listRecords(resourceId, recordsQuery())
    if (!current() || r !== state.records) return
    r.rows = rows
    r.total = total
    $('records-error').textContent = ''
    renderRecords()
  }, (message) => {
    $('records-error').textContent = message
  })
}

/** @param {RecordRow[]} rows */
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
  button('page-prev').disabled = r.page <= 1
  button('page-next').disabled = r.page >= pages
}

/** @param {string} column */
function sortHeader(column) {
  const r = state.records
  const active = r.sort === column
  return h('th', { scope: 'col', 'aria-sort': active ? (r.order === 'asc' ? 'ascending' : 'descending') : 'none' },
    h('button', { type: 'button', class: 'sort', 'data-testid': `sort-${column}`, onclick: () => sortBy(column) },
      column, active ? (r.order === 'asc' ? ' ▲' : ' ▼') : ''))
}

/** @param {string} column */
function sortBy(column) {
  const r = state.records
  r.order = r.sort === column && r.order === 'asc' ? 'desc' : 'asc'
  r.sort = column
  r.page = 1
  loadRecords()
}

/** @param {unknown} value */
function cellText(value) {
  if (value === undefined) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/**
 * @param {RecordRow} row
 * @param {string[]} columns
 */
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

/** @param {RecordRow | null} row */
function openEditor(row) {
  state.records.editing = row ? String(row.id) : null
  $('record-editor-title').textContent = row ? `Record ${row.id} (JSON)` : 'New record (JSON)'
  textArea('record-json').value = JSON.stringify(row ?? {}, null, 2)
  $('record-editor-error').textContent = ''
  $('record-editor').hidden = false
  textArea('record-json').focus()
}

function closeEditor() {
  state.records.editing = undefined
  $('record-editor').hidden = true
}

/** @param {SubmitEvent} event */
async function saveRecord(event) {
  event.preventDefault()
  let value
  try {
    value = JSON.parse(textArea('record-json').value)
  } catch (error) {
    $('record-editor-error').textContent = `Not valid JSON: ${error instanceof Error ? error.message : String(error)}`
    return
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    $('record-editor-error').textContent = 'A record is a JSON object: { … }'
    return
  }
  const id = state.records.editing
  const resourceId = state.records.resourceId
  if (id === undefined || resourceId === null) return
  await guard(async () => {
    await storeRecord(resourceId, id, value)
    closeEditor()
    notify(id === null ? 'Record created' : `Record ${id} saved`)
    await loadRecords()
  }, (message) => {
    $('record-editor-error').textContent = message
  })
}

/** @param {RecordRow} row */
async function deleteRecord(row) {
  const resourceId = state.records.resourceId
  if (resourceId === null) return
  await guard(async () => {
    await removeRecord(resourceId, String(row.id))
    notify(`Record ${row.id} deleted`)
    await loadRecords()
  })
}

async function resetRecords() {
  await guard(async () => {
    const reset = await resetAll()
    notify(`Reset ${reset.records} records in ${reset.collections} collections to their seeded state`)
    await loadResources()
  })
}

/** Listens to the tab's own controls. */
export function wireRecords() {
  select('record-resource').addEventListener('change', () => {
    state.records = freshRecords(Number(select('record-resource').value))
    input('record-filter').value = ''
    closeEditor()
    loadRecords()
  })
  form('record-filter-form').addEventListener('submit', (event) => {
    event.preventDefault()
    state.records.filter = input('record-filter').value
    state.records.page = 1
    loadRecords()
  })
  button('page-prev').addEventListener('click', () => { state.records.page--; loadRecords() })
  button('page-next').addEventListener('click', () => { state.records.page++; loadRecords() })
  select('page-size').addEventListener('change', () => {
    state.records.limit = Number(select('page-size').value)
    state.records.page = 1
    loadRecords()
  })
  button('record-new').addEventListener('click', () => state.records.resourceId !== null && openEditor(null))
  form('record-editor').addEventListener('submit', saveRecord)
  textArea('record-json').addEventListener('input', () => ($('record-editor-error').textContent = ''))
  button('record-cancel').addEventListener('click', closeEditor)
  confirming(button('records-reset'), 'Reset all records?', resetRecords)
}
