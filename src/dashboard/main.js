// @ts-check
// The mockapi dashboard: native ES modules, no dependencies, no build step. This one signs in,
// switches projects and tabs, and wires each tab's module to the page.

import { ApiError, listProjects, onTokenRefused } from './api.js'
import { $, form, textArea } from './dom.js'
import { loadEndpoints, wireEndpoints } from './endpoints.js'
import { wireImport } from './import.js'
import { inboxUrl, loadInbox, renderInbox, wireInbox } from './inbox.js'
import { loadSubscriptions, renderSubscriptions, wireIntegrations } from './integrations.js'
import { closeEvents, connectEvents } from './live.js'
import { onProjectChosen, renderProjectSettings, renderProjects, wireProjectSettings } from './projects.js'
import { loadResources, wireRecords } from './records.js'
import { loadRequests, resetRequests, wireRequests } from './requests.js'
import { PROJECT_KEY, TABS, TAB_KEY, TOKEN_KEY, forgetProjectData, state } from './state.js'

/** @typedef {import('./api.js').ProjectSummaryView} ProjectSummaryView */
/** @typedef {import('./state.js').TabName} TabName */

// ---------------------------------------------------------------- sign-in

/** @param {string} text */
function decoded(text) {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

function tokenFromHash() {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash)
  if (!match?.[1]) return null
  history.replaceState(null, '', location.pathname + location.search)
  return decoded(match[1])
}

/**
 * A pasted JWT, `Bearer …`, or a whole dashboard URL with `#token=`.
 * @param {string} text
 */
function tokenFromText(text) {
  const trimmed = text.trim()
  const inUrl = /#token=([^&\s]+)/.exec(trimmed)
  return inUrl?.[1] ? decoded(inUrl[1]) : trimmed.replace(/^Bearer\s+/i, '')
}

/** @param {string} message */
function showLogin(message) {
  $('dashboard').hidden = true
  $('login').hidden = false
  $('login-error').textContent = message
  textArea('login-token').focus()
}

/** @param {string} message */
function signOut(message) {
  closeEvents()
  state.token = null
  state.project = null
  state.generation++
  sessionStorage.removeItem(TOKEN_KEY)
  showLogin(message)
}

/** @param {string} token */
async function signIn(token) {
  state.token = token
  try {
    const projects = await listProjects()
    sessionStorage.setItem(TOKEN_KEY, token)
    state.projects = projects
    $('login').hidden = true
    textArea('login-token').value = ''
    $('dashboard').hidden = false
    const saved = Number(sessionStorage.getItem(PROJECT_KEY))
    const project = projects.find((p) => p.id === saved) ?? projects.find((p) => p.isDefault) ?? projects[0]
    $('no-projects').hidden = Boolean(project)
    $('project-main').hidden = !project
    if (project) selectProject(project)
    else renderProjects()
  } catch (error) {
    // A refused token has already gone back to the sign-in screen, saying why.
    if (!(error instanceof ApiError && error.status === 401)) showLogin(error instanceof Error ? error.message : String(error))
  }
}

// ---------------------------------------------------------------- projects and tabs

/** @param {ProjectSummaryView} project */
function selectProject(project) {
  closeEvents()
  state.generation++
  state.project = project
  sessionStorage.setItem(PROJECT_KEY, String(project.id))
  forgetProjectData()
  renderProjects()
  $('project-title').textContent = project.name
  $('project-base').textContent = `${location.origin}/api/${project.slug}/`
  renderProjectSettings(project)
  $('inbox-url').textContent = inboxUrl()
  resetRequests()
  renderInbox()
  renderSubscriptions()
  connectEvents()
  loadRequests()
  loadInbox()
  loadSubscriptions()
  activateTab(state.tab)
}

/** What a tab fetches each time it is shown; the others are kept current by the live stream. */
/** @type {Partial<Record<TabName, () => Promise<void>>>} */
const LOADERS = { endpoints: loadEndpoints, records: loadResources, integrations: loadSubscriptions }

/** @param {string | null} name */
const tabName = (name) => TABS.find((tab) => tab === name) ?? 'endpoints'

/**
 * @param {TabName} name
 * @param {{ focus?: boolean }} [options]
 */
function activateTab(name, { focus = false } = {}) {
  state.tab = name
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

/** @param {KeyboardEvent} event */
function onTabKey(event) {
  const index = TABS.indexOf(state.tab)
  /** @type {Record<string, number>} */
  const moves = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: TABS.length - 1 }
  const next = moves[event.key]
  if (next === undefined) return
  event.preventDefault()
  activateTab(tabName(TABS[(next + TABS.length) % TABS.length] ?? null), { focus: true })
}

// ---------------------------------------------------------------- wiring

function wire() {
  onTokenRefused(signOut)
  onProjectChosen(selectProject)
  form('login-form').addEventListener('submit', (event) => {
    event.preventDefault()
    const token = tokenFromText(textArea('login-token').value)
    if (!token) return showLogin('Paste a token first.')
    signIn(token)
  })
  $('sign-out').addEventListener('click', () => signOut('Signed out.'))
  for (const tab of TABS) $(`tab-${tab}`).addEventListener('click', () => activateTab(tab))
  $('tabs').addEventListener('keydown', onTabKey)
  wireEndpoints()
  wireProjectSettings(loadEndpoints)
  wireImport()
  wireRecords()
  wireRequests()
  wireInbox()
  wireIntegrations()
}

function start() {
  wire()
  state.tab = tabName(sessionStorage.getItem(TAB_KEY))
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
