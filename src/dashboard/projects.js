// @ts-check
// The project list on the left.

import { listProjects, updateProject } from './api.js'
import { $, guard, h, input, notify, select } from './dom.js'
import { authText, parseAuthText } from './auth-text.js'
import { state } from './state.js'

/** @typedef {import('./api.js').ProjectSummaryView} ProjectSummaryView */

/** @type {(project: ProjectSummaryView) => void} */
let choose = () => {}

/**
 * What a click on a project does (main.js selects it).
 * @param {(project: ProjectSummaryView) => void} handler
 */
export function onProjectChosen(handler) {
  choose = handler
}

export function renderProjects() {
  $('project-list').replaceChildren(...state.projects.map((p) => h('li', {},
    h('button', {
      type: 'button', class: 'project', 'data-testid': 'project', 'data-slug': p.slug,
      'aria-current': p.id === state.project?.id ? 'true' : undefined, onclick: () => choose(p),
    }, h('span', { class: 'name' }, p.name), h('span', { class: 'muted small' }, `${p.slug} · ${p.endpointCount ?? 0} endpoints`)))))
}

/** The list again, for changed endpoint counts. */
export async function refreshProjects() {
  await guard(async () => {
    state.projects = await listProjects()
    renderProjects()
  })
}

/**
 * The selected project's settings in its heading (path rules).
 * @param {ProjectSummaryView} project
 */
export function renderProjectSettings(project) {
  select('project-path-rules').value = project.pathRules
  input('project-auth').value = authText(project.auth)
  input('project-auth').removeAttribute('aria-invalid')
  input('project-openapi-security').checked = project.openapiSecurity
  input('project-proxy').value = project.proxy?.target ?? ''
  input('project-proxy').removeAttribute('aria-invalid')
}

/**
 * Saves one project setting; a refusal puts the stored values back.
 * @param {{ auth?: unknown, openapiSecurity?: boolean }} change
 * @param {string} what
 * @param {() => Promise<void>} then
 */
async function saveAuthSetting(change, what, then) {
  const project = state.project
  if (!project) return
  const updated = await guard(() => updateProject(change), (message) => {
    input('project-auth').setAttribute('aria-invalid', 'true')
    notify(message, 'error')
  })
  if (!updated || state.project?.id !== project.id) {
    if (!updated) input('project-openapi-security').checked = project.openapiSecurity
    return
  }
  state.project = { ...project, ...updated }
  state.projects = state.projects.map((p) => (p.id === updated.id ? { ...p, ...updated } : p))
  renderProjectSettings(state.project)
  notify(`Saved: ${what} of ${updated.slug}`)
  await then()
}

/**
 * A changed setting is saved at once; a refusal puts the stored value back.
 * @param {() => Promise<void>} onAuthChanged lists the endpoints again: what each demands may have changed
 */
export function wireProjectSettings(onAuthChanged) {
  const auth = input('project-auth')
  auth.addEventListener('change', () => {
    let parsed
    try {
      parsed = parseAuthText(auth.value)
    } catch (error) {
      auth.setAttribute('aria-invalid', 'true')
      return notify(`Auth must be JSON or empty: ${/** @type {Error} */ (error).message}`, 'error')
    }
    void saveAuthSetting({ auth: parsed === 'none' ? null : parsed }, 'auth', onAuthChanged)
  })
  const security = input('project-openapi-security')
  security.addEventListener('change', () => void saveAuthSetting({ openapiSecurity: security.checked }, 'OpenAPI security', onAuthChanged))
  const proxy = input('project-proxy')
  proxy.addEventListener('change', async () => {
    const project = state.project
    if (!project) return
    const target = proxy.value.trim()
    // The target changes; headers and path rewrites set elsewhere (CLI, project file) stay.
    const change = target ? { proxy: { target, headers: project.proxy?.headers ?? {}, pathRewrite: project.proxy?.pathRewrite ?? {} } } : { proxy: null }
    const updated = await guard(() => updateProject(change), (message) => {
      proxy.setAttribute('aria-invalid', 'true')
      notify(message, 'error')
    })
    if (!updated || state.project?.id !== project.id) return
    state.project = { ...project, ...updated }
    state.projects = state.projects.map((p) => (p.id === updated.id ? { ...p, ...updated } : p))
    renderProjectSettings(state.project)
    notify(updated.proxy ? `Proxy of ${updated.slug}: ${updated.proxy.target}` : `Proxy of ${updated.slug}: off`)
  })
  const rules = select('project-path-rules')
  rules.addEventListener('change', async () => {
    const project = state.project
    if (!project) return
    const chosen = /** @type {'strict' | 'warn' | 'off'} */ (rules.value)
    const updated = await guard(() => updateProject({ pathRules: chosen }))
    if (!updated || state.project?.id !== project.id) {
      rules.value = project.pathRules
      return
    }
    state.project = { ...project, ...updated }
    state.projects = state.projects.map((p) => (p.id === updated.id ? { ...p, ...updated } : p))
    notify(`Path rules of ${updated.slug}: ${updated.pathRules} (new paths only)`)
  })
}
