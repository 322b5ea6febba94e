import type { FakerFactory } from '../engine/generators.ts'
import type { Project } from '../model.ts'
import { loadTemplate } from '../templates/loader.ts'
import { applyProjectFile } from './apply.ts'
import type { Store } from './context.ts'

export const DEMO_SLUG = 'demo'

/** On a database with no project at all, creates the `demo` project from the blog template. */
export function ensureDemoProject(store: Store, makeFaker: FakerFactory): Project | null {
  if (store.repos.projects.list().length > 0) return null
  const template = loadTemplate('blog')
  return applyProjectFile(store, { ...template, name: 'Demo', slug: DEMO_SLUG }, makeFaker, { prune: true }).project
}
