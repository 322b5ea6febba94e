// @ts-check
// Building the page. Everything the server sends (paths, payloads, headers, names) is user data:
// it reaches the page only as text nodes and `textContent`, never as HTML.

import { ApiError } from './api.js'
import { stillCurrent } from './state.js'

/**
 * The element with this id, of this type (the page is ours: anything else is a bug worth a throw).
 * @template {HTMLElement} T
 * @param {string} id
 * @param {{ new (): T, prototype: T }} type
 * @returns {T}
 */
export function byId(id, type) {
  const element = document.getElementById(id)
  if (!(element instanceof type)) throw new Error(`the page has no ${type.name} #${id}`)
  return element
}

/** @param {string} id */
export const $ = (id) => byId(id, HTMLElement)
/** @param {string} id */
export const input = (id) => byId(id, HTMLInputElement)
/** @param {string} id */
export const button = (id) => byId(id, HTMLButtonElement)
/** @param {string} id */
export const form = (id) => byId(id, HTMLFormElement)
/** @param {string} id */
export const select = (id) => byId(id, HTMLSelectElement)
/** @param {string} id */
export const textArea = (id) => byId(id, HTMLTextAreaElement)

/** @typedef {Node | string | number | null | undefined | false} Child */
/** @typedef {Record<string, unknown>} Props */

/**
 * An element: `on…` props listen, `class`/`role`/`for`/dashed names are attributes, the rest
 * properties; strings become text.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Props} [props]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue
    if (key.startsWith('on')) el.addEventListener(key.slice(2), /** @type {EventListener} */ (value))
    else if (key === 'class') el.className = String(value)
    else if (key === 'role' || key === 'for' || key.includes('-')) el.setAttribute(key, value === true ? '' : String(value))
    // A property named by the caller (value, checked, type…): no static type covers every tag's.
    else /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (el))[key] = value
  }
  /** @type {(Node | string)[]} */
  const nodes = []
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue
    nodes.push(child instanceof Node ? child : String(child))
  }
  el.append(...nodes)
  return el
}

/**
 * A button that asks once more ("Delete?") before it acts.
 * @param {HTMLButtonElement} target
 * @param {string} question
 * @param {() => unknown} action
 */
export function confirming(target, question, action) {
  const label = target.textContent
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer
  target.addEventListener('click', async () => {
    if (!timer) {
      target.textContent = question
      target.dataset.armed = 'true'
      timer = setTimeout(() => disarm(), 4000)
      return
    }
    disarm()
    await action()
  })
  function disarm() {
    clearTimeout(timer)
    timer = undefined
    target.textContent = label
    delete target.dataset.armed
  }
  return target
}

/**
 * @param {string} label
 * @param {string} question
 * @param {() => unknown} action
 * @param {Props} [props]
 */
export function dangerButton(label, question, action, props = {}) {
  return confirming(h('button', { type: 'button', class: 'danger', ...props }, label), question, action)
}

/**
 * @param {number} n
 * @param {number} [width]
 */
const pad = (n, width = 2) => String(n).padStart(width, '0')

/** @param {string} iso */
export function clock(iso) {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return String(iso ?? '')
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
}

/** @param {string} iso */
export function dateTime(iso) {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return String(iso ?? '')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock(iso)}`
}

/**
 * Durations may be fractional: one decimal below 10 ms, whole ms above.
 * @param {number} value
 */
export const ms = (value) => `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`

/** @param {number} status */
const statusClass = (status) => (status >= 500 ? 's5' : status >= 400 ? 's4' : status >= 300 ? 's3' : 's2')

/** @param {number} status */
export function statusBadge(status) {
  return h('span', { class: `status ${statusClass(status)}` }, String(status))
}

/** @param {string} method */
export function methodBadge(method) {
  return h('span', { class: `method m-${String(method).toLowerCase()}` }, method)
}

/**
 * A body as text: JSON pretty-printed, anything else as it came.
 * @param {string | null | undefined} text
 */
export function prettyText(text) {
  if (text === null || text === undefined || text === '') return '(no body)'
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

/** @param {Record<string, string | string[]> | undefined} headers */
export function headersTable(headers) {
  const entries = Object.entries(headers ?? {})
  if (!entries.length) return h('p', { class: 'muted' }, 'No headers')
  return h('table', { class: 'headers' }, h('tbody', {}, entries.map(([name, value]) =>
    h('tr', {}, h('th', { scope: 'row' }, name), h('td', {}, Array.isArray(value) ? value.join(', ') : String(value))))))
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let noticeTimer
/**
 * @param {string} message
 * @param {'ok' | 'error'} [kind]
 */
export function notify(message, kind = 'ok') {
  const el = $('notice')
  el.textContent = message
  el.dataset.kind = kind
  clearTimeout(noticeTimer)
  noticeTimer = setTimeout(() => (el.textContent = ''), 6000)
}

/** @param {string} message */
export const notifyError = (message) => notify(message, 'error')

/**
 * Runs an action; its error goes to `onError` (by default the notice). A refused token has already
 * signed out.
 * @template T
 * @param {() => Promise<T>} action
 * @param {(message: string) => void} [onError]
 * @returns {Promise<T | undefined>}
 */
export async function guard(action, onError = notifyError) {
  try {
    return await action()
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return undefined
    if (!(error instanceof ApiError)) console.error(error)
    onError(error instanceof Error ? error.message : String(error))
    return undefined
  }
}

/**
 * Fetches for the project selected now and hands the answer on only if it still is (a slow answer
 * for a project left meanwhile is dropped); a refusal shows as `guard` shows it.
 * @template T
 * @param {() => Promise<T>} fetch
 * @param {(value: T) => void} use
 */
export async function loadForProject(fetch, use) {
  const current = stillCurrent()
  await guard(async () => {
    const value = await fetch()
    if (current()) use(value)
  })
}

/**
 * @param {string} text
 * @param {string} what
 */
export async function copyText(text, what) {
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

/** @param {string} text */
export const shellQuote = (text) => `'${text.replaceAll("'", "'\\''")}'`
