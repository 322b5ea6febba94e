// @ts-check
// "Create an endpoint from this request", on a request's detail in the Requests tab: a small form
// filled from the request, posted to the management API, which judges it; a refusal shows in the form.

import { createEndpoint } from './api.js'
import { guard, h } from './dom.js'
import { refreshProjects } from './projects.js'
import { currentProject } from './state.js'

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']
const DIGITS = /^[0-9]+$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The endpoint path a request's path suggests, relative to the project: a request served under
 * `/api/{slug}` reads as the `/api/…` path that is served there (what the path rules ask for), one
 * at the default project's own paths as it came; the query cut off. `parameterised` has each
 * all-digit or uuid segment as a parameter (`:id`, then `:id2`…), so the endpoint answers its siblings too.
 * @param {string} requestPath
 * @param {string} slug
 * @returns {{ asSent: string, parameterised: string }}
 */
export function suggestedPath(requestPath, slug) {
  const path = requestPath.split('?')[0] || '/'
  const base = `/api/${slug}`
  const asSent = path === base || path.startsWith(`${base}/`) ? `/api${path.slice(base.length)}` : path
  let ids = 0
  const parameterised = asSent.split('/').map((segment) => {
    if (!DIGITS.test(segment) && !UUID.test(segment)) return segment
    ids += 1
    return ids === 1 ? ':id' : `:id${ids}`
  }).join('/')
  return { asSent, parameterised }
}

/**
 * The form, folded until opened: the request's method and path, status 200 and body `{}`.
 * @param {string} method
 * @param {string} requestPath
 */
export function endpointFromRequest(method, requestPath) {
  const { asSent, parameterised } = suggestedPath(requestPath, currentProject().slug)
  const upper = method.toUpperCase()
  // A method the API does not take (HEAD, OPTIONS) is still offered as sent: the API says why not.
  const methodSelect = h('select', { name: 'method', 'data-testid': 'create-endpoint-method' },
    [...new Set([...METHODS, upper])].map((name) => h('option', { value: name, selected: name === upper }, name)))
  const pathInput = h('input', { name: 'path', value: parameterised, autocomplete: 'off', spellcheck: false, 'data-testid': 'create-endpoint-path' })
  const statusInput = h('input', { name: 'status', type: 'number', step: 1, class: 'num', value: '200', 'data-testid': 'create-endpoint-status' })
  const bodyInput = h('textarea', { name: 'body', rows: 3, value: '{}', spellcheck: false, 'data-testid': 'create-endpoint-body' })
  const submit = h('button', { type: 'submit', class: 'primary', 'data-testid': 'create-endpoint-submit' }, 'Create endpoint')
  const result = h('p', { class: 'check', 'aria-live': 'polite', 'data-testid': 'create-endpoint-result' })
  /**
   * @param {string} message
   * @param {'ok' | 'bad'} kind
   */
  const say = (message, kind) => {
    result.textContent = message
    result.dataset.kind = kind
  }
  const asSentChoice = asSent === parameterised ? null : h('p', { class: 'muted small' },
    'Digits and uuids are offered as parameters; ',
    h('button', { type: 'button', class: 'link', 'data-testid': 'create-endpoint-as-sent', onclick: () => { pathInput.value = asSent } }, `use ${asSent}`),
    ' to answer this path only.')

  const form = h('form', { 'data-testid': 'create-endpoint-form' },
    h('div', { class: 'fields' },
      h('label', {}, 'Method', methodSelect),
      h('label', { class: 'grow' }, 'Path', pathInput),
      h('label', {}, 'Status', statusInput)),
    asSentChoice,
    h('label', {}, 'Body (JSON)', bodyInput),
    h('div', { class: 'buttons' }, submit),
    result)
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    /** @type {{ method: string, path: string, status?: number, body?: unknown }} */
    const endpoint = { method: methodSelect.value, path: pathInput.value.trim() }
    if (statusInput.value !== '') endpoint.status = Number(statusInput.value)
    if (bodyInput.value.trim() !== '') {
      try {
        endpoint.body = JSON.parse(bodyInput.value)
      } catch (error) {
        say(`The body is not JSON: ${error instanceof Error ? error.message : String(error)}`, 'bad')
        return
      }
    }
    submit.disabled = true
    say('', 'ok')
    const created = await guard(() => createEndpoint(endpoint), (message) => say(message, 'bad'))
    submit.disabled = false
    if (!created) return
    say(`Created ${created.method} ${created.path} (status ${created.status}): this request answers from it now.`, 'ok')
    refreshProjects()
  })

  return h('details', { class: 'create-endpoint', 'data-testid': 'create-endpoint' },
    h('summary', { 'data-testid': 'create-endpoint-open' }, 'Create an endpoint from this request'),
    form)
}
