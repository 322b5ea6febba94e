import type { Project } from '../model.ts'
import { loadTemplate } from '../templates/loader.ts'
import { createProjectFromFile } from './apply.ts'
import type { Store } from './context.ts'

export const DEMO_SLUG = 'demo'

/** On a database with no project at all, creates the `demo` project from the blog template. */
export function ensureDemoProject(store: Store): Project | null {
  if (store.repos.projects.list().length > 0) return null
  return createProjectFromFile(store, { name: 'Demo', slug: DEMO_SLUG }, loadTemplate('blog'))
}
