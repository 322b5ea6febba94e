// @ts-check
// The project list on the left.

import { listProjects } from './api.js'
import { $, guard, h } from './dom.js'
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
