import type { FakerFactory } from '../engine/generators.ts'
import type { Project } from '../model.ts'
import { loadTemplate } from './templates.ts'
import { applyProjectFile } from './apply.ts'
import type { Context } from './context.ts'

export const DEMO_SLUG = 'demo'
/** Which project `serve` made as the demo, so `init` can take over from it as the default. */
export const DEMO_META_KEY = 'demo_project_id'

/** On a database with no project at all, creates the `demo` project from the blog template. */
export function ensureDemoProject(context: Context, makeFaker: FakerFactory): Project | null {
  if (context.repos.projects.list().length > 0) return null
  const template = loadTemplate('blog')
  const { project } = applyProjectFile(context, { ...template, name: 'Demo', slug: DEMO_SLUG }, makeFaker, { prune: true })
  context.repos.meta.set(DEMO_META_KEY, String(project.id))
  return project
}
